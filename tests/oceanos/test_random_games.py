"""Thousands of seeded random games through the rules engine, with invariants."""

import numpy as np
import pytest

from otrio.envs.core.rng import make_rng
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.invariants import check_invariants
from otrio.envs.oceanos.rules import State

GAMES_PER_COUNT = 1000
CHECK_EVERY_STEP = 40  # the first games are checked after every decision


def play(num_players: int, seed: int, every_step: bool, **config) -> State:
    s = State(Config(num_players=num_players, **config), make_rng(seed))
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
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
        check_invariants(s)  # at the end: coral and treasure points, chests too
        assert s.winners()
        lengths.append(sum(len(row) for rows in s.rows for row in rows))
    assert min(lengths) >= 15 * num_players - 5 * (num_players > 2)
