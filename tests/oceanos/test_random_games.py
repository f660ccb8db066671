"""Thousands of seeded random games through the rules engine, with invariants."""

import numpy as np
import pytest

from envs.core.rng import make_rng
from envs.oceanos import scoring
from envs.oceanos.actions import MAX_HAND
from envs.oceanos.config import OceanosConfig
from envs.oceanos.data import AIRLOCK, AIRLOCK_DIVERS, MOTOR_FUEL
from envs.oceanos.observe import MAX_KEPT, MAX_ROW
from envs.oceanos.rules import CORAL_PTS, TREASURE_PTS, State

GAMES_PER_COUNT = 1000
CHECK_EVERY_STEP = 40  # the first games are checked after every decision


def check_invariants(s: State) -> None:
    """What must hold at every decision point."""
    located = []
    for r in range(3):
        located += s.decks[r] + s.discards[r]
    for p in range(s.num_players):
        located += s.hands[p] + s.kept[p]
        for row in s.rows[p]:
            located += row
        assert len(s.hands[p]) <= MAX_HAND and len(s.kept[p]) <= MAX_KEPT
        assert all(len(row) <= MAX_ROW for row in s.rows[p])
        assert all(1 <= lv <= 3 for lv in s.levels[p])
        assert s.fuel_ready[p] >= 0 and s.fuel_used[p] <= max(MOTOR_FUEL)
        divers = len(s.divers[p]) + s.divers_ready[p] + s.divers_fresh[p]
        assert divers == AIRLOCK_DIVERS[s.levels[p][AIRLOCK] - 1]
        assert s.score[p] == sum(s.points[p])
    located += [card for _, card, sub in s.placing if sub == 0]
    assert sorted(located) == list(range(len(s.table))), "cards not conserved"


def play(num_players: int, seed: int, every_step: bool, **config) -> State:
    s = State(OceanosConfig(num_players=num_players, **config), make_rng(seed))
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal
        s.apply_action(legal[int(rng.integers(len(legal)))])
        steps += 1
        if every_step:
            check_invariants(s)
    assert steps <= 1065
    return s


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_games_keep_invariants(num_players):
    lengths = []
    for seed in range(GAMES_PER_COUNT):
        s = play(num_players, seed, seed < CHECK_EVERY_STEP,
                 troubled_waters=(seed % 4 == 3 and num_players > 2))
        check_invariants(s)
        for p in range(num_players):
            reef = scoring.biggest_reef(s.rows[p], s.table)
            assert s.points[p][CORAL_PTS] == reef
            assert s.points[p][TREASURE_PTS] == sum(s.treasure_values[p])
            chests = scoring.chests_collected(s.rows[p], s.divers[p], s.table)
            assert len(s.treasure_values[p]) <= chests
        assert s.winners()
        lengths.append(sum(len(row) for rows in s.rows for row in rows))
    assert min(lengths) >= 15 * num_players - 5 * (num_players > 2)
