"""Thousands of seeded random games on the rules ``State`` (no observations), with
invariants checked after every decision."""

from __future__ import annotations

import pytest

from otrio.envs.core import make_rng
from otrio.envs.otontin.invariants import check_invariants
from otrio.envs.otontin.rules import Config, State

GAMES_PER_COUNT = 500  # x 6 player counts = 3000 games
CHECK_EVERY_STEP = 100  # games checked after every decision; the others every 10th
SOME_STEPS = 10
CONFIGS = [
    {},
    {"bean_target": 10, "split_spoils": True},
    {"bean_target": 20},
    {"bean_target": 15, "split_spoils": True, "round_cap": 6},
]


def play(n: int, seed: int, config: dict, every: int = 1) -> tuple[int, State]:
    """One random game, checked after every ``every``-th decision and at its end;
    returns its decision count and final state."""
    st = State(Config(num_players=n, **config), make_rng(seed))
    check_invariants(st)
    rng = make_rng(seed + 1)
    decisions = 0
    while not st.is_terminal():
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
        decisions += 1
        if decisions % every == 0:
            check_invariants(st)
    check_invariants(st)
    return decisions, st


@pytest.mark.parametrize("n", range(3, 9))
def test_random_games(n):
    """Every game ends, inside the round cap, with winners and conserved tokens."""
    total = 0
    for g in range(GAMES_PER_COUNT):
        config = CONFIGS[g % len(CONFIGS)]
        decisions, st = play(n, 1000 * n + g, config, 1 if g < CHECK_EVERY_STEP else SOME_STEPS)
        total += decisions
        assert st.round <= config.get("round_cap", 40)
        assert st.winners() and (st.final_round or st.capped)
    assert total / GAMES_PER_COUNT > n  # games are not trivially short
