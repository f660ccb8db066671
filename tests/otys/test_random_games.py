"""Thousands of seeded random games on the rules ``State`` (no observations), with
invariants checked after every decision and an independent PP recount."""

from __future__ import annotations

import pytest

from otrio.envs.core import make_rng, validate
from otrio.envs.otys import actions as A
from otrio.envs.otys import data as D
from otrio.envs.otys.config import Config
from otrio.envs.otys.effects import SPONSOR_FLIP_TILE
from otrio.envs.otys.hidden import resample_hidden
from otrio.envs.otys.invariants import check_invariants
from otrio.envs.otys.phases import Phase
from otrio.envs.otys.rules import State

GAMES_PER_SETUP = 160
CHECK_EVERY_STEP = 20  # games checked after every decision; the others every 10th
SOME_STEPS = 10
RESAMPLED_GAMES = 25
SETUPS = [
    {"num_players": n, **extra}
    for n in (2, 3, 4)
    for extra in (
        {},
        {"sponsors": {"sides": "advanced"}, "spy_designer_variant": True},
        {"components": {"end_pp": 6, "hand_limit": 2}},
        {"sponsors": {"sides": "basic"}, "components": {"end_pp": 9, "start_credits": 8}},
    )
]


def _perm_pp(s: State, level: int) -> int:
    tid = s.board_tokens[s.seat][level]
    return D.PERMANENT_PP if tid >= 0 and s.tables.token_back[tid] == D.BACK_PP else 0


def expected_pp_gain(s: State, action: int) -> int:
    """PP the turn's player must gain by ``action``, read off the rulebook, not the code."""
    t, p = s.tables, s.seat
    if A.COMPLETE.start <= action < A.COMPLETE.stop:
        src, level = divmod(action - A.COMPLETE.start, D.NUM_LEVELS)
        card = s.public[src] if src < A.HAND_SOURCE0 else s.hands[p][src - A.HAND_SOURCE0]
        if t.contract_number[card]:
            return 0  # scored when the last colour is chosen
        return t.contract_pp[card] + _perm_pp(s, level)
    if s.phase == Phase.CONTRACT_COLOUR:
        if len(s.colour_picks) + 1 < len(t.contract_needs[s.contract]):
            return 0
        return t.contract_pp[s.contract] + _perm_pp(s, s.contract_level)
    if A.SELL.start <= action < A.SELL.stop:
        colour, payout = divmod(action - A.SELL.start, 2)
        if not payout:
            return 0
        if s.phase == Phase.COPY:
            upgraded = s.upgraded[s.copy_seat][D.TRADER]
        else:
            upgraded = s.upgraded[p][D.TRADER]
        return t.store_pp[s.store[colour]] + (D.TRADER_UPGRADE_BONUS if upgraded else 0)
    if action == A.SPONSOR:
        tile = s.sponsors[s.level]
        return D.SPONSOR_UPGRADE_PP if tile == SPONSOR_FLIP_TILE and not s.advanced[tile] else 0
    if s.phase == Phase.SPONSOR_FLIP:
        return D.SPONSOR_UPGRADE_PP
    if A.EXPLORE.start <= action < A.EXPLORE.stop or A.TOKEN.start <= action < A.TOKEN.stop:
        index = action - (A.EXPLORE.start if action < A.TOKEN.start else A.TOKEN.start)
        tid = s.display[s.level * D.DISPLAY_TOKENS + index]
        return D.TOKEN_PP if t.token_kind[tid] == D.PRESTIGE else 0
    return 0


def play_one(config: Config, seed: int, resample_every: int = 0,
             every: int = 1) -> tuple[int, State]:
    """One random game, its PP recounted at every decision and its invariants checked
    after every ``every``-th decision and at its end; returns (decisions, final state).

    With ``resample_every``, the game goes on from ``resample_hidden`` copies (for a
    random seat) every so many decisions: re-drawn states must stay consistent."""
    s = State(config, make_rng(seed))
    check_invariants(s)
    rng = make_rng(10_000 + seed)
    decisions = 0
    turns = [0] * s.n
    while not s.is_terminal():
        if resample_every and decisions % resample_every == resample_every - 1:
            seat = int(rng.integers(s.n))
            known = list(s.hands[seat])
            s = resample_hidden(s, seat, rng)
            assert s.hands[seat] == known
            check_invariants(s)
        legal = s.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        before = list(s.pp)
        gain = expected_pp_gain(s, action)
        seat, rnd = s.seat, s.round
        s.apply_action(action)
        after = [before[q] + (gain if q == seat else 0) for q in range(s.n)]
        assert s.pp == after, (seed, A.TABLE.name(action), before, s.pp, gain)
        if s.seat != seat or s.is_terminal():
            turns[seat] += 1
            if not s.is_terminal():
                assert s.seat == (seat + 1) % s.n
                assert s.round == rnd + (s.seat == 0)
        decisions += 1
        if decisions % every == 0:
            check_invariants(s)
    check_invariants(s)
    assert len(set(turns)) == 1, f"unequal turns {turns}"  # every round is finished
    if s.capped:
        assert s.round == s.tables.round_cap and max(s.pp) < s.tables.end_pp
    else:
        assert max(s.pp) >= s.tables.end_pp
    return decisions, s


@pytest.mark.parametrize("setup", range(len(SETUPS)))
def test_random_games_keep_the_invariants(setup):
    config = validate(Config, SETUPS[setup])
    ended_by_pp = 0
    for seed in range(GAMES_PER_SETUP):
        _, s = play_one(config, seed, every=1 if seed < CHECK_EVERY_STEP else SOME_STEPS)
        ended_by_pp += not s.capped
        assert s.winners() and set(s.winners()) <= set(range(s.n))
    if config.components.end_pp < D.DEFAULT_COMPONENTS["end_pp"]:
        assert ended_by_pp > GAMES_PER_SETUP // 10


@pytest.mark.parametrize("n", [2, 3, 4])
def test_games_go_on_consistently_from_resampled_states(n):
    config = validate(Config, {"num_players": n, "sponsors": {"sides": "advanced"}})
    for seed in range(RESAMPLED_GAMES):
        play_one(config, seed, resample_every=7)
