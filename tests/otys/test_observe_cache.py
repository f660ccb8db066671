"""The cached observation writer against the plain one (``observe.write_plain``), and
the contract-fit cache against a cache-free copy.

The cached writer keeps a cache on the state and rewrites only what changed; whatever
path the state took (random or greedy play, cloned, copied, pickled, edited by hand),
it must give the bytes of the plain writer, for every seat at every decision.
"""

from __future__ import annotations

import numpy as np
import pytest
from otys_helpers import contract_id, greedy_games, position, random_games, token_id

from otrio.envs.core import testing
from otrio.envs.otys.observe import LAYOUT, write_plain
from otrio.envs.otys.observe_cache import write_observation
from otrio.envs.otys.rules import State

SETUPS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 3, "sponsors": {"sides": "advanced"}, "spy_designer_variant": True},
    {"num_players": 4, "components": {"end_pp": 9, "hand_limit": 2}},
]


def written(s: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, s, seat, LAYOUT.size)


def plain(s: State, seat: int) -> np.ndarray:
    return testing.written(write_plain, s, seat, LAYOUT.size, fill=7.0)



def seats(s: State) -> int:
    return s.n


def assert_same_views(s: State) -> None:
    """Every seat's cached observation is the plain writer's, and the legal actions (the
    contract-fit cache) are a cache-free clone's."""
    for seat in range(s.n):
        assert np.array_equal(written(s, seat), plain(s, seat)), f"seat {seat}"
    assert s.legal_actions() == s.clone().legal_actions()


@pytest.mark.parametrize("games", [random_games, greedy_games])
@pytest.mark.parametrize("setup", SETUPS)
def test_cache_equals_plain_every_seat_every_decision(setup, games):
    assert testing.check_against_plain(games(setup), write_observation, write_plain, seats,
                                       LAYOUT.size) > 100


def test_copied_edited_and_reloaded_states_match_the_plain_writer():
    def edit(shallow: State) -> None:
        shallow.credits = [c + 1 for c in shallow.credits]

    testing.check_cached_writer_on_copies(random_games({"num_players": 4}), write_observation,
                                          plain, seats, LAYOUT.size, State.clone, edit)


def test_direct_edits_are_seen():
    s = position(n=3)
    assert_same_views(s)
    s.resources[1][5] += 2  # in place
    s.credits = [5, 7, 9]  # a new list
    s.hands[0].append(contract_id("MM"))
    s.hands[2] = [contract_id("PP"), contract_id((2, 1))]
    s.divers[2].insert(0, s.divers[2].pop(4))
    s.upgraded[1][3] = 1
    s.hacker_track[0] += [0, 6]
    s.hacker[0] = 1
    s.board_tokens[2][1] = token_id("pp", "pp")
    s.display[0] = -1
    s.public[1] = -1
    s.store[3] = 2
    s.sponsors.reverse()
    s.bag.pop()
    s.token_discard.append(token_id("draw", "credits"))
    s.round, s.neutral_supply, s.end_triggered = 4, 3, 1
    assert_same_views(s)


def test_contract_fit_cache_follows_the_resources():
    s = position(n=2)
    s.hands[0] = [contract_id("MM"), contract_id((2, 1)), contract_id("MPF")]
    seen = set()
    for level_res in ([2, 0, 0, 0], [2, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0], [2, 1, 0, 0]):
        s.resources[0][4:8] = level_res  # level 2, in place
        assert s.legal_actions() == s.clone().legal_actions()  # (a clone has no caches)
        seen.add(tuple(s.legal_actions()))
    assert len(seen) > 2  # the checks saw different contract options
