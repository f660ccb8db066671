"""The seat view (``otrio.envs.otys.view``) against the observation: ``decode`` is the exact
inverse of the encoding, for every seat at every decision of random and greedy games
at 2-4 players, and a view holds nothing the seat may not know."""

from __future__ import annotations

import numpy as np
import pytest
from otys_helpers import contract_id, greedy_games, play, position, random_games

from otrio.envs.core import validate
from otrio.envs.otys.config import Config
from otrio.envs.otys.effects import Site, StateSite
from otrio.envs.otys.env import GAME
from otrio.envs.otys.hidden import resample_hidden
from otrio.envs.otys.observe import LAYOUT, decode, encode, observed_players, write_plain
from otrio.envs.otys.observe_cache import write_observation
from otrio.envs.otys.phases import Phase
from otrio.envs.otys.rules import State
from otrio.envs.otys.view import SeatView, view

SETUPS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 3, "sponsors": {"sides": "advanced"}, "spy_designer_variant": True},
    {"num_players": 4, "components": {"end_pp": 9, "hand_limit": 2, "store_credits": [4, 2, 0],
                                      "level_capacity": [2, 3, 4, 5, 9]}},
]



def observed(s: State, seat: int) -> np.ndarray:
    out = np.zeros(LAYOUT.size, np.float32)
    write_observation(s, seat, out)
    return out


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("setup", SETUPS)
def test_decode_is_the_exact_inverse_every_seat_every_decision(setup, games):
    """decode(observation) == view(state, seat); encoding the decoded view gives the
    observation's bytes back (into a buffer of junk: every value is written)."""
    config = validate(Config, setup)
    phases, compared = set(), 0
    for s in games(setup):
        phases.add(s.phase)
        for seat in range(s.n):
            obs = observed(s, seat)
            seen = view(s, seat)
            assert decode(obs, config) == seen, f"phase {s.phase}, seat {seat}"
            again = np.full(LAYOUT.size, 7.0, np.float32)
            encode(seen, again)
            assert np.array_equal(again, obs), f"phase {s.phase}, seat {seat}"
            compared += 1
    assert compared > 100 and {Phase.KEY, Phase.STEP1, Phase.STEP2, Phase.NONE} <= phases


def test_the_game_hooks_and_the_plain_writer_are_the_view():
    s = play(position(n=3), "key:L3", "spy:draw")  # the Spy's draw: a keep decision
    assert s.phase == Phase.KEEP
    config = s.config
    for seat in range(3):
        seen = GAME.view(s, seat)
        assert isinstance(seen, SeatView) and seen.seat == seat
        obs = observed(s, seat)
        assert GAME.decode_view(obs, config) == seen and observed_players(obs) == 3
        plain = np.zeros(LAYOUT.size, np.float32)
        write_plain(s, seat, plain)
        assert np.array_equal(plain, obs)
        # only the drawer sees the drawn cards; everyone sees how many
        assert seen.drawn_count == len(s.drawn) and bool(seen.drawn) == (seat == 0)
        assert seen.hand == tuple(s.tables.contracts[c] for c in s.hands[seat])


def test_a_view_is_relative_and_holds_faces_not_ids():
    s = position(n=4)
    s.hands[2] = [contract_id("MMPP")]
    seen = view(s, 2)
    assert seen.players[0].hand_size == 1 and seen.hand[0].needs == (2, 2, 0, 0)
    assert seen.turn_seat == seen.actor == 2  # seat 0 is two seats after seat 2
    assert [p.credits for p in seen.players] == [s.credits[q] for q in (2, 3, 0, 1)]


@pytest.mark.parametrize("n", [2, 4])
def test_what_a_seat_cannot_know_is_not_in_its_view(n):
    """A world with everything hidden from ``seat`` re-drawn gives the same view."""
    rng = np.random.default_rng(n)
    compared = 0
    for step, s in enumerate(random_games({"num_players": n})):
        if step % 7:
            continue
        for seat in range(s.n):
            assert view(resample_hidden(s, seat, rng), seat) == view(s, seat)
            compared += 1
    assert compared > 50


@pytest.mark.parametrize("setup", [SETUPS[0], SETUPS[3], SETUPS[4]])
def test_a_views_site_is_the_states(setup):
    """The diver site greedy reads from its view is the one the engine reads from the
    state (``StateSite``), at every own-diver decision of random games."""
    compared = 0
    for s in random_games(setup):
        if s.phase in (Phase.STEP1, Phase.STEP2, Phase.COPY):
            assert view(s, s.seat).site(s.level) == Site(*StateSite(s))
            compared += 1
    assert compared > 50
