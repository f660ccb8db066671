"""The seat view (``envs/otontin/view.py``) and its decoder (``observe.decode``).

``decode`` is the exact inverse of the observation: for every seat at every decision of
random and greedy games at 3 to 8 players, decoding the seat's observation gives the
view the rules build for it, and writing that view gives the observation's bytes again.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from otontin_states import greedy_games, random_games

from otrio.envs.core import make_rng
from otrio.envs.otontin.env import GAME
from otrio.envs.otontin.observe import LAYOUT, decode, write_view
from otrio.envs.otontin.observe_cache import new_observation
from otrio.envs.otontin.orders import NO_ORDER
from otrio.envs.otontin.rules import COMMIT_PHASE, Config, State
from otrio.envs.otontin.view import SeatView, view

DICE = [
    {"colour": "gold", "count": 5, "faces": ["warrior", "saboteur", "priest"]},
    {"colour": "jade", "count": 4, "faces": ["bean", "bean", "priest"]},
]
CONFIGS = [
    *({"num_players": n} for n in range(3, 9)),
    {"num_players": 4, "dice": DICE, "split_spoils": True, "bean_target": 10, "round_cap": 7},
]



def check_views(states) -> int:
    """decode(observation) == view at every state, every seat; the view writes the
    observation's bytes. Returns the views compared."""
    compared = 0
    out = np.full(LAYOUT.size, 7.0, np.float32)
    for step, state in enumerate(states):
        for seat in range(state.n):
            observation = new_observation(state, seat)
            seat_view = view(state, seat)
            decoded = decode(observation, state.config)
            assert decoded == seat_view, (step, seat, _differences(decoded, seat_view))
            write_view(seat_view, out)
            assert np.array_equal(out, observation), (step, seat)
            compared += 1
    return compared


def _differences(a: SeatView, b: SeatView) -> dict:
    return {f.name: (getattr(a, f.name), getattr(b, f.name))
            for f in dataclasses.fields(SeatView) if getattr(a, f.name) != getattr(b, f.name)}


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("config", CONFIGS)
def test_decode_is_the_exact_inverse_every_seat_every_decision(config, games):
    assert check_views(games(config)) > 300


def test_the_view_holds_plain_values_and_hides_the_others_orders():
    state = State(Config(num_players=5), make_rng(3))
    rng = np.random.default_rng(3)
    while state.phase != COMMIT_PHASE or state.cursor < 2:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    first, second = state.actives[:2]
    seen = view(state, first)
    assert seen.own_order == state.committed[first] != NO_ORDER
    assert view(state, second).own_order == state.committed[second]
    # another seat sees only that the first has laid an order
    other = view(state, second)
    assert other.committed[(first - second) % 5] and other.own_order != state.committed[first]
    for value in dataclasses.astuple(seen):
        assert not isinstance(value, np.generic | np.ndarray)
    # the view of a seat is the same whatever the others' hidden orders are
    copy = state.clone()
    copy.committed[first] = (copy.committed[first] + 1) % 47
    assert view(copy, second) == view(state, second)
    assert view(copy, first) != view(state, first)


def test_the_game_delegates_to_view_and_decode():
    state = State(Config(num_players=3), make_rng(0))
    observation = GAME.observation(state, 1, None)
    assert GAME.view(state, 1) == GAME.decode_view(observation, state.config) == view(state, 1)
    assert GAME.view(state, 1).acting == (state.current_player() - 1) % 3


def test_decode_refuses_a_config_whose_dice_are_not_the_observations():
    state = State(Config(num_players=4, dice=DICE), make_rng(0))
    observation = new_observation(state, 2)
    assert decode(observation, state.config) == view(state, 2)
    with pytest.raises(ValueError, match="dice"):
        decode(observation, Config(num_players=4))
