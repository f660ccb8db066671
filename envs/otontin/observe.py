"""The fixed-size observation of one seat (padded to 8 seats, 4 die colours).

Seats are relative to the observer: row 0 is the observer, row ``i`` the leader ``i``
seats to its left (turn order). Counts are divided by ``COUNT_SCALE``. An order is
16 numbers: left card (spear, shield, hand), left offer (5), right card (3), right
offer (5), each one-hot (offers all 0 on a Spear or Shield). The layout table is in
``README.md`` (``LAYOUT.markdown()``).

What a seat sees is only what a leader at the table knows: all cards and tokens, the
dice of the current campaign turn, every declaration, its own secret order, and the
others' orders only once revealed (the ``revealed`` rows hold the last war's orders).

Everything but the own order is public, so an :class:`ObsCache` on the state keeps it
in absolute seat order (the seat rows of seat ``s`` at row ``s``), rewriting only the
pieces whose state fields differ from the copy they were last written from; the
writer gathers it into relative order with one index array, then adds the own order.
"""

from __future__ import annotations

import functools
from array import array
from itertools import compress
from operator import attrgetter, ne

import numpy as np

from envs.core import ObservationLayout
from envs.core.observer import StateCache, owned_cache

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
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_DECL_W = 2 + ORDER_FEATURES
_REV_W = 1 + ORDER_FEATURES
# pieces with one row per seat (relative in the observation, absolute in the cache)
SEAT_PIECES = (
    "seat_present", "attack", "defence", "beans", "busted", "campaign_done",
    "starting_leader", "campaign_leader", "acting", "takers", "declared", "committed",
    "revealed",
)  # fmt: skip
# seat pieces that are a state list of counts or flags: (piece, state field, divisor)
SEAT_COUNTS = (
    ("attack", "atk", COUNT_SCALE), ("defence", "dfn", COUNT_SCALE),
    ("beans", "beans", COUNT_SCALE), ("busted", "busted", 1), ("campaign_done", "done", 1),
)  # fmt: skip
_seat_counts = attrgetter(*(field for _, field, _ in SEAT_COUNTS))
# the pieces that are counts (or flags), in the order update() gathers them: (piece, divisor)
COUNTS = (
    *((name, divisor) for name, _, divisor in SEAT_COUNTS), ("pool", COUNT_SCALE),
    ("bag", COUNT_SCALE), ("priests_aside", COUNT_SCALE), ("rolled", COUNT_SCALE),
    ("payable", COUNT_SCALE), ("theft", COUNT_SCALE),
)
# one-hot pieces, in the order update() gathers their index
MARKS = ("starting_leader", "acting", "campaign_leader", "phase", "decision", "revealed_age")
ZERO_SLOT = LAYOUT.size  # the cache's extra, always-zero float (for absent seats)
FLOAT_BYTES = np.dtype(np.float32).itemsize
_NO_ROLL = array("f", bytes(FLOAT_BYTES * K * F))  # the last_roll piece, all zero
# the values of the "game" piece
GAME_ROUND, GAME_FINAL, GAME_TARGET, GAME_SPLIT = range(*LAYOUT.offsets["game"][:2])


def _rows(width: int, rows: list[list[float]]) -> list[array]:
    """Each row as a float32 ``array`` of ``width`` (zero-padded at the front)."""
    return [array("f", [0.0] * (width - len(r)) + r) for r in rows]


# the cache row of a declaration (UNSAID, NO_ORDER, then each order), of a revealed
# order (NO_ORDER, then each order) and the observer's own order (each order)
_ORDERS = ORDER_VEC.tolist()
_DECLARED = dict(zip([UNSAID, NO_ORDER, *range(NUM_ORDERS)], _rows(_DECL_W, (
    [[0.0] * _DECL_W, [1.0, 1.0] + [0.0] * ORDER_FEATURES] + [[1.0, 0.0, *o] for o in _ORDERS]))))
_REVEALED = dict(zip([NO_ORDER, *range(NUM_ORDERS)], _rows(_REV_W, (
    [[0.0] * _REV_W] + [[1.0, *o] for o in _ORDERS]))))
_OWN = np.array([[1.0, *o] for o in _ORDERS], np.float32)


def _face_shares(kinds: list[tuple[int, ...]]) -> list[float]:
    """Share of each face on a die of each colour."""
    out = [0.0] * (K * F)
    for k, faces in enumerate(kinds):
        for face in faces:
            out[k * F + face] += 1.0 / len(faces)
    return out


class ObsCache(StateCache):
    """The public observation of one state in absolute seat order (module docstring).

    ``vec`` is the layout plus :data:`ZERO_SLOT`; ``buf`` is the same memory as an
    ``array`` (cheap element writes). A cache serves the state that made it alone: a
    loaded, copied or cloned state builds its own (copying a cache gives none).
    """

    __slots__ = ("n", "buf", "vec", "seen", "no_dice", "no_seats", "count_at", "count_divisor")

    def __init__(self, state: State):
        super().__init__(state)
        self.n = n = state.n
        self.buf = buf = array("f", bytes(FLOAT_BYTES * (LAYOUT.size + 1)))
        self.vec = np.frombuffer(buf, np.float32)
        self.no_seats = array("f", bytes(FLOAT_BYTES * self.n))  # zeros over the seats
        # what each piece (or kind of piece) was last written from (None: not yet)
        self.seen: dict[str, object] = dict.fromkeys(
            ("marks", "game", "last_roll", "takers", "committed", "declared", "revealed",
             "seat_sets"))
        self.seen["marks"] = (None,) * len(MARKS)
        # every count as one flat tuple (update()'s order), each count's float index
        # and divisor; the dice counts outside the campaign are zero
        kinds = len(state.kinds)
        dice_lengths = [kinds, kinds, F, 2, 1]  # bag, priests aside, rolled, payable, theft
        lengths = [n] * len(SEAT_COUNTS) + [2, *dice_lengths]
        self.count_at = [_AT[name] + i for (name, _), length in zip(COUNTS, lengths)
                         for i in range(length)]
        self.count_divisor = [divisor for (_, divisor), length in zip(COUNTS, lengths)
                              for _ in range(length)]
        self.seen["counts"] = (None,) * len(self.count_at)
        self.no_dice = (0,) * sum(dice_lengths)
        cfg = state.config
        for name, values in (
            ("seat_present", [1.0] * n),
            ("dice_count", [c / COUNT_SCALE for c in state.kind_counts]),
            ("dice_faces", _face_shares(state.kinds)),
        ):
            buf[_AT[name] : _AT[name] + len(values)] = array("f", values)
        buf[GAME_TARGET] = cfg.bean_target / COUNT_SCALE
        buf[GAME_SPLIT] = float(cfg.split_spoils)

    def update(self, state: State) -> None:
        """Bring every piece in step with ``state``: the pieces of each kind are compared
        at once (in C) and only the values that changed are rewritten (counts divided by
        their divisor; one-hots moved)."""
        seen = self.seen
        campaign = state.phase == CAMPAIGN
        atk, dfn, beans, busted, done = _seat_counts(state)
        if campaign:
            counts = (*atk, *dfn, *beans, *busted, *done, state.pool_w, state.pool_b,
                      *state.bag, *state.aside, *state.rolled, *state.payable(),
                      state.theft if state.takers else 0)  # fmt: skip
        else:
            counts = (*atk, *dfn, *beans, *busted, *done, state.pool_w, state.pool_b,
                      *self.no_dice)  # fmt: skip
        old_counts = seen["counts"]
        if counts != old_counts:
            buf, at, divisor = self.buf, self.count_at, self.count_divisor
            for i in compress(range(len(counts)), map(ne, counts, old_counts)):
                buf[at[i]] = counts[i] / divisor[i]
            seen["counts"] = counts
        actor = state.current_player()
        age = state.round - state.revealed_round
        marks = (
            state.start, actor if actor >= 0 else None,
            state.active if campaign else None, state.phase,
            None if state.decision == NO_DECISION else state.decision,
            age if state.revealed_round and age < 2 else None,
        )  # fmt: skip
        if marks != seen["marks"]:
            buf, old_marks = self.buf, seen["marks"]
            for k in compress(range(len(MARKS)), map(ne, marks, old_marks)):
                at = _AT[MARKS[k]]
                if old_marks[k] is not None:
                    buf[at + old_marks[k]] = 0.0
                if marks[k] is not None:
                    buf[at + marks[k]] = 1.0
            seen["marks"] = marks
        if (state.round, state.final_round) != seen["game"]:
            self.buf[GAME_ROUND] = state.round / state.config.round_cap
            self.buf[GAME_FINAL] = float(state.final_round)
            seen["game"] = (state.round, state.final_round)
        roll = state.last_roll if campaign else []
        if roll != seen["last_roll"]:
            at = _AT["last_roll"]
            self.buf[at : at + K * F] = _NO_ROLL
            for kind, face in roll:
                self.buf[at + kind * F + face] += 1.0
            seen["last_roll"] = [list(die) for die in roll]
        takers = state.takers if campaign else []
        committed = state.actives[: state.cursor] if state.phase == COMMIT_PHASE else []
        if (takers, committed, state.declared, state.revealed) != seen["seat_sets"]:
            self._seats("takers", takers)
            self._seats("committed", committed)
            self._order_rows("declared", state.declared, _DECLARED, _DECL_W)
            self._order_rows("revealed", state.revealed, _REVEALED, _REV_W)
            seen["seat_sets"] = (list(takers), committed, list(state.declared),
                                 list(state.revealed))

    def _seats(self, name: str, seats: list[int]) -> None:
        """Piece ``name`` 1 at each of ``seats``, 0 elsewhere."""
        if seats == self.seen[name]:
            return
        at = _AT[name]
        self.buf[at : at + self.n] = self.no_seats
        for s in seats:
            self.buf[at + s] = 1.0
        self.seen[name] = list(seats)

    def _order_rows(self, name: str, orders: list[int], rows: dict, width: int) -> None:
        """Each seat's row of piece ``name``: ``rows[order]``, where it changed."""
        seen = self.seen[name]
        if orders == seen:
            return
        at, buf = _AT[name], self.buf
        for s, order in enumerate(orders):
            if seen is None or order != seen[s]:
                buf[at + s * width : at + (s + 1) * width] = rows[order]
        self.seen[name] = list(orders)


@functools.cache
def _gather(n: int, seat: int) -> np.ndarray:
    """For each float of ``seat``'s observation: its index in the cache's ``vec``.

    Relative row ``k`` of a seat piece is absolute seat ``(seat + k) % n``; rows of
    absent seats read :data:`ZERO_SLOT`; every other piece is in place.
    """
    index = np.arange(LAYOUT.size, dtype=np.intp)
    for name in SEAT_PIECES:
        a, b, shape = LAYOUT.offsets[name]
        width = (b - a) // shape[0]
        for k in range(shape[0]):
            row = index[a + k * width : a + (k + 1) * width]
            row[:] = ZERO_SLOT if k >= n else np.arange(width) + a + (seat + k) % n * width
    index.flags.writeable = False
    return index


def _cache(state: State) -> ObsCache:
    """The state's observation cache, made on first use, brought in step with it."""
    cache = owned_cache(state)
    if cache is None:
        cache = state._obs_cache = ObsCache(state)
    cache.update(state)
    return cache


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the float32 vector ``out`` (every value)."""
    _cache(state).vec.take(_gather(state.n, seat), out=out, mode="clip")
    _write_own_order(state, seat, out)


def new_observation(state: State, seat: int) -> np.ndarray:
    """``seat``'s view of ``state`` as a new float32 vector (one gather, no copy)."""
    out = _cache(state).vec.take(_gather(state.n, seat), mode="clip")
    _write_own_order(state, seat, out)
    return out


def _write_own_order(state: State, seat: int, out: np.ndarray) -> None:
    """The seat's own secret order (the one private piece)."""
    own = state.committed[seat]
    if own != NO_ORDER:
        out[_AT["own_order"] : _AT["own_order"] + _REV_W] = _OWN[own]


__all__ = ["COUNT_SCALE", "LAYOUT", "ORDER_VEC", "new_observation", "write_observation"]
