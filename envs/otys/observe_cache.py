"""The parts of an Otys observation that outlive a step, kept up to date incrementally.

An :class:`ObsCache` hangs on a state (``state._obs_cache``). Each part is rewritten
only where the state fields it is made of differ from the copy taken when it was last
written. The comparison is by value, so any change is seen however it was made (a
rules action, a test assigning a field, a stale cache): the cache never has to be
told. A cloned or loaded state starts without one; copying or pickling a cache gives
an empty one, rebuilt on first use.

* ``seats``: one row per absolute seat (its share of each of ``SEAT_FIELDS``, in layout
  order) and an all-zero row for absent seats; the writer gathers them into the
  relative seat blocks with one index array.
* ``tail``: the rest of the vector, from ``num_players`` on. Its table part is kept
  here; the writer fills the observer's ``hand`` and the pending decision in place
  before each copy (they are rewritten every time, so nothing of another seat stays).
* ``hand_rows``: each seat's private contracts, as the ``hand`` piece.

Every call compares the state fields the observation is made of with their snapshots
and runs the writer of what changed (per seat for per-seat fields), so a step costs a
few list comparisons plus what it changed.

Buffers are ``array('f')`` with a numpy view over the same memory: element writes go
through the array (cheap), bulk copies through numpy.
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from math import prod
from struct import Struct

import numpy as np

from . import data as D
from .config import Tables

S = D.MAX_PLAYERS
NSLOT, NDIV, NLEV, NCOL = D.NUM_SLOTS, D.NUM_DIVERS, D.NUM_LEVELS, D.NUM_COLOURS
NKEY, NKIND, NBACK = D.NUM_OWN_KEYS, len(D.TOKEN_KINDS), len(D.TOKEN_BACKS)
TOKEN_FEATS = 1 + NKIND + NCOL + NBACK
CONTRACT_FEATS = 1 + 1 + NCOL + D.MAX_NUMBERS + 3
HAND_FEATS = D.MAX_HAND * CONTRACT_FEATS
MIN_PLAYERS = 2
FLOAT = np.dtype(np.float32).itemsize

# layout pieces with one block per seat, in layout order (the observation starts with them)
SEAT_FIELDS = (
    "present", "first_player", "divers", "upgraded", "resources", "free_space",
    "keys_home", "keys_track", "neutral_held", "neutral_track", "track_room", "hacker",
    "mechanic", "max_move", "credits", "batteries", "pp", "reward_backs", "hand_size",
)  # fmt: skip
TAIL_FIRST = "num_players"  # the first piece after the seat blocks


def zeros(size: int) -> array:
    """A float32 ``array`` of ``size`` zeros."""
    return array("f", bytes(FLOAT * size))


class ObsCache:
    """See the module docstring. ``offsets`` is the layout's ``offsets`` table;
    ``orders[seat]`` the indices of the seat rows that make ``seat``'s seat blocks."""

    __slots__ = (
        "tables", "n", "cols", "row", "seat_buf", "seats", "seat_bytes", "tail_buf", "tail", "at",
        "hand_rows", "tokens", "contracts", "token_rows", "contract_rows", "kind_back", "orders",
        # snapshots: what each watched state field was when last written (None: never)
        "divers", "upgraded", "resources", "keys_home", "hacker_track", "hacker", "board_tokens",
        "mechanic", "hands", "credits", "batteries", "pp", "neutral_held", "table",
    )  # fmt: skip

    def __init__(self, t: Tables, n: int, offsets: dict, orders: list[np.ndarray]):
        self.tables, self.n, self.orders = t, n, orders
        self.cols = cols = seat_columns(offsets)
        self.row = row = sum(seat_size(offsets, name) for name in SEAT_FIELDS)
        assert cols["upgraded"] == cols["divers"] + NSLOT * NDIV, "written together"
        self.seat_buf = zeros((S + 1) * row)
        self.seats = np.frombuffer(self.seat_buf, np.float32)
        self.seat_bytes = memoryview(self.seat_buf).cast("B")
        lo = offsets[TAIL_FIRST][0]
        self.at = {name: a - lo for name, (a, _, _) in offsets.items() if a >= lo}
        self.tail_buf = zeros(max(b for _, b, _ in offsets.values()) - lo)
        self.tail = np.frombuffer(self.tail_buf, np.float32)
        self.hand_rows = [zeros(HAND_FEATS) for _ in range(n)]
        self.tokens, self.contracts, self.kind_back = features(t)
        self.token_rows = [array("f", r.tobytes()) for r in self.tokens]
        self.contract_rows = [array("f", r.tobytes()) for r in self.contracts]
        for q in range(n):
            self.seat_buf[q * row + cols["present"]] = 1
        self.seat_buf[cols["first_player"]] = 1  # seat 0 holds the marker
        self.tail_buf[self.at["num_players"] + n - MIN_PLAYERS] = 1
        for name in _PER_SEAT:
            setattr(self, name, [None] * n)
        self.table = None

    def __reduce__(self):
        """A copy (``copy``, ``pickle``) is an empty cache: it rebuilds on first use."""
        return _empty_cache, (self.tables, self.n)

    def update(self, s) -> None:
        """Bring every part in step with state ``s``."""
        if s.divers != self.divers:
            self._rewrite(s, s.divers, self.divers, ObsCache._divers)
        if s.upgraded != self.upgraded:
            self._rewrite(s, s.upgraded, self.upgraded, ObsCache._divers)
        if s.resources != self.resources:
            self._rewrite(s, s.resources, self.resources, ObsCache._resources)
        if s.keys_home != self.keys_home:
            self._rewrite(s, s.keys_home, self.keys_home, ObsCache._home)
        if s.hacker_track != self.hacker_track:
            self._rewrite(s, s.hacker_track, self.hacker_track, ObsCache._track)
        if s.hacker != self.hacker:
            self._rewrite(s, s.hacker, self.hacker, ObsCache._track)
        if s.board_tokens != self.board_tokens:
            self._rewrite(s, s.board_tokens, self.board_tokens, ObsCache._backs)
        if s.mechanic != self.mechanic:
            self._rewrite(s, s.mechanic, self.mechanic, ObsCache._mechanic)
        if s.hands != self.hands:
            self._rewrite(s, s.hands, self.hands, ObsCache._hand)
        if s.credits != self.credits:
            self._rewrite(s, s.credits, self.credits, ObsCache._credits)
        if s.batteries != self.batteries:
            self._rewrite(s, s.batteries, self.batteries, ObsCache._batteries)
        if s.pp != self.pp:
            self._rewrite(s, s.pp, self.pp, ObsCache._pp)
        if s.neutral_held != self.neutral_held:
            self._rewrite(s, s.neutral_held, self.neutral_held, ObsCache._neutral_held)
        table = (
            s.round, s.end_triggered, s.neutral_supply, len(s.deck), len(s.discard), s.sponsors,
            s.advanced, s.display, s.store, s.public, s.bag, s.token_discard,
        )  # fmt: skip
        if table != self.table:
            self._table(s, table)

    def _rewrite(self, s, now: list, before: list, write) -> None:
        """``write(self, s, q)`` for each seat ``q`` whose entry of the per-seat field
        ``now`` differs from the snapshot ``before``, which then takes a copy of it."""
        for q in range(self.n):
            if now[q] != before[q]:
                write(self, s, q)
                before[q] = now[q][:] if type(now[q]) is list else now[q]

    # ---------------------------------------------------------------- one seat's row
    def _divers(self, s, q: int) -> None:
        """Diver per slot (one-hot) and upgraded flags (adjacent pieces)."""
        col, up = s.divers[q], s.upgraded[q]
        at = FLOAT * (q * self.row + self.cols["divers"])
        self.seat_bytes[at : at + _DIVER_BYTES] = b"".join(
            [_ONE_HOT[dtype] for dtype in col] + [_FLAG[up[dtype] != 0] for dtype in col]
        )

    def _resources(self, s, q: int) -> None:
        """Resources and free spaces per level."""
        r, buf, base = s.resources[q], self.seat_buf, q * self.row
        _PACK[NLEV * NCOL].pack_into(buf, FLOAT * (base + self.cols["resources"]), *r)
        at = base + self.cols["free_space"]
        for li, cap in enumerate(self.tables.capacity):
            b = li * NCOL
            buf[at + li] = cap - r[b] - r[b + 1] - r[b + 2] - r[b + 3]

    def _home(self, s, q: int) -> None:
        """Own keys on the player board."""
        at = FLOAT * (q * self.row + self.cols["keys_home"])
        _PACK[NKEY].pack_into(self.seat_buf, at, *s.keys_home[q])

    def _track(self, s, q: int) -> None:
        """Hacker track, its room and the Hacker improvements."""
        buf, base, cols = self.seat_buf, q * self.row, self.cols
        track, hack = s.hacker_track[q], s.hacker[q]
        at = base + cols["keys_track"]
        buf[at : at + NKEY] = _ZERO_KEYS
        for code in track:
            if code != D.NEUTRAL_X:
                buf[at + code] = 1
        buf[base + cols["neutral_track"]] = track.count(D.NEUTRAL_X)
        buf[base + cols["track_room"]] = self.tables.hacker_capacity[hack] - len(track)
        buf[base + cols["hacker"]] = hack

    def _backs(self, s, q: int) -> None:
        """Back of the reward token on each level (one-hot; none: zeros)."""
        at, back = q * self.row + self.cols["reward_backs"], self.tables.token_back
        self.seat_buf[at : at + NLEV * NBACK] = _ZERO_BACKS
        for li, tid in enumerate(s.board_tokens[q]):
            if tid >= 0:
                self.seat_buf[at + li * NBACK + back[tid]] = 1

    def _mechanic(self, s, q: int) -> None:
        """Mechanic improvements and the propeller reach."""
        base = q * self.row
        self.seat_buf[base + self.cols["mechanic"]] = s.mechanic[q]
        self.seat_buf[base + self.cols["max_move"]] = self.tables.moves[s.mechanic[q]]

    def _hand(self, s, q: int) -> None:
        """Hand size, and the private contracts (copied out for their owner only)."""
        hand, rows = s.hands[q], self.hand_rows[q]
        self.seat_buf[q * self.row + self.cols["hand_size"]] = len(hand)
        rows[:] = _ZERO_HAND
        for i, card in enumerate(hand):
            rows[i * CONTRACT_FEATS : (i + 1) * CONTRACT_FEATS] = self.contract_rows[card]

    def _credits(self, s, q: int) -> None:
        self.seat_buf[q * self.row + self.cols["credits"]] = s.credits[q]

    def _batteries(self, s, q: int) -> None:
        self.seat_buf[q * self.row + self.cols["batteries"]] = s.batteries[q]

    def _pp(self, s, q: int) -> None:
        self.seat_buf[q * self.row + self.cols["pp"]] = s.pp[q]

    def _neutral_held(self, s, q: int) -> None:
        self.seat_buf[q * self.row + self.cols["neutral_held"]] = s.neutral_held[q]

    # ---------------------------------------------------------------- the table
    def _table(self, s, table: tuple) -> None:
        """Rewrite the parts of the table that changed; ``table`` holds the watched
        values (``update`` order), the snapshot becomes a copy of it."""
        before = self.table or (None,) * len(table)
        if table[:5] != before[:5]:
            self._sizes(s)
        if table[5:7] != before[5:7]:
            self._sponsors(s)
        if s.display != before[7]:
            lo = self.at["display"]
            self.tail[lo : lo + len(s.display) * TOKEN_FEATS] = self.tokens[s.display].ravel()
        if s.store != before[8]:
            self._store(s)
        if s.public != before[9]:
            lo, public = self.at["public"], s.public
            self.tail[lo : lo + D.MAX_PUBLIC * CONTRACT_FEATS] = 0
            self.tail[lo : lo + len(public) * CONTRACT_FEATS] = self.contracts[public].ravel()
        if s.bag != before[10]:
            self._bag(s)
        if s.token_discard != before[11]:
            self._discards(s)
        self.table = tuple(v[:] if type(v) is list else v for v in table)

    def _sizes(self, s) -> None:
        """Round, end flag, deck / discard / bag sizes, neutral keys in the supply."""
        buf, at = self.tail_buf, self.at
        buf[at["round"]] = s.round
        buf[at["end_triggered"]] = s.end_triggered
        buf[at["neutral_supply"]] = s.neutral_supply
        buf[at["deck_size"]] = len(s.deck)
        buf[at["discard_size"]] = len(s.discard)
        buf[at["bag_size"]] = len(s.bag)

    def _sponsors(self, s) -> None:
        """Sponsor tile per level (one-hot) and whether it shows its advanced side."""
        buf, tile_at, adv_at = self.tail_buf, self.at["sponsor_tile"], self.at["sponsor_advanced"]
        self.tail[tile_at : adv_at + NLEV] = 0  # (the two pieces are adjacent)
        for li, tile in enumerate(s.sponsors):
            buf[tile_at + li * D.NUM_SPONSORS + tile] = 1
            buf[adv_at + li] = s.advanced[tile]

    def _store(self, s) -> None:
        """Store occupancy per colour column and row."""
        buf, lo = self.tail_buf, self.at["store"]
        for c, filled in enumerate(s.store):
            for r in range(D.STORE_ROWS):
                buf[lo + c * D.STORE_ROWS + r] = r < filled

    def _bag(self, s) -> None:
        """Bag size and composition (per effect and back, per colour shown)."""
        buf, kinds, colours = self.tail_buf, self.at["bag_kinds"], self.at["bag_colours"]
        self.tail[kinds : colours + NCOL] = 0  # (adjacent)
        for tid in s.bag:
            buf[kinds + self.kind_back[tid]] += 1
            for c in self.tables.token_colours[tid]:
                buf[colours + c] += 1
        buf[self.at["bag_size"]] = len(s.bag)

    def _discards(self, s) -> None:
        """Discarded reward tokens per effect and back."""
        lo = self.at["token_discard"]
        self.tail[lo : lo + NKIND * NBACK] = 0
        for tid in s.token_discard:
            self.tail_buf[lo + self.kind_back[tid]] += 1


# the per-seat state fields the seat rows are made of (snapshot: one entry per seat)
_PER_SEAT = (
    "divers", "upgraded", "resources", "keys_home", "hacker_track", "hacker", "board_tokens",
    "mechanic", "hands", "credits", "batteries", "pp", "neutral_held",
)  # fmt: skip
_ZERO_KEYS, _ZERO_BACKS, _ZERO_HAND = zeros(NKEY), zeros(NLEV * NBACK), zeros(HAND_FEATS)
_PACK = {size: Struct(f"{size}f") for size in (NKEY, NLEV * NCOL)}  # ints in, float32 out
# float32 bytes of one slot's diver one-hot, and of a flag (index: False, True)
_ONE_HOT = [array("f", [d == i for i in range(NDIV)]).tobytes() for d in range(NDIV)]
_FLAG = (array("f", [0]).tobytes(), array("f", [1]).tobytes())
_DIVER_BYTES = FLOAT * (NSLOT * NDIV + NSLOT)


def _empty_cache(t: Tables, n: int) -> ObsCache:
    from .observe import new_cache  # (observe imports this module)

    return new_cache(t, n)


def seat_size(offsets: dict, name: str) -> int:
    """Floats of one seat's share of a per-seat piece."""
    return prod(offsets[name][2][1:])


def seat_columns(offsets: dict) -> dict[str, int]:
    """Where each per-seat piece starts in a seat row."""
    cols, at = {}, 0
    for name in SEAT_FIELDS:
        cols[name] = at
        at += seat_size(offsets, name)
    return cols


@lru_cache(maxsize=64)
def features(t: Tables) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Feature rows of every reward token and contract, each with an extra all-zero
    last row (index -1, an empty space, reads zeros), and each token's (effect, back)
    index. Derived from the config's tables only."""
    tokens = np.zeros((t.num_tokens + 1, TOKEN_FEATS), np.float32)
    for tid in range(t.num_tokens):
        tokens[tid, [0, 1 + t.token_kind[tid]]] = 1
        for c in t.token_colours[tid]:
            tokens[tid, 1 + NKIND + c] = 1
        tokens[tid, 1 + NKIND + NCOL + t.token_back[tid]] = 1
    contracts = np.zeros((t.num_contracts + 1, CONTRACT_FEATS), np.float32)
    tail = 2 + NCOL + D.MAX_NUMBERS
    for card in range(t.num_contracts):
        row, needs = contracts[card], t.contract_needs[card]
        row[0] = 1
        if t.contract_number[card]:
            row[1] = 1
            row[2 + NCOL : 2 + NCOL + len(needs)] = needs
        else:
            row[2 : 2 + NCOL] = needs
        row[tail] = t.contract_pp[card]
        row[tail + 1] = t.contract_credits[card]
        row[tail + 2] = t.contract_batteries[card]
    kind_back = [k * NBACK + b for k, b in zip(t.token_kind, t.token_back)]
    return tokens, contracts, kind_back
