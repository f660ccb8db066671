"""The cached Oceanos observation writer: the same bytes as :func:`.observe.write_plain`,
rewriting only what changed since the last call (the shared design of
:mod:`otrio.envs.core.observer`).

An :class:`ObsCache` hangs on a state (``state._obs_cache``) and holds every seat's
``levels``, ``player`` and ``tableau`` rows in absolute seat order: the levels and the
tableau twice over (:class:`~otrio.envs.core.observer.SeatRows`), so that the rows seen by any
observer are one contiguous run, and the player features once (:class:`SeatRowsOnce`,
two runs), as they are written one value at a time. It also keeps the table pieces
(:data:`.observe.TABLE_PIECES`) as bytes, rewritten from :func:`.observe.table_values`
(of :func:`.view.table_view`) when :func:`.view.table_key` changes.

:meth:`ObsCache.update` rewrites only what changed: rows of cards only grow and divers
are never removed, so only the new ones are copied in (a row that shrank makes the
writer start a new cache); the player features (:func:`.view.player_columns`) and
levels are compared with the copy they were last written from. A cache serves the
state that made it alone: a loaded, cloned or copied state builds its own.
"""

from __future__ import annotations

import functools
from array import array
from itertools import compress
from operator import itemgetter, ne, or_

import numpy as np

from otrio.envs.core.observer import FLOAT_BYTES, SeatRows, StateCache, owned_cache, zeros

from .cards_table import CARD_FEATURES, CardTable
from .data import (
    MAX_HAND,
    MAX_KEPT,
    MAX_LEVEL,
    MAX_PLAYERS,
    MAX_ROW,
    MIN_PLAYERS,
    NUM_ROUNDS,
    PARTS,
)
from .observe import (
    LAYOUT,
    PLAYER_FEATURES,
    PLAYER_SCALE,
    TABLE_PIECES,
    TABLEAU_FEATURES,
    table_values,
)
from .rules import Decision, State
from .view import OWN_COUNTS, own_counts, player_columns, table_key, table_view

__all__ = ["ObsCache", "write_observation"]

TABLEAU_WIDTH = NUM_ROUNDS * MAX_ROW * TABLEAU_FEATURES  # one seat's rows of cards
LEVEL_WIDTH = len(PARTS) * MAX_LEVEL  # one seat's part levels, one-hot per part
PLAYER_WIDTH = len(PLAYER_FEATURES)
_COLUMN_IDS = range(PLAYER_WIDTH)
_SCALES = list(PLAYER_SCALE.values())
_ROUND_ROW = [itemgetter(r) for r in range(NUM_ROUNDS)]  # a seat's rows -> round r's row
_DIVER = CARD_FEATURES  # a tableau slot's diver flag follows its card features
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_LEVELS, _PLAYER, _TABLEAU = _AT["levels"], _AT["player"], _AT["tableau"]
_CARD_BYTES = CARD_FEATURES * FLOAT_BYTES
_KEEP, _KEEP_MORE = Decision.KEEP, Decision.KEEP_MORE
_PLACED = (Decision.DIVER, Decision.UPGRADE)  # decisions about the card being placed
# the observer's own counts in its player row (the first row)
_OWN = [_PLAYER + PLAYER_FEATURES.index(name) for name in OWN_COUNTS]
_OWN_SCALE = [PLAYER_SCALE[name] for name in OWN_COUNTS]
# write_observation joins the pieces before the seat rows as bytes, in this order
assert [name for name, _, _ in LAYOUT.pieces] == [
    "decision", "actor", "hand", "kept", "passed", "placing", *TABLE_PIECES,
    "levels", "player", "tableau"], "the cached writer joins the pieces in layout order"


class CardBytes:
    """The float32 rows of every card as raw bytes (joined and copied in at once)."""

    def __init__(self, table: CardTable):
        diverless = bytes(FLOAT_BYTES)
        self.features = [row.tobytes() for row in table.features]  # for the own cards
        self.slots = [raw + diverless for raw in self.features]  # for a tableau row
        self.eyes = table.eyes
        self.bits = [0 if a < 0 else 1 << a for a in table.animal]  # animal kind bit


card_bytes = functools.cache(CardBytes)  # one per (shared, read-only) card table


@functools.cache
def level_bytes(levels: tuple[int, ...]) -> bytes:
    """A seat's part levels as float32 one-hot rows (raw bytes)."""
    row = array("f", bytes(LEVEL_WIDTH * FLOAT_BYTES))
    for part, level in enumerate(levels):
        row[part * MAX_LEVEL + level - 1] = 1.0
    return row.tobytes()


class SeatRowsOnce:
    """One float32 row per seat, stored once: the ``n`` rows from any seat on, in turn
    order, are two runs, ``pieces[seat] = (floats in the first, first, second)``. For
    rows whose values are written one at a time (one store each instead of two)."""

    __slots__ = ("data", "floats", "pieces")

    def __init__(self, n: int, width: int):
        self.data = zeros(n * width)
        floats = self.floats = memoryview(self.data)
        self.pieces = [((n - seat) * width, floats[seat * width :], floats[: seat * width])
                       for seat in range(n)]


class ObsCache(StateCache):
    """See the module docstring; ``levels``, ``player`` and ``tableau`` are its rows."""

    __slots__ = (
        "n", "seats", "cards", "round", "sizes", "lengths", "eyes", "eyes_now", "animals",
        "kinds", "divers", "tableau", "levels", "player", "seen_levels", "seen_columns",
        "table", "table_key",
    )  # fmt: skip

    def __init__(self, state: State) -> None:
        """An empty cache for ``state`` (``update`` fills it in)."""
        super().__init__(state)
        n = self.n = state.num_players
        self.seats = range(n)
        self.cards = card_bytes(state.table)
        self.round = None  # the round last seen (None: not yet)
        self.sizes: list[int] = []  # this round's row sizes, when last seen
        self.lengths = [[0] * NUM_ROUNDS for _ in range(n)]  # cards copied in, per row
        self.eyes = [[0] * NUM_ROUNDS for _ in range(n)]  # eyes per row
        self.eyes_now = [0] * n  # eyes in this round's row
        self.animals = [0] * n  # bit set of the animal kinds collected
        self.kinds = [0] * n  # how many animal kinds
        self.divers = [0] * n  # divers marked
        self.tableau = SeatRows(n, TABLEAU_WIDTH)
        self.levels = SeatRows(n, LEVEL_WIDTH)
        self.player = SeatRowsOnce(n, PLAYER_WIDTH)
        # the values each part was last written from (None: never written); the rows
        # start as zeros, as if written from all-zero columns (0 / divisor is 0.0)
        self.seen_levels: list = [None] * n
        self.seen_columns = [[0] * n] * PLAYER_WIDTH
        # the table pieces as bytes, and the table_key they were written for
        self.table: bytes | None = None
        self.table_key: tuple | None = None

    def update(self, state: State) -> bool:
        """Bring every part in step with ``state``; False if its rows or divers shrank."""
        rnd = state.round
        sizes = list(map(len, map(_ROUND_ROW[rnd], state.rows)))
        placed = list(map(len, state.divers))
        if rnd != self.round or sizes != self.sizes or placed != self.divers:
            if not self._rows(state, sizes, placed):
                return False
        if state.levels != self.seen_levels:
            for p in compress(self.seats, map(ne, state.levels, self.seen_levels)):
                self.levels.put(p, 0, level_bytes(tuple(state.levels[p])))
            self.seen_levels = [list(lv) for lv in state.levels]
        # each player feature that changed (found by C-level iteration) is rewritten for
        # every seat, which costs less than finding the seats whose value changed; the
        # writer puts the observer's own true counts over its row
        columns = player_columns(state, self.eyes_now, self.kinds)
        seen = self.seen_columns
        floats = self.player.floats
        for k in compress(_COLUMN_IDS, map(ne, columns, seen)):
            at, scale = k, _SCALES[k]
            now = seen[k] = list(columns[k])  # a copy: some are the state's own lists
            for value in now:
                floats[at] = value / scale
                at += PLAYER_WIDTH
        return True

    def new_table(self, state: State, key: tuple) -> bytes:
        """The table pieces as float32 bytes, rewritten for a new ``table_key``."""
        self.table = array("f", table_values(table_view(state))).tobytes()
        self.table_key = key
        return self.table

    def _rows(self, state: State, sizes: list[int], placed: list[int]) -> bool:
        """New cards and divers, and the eyes and animal kinds of the rows that grew."""
        rnd = state.round
        if rnd == self.round:  # rows of past rounds are complete once their round is seen
            for p in compress(self.seats, map(ne, sizes, self.sizes)):
                if not self._grow(state, p, rnd):
                    return False
        else:
            for p in self.seats:
                for r in range(NUM_ROUNDS):
                    if not self._grow(state, p, r):
                        return False
            self.eyes_now = list(map(itemgetter(rnd), self.eyes))
            self.round = rnd
        self.sizes = sizes
        for p in compress(self.seats, map(ne, placed, self.divers)):
            if placed[p] < self.divers[p]:
                return False
            for r, c in state.divers[p][self.divers[p] :]:
                self.tableau.set(p, (r * MAX_ROW + c) * TABLEAU_FEATURES + _DIVER, 1.0)
        self.divers = placed
        return True

    def _grow(self, state: State, p: int, r: int) -> bool:
        """Copy in the cards added to seat ``p``'s row ``r``; False if the row shrank."""
        row, have = state.rows[p][r], self.lengths[p][r]
        if len(row) <= have:
            return len(row) == have
        new, cards = row[have:], self.cards
        self.tableau.put(p, (r * MAX_ROW + have) * TABLEAU_FEATURES,
                         b"".join(map(cards.slots.__getitem__, new)))
        self.lengths[p][r] = len(row)
        self.eyes[p][r] += sum(map(cards.eyes.__getitem__, new))
        if r == self.round:
            self.eyes_now[p] = self.eyes[p][r]
        self.animals[p] = functools.reduce(or_, map(cards.bits.__getitem__, new), self.animals[p])
        self.kinds[p] = self.animals[p].bit_count()
        return True


def _one_hots(decision: int | None, actor: int | None) -> bytes:
    """The ``decision`` and ``actor`` pieces as float32 bytes (None: all zero)."""
    row = array("f", bytes((len(Decision) + MAX_PLAYERS) * FLOAT_BYTES))
    if decision is not None:
        row[decision] = row[len(Decision) + actor] = 1.0
    return row.tobytes()


# the pieces before the hand, by pending decision and relative actor; after the game
_PENDING = [[_one_hots(d, a) for a in range(MAX_PLAYERS)] for d in range(len(Decision))]
_NOTHING_PENDING = _one_hots(None, None)
# zero float32 bytes: an empty card slot, and the free slots of a hand / of the kept cards
_NO_CARD = bytes(_CARD_BYTES)
_FREE_HAND = [bytes((MAX_HAND - k) * _CARD_BYTES) for k in range(MAX_HAND + 1)]
_FREE_KEPT = [bytes((MAX_KEPT - k) * _CARD_BYTES) for k in range(MAX_KEPT + 1)]
_PREFIX_BYTES = _LEVELS * FLOAT_BYTES  # the pieces before the seat rows
# (byte offset, zeros) of the rows of the seats not in play, by player count
_ABSENT = {
    n: [((at + n * width) * FLOAT_BYTES, bytes((MAX_PLAYERS - n) * width * FLOAT_BYTES))
        for at, width in ((_LEVELS, LEVEL_WIDTH), (_PLAYER, PLAYER_WIDTH),
                          (_TABLEAU, TABLEAU_WIDTH))
        if n < MAX_PLAYERS]
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}
# (buffer, its float view, its byte view) of the last buffer written: the adapter
# reuses one; replaced as a whole, so a reader always gets one buffer's views
_memory = [(None, None, None)]


def _new_cache(state: State) -> ObsCache:
    """A fresh observation cache for ``state``, brought in step with it."""
    cache = state._obs_cache = ObsCache(state)
    cache.update(state)
    return cache


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into ``out`` (every value of it), as
    :func:`.observe.write_plain` does.

    Everything before the seat rows is joined as one byte string (the pending
    decision, the own cards padded to their slots, the card being placed, the table
    pieces); the seat rows are copied from the cache, the observer's first, then zeros
    for the seats not in play.
    """
    held, f, b = _memory[0]
    if held is not out:
        if out.dtype != np.float32 or not out.flags.c_contiguous or out.size != LAYOUT.size:
            raise ValueError("the observation buffer must be a contiguous float32 vector")
        f = memoryview(out)
        b = f.cast("B")
        _memory[0] = out, f, b
    n = state.num_players
    cache = owned_cache(state)
    if cache is None or not cache.update(state):
        cache = _new_cache(state)
    card = cache.cards.features.__getitem__
    hand, kept, passed = state.hands[seat], state.kept[seat], state.passed[seat]
    choosing = False
    if state.over:
        pending, placing = _NOTHING_PENDING, _NO_CARD
    else:
        decision, actor = state.decision, state.actor
        choosing = decision == _KEEP or decision == _KEEP_MORE
        if decision == _KEEP_MORE and actor != seat:
            decision = _KEEP  # as view.seen_decision(): another's extra keeps are secret
        pending = _PENDING[decision][(actor - seat) % n]
        placed = state.placing and state.decision in _PLACED  # as view.placing_card()
        placing = card(state.placing[0][1]) if placed else _NO_CARD
    table = cache.table
    key = table_key(state)
    if key != cache.table_key:
        table = cache.new_table(state, key)
    b[:_PREFIX_BYTES] = b"".join([
        pending, *map(card, hand), _FREE_HAND[len(hand)], *map(card, kept),
        _FREE_KEPT[len(kept)], *map(card, passed), _FREE_HAND[len(passed)], placing,
        table,
    ])  # fmt: skip
    f[_LEVELS : _LEVELS + n * LEVEL_WIDTH] = cache.levels.runs[seat]
    split, first, second = cache.player.pieces[seat]
    f[_PLAYER : _PLAYER + split] = first
    f[_PLAYER + split : _PLAYER + n * PLAYER_WIDTH] = second
    f[_TABLEAU : _TABLEAU + n * TABLEAU_WIDTH] = cache.tableau.runs[seat]
    if choosing and kept:  # the cache holds what the others see; the seat knows its keeps
        for at, value, scale in zip(_OWN, own_counts(state, seat), _OWN_SCALE):
            f[at] = value / scale
    if n < MAX_PLAYERS:
        for at, zeros_ in _ABSENT[n]:
            b[at : at + len(zeros_)] = zeros_
