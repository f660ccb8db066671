"""The cached observation writer against the plain one (``observe.write_plain``).

The cached writer keeps a cache on the state and rewrites only what changed; whatever
path the state took (random or greedy play, cloned, copied, pickled, edited by hand),
it must give the bytes of the plain writer, for every seat at every decision.
"""

from __future__ import annotations

import numpy as np
import pytest

from otrio.envs.core import testing
from otrio.envs.oceanos.observe import LAYOUT, write_plain
from otrio.envs.oceanos.observe_cache import write_observation
from otrio.envs.oceanos.rules import State

from .helpers import greedy_games, random_games


def written(state: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, state, seat, LAYOUT.size)


def plain(state: State, seat: int) -> np.ndarray:
    return testing.written(write_plain, state, seat, LAYOUT.size, fill=7.0)



def seats(state: State) -> int:
    return state.num_players


CONFIGS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 5},
    {"num_players": 2, "two_player_variant": False},
    {"num_players": 4, "troubled_waters": True, "kraken": {"mode": "fixed", "values": [0, -3, -4]}},
]


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("config", CONFIGS)
def test_cache_equals_plain_every_seat_every_decision(config, games):
    assert testing.check_against_plain(games(config), write_observation, write_plain, seats,
                                       LAYOUT.size) > 100


def test_copied_edited_and_reloaded_states_match_the_plain_writer():
    def edit(shallow: State) -> None:
        shallow.score = [v + 1 for v in shallow.score]

    state = testing.check_cached_writer_on_copies(
        random_games({"num_players": 3}), write_observation, plain, seats, LAYOUT.size,
        State.clone, edit)
    # edited by hand (as tests do): a row that shrinks, counters and levels that change
    state.rows[0][state.round] = state.rows[0][state.round][:1]
    state.levels[1] = [3, 1, 2, 1, 1]
    state.fuel_ready[2] = 0
    state.kraken[2] = -4
    for seat in range(state.num_players):
        assert np.array_equal(written(state, seat), plain(state, seat))
