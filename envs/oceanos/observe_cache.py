"""The per-seat parts of an Oceanos observation, kept in step with the state.

An :class:`ObsCache` hangs on a state (``state._obs_cache``) and holds every seat's
``levels``, ``player`` and ``tableau`` rows in absolute seat order: the levels and the
tableau twice over (:class:`SeatRows`), so that the rows seen by any observer are one
contiguous run, and the player features once (:class:`SeatRowsOnce`, two runs), as they
are written one value at a time.
:meth:`ObsCache.update` rewrites only what changed since it last ran: rows of cards
only grow and divers are never removed, so only the new ones are copied in (a row
that shrank makes the caller start a new cache); every other value is compared with
the copy it was last written from. A cache serves the state that made it alone: a
loaded, cloned or copied state builds its own (copying or pickling a cache gives none).
"""

from __future__ import annotations

import functools
from array import array
from itertools import compress
from operator import attrgetter, itemgetter, ne, or_

import numpy as np

from envs.core.observer import StateCache

from .actions import MAX_HAND
from .cards_table import CARD_FEATURES, CardTable
from .data import AIRLOCK_DIVERS, ANIMALS, MAX_LEVEL, MOTOR_FUEL, NUM_ROUNDS, PARTS, TURNS_PER_ROUND

MAX_PLAYERS = 5
MIN_PLAYERS = 2
MAX_KEPT = 1 + max(MOTOR_FUEL)  # one card plus one per Fuel token
MAX_ROW = TURNS_PER_ROUND + max(MOTOR_FUEL)  # cards in one round's row
TABLEAU_FEATURES = CARD_FEATURES + 1  # plus "a scuba diver is on this card"
TABLEAU_WIDTH = NUM_ROUNDS * MAX_ROW * TABLEAU_FEATURES  # one seat's rows of cards
LEVEL_WIDTH = len(PARTS) * MAX_LEVEL  # one seat's part levels, one-hot per part
SCORE_SCALE = 50.0
KRAKEN_SCALE = 4  # divides Kraken token values
CRYSTAL_SCALE = 4  # divides unspent crystals
EYES_SCALE = 10  # divides the eyes in this round's row
MAX_DIVERS = max(AIRLOCK_DIVERS)
MAX_FUEL = max(MOTOR_FUEL)
PLAYER_FEATURES = (
    "present", "captain", "fuel_ready", "fuel_fresh", "fuel_used", "divers_ready",
    "divers_placed", "green", "yellow", "score", "hand_size", "kept_face_down",
    "eyes_this_round", "animal_kinds",
)
PLAYER_WIDTH = len(PLAYER_FEATURES)
COLUMN = {name: i for i, name in enumerate(PLAYER_FEATURES)}
# player features that are a state list of the same name, and their divisors
_COUNTED = (
    ("fuel_ready", MAX_FUEL), ("fuel_fresh", MAX_FUEL), ("fuel_used", MAX_FUEL),
    ("divers_ready", MAX_DIVERS), ("green", CRYSTAL_SCALE), ("yellow", CRYSTAL_SCALE),
    ("score", SCORE_SCALE),
)
_counted = attrgetter(*(name for name, _ in _COUNTED))
# (column, divisor) of the player features that update() compares, in its order (all
# but "present", which is written once)
COLUMNS = (
    *((COLUMN[name], divisor) for name, divisor in _COUNTED),
    (COLUMN["hand_size"], MAX_HAND), (COLUMN["kept_face_down"], MAX_KEPT),
    (COLUMN["captain"], 1), (COLUMN["divers_placed"], MAX_DIVERS),
    (COLUMN["eyes_this_round"], EYES_SCALE), (COLUMN["animal_kinds"], len(ANIMALS)),
)
_COLUMN_IDS = range(len(COLUMNS))
_ROUND_ROW = [itemgetter(r) for r in range(NUM_ROUNDS)]  # a seat's rows -> round r's row
NO_CAPTAIN = -1  # the captain "seat" of a two-player-turn game
FLOAT_BYTES = np.dtype(np.float32).itemsize
_DIVER = CARD_FEATURES  # a tableau slot's diver flag follows its card features


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


class SeatRows:
    """One float32 row per seat, stored twice (seat ``p`` at rows ``p`` and ``p + n``)
    so that the ``n`` rows from any seat on, in turn order, are one contiguous run:
    ``runs[seat]``."""

    __slots__ = ("n", "width", "data", "floats", "raw", "runs")

    def __init__(self, n: int, width: int):
        self.n, self.width = n, width
        self.data = array("f", bytes(2 * n * width * FLOAT_BYTES))
        floats = self.floats = memoryview(self.data)  # float32 items, written as Python floats
        self.raw = floats.cast("B")
        self.runs = [floats[seat * width : (seat + n) * width] for seat in range(n)]

    def set(self, p: int, i: int, value: float) -> None:
        """Value ``i`` of seat ``p``'s row."""
        w = self.width
        self.floats[p * w + i] = self.floats[(p + self.n) * w + i] = value

    def put(self, p: int, i: int, raw: bytes) -> None:
        """Raw float32 bytes into seat ``p``'s row from value ``i`` on."""
        at = (p * self.width + i) * FLOAT_BYTES
        twin = at + self.n * self.width * FLOAT_BYTES
        self.raw[at : at + len(raw)] = self.raw[twin : twin + len(raw)] = raw


class SeatRowsOnce:
    """One float32 row per seat, stored once: the ``n`` rows from any seat on, in turn
    order, are two runs, ``pieces[seat] = (floats in the first, first, second)``. For
    rows whose values are written one at a time (one store each instead of two)."""

    __slots__ = ("data", "floats", "pieces")

    def __init__(self, n: int, width: int):
        self.data = array("f", bytes(n * width * FLOAT_BYTES))
        floats = self.floats = memoryview(self.data)
        self.pieces = [((n - seat) * width, floats[seat * width :], floats[: seat * width])
                       for seat in range(n)]


@functools.cache
def captain_flags(n: int) -> list[list[bool]]:
    """Each seat's Captain flag, by Captain seat (the last entry: no Captain); shared,
    read-only."""
    return [[p == c for p in range(n)] for c in range(n)] + [[False] * n]


class ObsCache(StateCache):
    """See the module docstring; ``levels``, ``player`` and ``tableau`` are its rows."""

    __slots__ = (
        "n", "seats", "cards", "captains", "round", "sizes", "lengths", "eyes",
        "eyes_now", "animals", "kinds", "divers", "tableau", "levels", "player",
        "seen_levels", "seen_columns", "header", "header_key",
    )  # fmt: skip

    def __init__(self, state) -> None:
        """An empty cache for ``state`` (``update`` fills it in)."""
        super().__init__(state)
        n = self.n = state.num_players
        self.seats = range(n)
        self.cards = card_bytes(state.table)
        # the Captain flag of each seat, by Captain (the last entry: no Captain)
        self.captains = captain_flags(n)
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
        self.player.data[COLUMN["present"] :: PLAYER_WIDTH] = array("f", [1.0]) * n
        # the values each part was last written from (None: never written); the rows
        # start as zeros, as if written from all-zero columns (0 / divisor is 0.0)
        self.seen_levels: list = [None] * n
        self.seen_columns = [[0] * n] * len(COLUMNS)
        # the observer-independent pieces before the seat rows, kept by the writer
        self.header: bytes | None = None
        self.header_key: tuple | None = None

    def update(self, state) -> bool:
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
        # the compared player features as lists over the seats (COLUMNS' order); each
        # that changed (found by C-level iteration) is rewritten for every seat, which
        # costs less than finding the seats whose value changed
        # the counts every other seat sees (keeps are secret until all have chosen);
        # the writer puts the observer's own true counts over its row
        counted = _counted(state)
        if state.choosing():
            hands, kept, ready, used = state.public_counts()
            counted = (ready, counted[1], used, *counted[3:])
        else:
            hands, kept = list(map(len, state.hands)), list(map(len, state.kept))
        columns = [
            *counted, hands, kept,
            self.captains[state.captain if state.captain_mode else NO_CAPTAIN], placed,
            self.eyes_now, self.kinds,
        ]  # fmt: skip
        seen = self.seen_columns
        floats = self.player.floats
        for k in compress(_COLUMN_IDS, map(ne, columns, seen)):
            at, divisor = COLUMNS[k]
            now = seen[k] = list(columns[k])  # a copy: some are the state's own lists
            for value in now:
                floats[at] = value / divisor
                at += PLAYER_WIDTH
        return True

    def _rows(self, state, sizes: list[int], placed: list[int]) -> bool:
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

    def _grow(self, state, p: int, r: int) -> bool:
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
