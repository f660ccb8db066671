"""The cached observation writer against the plain one (``observe.write_plain``).

The cached writer keeps the public part in a cache on the state and rewrites only what
changed; whatever path the state took (random or greedy play, copied, pickled, edited
by hand), it must give the bytes of the plain writer, for every seat at every decision.
"""

from __future__ import annotations

import numpy as np
import pytest
from otontin_states import greedy_games, random_games

from otrio.envs.core import testing
from otrio.envs.otontin.observe import LAYOUT, write_plain
from otrio.envs.otontin.observe_cache import new_observation, write_observation
from otrio.envs.otontin.orders import NO_ORDER
from otrio.envs.otontin.rules import State

DICE = [
    {"colour": "gold", "count": 5, "faces": ["warrior", "saboteur", "priest"]},
    {"colour": "jade", "count": 4, "faces": ["bean", "bean", "priest"]},
]


def written(state: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, state, seat, LAYOUT.size)


def plain(state: State, seat: int) -> np.ndarray:
    return testing.written(write_plain, state, seat, LAYOUT.size, fill=7.0)



def seats(state: State) -> int:
    return state.n


CONFIGS = [
    *({"num_players": n} for n in range(3, 9)),
    {"num_players": 4, "dice": DICE, "split_spoils": True, "bean_target": 10},
]


def via_new_observation(state: State, seat: int, out: np.ndarray) -> None:
    """new_observation (the array the adapters get) as a writer."""
    out[:] = new_observation(state, seat)


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("config", CONFIGS)
def test_cache_equals_plain_every_seat_every_decision(config, games):
    assert testing.check_against_plain(games(config), write_observation, write_plain, seats,
                                       LAYOUT.size) > 100


@pytest.mark.parametrize("config", CONFIGS[:1] + CONFIGS[-1:])
def test_new_observation_equals_plain(config):
    assert testing.check_against_plain(random_games(config), via_new_observation, write_plain,
                                       seats, LAYOUT.size) > 100


def test_copied_edited_and_reloaded_states_match_the_plain_writer():
    def edit(shallow: State) -> None:
        shallow.beans = [b + 1 for b in shallow.beans]

    state = testing.check_cached_writer_on_copies(
        random_games({"num_players": 5}), write_observation, plain, seats, LAYOUT.size,
        State.clone, edit, every=11)
    # edited by hand (as tests do)
    state.attack[:] = [1, 2, 3, 4, 5]
    state.declared[2] = NO_ORDER
    state.revealed[0] = 3
    for seat in range(state.n):
        assert np.array_equal(written(state, seat), plain(state, seat))
