"""The cached observation writer against a plain from-scratch one.

``reference`` builds the observation the simple way (every value computed from the
state each time, seats rotated to the observer). The writer keeps the public part in
a cache on the state and rewrites only what changed; whatever path the state took
(played, copied, pickled, edited by hand), both must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import make_rng, testing
from envs.otontin.campaign import NO_DECISION
from envs.otontin.data import NUM_FACES
from envs.otontin.observe import (
    COUNT_SCALE,
    LAYOUT,
    ORDER_VEC,
    new_observation,
    write_observation,
)
from envs.otontin.orders import NO_ORDER
from envs.otontin.rules import CAMPAIGN, COMMIT_PHASE, UNSAID, Config, State

GAMES = 2
DICE = [
    {"colour": "gold", "count": 5, "faces": ["warrior", "saboteur", "priest"]},
    {"colour": "jade", "count": 4, "faces": ["bean", "bean", "priest"]},
]


def reference(state: State, seat: int) -> np.ndarray:
    """``seat``'s observation computed from scratch."""
    out = np.zeros(LAYOUT.size, np.float32)
    v = LAYOUT.views(out)
    n = state.n
    rel = [(seat + i) % n for i in range(n)]
    pos = [(s - seat) % n for s in range(n)]  # seat -> relative row
    v["seat_present"][:n] = 1.0
    for name, values in (("attack", state.atk), ("defence", state.dfn),
                         ("beans", state.beans)):
        v[name][:n] = [values[s] / COUNT_SCALE for s in rel]
    v["busted"][:n] = [state.busted[s] for s in rel]
    v["campaign_done"][:n] = [state.done[s] for s in rel]
    v["starting_leader"][pos[state.start]] = 1.0
    if state.current_player() >= 0:
        v["acting"][pos[state.current_player()]] = 1.0
    v["pool"][:] = state.pool_w / COUNT_SCALE, state.pool_b / COUNT_SCALE
    v["phase"][state.phase] = 1.0
    if state.decision != NO_DECISION:
        v["decision"][state.decision] = 1.0
    cfg = state.config
    v["game"][:] = (state.round / cfg.round_cap, state.final_round,
                    cfg.bean_target / COUNT_SCALE, cfg.split_spoils)
    for k, faces in enumerate(state.kinds):
        v["dice_count"][k] = state.kind_counts[k] / COUNT_SCALE
        for face in faces:
            v["dice_faces"][k, face] += 1.0 / len(faces)
    if state.phase == CAMPAIGN:
        v["campaign_leader"][pos[state.active]] = 1.0
        kinds = len(state.kinds)
        v["bag"][:kinds] = [c / COUNT_SCALE for c in state.bag]
        v["priests_aside"][:kinds] = [c / COUNT_SCALE for c in state.aside]
        v["rolled"][:NUM_FACES] = [c / COUNT_SCALE for c in state.rolled]
        for kind, face in state.last_roll:
            v["last_roll"][kind, face] += 1.0
        v["payable"][:] = [c / COUNT_SCALE for c in state.payable()]
        if state.takers:
            v["theft"][0] = state.theft / COUNT_SCALE
            for s in state.takers:
                v["takers"][pos[s]] = 1.0
    for s, order in enumerate(state.declared):
        if order != UNSAID:
            row = v["declared"][pos[s]]
            row[0] = 1.0
            if order == NO_ORDER:
                row[1] = 1.0
            else:
                row[2:] = ORDER_VEC[order]
    if state.committed[seat] != NO_ORDER:
        v["own_order"][:] = 1.0, *ORDER_VEC[state.committed[seat]]
    if state.phase == COMMIT_PHASE:
        for s in state.actives[: state.cursor]:
            v["committed"][pos[s]] = 1.0
    for s, order in enumerate(state.revealed):
        if order != NO_ORDER:
            v["revealed"][pos[s]] = 1.0, *ORDER_VEC[order]
    age = state.round - state.revealed_round
    if state.revealed_round and age < 2:
        v["revealed_age"][age] = 1.0
    return out


def written(state: State, seat: int) -> np.ndarray:
    return testing.written(write_observation, state, seat, LAYOUT.size)


def games(config: dict):
    """Every state of a few seeded random games (one state object, played on)."""
    return testing.random_states(lambda seed: State(Config(**config), make_rng(seed)), GAMES)


def seats(state: State) -> int:
    return state.n


CONFIGS = [
    {"num_players": 3}, {"num_players": 8},
    {"num_players": 4, "dice": DICE, "split_spoils": True, "bean_target": 10},
]


def via_new_observation(state: State, seat: int, out: np.ndarray) -> None:
    """new_observation (the array the adapters get) as a writer."""
    out[:] = new_observation(state, seat)


@pytest.mark.parametrize("writer", [write_observation, via_new_observation])
@pytest.mark.parametrize("config", CONFIGS)
def test_every_seat_every_step_matches_the_reference(config, writer):
    assert testing.check_cached_writer(games(config), writer, reference, seats,
                                       LAYOUT.size, every=5) > 100


def test_copied_edited_and_reloaded_states_match_the_reference():
    def edit(shallow: State) -> None:
        shallow.beans = [b + 1 for b in shallow.beans]

    state = testing.check_cached_writer_on_copies(
        games({"num_players": 5}), write_observation, reference, seats, LAYOUT.size, State.clone, edit,
        every=11)
    # edited by hand (as tests do)
    state.atk[:] = [1, 2, 3, 4, 5]
    state.declared[2] = NO_ORDER
    state.revealed[0] = 3
    for seat in range(state.n):
        assert np.array_equal(written(state, seat), reference(state, seat))
