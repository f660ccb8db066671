"""Golden playthroughs (one per player count) replayed decision by decision, and the
README's tables checked against the code.

Regenerate a file on purpose after an intended rule change, e.g.::

    python -m otrio.envs.core.playthrough tests/otys/playthroughs/otys_3p.json \\
        --env otys_v0 --config '{"num_players": 3}' --seed 3
"""

from __future__ import annotations

from pathlib import Path

import pytest

from otrio.envs.core.playthrough import load, record
from otrio.envs.otys.actions import TABLE
from otrio.envs.otys.observe import LAYOUT

HERE = Path(__file__).parent
FILES = sorted((HERE / "playthroughs").glob("otys_*p.json"))


def test_one_playthrough_per_player_count():
    counts = sorted(load(path)["config"]["num_players"] for path in FILES)
    assert counts == [2, 3, 4]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_playthrough_replays_exactly(path):
    golden = load(path)
    again = record(golden["env_id"], golden["config"], golden["seed"])
    assert len(again["steps"]) == len(golden["steps"])
    for i, (mine, theirs) in enumerate(zip(again["steps"], golden["steps"])):
        assert mine == theirs, f"{path.name}: step {i} differs: {mine} != {theirs}"
    assert (again["scores"], again["winners"]) == (golden["scores"], golden["winners"])


def test_readme_tables_match_the_code():
    readme = (Path(__file__).parents[2] / "envs" / "otys" / "README.md").read_text()
    assert TABLE.markdown() in readme
    assert LAYOUT.markdown() in readme
