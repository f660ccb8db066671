"""The incremental observation cache and the contract-fit cache give exactly what a
fresh state (no cache) gives: after every step, after copies, after direct edits."""

from __future__ import annotations

import copy
import hashlib
import pickle

import numpy as np
import pytest
from otys_helpers import contract_id, position, token_id

from envs.core import make_rng, validate
from envs.otys.config import Config
from envs.otys.observe import OBS_SIZE, write_observation
from envs.otys.rules import State

SETUPS = [
    {"num_players": 2},
    {"num_players": 3, "sponsors": {"sides": "advanced"}, "spy_designer_variant": True},
    {"num_players": 4, "components": {"end_pp": 9, "hand_limit": 2}},
]


# sha256 of every seat's observation and the legal actions at every decision of these
# seeded random games, recorded with the writer as it was before the cache (it rebuilt
# the whole vector each call): the cached one must give the same bytes. Re-recorded when
# the keep decision lost its decline (the legal sets and the random games changed), the
# same bytes from the cached writer and from a cache-free copy at every decision
REFERENCE_GAMES = [
    ({"num_players": 2, "sponsors": {"sides": "advanced"}, "spy_designer_variant": True}, 0),
    ({"num_players": 3, "sponsors": {"sides": "advanced"}, "spy_designer_variant": True}, 1),
    ({"num_players": 4, "spy_designer_variant": True, "components": {"end_pp": 12}}, 2),
    ({"num_players": 4, "sponsors": {"sides": "basic"}, "components": {"hand_limit": 2}}, 3),
    ({"num_players": 3}, 4),
]
REFERENCE_DIGEST = "7dd7f7915bfa990b59274d94fad639a9f9602d5cf4cbb2a9eb26ac37dadf17cf"


def observe(s: State, seat: int, fill: float = 0.0) -> np.ndarray:
    out = np.full(OBS_SIZE, fill, np.float32)
    write_observation(s, seat, out)
    return out


def fresh(s: State) -> State:
    """The same position in a new state object, so without any cache (a clone leaves
    the caches behind; hand-built positions need not pass a load's validation)."""
    return s.clone()


def assert_same_views(s: State) -> None:
    """Every seat's observation and the legal actions match a cache-free copy."""
    other = fresh(s)
    for seat in range(s.n):
        assert np.array_equal(observe(s, seat), observe(other, seat)), f"seat {seat}"
    assert s.legal_actions() == other.legal_actions()


def test_observations_match_the_reference_writer():
    digest = hashlib.sha256()
    for setup, seed in REFERENCE_GAMES:
        s = State(validate(Config, setup), make_rng(seed))
        rng = np.random.default_rng(seed)
        while True:
            for seat in range(s.n):
                digest.update(observe(s, seat).tobytes())
            legal = s.legal_actions()
            digest.update(np.asarray(legal, np.int64).tobytes())
            if s.is_terminal():
                break
            s.apply_action(legal[int(rng.integers(len(legal)))])
    assert digest.hexdigest() == REFERENCE_DIGEST


@pytest.mark.parametrize("setup", SETUPS)
def test_incremental_equals_fresh_every_step(setup):
    for seed in range(2):
        s = State(validate(Config, setup), make_rng(seed))
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            mine = observe(s, s.actor)
            assert np.array_equal(mine, observe(fresh(s), s.actor))
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        assert_same_views(s)


def test_every_value_is_written():
    s = State(validate(Config, {"num_players": 3}), make_rng(1))
    rng = np.random.default_rng(1)
    for _ in range(60):
        for seat in range(s.n):
            assert np.array_equal(observe(s, seat, np.nan), observe(s, seat, 0.0))
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("duplicate", ["clone", "copy", "deepcopy", "pickle"])
def test_copies_do_not_share_a_stale_cache(duplicate):
    s = State(validate(Config, {"num_players": 4}), make_rng(2))
    rng = np.random.default_rng(2)
    for _ in range(40):
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
    before = [observe(s, seat) for seat in range(s.n)]
    other = {
        "clone": s.clone,
        "copy": lambda: copy.copy(s),
        "deepcopy": lambda: copy.deepcopy(s),
        "pickle": lambda: pickle.loads(pickle.dumps(s)),
    }[duplicate]()
    for _ in range(40):  # the original moves on; the copy must still show its own state
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
        if duplicate == "copy":  # a shallow copy shares the lists: it moved on too
            before = [observe(fresh(other), seat) for seat in range(other.n)]
    assert all(np.array_equal(observe(other, q), before[q]) for q in range(other.n))
    assert_same_views(other)
    assert_same_views(s)


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
        assert s.legal_actions() == fresh(s).legal_actions()
        seen.add(tuple(s.legal_actions()))
    assert len(seen) > 2  # the checks saw different contract options
