"""The cached Otontin observation writer: the same bytes as :func:`.observe.write_plain`,
rewriting only what changed (the shared design of :mod:`otrio.envs.core.observer`).

Everything but the own order is public, so an :class:`ObsCache` on the state keeps it
in absolute seat order (the seat rows of seat ``s`` at row ``s``), rewriting only the
pieces whose state fields differ from the copy they were last written from; the
writer gathers it into the observer's order with one index array
(:func:`otrio.envs.core.observer.seat_gather`), then adds the own order.
"""

from __future__ import annotations

import functools
from array import array
from itertools import compress
from operator import attrgetter, ne

import numpy as np

from otrio.envs.core.observer import FLOAT_BYTES, StateCache, owned_cache, seat_gather

from .campaign import NO_DECISION
from .data import COUNT_SCALE, MAX_DIE_KINDS, NUM_FACES
from .observe import (
    LAYOUT,
    ORDER_FEATURES,
    ORDER_VEC,
    SEAT_COUNTS,
    SEAT_PIECES,
    face_shares,
)
from .orders import NO_ORDER, NUM_ORDERS
from .rules import CAMPAIGN, COMMIT_PHASE, UNSAID, State

_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_DECL_W = 2 + ORDER_FEATURES
_REV_W = 1 + ORDER_FEATURES
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
# the last_roll piece, all zero
_NO_ROLL = array("f", bytes(FLOAT_BYTES * MAX_DIE_KINDS * NUM_FACES))
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
        dice_lengths = [kinds, kinds, NUM_FACES, 2, 1]  # bag, priests aside, rolled, payable, theft
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
            ("dice_faces", [share for row in face_shares(state.kinds) for share in row]),
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
        attack, defence, beans, busted, done = _seat_counts(state)
        if campaign:
            counts = (*attack, *defence, *beans, *busted, *done, state.pool_warriors, state.pool_beans,
                      *state.bag, *state.aside, *state.rolled, *state.payable(),
                      state.theft if state.takers else 0)  # fmt: skip
        else:
            counts = (*attack, *defence, *beans, *busted, *done, state.pool_warriors, state.pool_beans,
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
            self.buf[at : at + MAX_DIE_KINDS * NUM_FACES] = _NO_ROLL
            for kind, face in roll:
                self.buf[at + kind * NUM_FACES + face] += 1.0
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
    """The index array that makes ``seat``'s view of the cache's vector."""
    return seat_gather(LAYOUT, SEAT_PIECES, n, seat)


def _cache(state: State) -> ObsCache:
    """The state's observation cache, made on first use, brought in step with it."""
    cache = owned_cache(state)
    if cache is None:
        cache = state._obs_cache = ObsCache(state)
    cache.update(state)
    return cache


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the float32 vector ``out`` (every value),
    as :func:`.observe.write_plain` does."""
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


__all__ = ["ObsCache", "new_observation", "write_observation"]
