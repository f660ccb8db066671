"""Thousands of seeded random games on the rules ``State`` (no observations), with
invariants checked after every decision."""

from __future__ import annotations

import pytest

from envs.core import make_rng
from envs.otontin.data import BUST_SABOTEURS, SABOTEUR
from envs.otontin.rules import CAMPAIGN, Config, State

GAMES_PER_COUNT = 500  # x 6 player counts = 3000 games
CONFIGS = [
    {},
    {"bean_target": 10, "split_spoils": True},
    {"bean_target": 20},
    {"bean_target": 15, "split_spoils": True, "round_cap": 6},
]


def check(st: State, warriors: int, beans: int, dice: int) -> None:
    """Tokens conserved between leaders and pool, nothing negative, dice accounted."""
    assert sum(st.atk) + sum(st.dfn) + st.pool_w == warriors
    assert sum(st.beans) + st.pool_b == beans
    assert min(st.atk) >= 0 and min(st.dfn) >= 0 and min(st.beans) >= 0
    assert st.pool_w >= 0 and st.pool_b >= 0
    if st.phase == CAMPAIGN:
        assert sum(st.bag) + sum(st.aside) <= dice
        # a busting roll's theft is paid before the turn ends
        assert st.rolled[SABOTEUR] < BUST_SABOTEURS or st.takers
    else:
        assert not any(st.busted[s] for s in st.actives)


def play(n: int, seed: int, config: dict) -> tuple[int, State]:
    """One random game; returns its decision count and final state."""
    st = State(Config(num_players=n, **config), make_rng(seed))
    warriors = sum(st.atk) + sum(st.dfn) + st.pool_w
    beans = sum(st.beans) + st.pool_b
    dice = sum(st.kind_counts)
    rng = make_rng(seed + 1)
    decisions = 0
    while not st.is_terminal():
        legal = st.legal_actions()
        assert legal and legal == sorted(set(legal))
        assert 0 <= st.current_player() < n
        st.apply_action(legal[int(rng.integers(len(legal)))])
        decisions += 1
        check(st, warriors, beans, dice)
    return decisions, st


@pytest.mark.parametrize("n", range(3, 9))
def test_random_games(n):
    """Every game ends, inside the round cap, with winners and conserved tokens."""
    total = 0
    for g in range(GAMES_PER_COUNT):
        config = CONFIGS[g % len(CONFIGS)]
        decisions, st = play(n, 1000 * n + g, config)
        total += decisions
        assert st.round <= config.get("round_cap", 40)
        assert st.winners() and (st.final_round or st.capped)
    assert total / GAMES_PER_COUNT > n  # games are not trivially short
