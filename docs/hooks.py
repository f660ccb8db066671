"""The documentation site's generated parts, made from the code at every build (a plain
MkDocs hook, ``hooks:`` in ``mkdocs.yml``; no plugin beyond mkdocstrings).

A page asks for a generated part with a directive on a line of its own::

    <!-- otrio:obs-names oceanos_v0 -->

and :func:`on_page_markdown` replaces it with what the code says today, so no table can
drift from the code: a directive that names something the code no longer has fails the
build. The directives are the keys of :data:`DIRECTIVES` (each function's docstring says
what it writes). Besides these:

- :func:`on_files` adds the repository's own Markdown (each game's ``RULES.md`` and
  ``README.md``, ``envs/core/README.md``, the results READMEs) as pages, their links
  to files outside the site turned into repository paths, and one picture of each
  game's table (``Game.picture(...).to_rgb()``, drawn now) as PNG files;
- Sphinx roles in docstrings (``:class:`X```) become cross-references into the API
  reference where mkdocstrings rendered the object, plain code elsewhere
  (:func:`autoref`; :func:`on_page_content` does it for the API pages themselves).

The link check of the written HTML is the hook beside this one, ``docs/linkcheck.py``.
"""

from __future__ import annotations

import ast
import dataclasses
import html
import importlib
import io
import os
import posixpath
import re
import sys
import tokenize
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the code the tables are made from: this checkout's
    sys.path.insert(0, str(ROOT))
import otrio  # noqa: E402  (this checkout's, by the path above)

# mkdocstrings reads the sources by the installed layout, otrio/envs/... (pyproject's
# package-dir), which the clone does not have on disk: a folder of links lays it out
# (mkdocs.yml's mkdocstrings ``paths``), remade at every build
API_SOURCES = ROOT / "build" / "api-sources"


def _lay_out_api_sources() -> None:
    package = API_SOURCES / "otrio"
    if package.is_symlink() or package.exists():
        for child in package.iterdir():
            child.unlink()
    package.mkdir(parents=True, exist_ok=True)
    for source in (*sorted((ROOT / "otrio").glob("*.py")), *(ROOT / s for s in otrio.SUB_PACKAGES)):
        (package / source.name).symlink_to(source)


_lay_out_api_sources()

# the repository's Markdown files that become pages: source -> page
INCLUDED = {
    "envs/oceanos/RULES.md": "games/oceanos/rules.md",
    "envs/oceanos/README.md": "games/oceanos/environment.md",
    "envs/otys/RULES.md": "games/otys/rules.md",
    "envs/otys/README.md": "games/otys/environment.md",
    "envs/otontin/RULES.md": "games/otontin/rules.md",
    "envs/otontin/README.md": "games/otontin/environment.md",
    "envs/core/README.md": "develop/contract.md",
    "agents/pretrained/README.md": "results/agents.md",
    "benchmarks/results/search/README.md": "results/search.md",
    "benchmarks/results/values/README.md": "results/values.md",
    "benchmarks/results/balance/README.md": "results/balance.md",
    "benchmarks/RESULTS.md": "results/benchmarks.md",
}
PICTURE_DECISIONS = 60  # seeded random decisions before a game's table is drawn
PICTURE_SEED = 0
DIRECTIVE = re.compile(r"^<!-- otrio:([a-z-]+)([ \t][^\n]*?)?[ \t]*-->$", re.MULTILINE)


# ------------------------------------------------------------------ helpers
def _esc(text: object) -> str:
    return html.escape(str(text), quote=False)


def _inline(text: str) -> str:
    """Plain text with `code` spans, as HTML (for cells of the generated tables)."""
    parts = re.split(r"(``?[^`]+``?)", text)
    return "".join(f"<code>{_esc(p.strip('`'))}</code>" if p.startswith("`")
                   else re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", _esc(p))
                   for p in parts)


def _table(head: list[str], rows: list[list[str]]) -> str:
    """An HTML table (cells already HTML): a blank line either side, so Markdown keeps
    it; no class, so the theme styles it as a Markdown table."""
    out = ["<table>", "<thead><tr>"
           + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    out.append("</tbody></table>")
    return "\n" + "\n".join(out) + "\n"


def _code(text: object) -> str:
    return f"<code>{_esc(text)}</code>"


def _game(env_id: str):
    """The ``Game`` object of an env id (``otrio.envs.core.game.Game``)."""
    from otrio.envs.core.registry import ENV_MODULES

    return importlib.import_module(ENV_MODULES[env_id]).GAME


def _object(path: str):
    """``module:attribute`` (or ``module.attribute``) imported."""
    module, _, name = path.partition(":") if ":" in path else path.rpartition(".")
    return getattr(importlib.import_module(module), name)


PACKAGES = ("otrio",)  # absolute names start here; others are looked up in the module
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|ref|const):`([^`]+)`")


def autoref(target: str, module: str | None = None) -> str:
    """A role's target as an optional cross-reference into the API reference (a link
    where mkdocstrings rendered the object, plain code where it did not): ``~a.b.C``
    shows ``C``; a name that is not absolute is looked up in ``module``."""
    shown = target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target
    target = target.lstrip("~")
    first, _, rest = target.partition(".")
    if module and first not in PACKAGES:
        where = _imported(module).get(first)  # a name the module imports: where it lives
        target = f"{where}{'.' + rest if rest else ''}" if where else f"{module}.{target}"
    return (f'<autoref identifier="{html.escape(target)}" optional>'
            f"<code>{_esc(shown)}</code></autoref>")


def _imported(module: str) -> dict[str, str]:
    """``name -> full.path`` of what ``module`` imports with ``from X import name``."""
    path = _module_path(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                out[alias.asname or alias.name] = f"{source}.{alias.name}"
    return out


def clean_roles(text: str, module: str | None = None, link: bool = False) -> str:
    """Sphinx roles (``:class:`~a.b.C```) as Markdown code (```C```), or with ``link``
    as :func:`autoref` cross-references."""
    if link:
        return ROLE.sub(lambda m: autoref(m.group(1), module), text)
    return ROLE.sub(lambda m: f"`{m.group(1).lstrip('~').rsplit('.', 1)[-1]}`"
                    if m.group(1).startswith("~") else f"`{m.group(1)}`", text)


def docstring_markdown(text: str, module: str | None = None) -> str:
    """A docstring as Markdown: roles as cross-references (names relative to
    ``module``), RST's ``::`` before a literal block as ``:`` (the indented block is
    Markdown's code block too)."""
    text = clean_roles(text, module, link=True)
    text = re.sub(r"(\S)::\n\n", r"\1:\n\n", text)
    return re.sub(r"^\s*::\n\n", "\n", text, flags=re.MULTILINE)


# ------------------------------------------------------- comments of fields
def field_comments(cls: type) -> dict[str, str]:
    """What the source says of each field of a class body: the comment lines just above
    it and the comments on its own line(s), joined (``x: int = 1  # why``)."""
    import inspect
    import textwrap

    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    return source_comments(source, ast.parse(source).body[0].body)


def source_comments(source: str, body: list[ast.stmt]) -> dict[str, str]:
    """The comments on each assignment of ``body`` (statements parsed from ``source``)
    to one name: the comment lines just above it and those on its own line(s)."""
    lines = source.splitlines()
    found: dict[int, str] = {}  # line number -> its comment
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string.lstrip("#").strip()

    def alone(row: int) -> bool:
        return row in found and lines[row - 1].lstrip().startswith("#")

    comments = {}
    for node in body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name)):
            name = node.targets[0].id
        else:
            continue
        above, row = [], node.lineno - 1
        while row >= 1 and alone(row):
            above.insert(0, found[row])
            row -= 1
        inside = [found[r] for r in range(node.lineno, node.end_lineno + 1) if r in found]
        text = " ".join(above + inside)
        if text:
            comments[name] = text
    return comments


def _type_name(annotation: Any) -> str:
    """An annotation as a reader writes it: ``int``, ``"raise" | "terminate"``,
    ``list[int]``, ``int | None``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(f'"{a}"' if isinstance(a, str) else repr(a) for a in args)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Union or type(annotation).__name__ == "UnionType":
        return " | ".join("None" if a is type(None) else _type_name(a) for a in args)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        if origin is tuple and len(args) > 2 and len(set(args)) == 1:  # tuple[5 × int]
            inner = _type_name(args[0])
            return f"{name}[{len(args)} × {inner if ' ' not in inner else f'({inner})'}]"
        inner = ", ".join("..." if a is Ellipsis else _type_name(a) for a in args)
        return f"{name}[{inner}]" if args else name
    if annotation is type(None):
        return "None"
    if annotation is Any:
        return "any"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _yaml_value(value: Any) -> str:
    """A default as a config would write it (YAML): ``null``, ``true``, ``[1, 2]``."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:_}".replace("_", ",") if abs(value) >= 10_000 else str(value)
    return str(value)


def _default_cell(value: Any, owner: type) -> str:
    text = _yaml_value(value)
    if len(text) <= 48:
        return _code(text)
    count = len(value) if hasattr(value, "__len__") else None
    where = owner.__module__
    return f"a table of {count} (<code>{_esc(where)}</code>)" if count else \
        f"<code>{_esc(text[:45])}…</code>"


def _limits(field) -> str:
    """A pydantic field's numeric and length constraints, as ``≥ 2, ≤ 5``."""
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥",
             "max_length": "length ≤"}
    out = []
    for meta in field.metadata:
        for attr, sign in marks.items():
            value = getattr(meta, attr, None)
            if value is not None:
                out.append(f"{sign} {_yaml_value(value)}")
    return ", ".join(out)


def _first_sentence(text: str | None) -> str:
    text = " ".join((text or "").split())
    match = re.match(r"(.+?\.)(\s|$)", text)
    return match.group(1) if match else text


def config_rows(model: type, prefix: str = "", meanings: dict[str, str] | None = None,
                nest: bool = True) -> list[list[str]]:
    """One row per key of a pydantic model (with ``nest``, nested models' keys as
    ``parent.child`` rows too): key, type and limits, default, and what it means:
    ``meanings[key]`` where given, else the field's description or the source's
    comments on it."""
    from pydantic import BaseModel
    from pydantic_core import PydanticUndefined

    comments = {}
    for klass in reversed(model.__mro__):  # a subclass's comment wins
        if isinstance(klass, type) and issubclass(klass, BaseModel) and klass is not BaseModel:
            comments.update(field_comments(klass))
    rows = []
    for name, field in model.model_fields.items():
        key = prefix + name
        annotation = field.annotation
        nested = annotation if isinstance(annotation, type) and issubclass(
            annotation, BaseModel) else None
        if field.default is not PydanticUndefined:
            default = field.default
        elif field.default_factory is not None:
            default = field.default_factory()
        else:
            default = PydanticUndefined
        says = (meanings or {}).get(key) or field.description or comments.get(name, "")
        if nested is not None:
            says = says or _first_sentence(nested.__doc__)
        kind = _type_name(annotation) if nested is None or not nest else "mapping"
        limits = _limits(field)
        if default is PydanticUndefined:
            shown = "<em>required</em>"
        elif nested is not None:
            shown = "see below" if nest else f"{_code(nested.__name__)}'s defaults"
        else:
            shown = _default_cell(default, model)
        rows.append([_code(key), _inline(kind) + (f"<br>{_esc(limits)}" if limits else ""),
                     shown, _inline(says)])
        if nested is not None and nest:
            rows.extend(config_rows(nested, key + ".", meanings))
    return rows


# --------------------------------------------------------------- directives
def d_config(arg: str, page) -> str:
    """``config MODULE:CLASS [shallow]``: the keys of a pydantic config model (nested
    models' keys flattened, unless ``shallow``), with their types, limits, defaults and
    the source's comments."""
    path, _, flag = arg.partition(" ")
    return _table(["key", "type", "default", "meaning"],
                  config_rows(_object(path), nest=flag != "shallow"))


def d_game_config(env_id: str, page) -> str:
    """``game-config ENV``: the game's config keys (``Game.config_model``: keys, types,
    limits and defaults from the code), each meaning from the config table of the game's
    README where it has a row for the key, else from the code's comments."""
    game = _game(env_id)
    readme = ROOT / "envs" / game.info.name / "README.md"
    return _table(["key", "type", "default", "meaning"],
                  config_rows(game.config_model, meanings=readme_meanings(readme)))


def readme_meanings(path: Path) -> dict[str, str]:
    """``key -> meaning`` from a README's ``| key | default | meaning |`` table (a row
    may name several keys: ```a`, `b```)."""
    out: dict[str, str] = {}
    rows = iter(path.read_text(encoding="utf-8").splitlines())
    for line in rows:
        if re.match(r"^\|\s*key\s*\|\s*default\s*\|\s*meaning\s*\|", line):
            break
    for line in rows:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 3 or set(cells[0]) <= {"-", " "}:
            continue
        meaning = re.sub(r"^core:\s*", "", cells[2])
        for key in re.findall(r"`([^`]+)`", cells[0]):
            out[key.rstrip(".*")] = meaning
    return out


def d_games(arg: str, page) -> str:
    """``games``: every registered game, its players, sizes and ids."""
    from otrio import envs
    from otrio.envs.core.registry import GYMNASIUM_IDS

    rows = []
    for env_id in envs.available():
        info = _game(env_id).info
        link = _rel(page, f"games/{info.name}/index.html")  # raw HTML: MkDocs leaves it
        rows.append([f'<a href="{link}">{_esc(info.name.capitalize())}</a>', _code(env_id),
                     f"{info.min_players}–{info.max_players} ({info.default_players})",
                     f"{info.num_actions}", f"{info.observation_size}",
                     _code(f"otrio/{env_id}"), _code(GYMNASIUM_IDS[env_id])])
    return _table(["game", "env id", "players (default)", "actions", "observation",
                   "PettingZoo id", "gymnasium self-play id"], rows)


def d_game_info(env_id: str, page) -> str:
    """``game-info ENV``: the game's ``GameInfo`` and ids, in one row."""
    from otrio.envs.core.registry import GYMNASIUM_IDS

    game = _game(env_id)
    info = game.info
    return _table(
        ["env id", "players (default)", "actions", "observation", "full state",
         "decision cap", "PettingZoo id", "gymnasium self-play id"],
        [[_code(env_id), f"{info.min_players}–{info.max_players} ({info.default_players})",
          f"{info.num_actions}", f"{info.observation_size} float32",
          f"{game.full_state.layout.size} float32",
          f"{game.decision_cap(game.config_model()):,} (default setup; any: "
          f"≤ {info.max_decisions:,})",
          _code(f"otrio/{env_id}"), _code(GYMNASIUM_IDS[env_id])]])


def d_picture(arg: str, page) -> str:
    """``picture ENV [SEAT]``: the table drawn by ``Game.picture`` (the whole table, or
    what seat SEAT knows) after a few seeded random decisions, as a PNG made at build
    time; the page shows it shrunk, a click opens it at full size."""
    env_id, _, seat = arg.partition(" ")
    src = _rel(page, _picture_name(env_id, int(seat) if seat else None))
    who = f"seat {seat}'s view" if seat else "the whole table"
    return (f'[![{env_id}: {who}]({src}){{ .otrio-picture }}]({src} "full size")\n\n'
            f"*{env_id}, {who}, after {PICTURE_DECISIONS} seeded random decisions "
            f"(`Game.picture(state{', ' + seat if seat else ''}).to_rgb()`, drawn when the "
            f"site was built); click it for full size.*")


def d_actions(env_id: str, page) -> str:
    """``actions ENV``: the action table by block: ids, the names' pattern and what the
    moves mean (``ActionTable.legend()``)."""
    table = _game(env_id).actions
    rows = []
    for ids, (pattern, meaning) in zip(table.blocks.values(), table.legend()):
        span = f"{ids.start}" if len(ids) == 1 else f"{ids.start}–{ids.stop - 1}"
        rows.append([span, _code(pattern), str(len(ids)), _inline(meaning)])
    return _table(["ids", "names", "count", "meaning"], rows)


def d_action_names(env_id: str, page) -> str:
    """``action-names ENV``: every action id with its name, one folded list per block."""
    table = _game(env_id).actions
    out = []
    for kind, ids in table.blocks.items():
        rows = [[str(i), _code(table.name(i))] for i in ids]
        out.append(f'<details class="otrio-actions"><summary><code>{_esc(kind)}</code>: '
                   f"ids {ids.start}–{ids.stop - 1}</summary>"
                   f"{_table(['id', 'name'], rows)}</details>")
    return "\n" + "\n".join(out) + "\n"


def d_obs_pieces(env_id: str, page) -> str:
    """``obs-pieces ENV``: the observation layout's table (``layout.markdown()``)."""
    return "\n" + _game(env_id).layout.markdown() + "\n"


def d_obs_names(env_id: str, page) -> str:
    """``obs-names ENV``: every observation index with its name
    (``env.unwrapped.observation_names()``) and bounds, one folded table per piece."""
    return _names_tables(_game(env_id).layout)


def d_state_pieces(env_id: str, page) -> str:
    """``state-pieces ENV``: the full state's layout table (``env.state()``)."""
    return "\n" + _game(env_id).full_state.layout.markdown() + "\n"


def _names_tables(layout) -> str:
    names = layout.names()
    low, high = layout.bounds()
    out = []
    for piece, shape, doc in layout.pieces:
        a, b, _ = layout.offsets[piece]
        rows = [[str(i), _code(names[i]), f"{low[i]:.4g}", f"{high[i]:.4g}"]
                for i in range(a, b)]
        out.append(f'<details class="otrio-names"><summary><code>{_esc(piece)}</code> '
                   f"{_esc(shape)}: indices {a}–{b - 1}, {_esc(doc)}</summary>"
                   f"{_table(['index', 'name', 'low', 'high'], rows)}</details>")
    return "\n" + "\n".join(out) + "\n"


def d_mcts_options(arg: str, page) -> str:
    """``mcts-options``: every option of the search agent, its default, range and what
    it does (``otrio.agents.search_options``), and each game's defaults."""
    from otrio.agents import search_options as so

    comments = field_comments(so.SearchOptions)
    games = list(so.GAME_DEFAULTS)
    rows = []
    for f in dataclasses.fields(so.SearchOptions):
        per_game = [_code(_yaml_value(so.GAME_DEFAULTS[g][f.name]))
                    if f.name in so.GAME_DEFAULTS[g] else "" for g in games]
        rows.append([_code(f.name), _code(_yaml_value(f.default) if f.default != "" else '""'),
                     *per_game, _inline(so.MCTS_OPTIONS.get(f.name).takes()), _inline(comments.get(f.name, ""))])
    return _table(["option", "default", *[f"{g}" for g in games], "range", "meaning"], rows)


def d_zoo(arg: str, page) -> str:
    """``zoo``: the zoo (``agents/zoo.json``, ``otrio.agents.zoo``), one table per game: a
    row per player count, a column per tier, each cell the tier's player by its short name
    and its win share in one seat among greedy (its spec, time and interval in the
    tooltip), or ``= greedy`` (the tier it resolves to, the reason in the tooltip)."""
    from otrio.agents.zoo import RESOLVED, TIER_SECONDS, load_zoo
    from otrio.envs.core.registry import ENV_MODULES

    zoo = load_zoo()
    limit = {t: f"{s * 1000:g} ms" if s < 0.1 else f"{s:g} s" for t, s in TIER_SECONDS.items()}
    head = [f"{tier} (≤ {limit[tier]})" for tier in RESOLVED]
    out = []
    for game in dict.fromkeys(e.game for e in zoo.entries):  # the zoo's order
        info = next(_game(env_id).info for env_id in ENV_MODULES
                    if _game(env_id).info.name == game)
        rows = []
        for n in range(info.min_players, info.max_players + 1):
            row = [f"{n} players (fair {1 / n:.3f})"]
            for tier in RESOLVED:
                spec, note = zoo.resolve(tier, game, n)
                entry = zoo.entry(game, n, tier)
                if entry is not None and entry.spec is not None:
                    s = entry.strength
                    tip = (f"{entry.spec} · {entry.ms:g} ms a decision · "
                           f"[{s.low:.3f}, {s.high:.3f}] over {s.games:,} games")
                    text = f"{_esc(entry.name)} · {s.share:.3f}"
                elif entry is not None:
                    tip, text = entry.why, f"= {entry.same_as}"
                else:  # no cell: the lower tier whose player it resolves to
                    lower = next((t for t in RESOLVED if getattr(
                        zoo.entry(game, n, t), "spec", None) == spec), spec)
                    tip, text = note, f"= {_esc(lower)}"
                row.append(f'<span title="{html.escape(tip)}">{text}</span>')
            rows.append(row)
        out.append(_table([game.capitalize(), *head], rows))
    return "".join(out)


def d_docstring(arg: str, page) -> str:
    """``docstring MODULE``: a module's docstring, read from its source (nothing is
    imported: a module of an extra, such as ``otrio.integrations.openspiel``, needs none)."""
    text = ast.get_docstring(ast.parse(_module_path(arg).read_text(encoding="utf-8")))
    if not text:
        raise ValueError(f"{arg} has no docstring")
    return "\n" + docstring_markdown(text, arg) + "\n"


def d_docstring_of(arg: str, page) -> str:
    """``docstring-of MODULE.NAME`` (or ``MODULE.CLASS.METHOD``): the docstring of a
    function or class, read from the module's source."""
    parts = arg.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        path = _module_path(".".join(parts[:cut]))
        if path.exists():
            break
    else:
        raise ValueError(f"no module in {arg}")
    module, names = ".".join(parts[:cut]), parts[cut:]
    node: ast.AST = ast.parse(path.read_text(encoding="utf-8"))
    for name in names:
        node = next(n for n in node.body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name)
    text = ast.get_docstring(node)
    if not text:
        raise ValueError(f"{arg} has no docstring")
    return "\n" + docstring_markdown(text, module) + "\n"


def d_greedy(arg: str, page) -> str:
    """``greedy``: each game's greedy heuristic, from its module's docstring
    (``otrio.agents.greedy.GREEDY`` names the modules)."""
    from otrio.agents.greedy import GREEDY

    out = []
    for game, where in GREEDY.items():
        module = where.partition(":")[0]
        out += [f"### {game.capitalize()} (`{module}`)", d_docstring(module, page)]
    return "\n" + "\n".join(out) + "\n"


def d_examples(arg: str, page) -> str:
    """``examples``: every recipe in ``examples/`` with the first paragraph of its
    docstring."""
    rows = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        first = clean_roles(text.split("\n\n")[0])
        rows.append([_code(path.relative_to(ROOT).as_posix()), _inline(" ".join(first.split()))])
    return _table(["recipe", "what it does"], rows)


def d_learning_check(arg: str, page) -> str:
    """``learning-check``: the measured runs of ``tools/learning_check.py``, one row per
    line of ``benchmarks/results/learning_check/*.jsonl``."""
    import json

    rows = []
    for path in sorted((ROOT / "benchmarks/results/learning_check").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            low, high = r["wilson95"]
            rows.append([_code(r["route"]), f"{r['game']}, {r['players']} players",
                         "dense" if r["dense_reward"] else "sparse",
                         f"{r['env_steps']:,}", f"{r['train_seconds']:.0f} s",
                         f"<strong>{r['win_share_vs_random']:.3f}</strong> "
                         f"[{low:.3f}, {high:.3f}] over {r['games']}",
                         f"{r['target']} ({'met' if r['target_met'] else 'not met'})"])
    return _table(["route", "game", "rewards", "learner steps", "training",
                   "win share vs random (95%)", "target"], rows)


def d_cli(arg: str, page) -> str:
    """``cli``: ``otrio --help`` and every subcommand's ``--help``, as argparse prints
    them (``otrio.cli.build_parser``)."""
    import argparse

    import otrio.cli

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "92"
    try:
        parser = otrio.cli.build_parser()
        out = ["```text", parser.format_help().rstrip(), "```"]
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for name, command in sub.choices.items():
            out += ["", f"## `otrio {name}`", "", "```text", command.format_help().rstrip(), "```"]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n" + "\n".join(out) + "\n"


def d_shipped_configs(arg: str, page) -> str:
    """``shipped-configs DIR``: the YAML configs under ``configs/DIR`` with the comment
    they open with."""
    rows = []
    for path in sorted((ROOT / "configs" / arg).glob("*.yaml")):
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
        rows.append([_code(path.relative_to(ROOT).as_posix()), _inline(" ".join(lines))])
    return _table(["config", "what it is"], rows)


def d_extras(arg: str, page) -> str:
    """``extras``: the optional dependencies of ``pyproject.toml``, each with the
    comment above it there."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: pip's own copy of the same parser
        from pip._vendor import tomli as tomllib

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = tomllib.loads(text)["project"]["optional-dependencies"]
    lines = text.splitlines()
    rows = []
    for name, needs in extras.items():
        at = next(i for i, line in enumerate(lines) if re.match(rf"^{re.escape(name)}\s*=", line))
        above = []
        while at > 0 and lines[at - 1].startswith("#"):
            at -= 1
            above.insert(0, lines[at].lstrip("#").strip())
        rows.append([_code(f"pip install '.[{name}]'"), _inline(" ".join(above)),
                     ", ".join(_code(n) for n in needs)])
    return _table(["extra", "for", "installs"], rows)


def d_limits(arg: str, page) -> str:
    """``limits MODULE...``: every ``MAX_*`` constant of the modules named, its value and
    the comment beside it: the bounds on what a file may make the suite read."""
    rows = []
    for module in arg.split():
        source = _module_path(module).read_text(encoding="utf-8")
        comments = source_comments(source, ast.parse(source).body)
        loaded = importlib.import_module(module)
        for name in vars(loaded):
            if name.startswith("MAX_") and isinstance(getattr(loaded, name), (int, float)):
                rows.append([_code(f"{module}.{name}"), _size(name, getattr(loaded, name)),
                             _inline(comments.get(name, ""))])
    return _table(["limit", "value", "what it bounds"], rows)


def _size(name: str, value: float) -> str:
    if name.endswith("_BYTES") and value >= 1024:
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if value >= size and value % size == 0:
                return f"{value // size:,} {unit}"
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def d_value(arg: str, page) -> str:
    """``value MODULE.NAME``: a constant's value, inline."""
    return _yaml_value(_object(arg))


def d_pin(package: str, page) -> str:
    """``pin PACKAGE``: the pin the Makefile installs of a package (``torch==2.13.0``),
    inline, so that the docs say what CI uses; a Makefile that pins it two ways, or not
    at all, fails the build."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    pins = sorted(set(re.findall(rf"(?<![\w.-]){re.escape(package)}==[\w.+!]+", text)))
    if len(pins) != 1:
        raise ValueError(f"the Makefile pins {package} {len(pins)} ways: {pins}")
    return pins[0]


def d_api(arg: str, page) -> str:
    """``api PACKAGE [MODULE...]``: mkdocstrings' reference of a package and every
    public module under it (found on disk, so a new module gets its section), or of the
    modules named. Each module shows the public names it defines itself and documents
    (what it imports, such as a package's re-exports, is documented where it is
    defined, and what the public API page shows is left to it, so that every object
    has one place; a name with no docstring has nothing to say)."""
    package, *named = arg.split()
    public = _public()
    out = []
    for module in named or _modules(package):
        names = [n for n in _defined_names(module) if f"{module}.{n}" not in public]
        members = "[" + ", ".join(names) + "]" if names else "false"
        out += ["", f"::: {module}", "    options:", f"      members: {members}", ""]
    return "\n".join(out)


PUBLIC_PAGE = ROOT / "docs" / "api" / "index.md"
CLI_PACKAGES = ("otrio.benchmarks", "otrio.training")  # where the commands' work lives


def _public() -> set[str]:
    """Where each object of the public API page is defined (``otrio.make`` is
    ``otrio.envs.core.registry.make``): its ``:::`` blocks and the commands' entry
    points (:func:`entry_points`)."""
    shown = re.findall(r"^::: (\S+)", PUBLIC_PAGE.read_text(encoding="utf-8"), re.M)
    shown += [f for functions in entry_points().values() for f in functions]
    return {_definition(name) for name in shown}


def _definition(name: str) -> str:
    """The full name where ``name`` is defined, following ``from X import y`` (read
    from the sources, nothing imported)."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if _module_path(module).exists():
            break
    else:
        return name
    where = _imported(module).get(parts[cut])
    if where is None:
        return name
    return _definition(".".join([where, *parts[cut + 1:]]))


def entry_points() -> dict[str, list[str]]:
    """``otrio COMMAND`` -> the functions of :data:`CLI_PACKAGES` that its handler (in
    ``otrio/cli.py`` or the module beside it that defines it) calls (a ``return
    _other(args)`` is followed; a call whose result is only printed is not one): what a
    script calls to do the same."""
    import argparse
    import inspect

    import otrio.cli

    def called(handlers: dict[str, ast.FunctionDef], name: str, module: str) -> list[str]:
        node, imported, out = handlers[name], {}, []
        for n in ast.walk(node):
            if isinstance(n, ast.ImportFrom) and (n.module or "").startswith(CLI_PACKAGES):
                imported.update({a.asname or a.name: f"{n.module}.{a.name}" for a in n.names})
        printed = {id(a) for n in ast.walk(node) if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Name) and n.func.id == "print" for a in n.args}
        for n in ast.walk(node):
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and isinstance(
                    n.value.func, ast.Name) and n.value.func.id in handlers:
                out += called(handlers, n.value.func.id, module)
            if not isinstance(n, ast.Call) or id(n) in printed:
                continue
            f = n.func
            if isinstance(f, ast.Name) and f.id in handlers and not f.id.startswith("_"):
                out.append(f"{module}.{f.id}")  # a public function of the command's module
            elif isinstance(f, ast.Name) and f.id in imported:
                out.append(imported[f.id])
            elif isinstance(f, ast.Attribute) and getattr(f.value, "id", None) in imported:
                out.append(f"{imported[f.value.id]}.{f.attr}")
        return list(dict.fromkeys(out))

    parser = otrio.cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {}
    for name, command in sub.choices.items():
        func = command.get_default("func")
        module = inspect.getmodule(func)
        tree = ast.parse(inspect.getsource(module))
        handlers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        out[name] = called(handlers, func.__name__, module.__name__)
    return out


def d_entry_points(arg: str, page) -> str:
    """``entry-points``: each ``otrio`` command and the Python functions it runs
    (:func:`entry_points`), then the reference of each function."""
    commands = entry_points()
    rows, functions = [], []
    for name, called in commands.items():
        rows.append(f"| `otrio {name}` | "
                    + (", ".join(f"[`{f}`][{f}]" for f in called) or "—") + " |")
        functions += called
    out = ["", "| command | runs |", "|---|---|", *rows, ""]
    for f in dict.fromkeys(functions):
        out += [f"::: {f}", "    options:", "      heading_level: 3", ""]
    return "\n".join(out)


def _folder(module: str) -> Path:
    """Where a module's name points in the clone: ``otrio.envs.core`` is ``envs/core``
    (pyproject's package-dir), ``otrio.cli`` is ``otrio/cli``."""
    parts = module.split(".")
    if parts[0] == "otrio" and len(parts) > 1 and not (ROOT / "otrio" / f"{parts[1]}.py").exists():
        parts = parts[1:]
    return ROOT.joinpath(*parts)


def _module_path(module: str) -> Path:
    """The source file of a module (a package's ``__init__.py``)."""
    path = _folder(module).with_suffix(".py")
    return path if path.exists() else _folder(module) / "__init__.py"


def _defined_names(module: str) -> list[str]:
    """The public names a module defines and documents (functions and classes with a
    docstring, assignments followed by one), in source order; only those of its
    ``__all__`` where it has one. A constant known only by its comment (``FUSS =
    0.001  # ...``) stays out of the reference: it is the module's business."""
    tree = ast.parse(_module_path(module).read_text(encoding="utf-8"))
    names, exported = [], None
    for node, after in zip(tree.body, [*tree.body[1:], None]):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if ast.get_docstring(node):
                names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            documented = isinstance(after, ast.Expr) and isinstance(
                after.value, ast.Constant) and isinstance(after.value.value, str)
            for target in targets:
                if isinstance(target, ast.Name):
                    if target.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                        exported = {e.value for e in node.value.elts
                                    if isinstance(e, ast.Constant)}
                    if documented:
                        names.append(target.id)
    names = [n for n in dict.fromkeys(names) if not n.startswith("_")]
    return [n for n in names if exported is None or n in exported]


def _modules(package: str) -> list[str]:
    """``package`` and its public modules, recursively (sorted; no ``_private`` ones)."""
    folder = _folder(package)
    out = [package]
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if any(p.startswith("_") for p in parts):
            continue
        if not all((folder.joinpath(*parts[:k]) / "__init__.py").exists()
                   for k in range(len(parts))):
            continue
        out.append(".".join((package, *parts)))
    return out


def d_run_kinds(arg: str, page) -> str:
    """``run-kinds``: every run kind the commands declare (``otrio.arena.run_folder``), the
    command that writes it, and its files with their roles."""
    import otrio.cli

    rows = []
    for kind in sorted(otrio.cli.run_kinds().values(), key=lambda k: k.name):
        files = "<br>".join(f"{_code(f.pattern)} ({f.role}): {html.escape(f.what)}"
                            for f in kind.files)
        rows.append([html.escape(kind.name), _code(kind.command), files])
    return _table(["kind", "written by", "files (role): what each holds"], rows)


DIRECTIVES = {
    "run-kinds": d_run_kinds,
    "config": d_config,
    "game-config": d_game_config,
    "games": d_games,
    "game-info": d_game_info,
    "picture": d_picture,
    "actions": d_actions,
    "action-names": d_action_names,
    "obs-pieces": d_obs_pieces,
    "obs-names": d_obs_names,
    "state-pieces": d_state_pieces,
    "mcts-options": d_mcts_options,
    "zoo": d_zoo,
    "docstring": d_docstring,
    "cli": d_cli,
    "learning-check": d_learning_check,
    "greedy": d_greedy,
    "docstring-of": d_docstring_of,
    "examples": d_examples,
    "shipped-configs": d_shipped_configs,
    "extras": d_extras,
    "limits": d_limits,
    "value": d_value,
    "pin": d_pin,
    "api": d_api,
    "entry-points": d_entry_points,
}
INLINE = re.compile(r"<!-- otrio:(value|pin) (\S+) -->")  # these two work inside a line


def expand(markdown: str, page) -> str:
    """Every directive of a page replaced by what it makes."""
    def one(match: re.Match) -> str:
        name, arg = match.group(1), (match.group(2) or "").strip()
        if name not in DIRECTIVES:
            raise ValueError(f"{page.file.src_uri}: unknown directive otrio:{name} "
                             f"(known: {', '.join(DIRECTIVES)})")
        return DIRECTIVES[name](arg, page)

    markdown = INLINE.sub(lambda m: DIRECTIVES[m.group(1)](m.group(2), page), markdown)
    return DIRECTIVE.sub(one, markdown)


# ------------------------------------------------------------------- paths
def _rel(page, target: str) -> str:
    """``target`` (a path from the site's root, as in docs/) relative to ``page``."""
    here = posixpath.dirname(page.file.src_uri)
    return posixpath.relpath(target, here or ".")


def _picture_name(env_id: str, seat: int | None) -> str:
    return f"img/{env_id}{'' if seat is None else f'_seat{seat}'}.png"


def draw(env_id: str, seat: int | None) -> bytes:
    """A game's table after :data:`PICTURE_DECISIONS` seeded random decisions, as PNG."""
    import numpy as np
    from PIL import Image

    from otrio import envs

    env = envs.make(env_id)
    env.reset(seed=PICTURE_SEED)
    game, rng = env.unwrapped.game, np.random.default_rng(PICTURE_SEED)
    for _ in range(PICTURE_DECISIONS):
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    buffer = io.BytesIO()
    Image.fromarray(game.picture(env.unwrapped.state_, seat).to_rgb()).save(
        buffer, format="png", optimize=True)
    return buffer.getvalue()


LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def rewrite_links(text: str, source: str) -> str:
    """A repository file's links as the site needs them: to another included file, its
    page; to any other file of the repository, that file's path as code (the site holds
    only its pages); anchors and web addresses as they are."""
    page = INCLUDED[source]

    def fix(match: re.Match) -> str:
        bang, label, target = match.groups()
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return match.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if repo_path in INCLUDED:
            rel = posixpath.relpath(INCLUDED[repo_path], posixpath.dirname(page))
            return f"[{label}]({rel}{'#' + anchor if anchor else ''})"
        shown = f"`{repo_path}`"
        if bang or label.strip("`") in (path, repo_path):
            return shown
        return f"{label} ({shown})"

    # links inside fenced blocks are left alone: split them out
    parts = re.split(r"(^```.*?^```)", text, flags=re.DOTALL | re.MULTILINE)
    return "".join(p if p.startswith("```") else LINK.sub(fix, p) for p in parts)


# -------------------------------------------------------------------- hooks
def on_files(files, config):
    """The repository's Markdown pages and the tables' pictures, added to the site."""
    from mkdocs.structure.files import File

    for source, page in INCLUDED.items():
        text = (ROOT / source).read_text(encoding="utf-8")
        note = (f"\n\n---\n*This page is `{source}` of the repository, included "
                "as it is when the site is built.*\n")
        files.append(File.generated(config, page, content=rewrite_links(text, source) + note))
    from otrio import envs

    for env_id in envs.available():  # the whole table, and seat 0's view
        for seat in (None, 0):
            files.append(File.generated(config, _picture_name(env_id, seat),
                                        content=draw(env_id, seat)))
    return files


def on_page_markdown(markdown, page, config, files):
    return expand(markdown, page)


ROLE_HTML = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|ref|const):<code>(~?[^<]*)</code>")


def on_page_content(html_text, page, config, files):
    """Sphinx roles left in docstrings that mkdocstrings rendered
    (``:class:<code>X</code>``) as cross-references (:func:`autoref`), and RST's ``::``
    before a literal block as ``:`` (as :func:`docstring_markdown` does)."""
    html_text = html_text.replace("::</p>", ":</p>")
    return ROLE_HTML.sub(lambda m: autoref(html.unescape(m.group(1))), html_text)
