"""The incremental observation writer against a plain from-scratch one.

``reference`` builds the observation the simple way (the layout views, every value
computed from the state each time). The writer keeps a cache on the state and
rewrites only what changed; whatever path the state took (played, cloned, copied,
pickled, edited by hand), both must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import testing
from envs.core.rng import make_rng
from envs.oceanos.actions import MAX_HAND
from envs.oceanos.config import OceanosConfig
from envs.oceanos.data import (
    AIRLOCK_DIVERS,
    ANIMALS,
    KRAKEN_SIZES,
    MOTOR_FUEL,
    TREASURE_TOKENS,
    TURNS_PER_ROUND,
)
from envs.oceanos.observe import DECK_SCALE, DISCARD_SCALE, LAYOUT, write_observation
from envs.oceanos.observe_cache import (
    CRYSTAL_SCALE,
    EYES_SCALE,
    KRAKEN_SCALE,
    MAX_KEPT,
    MIN_PLAYERS,
    SCORE_SCALE,
)
from envs.oceanos.rules import Decision, State

GAMES = 3


def reference(state: State, seat: int) -> np.ndarray:
    """``seat``'s observation computed from scratch."""
    out = np.zeros(LAYOUT.size, np.float32)
    v = LAYOUT.views(out)
    n, features, table = state.num_players, state.table.features, state.table
    order = [(seat + k) % n for k in range(n)]
    choosing = state.choosing()
    if not state.over:
        # another player's extra keeps are secret: the others see a plain keep decision
        hidden_more = state.decision == Decision.KEEP_MORE and state.actor != seat
        v["decision"][Decision.KEEP if hidden_more else state.decision] = 1.0
        v["actor"][(state.actor - seat) % n] = 1.0
        if state.placing and state.decision in (Decision.DIVER, Decision.UPGRADE):
            v["placing"][:] = features[state.placing[0][1]]
    for name, cards in (("hand", state.hands[seat]), ("kept", state.kept[seat]),
                        ("passed", state.passed[seat])):
        if cards:
            v[name][: len(cards)] = features[cards]
    v["round"][state.round] = 1.0
    v["turn"][min(state.turn, TURNS_PER_ROUND - 1)] = 1.0
    v["players"][n - MIN_PLAYERS] = 1.0
    v["variants"][:] = not state.captain_mode, state.config.troubled_waters
    for size in range(len(KRAKEN_SIZES)):
        if state.config.kraken.mode == "fixed" or size < state.round or state.over:
            v["kraken"][size] = 1.0, state.kraken[size] / KRAKEN_SCALE
    v["deck"][:] = (len(state.decks[state.round]) / DECK_SCALE,
                    len(state.discards[state.round]) / DECK_SCALE)
    v["bag"][0] = len(state.bag) / len(TREASURE_TOKENS)
    pile = state.discards[state.round]
    if pile:
        v["discards"][:] = features[pile].sum(axis=0) / DISCARD_SCALE
    for k, s in enumerate(order):
        for part, level in enumerate(state.levels[s]):
            v["levels"][k, part, level - 1] = 1.0
        for r, row in enumerate(state.rows[s]):
            if row:
                v["tableau"][k, r, : len(row), :-1] = features[row]
        for r, c in state.divers[s]:
            v["tableau"][k, r, c, -1] = 1.0
        cards = [c for row in state.rows[s] for c in row]
        kinds = {table.animal[c] for c in cards if table.animal[c] >= 0}
        eyes = sum(table.eyes[c] for c in state.rows[s][state.round])
        hand, kept = len(state.hands[s]), len(state.kept[s])
        ready, used = state.fuel_ready[s], state.fuel_used[s]
        if choosing and s != seat and kept:  # seen as before its secret keeps
            hand, kept, ready, used = hand + kept, 0, ready + kept - 1, used - (kept - 1)
        v["player"][k] = (
            1.0, s == state.captain and state.captain_mode,
            ready / max(MOTOR_FUEL), state.fuel_fresh[s] / max(MOTOR_FUEL),
            used / max(MOTOR_FUEL), state.divers_ready[s] / max(AIRLOCK_DIVERS),
            len(state.divers[s]) / max(AIRLOCK_DIVERS), state.green[s] / CRYSTAL_SCALE,
            state.yellow[s] / CRYSTAL_SCALE, state.score[s] / SCORE_SCALE,
            hand / MAX_HAND, kept / MAX_KEPT,
            eyes / EYES_SCALE, len(kinds) / len(ANIMALS),
        )
    return out


def written(state: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, state, seat, LAYOUT.size)


def games(config: dict):
    """Every state of a few seeded random games (one state object, played on)."""
    return testing.random_states(lambda seed: State(OceanosConfig(**config), make_rng(seed)), GAMES)


def seats(state: State) -> int:
    return state.num_players


CONFIGS = [
    {"num_players": 2}, {"num_players": 5},
    {"num_players": 2, "two_player_variant": False},
    {"num_players": 4, "troubled_waters": True, "kraken": {"mode": "fixed", "values": [0, -3, -4]}},
]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_seat_every_step_matches_the_reference(config):
    assert testing.check_cached_writer(games(config), write_observation, reference, seats,
                                       LAYOUT.size) > 100


def test_copied_edited_and_reloaded_states_match_the_reference():
    def edit(shallow: State) -> None:
        shallow.score = [v + 1 for v in shallow.score]

    state = testing.check_cached_writer_on_copies(
        games({"num_players": 3}), write_observation, reference, seats, LAYOUT.size, State.clone, edit)
    # edited by hand (as tests do): a row that shrinks, counters and levels that change
    state.rows[0][state.round] = state.rows[0][state.round][:1]
    state.levels[1] = [3, 1, 2, 1, 1]
    state.fuel_ready[2] = 0
    state.kraken[2] = -4
    for seat in range(state.num_players):
        assert np.array_equal(written(state, seat), reference(state, seat))
