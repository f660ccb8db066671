"""Reading greedy Otys's observation: plain Python numbers, each piece decoded once.

:func:`as_floats` wraps the observation vector so that an entry becomes a Python float
only when it is read (``tolist`` would convert all of them, most never read). Pieces
that seldom change between decisions (the contracts, the divers' columns, the
sponsors, the Colony display) are decoded once per distinct content and kept in
bounded module-level memos keyed by their bytes: a decoded piece is a pure function
of those bytes, so sharing it between decisions and agents changes nothing.
"""

from __future__ import annotations

from array import array

import numpy as np

from envs.otys import data as D
from envs.otys.observe import CONTRACT_FEATS, LAYOUT, TOKEN_FEATS
from envs.otys.phases import NUM_PHASES

NC, NL, NS = D.NUM_COLOURS, D.NUM_LEVELS, D.NUM_SLOTS
LEVEL_SLOTS = tuple(D.level_slot(level) for level in range(NL))  # column slot of each level
NUM_KINDS = len(D.TOKEN_KINDS)
MEMO_SIZE = 4096  # decoded pieces kept per memo (cleared when full)

OFFSETS = {name: LAYOUT.offsets[name][0] for name in LAYOUT.offsets}  # piece -> first entry
SEAT_STRIDE = {  # per-seat block sizes of the pieces read for several seats
    "divers": NS * D.NUM_DIVERS,
    "upgraded": NS,
}
_TYPECODES = {np.dtype(np.float32): "f", np.dtype(np.float64): "d"}  # array typecodes
_CONTRACTS = (OFFSETS["public"], OFFSETS["hand"] + D.MAX_HAND * CONTRACT_FEATS)  # public then hand
_SPONSORS = (OFFSETS["sponsor_tile"], OFFSETS["sponsor_advanced"] + D.NUM_LEVELS)  # tiles, sides
_DISPLAY_LEVEL = D.DISPLAY_TOKENS * TOKEN_FEATS  # display entries per level
_OTHER_DIVERS = slice(OFFSETS["divers"] + SEAT_STRIDE["divers"], OFFSETS["upgraded"])
_OTHER_UPGRADED = slice(OFFSETS["upgraded"] + SEAT_STRIDE["upgraded"], OFFSETS["resources"])
_DISPLAY = slice(OFFSETS["display"], OFFSETS["store"])  # the whole Colony display
_RESOURCES = slice(OFFSETS["resources"], OFFSETS["resources"] + NL * NC)  # own (block 0)
_FREE_SPACE = slice(OFFSETS["free_space"], OFFSETS["free_space"] + NL)
_BACKS = slice(OFFSETS["reward_backs"], OFFSETS["reward_backs"] + 2 * NL)
_STORE = slice(OFFSETS["store"], OFFSETS["store"] + NC * D.STORE_ROWS)
_PRESENT = slice(OFFSETS["present"], OFFSETS["present"] + D.MAX_PLAYERS)
_TRACK = slice(OFFSETS["keys_track"], OFFSETS["keys_track"] + D.NUM_OWN_KEYS)
_KEY_LEVEL = slice(OFFSETS["key_level"], OFFSETS["key_level"] + NL)

_contract_memo: dict[bytes, tuple] = {}
_column_memo: dict[bytes, tuple] = {}
_sponsor_memo: dict[bytes, tuple] = {}
_display_memo: dict[bytes, tuple] = {}


def as_floats(vector: np.ndarray) -> array:
    """The observation as a read-only sequence of Python floats (read lazily)."""
    code = _TYPECODES.get(vector.dtype)
    if code is None:  # any other dtype: its values, exactly, as doubles
        vector, code = vector.astype(np.float64), "d"
    return array(code, vector.tobytes())


def _memo(memo: dict, key: bytes, decode, *args):
    """``decode(*args)``, kept in ``memo`` under ``key`` (the bytes it reads)."""
    value = memo.get(key)
    if value is None:
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        value = memo[key] = decode(*args)
    return value


def argmax(o, at: int, size: int) -> int:
    """Index of the largest entry of ``o[at:at+size]`` (one-hot decoding)."""
    part = o[at : at + size]
    return part.index(max(part))


def contract(o, at: int) -> tuple | None:
    """(number card, needs, total, PP, bonus credits, bonus batteries) or None."""
    if not o[at]:
        return None
    number = o[at + 1] > 0
    if number:
        numbers = o[at + 2 + NC : at + 2 + NC + D.MAX_NUMBERS]
        needs = tuple(sorted((int(x) for x in numbers if x), reverse=True))
    else:
        needs = tuple(int(x) for x in o[at + 2 : at + 2 + NC])
    tail = at + 2 + NC + D.MAX_NUMBERS
    return number, needs, sum(needs), o[tail], o[tail + 1], o[tail + 2]


def contracts(o) -> tuple[bytes, tuple, tuple]:
    """``(key, cards, public flags)``: the key of the public and hand contracts, their
    cards ``(number card, needs, total, PP, bonus credits, bonus batteries, public)``
    (public first, empty slots left out), and which public slots hold a card."""
    a, b = _CONTRACTS
    key = o[a:b].tobytes()
    return (key, *_memo(_contract_memo, key, _decode_contracts, o))


def _decode_contracts(o) -> tuple[tuple, tuple]:
    cards = []
    for public, base, count in ((True, OFFSETS["public"], D.MAX_PUBLIC), (False, OFFSETS["hand"], D.MAX_HAND)):
        for i in range(count):
            card = contract(o, base + i * CONTRACT_FEATS)
            if card:
                cards.append((*card, public))
    flags = tuple(bool(o[OFFSETS["public"] + i * CONTRACT_FEATS]) for i in range(D.MAX_PUBLIC))
    return tuple(cards), flags


def column(o, block: int) -> tuple[tuple, tuple]:
    """Diver type per slot and upgraded flag per diver type of a relative seat."""
    base = OFFSETS["divers"] + block * SEAT_STRIDE["divers"]
    ub = OFFSETS["upgraded"] + block * SEAT_STRIDE["upgraded"]
    key = o[base : base + SEAT_STRIDE["divers"]].tobytes() + o[ub : ub + NS].tobytes()
    return _memo(_column_memo, key, _decode_column, o, base, ub)


def _decode_column(o, base: int, ub: int) -> tuple[tuple, tuple]:
    col, up = [], [0] * D.NUM_DIVERS
    for slot in range(NS):
        dtype = argmax(o, base + slot * D.NUM_DIVERS, D.NUM_DIVERS)
        col.append(dtype)
        up[dtype] = int(o[ub + slot])
    return tuple(col), tuple(up)


def sponsors(o) -> tuple[tuple, tuple]:
    """The sponsor tile on each level, and each tile's side (1: advanced)."""
    a, b = _SPONSORS
    return _memo(_sponsor_memo, o[a:b].tobytes(), _decode_sponsors, o)


def _decode_sponsors(o) -> tuple[tuple, tuple]:
    tb, ab = OFFSETS["sponsor_tile"], OFFSETS["sponsor_advanced"]
    tiles = [argmax(o, tb + level * D.NUM_SPONSORS, D.NUM_SPONSORS) for level in range(D.NUM_LEVELS)]
    adv = [0] * D.NUM_SPONSORS
    for level, tile in enumerate(tiles):
        adv[tile] = int(o[ab + level])
    return tuple(tiles), tuple(adv)


def token(o, at: int) -> tuple | None:
    """(immediate effect kind, colours, back) of a reward token, or None."""
    if not o[at]:
        return None
    kind = argmax(o, at + 1, NUM_KINDS)
    colours = tuple(c for c in range(NC) if o[at + 1 + NUM_KINDS + c])
    back = argmax(o, at + 1 + NUM_KINDS + NC, len(D.TOKEN_BACKS))
    return kind, colours, back


def display_tokens(o, level: int) -> tuple:
    """The two reward tokens on level ``level`` of the Colony display (None: empty)."""
    at = OFFSETS["display"] + level * _DISPLAY_LEVEL
    return _memo(_display_memo, o[at : at + _DISPLAY_LEVEL].tobytes(), _decode_tokens, o, at)


def _decode_tokens(o, at: int) -> tuple:
    return tuple(token(o, at + i * TOKEN_FEATS) for i in range(D.DISPLAY_TOKENS))


class SeatView:
    """What the seat sees, decoded once per decision from ``o`` (:func:`as_floats`):
    its own column and board (seat block 0), the shared supplies, the contracts and
    the pending decision's level, flags and uses."""

    def __init__(self, o):
        self.o = o
        self.phase = argmax(o, OFFSETS["phase"], NUM_PHASES)
        self.n = int(sum(o[_PRESENT]))
        col, up = column(o, 0)
        self.divers, self.upgraded = list(col), list(up)
        counts = list(map(int, o[_RESOURCES]))  # resources per level, colour by colour
        self.resources = [counts[at : at + NC] for at in range(0, NL * NC, NC)]
        self.spaces = [int(free) for free in o[_FREE_SPACE]]  # free spaces per level
        self.cap = [sum(res) + room for res, room in zip(self.resources, self.spaces)]
        self.credits = int(o[OFFSETS["credits"]])
        self.batteries = int(o[OFFSETS["batteries"]])
        self.reach = int(o[OFFSETS["max_move"]])
        self.mechanic = int(o[OFFSETS["mechanic"]])
        self.hacker = int(o[OFFSETS["hacker"]])
        self.own_on_track = any(o[_TRACK])
        self.hand_size = int(o[OFFSETS["hand_size"]])
        self.deck = int(o[OFFSETS["deck_size"]])
        self.neutral_supply = int(o[OFFSETS["neutral_supply"]])
        backs = o[_BACKS]
        self.back = [  # permanent effect at each level: None, BACK_CREDITS or BACK_PP
            (D.BACK_CREDITS if backs[at] else D.BACK_PP if backs[at + 1] else None)
            for at in range(0, 2 * NL, 2)
        ]
        rows = o[_STORE]
        self.store = [
            int(sum(rows[at : at + D.STORE_ROWS])) for at in range(0, NC * D.STORE_ROWS, D.STORE_ROWS)
        ]
        tiles, self.advanced = sponsors(o)  # the tile on each level, the side of each tile
        self.sponsors = list(tiles)
        # (number card, needs, total, PP, bonus credits, bonus batteries, public)
        self.contracts_key, self.contracts, self.public_slots = contracts(o)
        self.round = o[OFFSETS["round"]]
        self.ended = bool(o[OFFSETS["end_triggered"]])
        self.level = argmax(o, OFFSETS["key_level"], NL) if any(o[_KEY_LEVEL]) else -1
        self.free_costs = bool(o[OFFSETS["free_costs"]])
        self.uses_left = int(o[OFFSETS["uses_left"]])

    def surroundings(self) -> tuple[bytes, bytes, bytes]:
        """The other seats' divers and upgrades and the Colony display, as bytes."""
        o = self.o
        return o[_OTHER_DIVERS].tobytes(), o[_OTHER_UPGRADED].tobytes(), o[_DISPLAY].tobytes()
