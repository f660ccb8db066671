"""Golden playthroughs: each recorded game must replay identically.

Regenerate on purpose after an intended rule change with
``python -m otrio.envs.core.playthrough tests/oceanos/playthroughs/FILE --env oceanos_v0 --config '{...}' --seed N``
(the config and seed are stored in each file).
"""

from pathlib import Path

import pytest

from otrio.envs.core import playthrough

FILES = sorted((Path(__file__).parent / "playthroughs").glob("*.json"))


def test_every_player_count_has_a_playthrough():
    counts = {playthrough.load(f)["config"]["num_players"] for f in FILES}
    assert counts == {2, 3, 4, 5}


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_playthrough_replays(path):
    golden = playthrough.load(path)
    replay = playthrough.record(golden["env_id"], golden["config"], golden["seed"])
    assert replay["scores"] == golden["scores"]
    assert replay["winners"] == golden["winners"]
    for i, (got, want) in enumerate(zip(replay["steps"], golden["steps"])):
        assert got == want, f"step {i} differs"
    assert len(replay["steps"]) == len(golden["steps"])
