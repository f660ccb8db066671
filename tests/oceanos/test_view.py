"""The seat view (``view.view``) and the observation's decoder (``observe.decode``):
decoding a seat's observation gives that seat's view exactly, for every seat at every
decision of random and greedy games at 2 to 5 players, and encoding the view gives the
observation's bytes; the view holds what the seat may know and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from otrio.envs.core import testing
from otrio.envs.core.rng import make_rng
from otrio.envs.oceanos.cards_table import Card
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.env import GAME
from otrio.envs.oceanos.hidden import resample_hidden
from otrio.envs.oceanos.observe import LAYOUT, decode, encode
from otrio.envs.oceanos.observe_cache import write_observation
from otrio.envs.oceanos.rules import Decision, State
from otrio.envs.oceanos.view import SeatView, view

from .helpers import greedy_games, random_games

CONFIGS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 5},
    {"num_players": 2, "two_player_variant": False},
    {"num_players": 4, "troubled_waters": True, "kraken": {"mode": "fixed", "values": [0, -3, -4]}},
]



def observed(state: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, state, seat, LAYOUT.size)


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("config", CONFIGS)
def test_decode_is_the_exact_inverse_every_seat_every_decision(config, games):
    compared = 0
    for state in games(config):
        for seat in range(state.num_players):
            obs = observed(state, seat)
            seen = view(state, seat)
            assert decode(obs, state.config) == seen
            again = np.full(LAYOUT.size, 7.0, np.float32)
            encode(seen, again)
            assert again.tobytes() == obs.tobytes()
            compared += 1
    assert compared > 100


def test_the_game_delegates_and_the_view_is_plain_values():
    state = State(Config(num_players=3), make_rng(4))
    for _ in range(7):
        state.apply_action(state.legal_actions()[-1])
    seen = GAME.view(state, 1)
    assert isinstance(seen, SeatView)
    assert GAME.decode_view(GAME.observation(state, 1, np.zeros(LAYOUT.size, np.float32)),
                            state.config) == seen
    for name in SeatView.__slots__:
        value = getattr(seen, name)
        assert not isinstance(value, np.ndarray | np.generic | list), name
    assert all(isinstance(c, Card) for c in seen.hand)
    assert type(seen.players[0].score) is int
    assert type(seen.players[0].captain) is bool


def test_the_view_holds_nothing_a_seat_cannot_know():
    """Two worlds that differ only in what the seat cannot know give the same view."""
    for state in random_games({"num_players": 4}):
        if state.is_terminal():
            continue
        seat = (state.actor + 1) % 4  # another seat than the one choosing
        world = resample_hidden(state, seat, make_rng(state.round * 100 + state.turn))
        assert view(world, seat) == view(state, seat)


def test_while_keeps_are_secret_others_see_the_counts_from_before():
    state = State(Config(num_players=3), make_rng(0))
    while state.decision != Decision.KEEP_MORE:
        state.apply_action(state.legal_actions()[0])
    chooser = state.actor
    own, other = view(state, chooser), view(state, (chooser + 1) % 3)
    me = own.players[0]
    them = other.players[(chooser - (chooser + 1)) % 3]
    assert (me.kept_face_down, them.kept_face_down) == (1, 0)
    assert them.hand_size == me.hand_size + 1
    assert (own.decision, other.decision) == (Decision.KEEP_MORE, Decision.KEEP)
    state.apply_action(state.legal_actions()[0])  # an extra keep spends a Fuel token
    if state.decision == Decision.KEEP_MORE and state.actor == chooser:
        me = view(state, chooser).players[0]
        them = view(state, (chooser + 1) % 3).players[2]
        assert (me.kept_face_down, me.fuel_used, them.kept_face_down, them.fuel_used) == (2, 1, 0, 0)


def test_every_card_there_can_be_decodes_from_its_features():
    from otrio.envs.oceanos.cards_table import (
        CARD_OF_CODE,
        card_code,
        card_features,
        card_of_features,
        pile_features,
        pile_of,
        pile_of_features,
    )

    assert len(set(CARD_OF_CODE)) == len(CARD_OF_CODE)
    for code, card in enumerate(CARD_OF_CODE):
        assert card_code(card) == code
        assert card_of_features(np.asarray(card_features(card), np.float32)) == card
    pile = pile_of(CARD_OF_CODE[::7])
    assert pile_of_features(pile_features(pile)) == pile
