"""The documentation site builds with warnings as errors (``make docs``), and its
generated tables say what the code says: every observation index and every action id
by name, every config key, the examples that run.

The site is built once, into a temporary folder, with MkDocs (``mkdocs.yml``: Material
and mkdocstrings; the tables and pictures come from ``docs/hooks.py``). Without MkDocs
the build tests are skipped: ``pip install -e '.[docs]'`` (in ``.[dev]``).
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from otrio import envs

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("oceanos", "otys", "otontin")
NEEDS = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
PAGES = ["index.html", "environments.html", "agents.html", "training.html",
         "tournaments.html", "balance.html", "replays.html", "libraries.html", "safety.html",
         "cli.html", "api/index.html", "api/envs.html", "api/envs-core.html", "api/agents.html",
         "api/training.html", "api/benchmarks.html", "api/integrations.html",
         "develop/contract.html", "results/agents.html", "results/search.html",
         "results/balance.html", "results/benchmarks.html",
         *(f"games/{g}/{p}.html" for g in GAMES for p in ("index", "rules", "environment")),
         *(f"img/{g}_v0{s}.png" for g in GAMES for s in ("", "_seat0"))]


def _missing() -> list[str]:
    missing = []
    for name in NEEDS:
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            missing.append(name)
    return missing


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built with ``--strict`` (any warning fails the build)."""
    missing = _missing()
    if missing:
        pytest.skip(f"MkDocs is not installed ({', '.join(missing)} missing): "
                    "pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("docs") / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    assert "WARNING" not in result.stderr, result.stderr[-5000:]
    return out


def _page(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def _rows(text: str, table_class: str) -> list[list[str]]:
    """The cells of every row of the tables inside elements of ``table_class``, as text."""
    rows = []
    for block in re.findall(rf'<details class="{table_class}">(.*?)</details>', text, re.S):
        for row in re.findall(r"<tr>(.*?)</tr>", block, re.S):
            cells = re.findall(r"<td>(.*?)</td>", row, re.S)
            if cells:
                rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells])
    return rows


def test_the_site_has_its_pages(site):
    missing = [name for name in PAGES if not (site / name).is_file()]
    assert not missing, missing
    for name in PAGES:
        if name.endswith(".html"):
            assert "<!-- otrio:" not in _page(site, name), f"{name}: a directive was left"


@pytest.mark.parametrize("game", GAMES)
def test_the_observation_table_names_every_index(site, game):
    env = envs.make(f"{game}_v0")
    names = env.unwrapped.observation_names()
    low, high = env.unwrapped.game.layout.bounds()
    rows = _rows(_page(site, f"games/{game}/index.html"), "otrio-names")
    assert [(int(r[0]), r[1]) for r in rows] == list(enumerate(names))
    assert [float(r[2]) for r in rows] == pytest.approx(low.tolist(), rel=1e-3, abs=1e-6)
    assert [float(r[3]) for r in rows] == pytest.approx(high.tolist(), rel=1e-3, abs=1e-6)


@pytest.mark.parametrize("game", GAMES)
def test_the_action_table_names_every_id_and_the_config_every_key(site, game):
    env = envs.make(f"{game}_v0")
    game_obj = env.unwrapped.game
    text = _page(site, f"games/{game}/index.html")
    rows = _rows(text, "otrio-actions")
    assert [(int(r[0]), r[1]) for r in rows] == list(enumerate(game_obj.actions.names))
    for pattern, _ in game_obj.actions.legend():
        assert f"<code>{html.escape(pattern, quote=False)}</code>" in text
    for key in game_obj.config_model.model_fields:
        assert f"<code>{key}</code>" in text, key


def test_the_training_page_lists_every_distill_key(site):
    from otrio.training.config import DistillParams, DistillRound, TrainConfig

    text = _page(site, "training.html")
    for model in (TrainConfig, DistillParams, DistillRound):
        for key in model.model_fields:
            assert f"<code>{key}</code>" in text, f"{model.__name__}.{key}"


def _blocks(page: str, language: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def test_the_first_game_loop_runs_and_its_comments_hold():
    """The home page's Python: the loop runs, and each ``expr  # 'value'`` comment is
    what the expression gives (no MkDocs needed)."""
    loop, names = _blocks("index.md", "python")[:2]
    space: dict = {}
    exec(compile(loop, "docs/index.md", "exec"), space)
    for line in names.splitlines():
        match = re.match(r"^(.*?)\s+#\s+('.*')\s*$", line)
        if match:
            assert repr(eval(match.group(1), space)) == match.group(2), line
        else:
            exec(line, space)


@pytest.mark.parametrize("page, model", [
    ("training.md", "otrio.training.config:TrainConfig"),
    ("tournaments.md", "otrio.benchmarks.tournament.tournament:TournamentConfig"),
    ("balance.md", "otrio.benchmarks.balance.config:BalanceConfig"),
])
def test_the_config_examples_validate(page, model):
    import importlib

    import yaml

    from otrio.envs.core.config import validate

    module, _, name = model.partition(":")
    cls = getattr(importlib.import_module(module), name)
    blocks = _blocks(page, "yaml")
    assert blocks, f"docs/{page} has no YAML example"
    for block in blocks:
        validate(cls, yaml.safe_load(block))


@pytest.fixture(scope="module")
def hooks():
    """``docs/hooks.py``, imported (no MkDocs needed for its directives)."""
    spec = importlib.util.spec_from_file_location("otrio_docs_hooks", ROOT / "docs/hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_unknown_directive_fails_the_build(hooks):
    class Page:
        class file:
            src_uri = "x.md"

    with pytest.raises(ValueError, match="unknown directive otrio:nosuch"):
        hooks.expand("<!-- otrio:nosuch arg -->", Page)
    assert hooks.expand("<!-- otrio:value otrio.training.config.SMOKE_TIMESTEPS -->", Page) == "2048"


def test_a_broken_internal_link_fails_the_build(tmp_path):
    """The link check (``on_post_build``) reads the written HTML, so it sees the links
    of raw HTML and of generated tables, which MkDocs' own validation does not."""
    (tmp_path / "games/otys").mkdir(parents=True)
    (tmp_path / "img").mkdir()
    (tmp_path / "img/a.png").write_bytes(b"")
    (tmp_path / "games/otys/index.html").write_text('<h2 id="actions">Actions</h2>')
    (tmp_path / "index.html").write_text(
        '<a href="games/otys/index.html#actions">ok</a> <a href="/img/a.png">ok</a>'
        '<a href="https://example.org/x.md">web</a> <a href="#top" id="top">top</a>'
        '<a href="games/otys/index.md">page</a> <img src="img/b.png">'
        '<a href="games/otys/index.html#nosuch">anchor</a>')
    spec = importlib.util.spec_from_file_location("otrio_docs_links", ROOT / "docs/linkcheck.py")
    links = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(links)
    assert links.broken_links(tmp_path) == [
        "index.html: games/otys/index.md (no such file)",
        "index.html: img/b.png (no such file)",
        "index.html: games/otys/index.html#nosuch (no anchor #nosuch)"]
    with pytest.raises(Exception, match=r"(?s)3 broken internal link.*\n  index.html: img/b.png "):
        links.on_post_build({"site_dir": str(tmp_path)})


def test_the_home_page_links_each_game(site):
    text = _page(site, "index.html")
    for game in GAMES:
        assert f'href="games/{game}/index.html"' in text


@pytest.mark.parametrize("game", GAMES)
def test_the_table_pictures_open_full_size(site, game):
    """Each picture of a game's table is shown shrunk, inside a link to its PNG."""
    text = _page(site, f"games/{game}/index.html")
    pictures = re.findall(r'<a href="([^"]+)"[^>]*><img [^>]*src="([^"]+)"', text)
    assert {src for _, src in pictures} == {f"../../img/{game}_v0.png",
                                           f"../../img/{game}_v0_seat0.png"}
    assert all(href == src for href, src in pictures)


def test_ids_stay_whole_and_shell_comments_wrap(site):
    """The site's stylesheet keeps code in table cells on one line (ids such as
    ``oceanos_v0`` broke mid-word) and wraps shell blocks (comments were cut off)."""
    assert 'href="stylesheets/otrio.css"' in _page(site, "index.html")
    css = re.sub(r"/\*.*?\*/", "", _page(site, "stylesheets/otrio.css"), flags=re.S)
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", css))
    rules = {" ".join(k.split()): " ".join(v.split()) for k, v in rules.items()}
    assert "white-space: nowrap" in rules[".md-typeset td code"]
    assert "white-space: pre-wrap" in rules[".md-typeset .language-bash pre > code"]
    assert '<div class="language-bash highlight">' in _page(site, "index.html")


def test_the_install_block_fits_and_says_the_makefiles_torch_pin(site, hooks):
    """One torch pin, the Makefile's: the docs write it from there (``otrio:pin``), and
    the README says the same; the install block's lines fit the page's width."""
    pin = hooks.d_pin("torch", None)
    assert re.fullmatch(r"torch==\d+\.\d+\.\d+\S*", pin)
    install = re.search(r"^## Install\n(.*?)^## ", (ROOT / "docs/index.md").read_text(
        encoding="utf-8"), re.S | re.M).group(1)
    for block in re.findall(r"^```bash\n(.*?)^```", install, re.S | re.M):
        for line in block.splitlines():
            shown = line.replace("<!-- otrio:pin torch -->", pin)
            assert len(shown) <= 76, f"docs/index.md: {shown!r} is cut off on the page"
    assert "<!-- otrio:pin torch -->" in install
    assert html.escape(pin) in re.sub(r"<[^>]+>", "", _page(site, "index.html"))
    for path in (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))):
        text = path.read_text(encoding="utf-8")
        said = set(re.findall(r"(?<![\w.-])torch==[\w.+!]+", text))
        assert said <= {pin}, f"{path.relative_to(ROOT)} pins {said}, the Makefile {pin}"
        assert not re.search(r"pip install (-U )?torch(\s|$)", text), \
            f"{path.relative_to(ROOT)}: an unpinned pip install torch"


API_PAGES = ["api/index.html", "api/envs.html", "api/envs-core.html", "api/agents.html",
             "api/training.html", "api/benchmarks.html", "api/integrations.html"]


def _objects(text: str) -> list[str]:
    """The ids of the objects mkdocstrings rendered on a page, in order."""
    return re.findall(r'<h\d id="([^"]+)" class="doc doc-heading"', text)


def test_the_api_reference_leads_with_the_public_api(site, hooks):
    """The first page is the public API: the front door, the env's methods, agents,
    ``Game`` and the seat views, then every command's Python entry points; each object
    has one place in the reference."""
    index = _page(site, "api/index.html")
    shown = _objects(index)
    env = "otrio.envs.core.aec.BoardGameEnv."
    wanted = ["otrio.make", *(env + m for m in (
        "reset", "step", "last", "observe", "action_mask", "save_state", "load_state",
        "render")), "otrio.agents.make", "otrio.envs.core.game.Game",
        *(f"otrio.envs.{g}.view.SeatView" for g in GAMES)]
    assert [name for name in shown if name in wanted] == wanted
    commands = hooks.entry_points()
    for name, functions in commands.items():
        assert functions, f"otrio {name}: no Python function found in otrio/cli.py"
        assert set(functions) <= set(shown), name
        assert f"<code>otrio {name}</code>" in index
    every = [name for page in API_PAGES for name in _objects(_page(site, page))]
    assert len(every) == len(set(every)), [n for n in every if every.count(n) > 1]
    nav = _page(site, "api/envs.html")  # the public page comes first in the section
    assert nav.index('href="index.html"') < nav.index('href="envs-core.html"')


def test_the_reference_leaves_out_what_has_no_docstring(site):
    """A constant known only by its comment (``FUSS = 0.001``) is not in the
    reference: every object there has something to say."""
    for page in API_PAGES:
        text = _page(site, page)
        empty = re.findall(r'<h\d id="([^"]+)" class="doc doc-heading">(?:(?!<h\d).)*?'
                           r'<div class="doc doc-contents ">\s*</div>', text, re.S)
        assert not empty, f"{page}: {empty[:5]}"
    assert "otys_values.FUSS" not in _page(site, "api/agents.html")
    assert "balance_stats.TINY" not in _page(site, "api/benchmarks.html")


def _example(doc: str) -> str:
    """The literal block after ``For example::`` in a docstring."""
    import textwrap

    block = doc.split("For example::\n", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line.strip() and not line.startswith(" " * 8):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_the_public_docstrings_name_ids_keys_and_their_examples_run():
    import otrio
    from otrio import agents
    from otrio.envs.core.config import GameConfig
    from otrio.envs.core.registry import ENV_MODULES

    doc = otrio.make.__doc__
    for name in [*ENV_MODULES, *GameConfig.model_fields, "render_mode"]:
        assert f"``{name}``" in doc, name
    space: dict = {}
    exec(compile(_example(doc), "otrio.make", "exec"), space)
    assert space["env"].unwrapped.decisions == 1
    doc = agents.make.__doc__
    for spec in agents.SPECS:
        assert f"``{spec}``" in doc, spec
    space = {}
    exec(compile(_example(doc), "otrio.agents.make", "exec"), space)
    assert space["obs"]["action_mask"][space["action"]] == 1
