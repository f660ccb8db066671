"""The fixed-size observation of one seat (padded to 8 seats, 4 die colours).

Seats are relative to the observer: row 0 is the observer, row ``i`` the leader ``i``
seats to its left (turn order). Counts are divided by ``COUNT_SCALE``. An order is
16 numbers: left card (spear, shield, hand), left offer (5), right card (3), right
offer (5), each one-hot (offers all 0 on a Spear or Shield). The layout table is in
``README.md`` (``LAYOUT.markdown()``).

What a seat sees is only what a leader at the table knows: all cards and tokens, the
dice of the current campaign turn, every declaration, its own secret order, and the
others' orders only once revealed (the ``revealed`` rows hold the last war's orders).
"""

from __future__ import annotations

import numpy as np

from envs.core import ObservationLayout

from .campaign import DECISION_NAMES, NO_DECISION
from .data import (
    HAND,
    MAX_DIE_KINDS,
    MAX_PLAYERS,
    NO_OFFER,
    NUM_CARDS,
    NUM_FACES,
    NUM_OFFERS,
)
from .orders import NO_ORDER, NUM_ORDERS, ORDERS
from .rules import CAMPAIGN, COMMIT_PHASE, PHASE_NAMES, UNSAID, State

COUNT_SCALE = 10.0  # divides warrior, bean and dice counts
P, K, F = MAX_PLAYERS, MAX_DIE_KINDS, NUM_FACES
SIDE_FEATURES = NUM_CARDS + NUM_OFFERS
ORDER_FEATURES = 2 * SIDE_FEATURES
NUM_DECISIONS = len(DECISION_NAMES) - 1  # "none" has no slot

LAYOUT = ObservationLayout(
    [
        ("seat_present", (P,), "1 for each seat in play (relative; own seat first)"),
        ("attack", (P,), "warriors on each leader's Attack card / 10"),
        ("defence", (P,), "warriors on each leader's Defence card / 10"),
        ("beans", (P,), "each leader's cocoa beans / 10"),
        ("busted", (P,), "1 if the leader busted this round (sits out, city impassable)"),
        ("campaign_done", (P,), "1 if the leader has had its campaign turn this round"),
        ("starting_leader", (P,), "one-hot: the Starting Leader of this round"),
        ("campaign_leader", (P,), "one-hot: whose campaign turn it is (campaign only)"),
        ("acting", (P,), "one-hot: who takes the pending decision"),
        ("pool", (2,), "warriors, beans left in the pool / 10"),
        ("phase", (len(PHASE_NAMES),), "one-hot: campaign, talk, commit, over"),
        ("decision", (NUM_DECISIONS,), "one-hot: roll_or_stop, priority, steal, declare, commit"),
        ("game", (4,), "round / round_cap, final round, bean target / 10, split spoils"),
        ("dice_count", (K,), "dice of each colour in the game / 10"),
        ("dice_faces", (K, F), "share of each face (warrior, bean, priest, saboteur) per colour"),
        ("bag", (K,), "dice of each colour in the bag / 10"),
        ("priests_aside", (K,), "priest dice of each colour set aside / 10"),
        ("rolled", (F,), "faces rolled this turn (warrior, bean, priest, saboteur) / 10"),
        ("last_roll", (K, F), "the last roll: dice by colour and face"),
        ("payable", (2,), "warriors, beans the pool would pay on stopping now / 10"),
        ("theft", (1,), "saboteurs of the roll being paid for (pending theft) / 10"),
        ("takers", (P,), "1 for the neighbours taking warriors in the pending theft"),
        ("declared", (P, 2 + ORDER_FEATURES), "spoke?, said nothing?, declared order"),
        ("committed", (P,), "1 if the leader has laid its secret order this round"),
        ("own_order", (1 + ORDER_FEATURES,), "own secret order this round: laid?, order"),
        ("revealed", (P, 1 + ORDER_FEATURES), "last war's revealed orders: had one?, order"),
        ("revealed_age", (2,), "one-hot: 'revealed' is this round's war / the previous round's"),
    ]
)


def _order_vectors() -> np.ndarray:
    vec = np.zeros((NUM_ORDERS, ORDER_FEATURES), dtype=np.float32)
    for i, (lc, lo, rc, ro) in enumerate(ORDERS):
        for base, card, offer in ((0, lc, lo), (SIDE_FEATURES, rc, ro)):
            vec[i, base + card] = 1.0
            if card == HAND and offer != NO_OFFER:
                vec[i, base + NUM_CARDS + offer] = 1.0
    return vec


ORDER_VEC = _order_vectors()
_ORDER_LISTS = ORDER_VEC.tolist()
_OFF = {name: (a, b) for name, (a, b, _) in LAYOUT.offsets.items()}
_DECL_W = 2 + ORDER_FEATURES
_REV_W = 1 + ORDER_FEATURES


_SHARES: dict[tuple, list[float]] = {}


def _face_shares(state: State) -> list[float]:
    """Share of each face on a die of each colour (cached per dice table)."""
    key = tuple(state.kinds)
    if key not in _SHARES:
        out = [0.0] * (K * F)
        for k, faces in enumerate(state.kinds):
            for face in faces:
                out[k * F + face] += 1.0 / len(faces)
        _SHARES[key] = out
    return _SHARES[key]


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the zeroed float32 vector ``out``.

    The values are gathered in a Python list and copied into ``out`` once (fast).
    """
    n = state.n
    v = [0.0] * LAYOUT.size
    rel = [(seat + i) % n for i in range(n)]
    pos = [(s - seat) % n for s in range(n)]  # seat -> relative row

    def put(name: str, values) -> None:
        a = _OFF[name][0]
        v[a : a + len(values)] = values

    def one(name: str, index: int) -> None:
        v[_OFF[name][0] + index] = 1.0

    put("seat_present", [1.0] * n)
    put("attack", [state.atk[s] / COUNT_SCALE for s in rel])
    put("defence", [state.dfn[s] / COUNT_SCALE for s in rel])
    put("beans", [state.beans[s] / COUNT_SCALE for s in rel])
    put("busted", [float(state.busted[s]) for s in rel])
    put("campaign_done", [float(state.done[s]) for s in rel])
    one("starting_leader", pos[state.start])
    actor = state.current_player()
    if actor >= 0:
        one("acting", pos[actor])
    put("pool", [state.pool_w / COUNT_SCALE, state.pool_b / COUNT_SCALE])
    one("phase", state.phase)
    if state.decision != NO_DECISION:
        one("decision", state.decision)
    cfg = state.config
    put(
        "game",
        [
            state.round / cfg.round_cap,
            float(state.final_round),
            cfg.bean_target / COUNT_SCALE,
            float(cfg.split_spoils),
        ],
    )
    put("dice_count", [c / COUNT_SCALE for c in state.kind_counts])
    put("dice_faces", _face_shares(state))
    if state.phase == CAMPAIGN:  # the dice of the current turn
        one("campaign_leader", pos[state.active])
        put("bag", [c / COUNT_SCALE for c in state.bag])
        put("priests_aside", [c / COUNT_SCALE for c in state.aside])
        put("rolled", [c / COUNT_SCALE for c in state.rolled])
        a = _OFF["last_roll"][0]
        for kind, face in state.last_roll:
            v[a + kind * F + face] += 1.0
        w, b = state.payable()
        put("payable", [w / COUNT_SCALE, b / COUNT_SCALE])
        if state.takers:
            put("theft", [state.theft / COUNT_SCALE])
            for s in state.takers:
                one("takers", pos[s])
    a = _OFF["declared"][0]
    for s, order in enumerate(state.declared):
        if order == UNSAID:
            continue
        row = a + pos[s] * _DECL_W
        v[row] = 1.0
        if order == NO_ORDER:
            v[row + 1] = 1.0
        else:
            v[row + 2 : row + _DECL_W] = _ORDER_LISTS[order]
    own = state.committed[seat]
    if own != NO_ORDER:
        a = _OFF["own_order"][0]
        v[a] = 1.0
        v[a + 1 : a + _REV_W] = _ORDER_LISTS[own]
    if state.phase == COMMIT_PHASE:  # who has laid its cards (not what)
        for s in state.actives[: state.cursor]:
            one("committed", pos[s])
    a = _OFF["revealed"][0]
    for s, order in enumerate(state.revealed):
        if order != NO_ORDER:
            row = a + pos[s] * _REV_W
            v[row] = 1.0
            v[row + 1 : row + _REV_W] = _ORDER_LISTS[order]
    age = state.round - state.revealed_round
    if state.revealed_round and age < 2:
        one("revealed_age", age)
    out[:] = v


__all__ = ["COUNT_SCALE", "LAYOUT", "ORDER_VEC", "write_observation"]
