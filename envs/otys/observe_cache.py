"""The cached Otys observation writer: the same bytes as :func:`.observe.write_plain`,
rewriting only what changed (the shared design of :mod:`otrio.envs.core.observer`).

An :class:`ObsCache` hangs on a state (``state._obs_cache``) and holds the observation
in layout order, the seat blocks in absolute seat order (seat ``q`` at block ``q``),
plus one zero for the blocks of absent seats. Each part is rewritten only where the
state fields it is made of differ from the copy taken when it was last written (per
seat for the per-seat fields, :data:`SEAT_PARTS`); the comparison is by value, so any
change is seen however it was made (a rules action, a test assigning a field). A
cloned, copied or loaded state builds its own cache.

The writer then puts the observer's own hand and the pending decision in place and
gathers the vector into the observer's order with one index array
(:func:`otrio.envs.core.observer.seat_gather`). Buffers are ``array('f')`` with a numpy view
over the same memory: element writes go through the array (cheap), bulk copies
through numpy.
"""

from __future__ import annotations

import functools
from array import array
from struct import Struct

import numpy as np

from otrio.envs.core.observer import FLOAT_BYTES, StateCache, seat_gather, zeros

from . import data as D
from .observe import (
    CONTRACT_FEATS,
    LAYOUT,
    MIN_PLAYERS,
    NBACK,
    NCOL,
    NKIND,
    PENDING_PIECES,
    SEAT_PIECES,
    TOKEN_FEATS,
    feature_rows,
)
from .phases import CONTRACT_COLOUR, COPY, KEEP
from .rules import State

__all__ = ["ObsCache", "write_observation"]

NSLOT, NDIV, NLEV, NKEY = D.NUM_SLOTS, D.NUM_DIVERS, D.NUM_LEVELS, D.NUM_OWN_KEYS
HAND_FEATS = D.MAX_HAND * CONTRACT_FEATS
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
# floats of one seat's block of each seat piece
_W = {name: (b - a) // shape[0] for name, (a, b, shape) in LAYOUT.offsets.items()
      if name in SEAT_PIECES}
_HAND, _PENDING, _END = _AT["hand"], _AT[PENDING_PIECES[0]], LAYOUT.size
_SEATS_END = LAYOUT.offsets[SEAT_PIECES[-1]][1]  # the seat blocks come first
assert _SEATS_END == sum(LAYOUT.offsets[name][1] - LAYOUT.offsets[name][0] for name in SEAT_PIECES)
_ZERO_PENDING = zeros(_END - _PENDING)
_ZERO_KEYS, _ZERO_BACKS, _ZERO_HAND = zeros(NKEY), zeros(NLEV * NBACK), zeros(HAND_FEATS)
_PACK = {size: Struct(f"{size}f") for size in (NKEY, NLEV * NCOL)}  # ints in, float32 out
# float32 bytes of one slot's diver one-hot, and of a flag (index: False, True)
_ONE_HOT = [array("f", [d == i for i in range(NDIV)]).tobytes() for d in range(NDIV)]
_FLAG = (array("f", [0]).tobytes(), array("f", [1]).tobytes())


class ObsCache(StateCache):
    """See the module docstring. ``buf`` holds the vector (``vec``: the same memory as
    numpy); ``hand_rows[q]`` seat ``q``'s private contracts as the ``hand`` piece."""

    __slots__ = (
        "n", "tables", "buf", "vec", "tail", "raw", "hand_rows", "tokens", "contracts", "token_rows",
        "contract_rows", "kind_back", "seen", "table",
    )  # fmt: skip

    def __init__(self, s: State):
        super().__init__(s)
        self.n, self.tables = n, t = s.n, s.tables
        self.buf = buf = zeros(LAYOUT.size + 1)  # (the last float: the zero for absent seats)
        self.vec = np.frombuffer(buf, np.float32)
        self.tail = self.vec[_SEATS_END:_END]  # the pieces after the seat blocks
        self.raw = memoryview(buf).cast("B")
        self.hand_rows = [zeros(HAND_FEATS) for _ in range(n)]
        self.tokens, self.contracts, self.kind_back = feature_rows(t)
        self.token_rows = [array("f", r.tobytes()) for r in self.tokens]
        self.contract_rows = [array("f", r.tobytes()) for r in self.contracts]
        for q in range(n):
            buf[_AT["present"] + q] = 1
        buf[_AT["first_player"]] = 1  # seat 0 holds the marker
        buf[_AT["num_players"] + n - MIN_PLAYERS] = 1
        # what each watched per-seat field was when last written (None: never)
        self.seen = [[None] * n for _ in SEAT_PARTS]
        self.table = None

    def update(self, s: State) -> None:
        """Bring every part in step with state ``s``."""
        seen = self.seen  # (one comparison a field, inline: the cheapest way to find none)
        if s.divers != seen[0]:
            self._rewrite(s, 0, s.divers)
        if s.upgraded != seen[1]:
            self._rewrite(s, 1, s.upgraded)
        if s.resources != seen[2]:
            self._rewrite(s, 2, s.resources)
        if s.keys_home != seen[3]:
            self._rewrite(s, 3, s.keys_home)
        if s.hacker_track != seen[4]:
            self._rewrite(s, 4, s.hacker_track)
        if s.hacker != seen[5]:
            self._rewrite(s, 5, s.hacker)
        if s.board_tokens != seen[6]:
            self._rewrite(s, 6, s.board_tokens)
        if s.mechanic != seen[7]:
            self._rewrite(s, 7, s.mechanic)
        if s.hands != seen[8]:
            self._rewrite(s, 8, s.hands)
        if s.credits != seen[9]:
            self._rewrite(s, 9, s.credits)
        if s.batteries != seen[10]:
            self._rewrite(s, 10, s.batteries)
        if s.pp != seen[11]:
            self._rewrite(s, 11, s.pp)
        if s.neutral_held != seen[12]:
            self._rewrite(s, 12, s.neutral_held)
        table = (
            s.round, s.end_triggered, s.neutral_supply, len(s.deck), len(s.discard),
            s.sponsors, s.advanced, s.display, s.store, s.public, s.bag, s.token_discard,
        )  # fmt: skip
        if table != self.table:
            self._table(s, table)

    def _rewrite(self, s: State, part: int, now: list) -> None:
        """Rewrite the blocks of the seats whose entry of ``SEAT_PARTS[part]``'s field
        (``now``) differs from its copy, which then takes a copy of it."""
        before, write = self.seen[part], _WRITERS[part]
        for q in range(self.n):
            if now[q] != before[q]:
                write(self, s, q)
                before[q] = now[q][:] if type(now[q]) is list else now[q]

    # ---------------------------------------------------------------- one seat's block
    def _divers(self, s: State, q: int) -> None:
        """Diver per slot (one-hot) and upgraded flags."""
        col, up = s.divers[q], s.upgraded[q]
        at = FLOAT_BYTES * (_AT["divers"] + q * _W["divers"])
        self.raw[at : at + FLOAT_BYTES * _W["divers"]] = b"".join([_ONE_HOT[d] for d in col])
        at = FLOAT_BYTES * (_AT["upgraded"] + q * _W["upgraded"])
        self.raw[at : at + FLOAT_BYTES * NSLOT] = b"".join([_FLAG[up[d] != 0] for d in col])

    def _resources(self, s: State, q: int) -> None:
        """Resources and free spaces per level."""
        r, buf = s.resources[q], self.buf
        _PACK[NLEV * NCOL].pack_into(buf, FLOAT_BYTES * (_AT["resources"] + q * _W["resources"]), *r)
        at = _AT["free_space"] + q * NLEV
        for li, cap in enumerate(self.tables.capacity):
            b = li * NCOL
            buf[at + li] = cap - r[b] - r[b + 1] - r[b + 2] - r[b + 3]

    def _home(self, s: State, q: int) -> None:
        """Own keys on the player board."""
        _PACK[NKEY].pack_into(self.buf, FLOAT_BYTES * (_AT["keys_home"] + q * NKEY),
                              *s.keys_home[q])

    def _track(self, s: State, q: int) -> None:
        """Hacker track, its room and the Hacker improvements."""
        buf, track, hacker = self.buf, s.hacker_track[q], s.hacker[q]
        at = _AT["keys_track"] + q * NKEY
        buf[at : at + NKEY] = _ZERO_KEYS
        for code in track:
            if code != D.NEUTRAL_X:
                buf[at + code] = 1
        buf[_AT["neutral_track"] + q] = track.count(D.NEUTRAL_X)
        buf[_AT["track_room"] + q] = self.tables.hacker_capacity[hacker] - len(track)
        buf[_AT["hacker"] + q] = hacker

    def _backs(self, s: State, q: int) -> None:
        """Back of the reward token on each level (one-hot; none: zeros)."""
        at, back = _AT["reward_backs"] + q * NLEV * NBACK, self.tables.token_back
        self.buf[at : at + NLEV * NBACK] = _ZERO_BACKS
        for li, tid in enumerate(s.board_tokens[q]):
            if tid >= 0:
                self.buf[at + li * NBACK + back[tid]] = 1

    def _mechanic(self, s: State, q: int) -> None:
        """Mechanic improvements and the propeller reach."""
        self.buf[_AT["mechanic"] + q] = s.mechanic[q]
        self.buf[_AT["max_move"] + q] = self.tables.moves[s.mechanic[q]]

    def _hand(self, s: State, q: int) -> None:
        """Hand size, and the private contracts (copied out for their owner only)."""
        hand, rows = s.hands[q], self.hand_rows[q]
        self.buf[_AT["hand_size"] + q] = len(hand)
        rows[:] = _ZERO_HAND
        for i, card in enumerate(hand):
            rows[i * CONTRACT_FEATS : (i + 1) * CONTRACT_FEATS] = self.contract_rows[card]

    def _credits(self, s: State, q: int) -> None:
        self.buf[_AT["credits"] + q] = s.credits[q]

    def _batteries(self, s: State, q: int) -> None:
        self.buf[_AT["batteries"] + q] = s.batteries[q]

    def _pp(self, s: State, q: int) -> None:
        self.buf[_AT["pp"] + q] = s.pp[q]

    def _neutral_held(self, s: State, q: int) -> None:
        self.buf[_AT["neutral_held"] + q] = s.neutral_held[q]

    # ---------------------------------------------------------------- the table
    def _table(self, s: State, table: tuple) -> None:
        """Rewrite the parts of the table that changed; ``table`` holds the watched
        values (``update`` order), the snapshot becomes a copy of it."""
        before = self.table or (None,) * len(table)
        buf, vec = self.buf, self.vec
        if table[:5] != before[:5]:
            buf[_AT["round"]] = s.round
            buf[_AT["end_triggered"]] = s.end_triggered
            buf[_AT["neutral_supply"]] = s.neutral_supply
            buf[_AT["deck_size"]] = len(s.deck)
            buf[_AT["discard_size"]] = len(s.discard)
        if table[5:7] != before[5:7]:  # sponsor tile per level, its side
            tile_at, adv_at = _AT["sponsor_tile"], _AT["sponsor_advanced"]
            vec[tile_at : adv_at + NLEV] = 0  # (the two pieces are adjacent)
            for li, tile in enumerate(s.sponsors):
                buf[tile_at + li * D.NUM_SPONSORS + tile] = 1
                buf[adv_at + li] = s.advanced[tile]
        if s.display != before[7]:
            lo = _AT["display"]
            vec[lo : lo + len(s.display) * TOKEN_FEATS] = self.tokens[s.display].ravel()
        if s.store != before[8]:
            lo = _AT["store"]
            for c, filled in enumerate(s.store):
                for r in range(D.STORE_ROWS):
                    buf[lo + c * D.STORE_ROWS + r] = r < filled
        if s.public != before[9]:
            lo, public = _AT["public"], s.public
            vec[lo : lo + D.MAX_PUBLIC * CONTRACT_FEATS] = 0
            vec[lo : lo + len(public) * CONTRACT_FEATS] = self.contracts[public].ravel()
        if s.bag != before[10]:  # size, and composition per effect and back, per colour
            kinds, colours = _AT["bag_kinds"], _AT["bag_colours"]
            vec[kinds : colours + NCOL] = 0  # (adjacent)
            for tid in s.bag:
                buf[kinds + self.kind_back[tid]] += 1
                for c in self.tables.token_colours[tid]:
                    buf[colours + c] += 1
            buf[_AT["bag_size"]] = len(s.bag)
        if s.token_discard != before[11]:
            lo = _AT["token_discard"]
            vec[lo : lo + NKIND * NBACK] = 0
            for tid in s.token_discard:
                buf[lo + self.kind_back[tid]] += 1
        self.table = tuple(v[:] if type(v) is list else v for v in table)


# the per-seat state fields the seat blocks are made of, and the writer of one seat's
# share (a snapshot per seat is kept of each field)
SEAT_PARTS = (
    ("divers", ObsCache._divers), ("upgraded", ObsCache._divers),
    ("resources", ObsCache._resources), ("keys_home", ObsCache._home),
    ("hacker_track", ObsCache._track), ("hacker", ObsCache._track),
    ("board_tokens", ObsCache._backs), ("mechanic", ObsCache._mechanic),
    ("hands", ObsCache._hand), ("credits", ObsCache._credits),
    ("batteries", ObsCache._batteries), ("pp", ObsCache._pp),
    ("neutral_held", ObsCache._neutral_held),
)  # fmt: skip
_WRITERS = [write for _, write in SEAT_PARTS]
# update() compares the fields in this order, one line each
assert [field for field, _ in SEAT_PARTS] == [
    "divers", "upgraded", "resources", "keys_home", "hacker_track", "hacker", "board_tokens",
    "mechanic", "hands", "credits", "batteries", "pp", "neutral_held"]


@functools.cache
def _gather(n: int, seat: int) -> np.ndarray:
    """The index array that makes ``seat``'s seat blocks from the cache's vector."""
    return seat_gather(LAYOUT, SEAT_PIECES, n, seat)[:_SEATS_END]


def write_observation(s: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``s`` into the float32 vector ``out`` (every value), as
    :func:`.observe.write_plain` does: the observer's hand and the pending decision
    are put in the cache's vector, then one gather rotates the seat blocks."""
    cache = getattr(s, "_obs_cache", None)
    if cache is None or cache.owner() is not s:  # (owned_cache, inline)
        cache = s._obs_cache = ObsCache(s)
    cache.update(s)
    buf = cache.buf
    buf[_HAND : _HAND + HAND_FEATS] = cache.hand_rows[seat]
    buf[_PENDING:_END] = _ZERO_PENDING
    if not s.over:
        _pending(s, seat, buf, cache)
    # the seat blocks by one gather, the rest by one copy (mode "clip": the indices are
    # valid, and it spares numpy a buffered copy)
    cache.vec.take(_gather(s.n, seat), out=out[:_SEATS_END], mode="clip")
    out[_SEATS_END:] = cache.tail


def _pending(s: State, seat: int, buf: array, cache: ObsCache) -> None:
    """The pending decision and its context, into the zeroed pending pieces (as
    :func:`.observe.write_pending`; zeros are left unwritten)."""
    n, p, phase, li = s.n, s.seat, s.phase, s.level
    buf[_PHASE + phase] = 1
    buf[_ACTOR + (s.actor - seat) % n] = 1
    buf[_TURN_SEAT + (p - seat) % n] = 1
    for q in s.marks:
        buf[_MARKS + (q - seat) % n] = 1
    rows = cache.contract_rows
    # a contract's colours can be asked before any key is chosen: write them first
    if phase == CONTRACT_COLOUR:
        buf[_CONTRACT : _CONTRACT + CONTRACT_FEATS] = rows[s.contract]
        buf[_CONTRACT_LEVEL + s.contract_level] = 1
        for i, c in enumerate(s.colour_picks):
            buf[_PICKS + i * NCOL + c] = 1
    if li < 0:
        return
    buf[_KEY_LEVEL + li] = 1
    buf[_KEY_KIND + (s.key - D.OWN_X + 1 if s.key >= D.OWN_X else 0)] = 1
    if s.uses_left:
        buf[_USES_LEFT] = s.uses_left
    if s.sponsor_used:
        buf[_SPONSOR_USED] = s.sponsor_used
    if s.free_costs:
        buf[_FREE_COSTS] = s.free_costs
    dtype = s.divers[p][D.SURFACE_SLOTS + li]  # the diver at the key's level
    buf[_ACTIVE_DIVER + dtype] = 1
    if s.upgraded[p][dtype]:
        buf[_ACTIVE_UPGRADED] = s.upgraded[p][dtype]
    if phase == COPY:
        dtype, upg = s._copied()
        buf[_COPY_DIVER + dtype] = 1
        buf[_COPY_UPGRADED] = upg
        buf[_COPY_OWNER + (s.copy_seat - seat) % n] = 1
        buf[_COPY_DEPTH] = s.copy_depth
    if s.token >= 0:
        buf[_TOKEN : _TOKEN + TOKEN_FEATS] = cache.token_rows[s.token]
    if s.drawn:
        buf[_DRAWN_COUNT] = len(s.drawn)
        if phase == KEEP and seat == p:
            for i, card in enumerate(s.drawn):
                buf[_DRAWN + i * CONTRACT_FEATS : _DRAWN + (i + 1) * CONTRACT_FEATS] = rows[card]


(
    _PHASE, _ACTOR, _TURN_SEAT, _MARKS, _CONTRACT, _CONTRACT_LEVEL, _PICKS, _KEY_LEVEL,
    _KEY_KIND, _USES_LEFT, _SPONSOR_USED, _FREE_COSTS, _ACTIVE_DIVER, _ACTIVE_UPGRADED,
    _COPY_DIVER, _COPY_UPGRADED, _COPY_OWNER, _COPY_DEPTH, _TOKEN, _DRAWN_COUNT, _DRAWN,
) = (_AT[name] for name in (
    "phase", "actor", "turn_seat", "marks", "contract", "contract_level", "contract_picks",
    "key_level", "key_kind", "uses_left", "sponsor_used", "free_costs", "active_diver",
    "active_upgraded", "copy_diver", "copy_upgraded", "copy_owner", "copy_depth", "token",
    "drawn_count", "drawn",
))  # fmt: skip
