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
    ("balance.md", "otrio.benchmarks.balance.sweep:BalanceConfig"),
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


def test_an_unknown_directive_fails_the_build():
    spec = importlib.util.spec_from_file_location("otrio_docs_hooks", ROOT / "docs/hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

    class Page:
        class file:
            src_uri = "x.md"

    with pytest.raises(ValueError, match="unknown directive otrio:nosuch"):
        hooks.expand("<!-- otrio:nosuch arg -->", Page)
    assert hooks.expand("<!-- otrio:value otrio.training.config.SMOKE_TIMESTEPS -->", Page) == "2048"
