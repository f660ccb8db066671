"""Every game keeps the same idea in the same file with the same signature, and the
file tables of the READMEs list exactly the files there are (issue 24)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.rng import make_rng

GAMES = ("oceanos", "otys", "otontin")
ROOT = Path(envs.__file__).parent
ROW = re.compile(r"^\| `([\w.]+)` \|", re.MULTILINE)


def _params(func) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(func).parameters.values()]


def _mid_game(game, seed: int):
    """A state some random decisions into a game (never over)."""
    state = game.new_state(game.config_model(), make_rng(seed))
    pick = np.random.default_rng(seed)
    for _ in range(60):
        legal = state.legal_actions()
        nxt = state.clone()
        nxt.apply_action(legal[int(pick.integers(len(legal)))])
        if nxt.is_terminal():
            break
        state = nxt
    return state


@pytest.mark.parametrize("name", GAMES)
def test_hidden_and_render_live_in_the_same_place(name):
    """``hidden.resample_hidden(state, seat, rng)`` and ``render.render_text(state,
    viewer=None)`` in every game; the game object delegates to them."""
    game = importlib.import_module(f"envs.{name}.env").GAME
    hidden = importlib.import_module(f"envs.{name}.hidden")
    render = importlib.import_module(f"envs.{name}.render")
    empty = inspect.Parameter.empty
    assert _params(hidden.resample_hidden) == [("state", empty), ("seat", empty), ("rng", empty)]
    assert _params(render.render_text) == [("state", empty), ("viewer", None)]
    for seed in range(3):
        state = _mid_game(game, seed)
        assert game.render(state) == render.render_text(state)
        for seat in range(state.num_players):
            assert game.render_for(state, seat) == render.render_text(state, seat)
            ours = game.resample_hidden(state, seat, make_rng(seed * 10 + seat))
            theirs = hidden.resample_hidden(state, seat, make_rng(seed * 10 + seat))
            assert ours.to_dict() == theirs.to_dict()


@pytest.mark.parametrize("name", GAMES)
def test_check_invariants_signature(name):
    """The state first, then ``loaded`` (default False), which ``Game.state_from_dict``
    sets: it bounds the counts the rules leave open (Otys, Otontin); Oceanos has none
    (its README says so), so there it changes nothing."""
    check = importlib.import_module(f"envs.{name}.invariants").check_invariants
    params = _params(check)
    assert params[1:] == [("loaded", False)]
    assert params[0][1] is inspect.Parameter.empty


@pytest.mark.parametrize("name", GAMES)
def test_readme_file_table_lists_the_files(name):
    """The game README's file table names every module (``__init__.py`` aside) and
    ``RULES.md``, and nothing that is not there."""
    folder = ROOT / name
    readme = (folder / "README.md").read_text()
    table = readme[readme.index("| file | holds |"):]
    table = table[: table.index("\n\n")]
    listed = ROW.findall(table)
    present = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"} | {"RULES.md"}
    assert len(listed) == len(set(listed)), "a file is listed twice"
    assert set(listed) == present


def test_core_file_table_holds_for_every_game():
    """Every file of envs/core/README.md's table is in every game (Otontin keeps its
    small ``Config`` in ``rules.py``, as the table says)."""
    readme = (ROOT / "core" / "README.md").read_text()
    table = readme[readme.index("| file | holds |"):]
    listed = ROW.findall(table[: table.index("\n\n")])
    assert {"hidden.py", "invariants.py", "render.py", "env.py"} <= set(listed)
    for name in GAMES:
        missing = {f for f in listed if not (ROOT / name / f).exists()}
        assert missing == ({"config.py"} if name == "otontin" else set()), (name, missing)
