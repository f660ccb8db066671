"""Searching agents see the game only through ``resample_hidden``, so it must read
nothing a seat cannot know: two states that differ only in hidden information give the
same re-drawn world for the same generator, at the min and max player count of every
game."""

import pytest

from otrio import envs
from otrio.envs.core import testing

SETUPS = [
    ("oceanos_v0", {"num_players": 2}),
    ("oceanos_v0", {"num_players": 5}),
    ("oceanos_v0", {"num_players": 4, "troubled_waters": True}),
    ("otys_v0", {"num_players": 2}),
    ("otys_v0", {"num_players": 4}),
    ("otontin_v0", {"num_players": 3}),
    ("otontin_v0", {"num_players": 8}),
]


@pytest.mark.parametrize(("env_id", "config"), SETUPS, ids=[f"{e}-{c}" for e, c in SETUPS])
def test_resample_hidden_is_canonical(env_id, config):
    assert testing.check_resample_canonical(lambda: envs.make(env_id, **config), range(2)) > 0
