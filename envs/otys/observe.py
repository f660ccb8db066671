"""The fixed-size Otys observation of one seat (same size for 2-4 players).

Seat blocks are from the observer's point of view: block 0 is the observer, then the
others in turn order; absent seats (fewer than 4 players) stay zero. Only what that
player could know at the table is written: other hands appear as sizes, the deck as
a size, the bag as its composition (public by counting), and cards drawn for a keep
decision only to the player who drew them. The layout table is ``LAYOUT.markdown()``
(copied into the README).
"""

from __future__ import annotations

from array import array
from functools import lru_cache

import numpy as np

from envs.core import ObservationLayout

from . import data as D
from .config import Tables
from .effects import CONTRACT_COLOUR, COPY, KEEP, NUM_PHASES
from .rules import State

S = D.MAX_PLAYERS
TOKEN_FEATS = 1 + len(D.TOKEN_KINDS) + D.NUM_COLOURS + len(D.TOKEN_BACKS)
CONTRACT_FEATS = 1 + 1 + D.NUM_COLOURS + D.MAX_NUMBERS + 3
KEY_KINDS = 3  # numbered, own X, neutral X
MIN_PLAYERS = 2

LAYOUT = ObservationLayout(
    [
        ("present", (S,), "seat is in the game (relative seats: 0 = observer)"),
        ("first_player", (S,), "seat holds the First Player marker"),
        ("divers", (S, D.NUM_SLOTS, D.NUM_DIVERS), "one-hot diver type per slot (0-2 surface, 3-7 levels 1-5)"),
        ("upgraded", (S, D.NUM_SLOTS), "diver in the slot shows its upgraded side"),
        ("resources", (S, D.NUM_LEVELS, D.NUM_COLOURS), "resources per level and colour (MPFT)"),
        ("free_space", (S, D.NUM_LEVELS), "free resource spaces per level"),
        ("keys_home", (S, D.NUM_OWN_KEYS), "own keys 1-5 and X on the player board"),
        ("keys_track", (S, D.NUM_OWN_KEYS), "own keys 1-5 and X on the Hacker track"),
        ("neutral_held", (S,), "neutral X keys held"),
        ("neutral_track", (S,), "neutral X keys on the Hacker track"),
        ("track_room", (S,), "keys the Hacker track takes before the full return"),
        ("hacker", (S,), "Hacker improvements"),
        ("mechanic", (S,), "Mechanic improvements"),
        ("max_move", (S,), "propeller reach"),
        ("credits", (S,), "credits"),
        ("batteries", (S,), "batteries"),
        ("pp", (S,), "prestige points"),
        ("reward_backs", (S, D.NUM_LEVELS, len(D.TOKEN_BACKS)), "reward token back per level (2 credits, 1 PP)"),
        ("hand_size", (S,), "private contracts in hand"),
        ("num_players", (S - 1,), "one-hot 2, 3, 4 players"),
        ("round", (1,), "round number"),
        ("end_triggered", (1,), "someone reached the end PP; this round is the last"),
        ("sponsor_tile", (D.NUM_LEVELS, D.NUM_SPONSORS), "one-hot sponsor tile #1-#5 per level"),
        ("sponsor_advanced", (D.NUM_LEVELS,), "that tile shows its advanced side"),
        ("display", (D.NUM_LEVELS, D.DISPLAY_TOKENS, TOKEN_FEATS), "reward tokens on the Colony display"),
        ("store", (D.NUM_COLOURS, D.STORE_ROWS), "store occupancy per colour column and row"),
        ("public", (D.MAX_PUBLIC, CONTRACT_FEATS), "public contracts"),
        ("hand", (D.MAX_HAND, CONTRACT_FEATS), "own private contracts, in hand-slot order"),
        ("deck_size", (1,), "contracts in the deck"),
        ("discard_size", (1,), "contracts discarded"),
        ("neutral_supply", (1,), "neutral X keys in the supply"),
        ("bag_size", (1,), "reward tokens in the bag"),
        ("bag_kinds", (len(D.TOKEN_KINDS), len(D.TOKEN_BACKS)), "bag: tokens per immediate effect and back"),
        ("bag_colours", (D.NUM_COLOURS,), "bag: resource tokens showing each colour"),
        ("token_discard", (len(D.TOKEN_KINDS), len(D.TOKEN_BACKS)), "discarded tokens per effect and back"),
        ("phase", (NUM_PHASES,), "one-hot pending decision (see effects.PHASE_NAMES)"),
        ("actor", (S,), "relative seat that takes the pending decision"),
        ("turn_seat", (S,), "relative seat whose turn it is"),
        ("key_level", (D.NUM_LEVELS,), "level of this turn's key"),
        ("key_kind", (KEY_KINDS,), "numbered / own X / neutral X key"),
        ("uses_left", (1,), "diver effect uses left this turn"),
        ("sponsor_used", (1,), "the sponsor was used this turn"),
        ("free_costs", (1,), "Sponsor #1 advanced is in force"),
        ("active_diver", (D.NUM_DIVERS,), "diver at the key's level (own board)"),
        ("active_upgraded", (1,), "it is upgraded"),
        ("copy_diver", (D.NUM_DIVERS,), "diver a Spy copy is about to use"),
        ("copy_upgraded", (1,), "it is upgraded"),
        ("copy_owner", (S,), "relative seat owning it"),
        ("copy_depth", (1,), "1: copied by own Spy, 2: through a copied Spy"),
        ("token", (TOKEN_FEATS,), "reward token being resolved"),
        ("drawn_count", (1,), "contracts drawn for the pending keep decision"),
        ("drawn", (D.DRAW_COUNT, CONTRACT_FEATS), "contracts drawn for the keep decision (drawer only)"),
        ("contract", (CONTRACT_FEATS,), "contract being completed"),
        ("contract_level", (D.NUM_LEVELS,), "its level"),
        ("contract_picks", (D.MAX_NUMBERS, D.NUM_COLOURS), "colours chosen so far, per number"),
        ("marks", (S,), "designer's variant: seats whose copied diver will resurface"),
    ]
)  # fmt: skip
OBS_SIZE = LAYOUT.size
_ZEROS = bytes(np.dtype(np.float32).itemsize * OBS_SIZE)
_O = {name: LAYOUT.offsets[name][0] for name in LAYOUT.offsets}


@lru_cache(maxsize=64)
def _features(t: Tables) -> tuple[list, list, list]:
    """Per token: feature indices set to 1 and its (effect, back) count index; per
    contract: (index, value) pairs. Derived from the config's tables only (nothing of
    a game's state is cached)."""
    kinds = len(D.TOKEN_KINDS)
    tokens = []
    for tid in range(t.num_tokens):
        feats = [0, 1 + t.token_kind[tid]]
        feats += [1 + kinds + c for c in t.token_colours[tid]]
        feats.append(1 + kinds + D.NUM_COLOURS + t.token_back[tid])
        tokens.append(feats)
    contracts = []
    tail = 2 + D.NUM_COLOURS + D.MAX_NUMBERS
    for card in range(t.num_contracts):
        needs = t.contract_needs[card]
        pairs = [(0, 1)]
        if t.contract_number[card]:
            pairs.append((1, 1))
            pairs += [(2 + D.NUM_COLOURS + i, x) for i, x in enumerate(needs)]
        else:
            pairs += [(2 + c, x) for c, x in enumerate(needs) if x]
        pairs += [
            (tail, t.contract_pp[card]),
            (tail + 1, t.contract_credits[card]),
            (tail + 2, t.contract_batteries[card]),
        ]
        contracts.append(pairs)
    kind_back = [k * len(D.TOKEN_BACKS) + b for k, b in zip(t.token_kind, t.token_back)]
    return tokens, contracts, kind_back


class _Writer:
    """A zeroed ``array('f')`` the size of the observation, copied into the numpy
    vector in one call (element writes to an array are much cheaper than to numpy)."""

    __slots__ = ("buf", "tokens", "contracts", "kind_back")

    def __init__(self, t: Tables):
        self.buf = array("f", _ZEROS)
        self.tokens, self.contracts, self.kind_back = _features(t)

    def set(self, i: int, v: float = 1) -> None:
        self.buf[i] = v

    def run(self, at: int, values: list) -> None:
        self.buf[at : at + len(values)] = array("f", values)

    def token(self, at: int, tid: int) -> None:
        if tid >= 0:
            buf = self.buf
            for f in self.tokens[tid]:
                buf[at + f] = 1

    def contract(self, at: int, card: int) -> None:
        if card >= 0:
            buf = self.buf
            for f, v in self.contracts[card]:
                buf[at + f] = v

    def flush(self, out: np.ndarray) -> None:
        out[:] = np.frombuffer(self.buf, np.float32)


# flat offsets of the per-seat pieces, for the hot loop below
(
    _PRESENT, _FIRST, _DIVERS, _UPGRADED, _RESOURCES, _FREE, _HOME, _TRACK, _NEUTRAL_HELD,
    _NEUTRAL_TRACK, _ROOM, _HACKER, _MECHANIC, _MAX_MOVE, _CREDITS, _BATTERIES, _PP,
    _BACKS, _HAND_SIZE,
) = (_O[name] for name in (
    "present", "first_player", "divers", "upgraded", "resources", "free_space",
    "keys_home", "keys_track", "neutral_held", "neutral_track", "track_room", "hacker",
    "mechanic", "max_move", "credits", "batteries", "pp", "reward_backs", "hand_size",
))  # fmt: skip
NSLOT, NDIV, NLEV, NCOL, NKEY = D.NUM_SLOTS, D.NUM_DIVERS, D.NUM_LEVELS, D.NUM_COLOURS, D.NUM_OWN_KEYS
NBACK = len(D.TOKEN_BACKS)


def _seat(w: _Writer, s: State, q: int, k: int) -> None:
    """Seat ``q``'s public board into relative block ``k`` (zeros are left unwritten)."""
    t, buf = s.t, w.buf
    buf[_PRESENT + k] = 1
    if q == 0:
        buf[_FIRST + k] = 1
    col, up = s.col[q], s.up[q]
    base = _DIVERS + k * NSLOT * NDIV
    ub = _UPGRADED + k * NSLOT
    for slot, dtype in enumerate(col):
        buf[base + slot * NDIV + dtype] = 1
        if up[dtype]:
            buf[ub + slot] = 1
    r = s.res[q]
    rb = _RESOURCES + k * NLEV * NCOL
    buf[rb : rb + NLEV * NCOL] = array("f", r)
    fb = _FREE + k * NLEV
    for li, cap in enumerate(t.capacity):
        b = li * NCOL
        buf[fb + li] = cap - r[b] - r[b + 1] - r[b + 2] - r[b + 3]
    hb = _HOME + k * NKEY
    buf[hb : hb + NKEY] = array("f", s.home[q])
    track = s.track[q]
    if track:
        tb = _TRACK + k * NKEY
        neutral = 0
        for code in track:
            if code == D.NEUTRAL_X:
                neutral += 1
            else:
                buf[tb + code] = 1
        buf[_NEUTRAL_TRACK + k] = neutral
    buf[_ROOM + k] = t.hacker_capacity[s.hack[q]] - len(track)
    buf[_MAX_MOVE + k] = t.moves[s.mech[q]]
    buf[_HAND_SIZE + k] = len(s.hands[q])
    buf[_CREDITS + k] = s.credits[q]
    buf[_BATTERIES + k] = s.batteries[q]
    buf[_PP + k] = s.pp[q]
    buf[_HACKER + k] = s.hack[q]
    buf[_MECHANIC + k] = s.mech[q]
    buf[_NEUTRAL_HELD + k] = s.nx[q]
    bb = _BACKS + k * NLEV * NBACK
    for li, tid in enumerate(s.rtok[q]):
        if tid >= 0:
            buf[bb + li * NBACK + t.token_back[tid]] = 1


def _token_counts(w: _Writer, at: int, tokens: list) -> None:
    """Counts of tokens per (immediate effect, back) at offset ``at``."""
    buf, kind_back = w.buf, w.kind_back
    for tid in tokens:
        buf[at + kind_back[tid]] += 1


def write_observation(s: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``s`` into the zeroed float32 vector ``out``."""
    n, t = s.n, s.t
    w = _Writer(t)
    buf = w.buf
    rel = [(q - seat) % n for q in range(n)]
    for q in range(n):
        _seat(w, s, q, rel[q])
    buf[_O["num_players"] + n - MIN_PLAYERS] = 1
    buf[_O["round"]] = s.round
    buf[_O["end_triggered"]] = s.end_triggered
    at, adv = _O["sponsor_tile"], _O["sponsor_advanced"]
    for li, tile in enumerate(s.sponsors):
        buf[at + li * D.NUM_SPONSORS + tile] = 1
        buf[adv + li] = s.adv[tile]
    at, tokens = _O["display"], w.tokens
    for tid in s.display:
        if tid >= 0:
            for f in tokens[tid]:
                buf[at + f] = 1
        at += TOKEN_FEATS
    at = _O["store"]
    for count in s.store:
        for row in range(count):
            buf[at + row] = 1
        at += D.STORE_ROWS
    for i, card in enumerate(s.public):
        w.contract(_O["public"] + i * CONTRACT_FEATS, card)
    for i, card in enumerate(s.hands[seat]):
        w.contract(_O["hand"] + i * CONTRACT_FEATS, card)
    buf[_O["deck_size"]] = len(s.deck)
    buf[_O["discard_size"]] = len(s.discard)
    buf[_O["neutral_supply"]] = s.neutral
    buf[_O["bag_size"]] = len(s.bag)
    _token_counts(w, _O["bag_kinds"], s.bag)
    at = _O["bag_colours"]
    for tid in s.bag:
        for c in t.token_colours[tid]:
            buf[at + c] += 1
    _token_counts(w, _O["token_discard"], s.tdiscard)
    if not s.over:
        _pending(w, s, seat, rel)
    w.flush(out)


def _pending(w: _Writer, s: State, seat: int, rel: list) -> None:
    """The pending decision and its context."""
    p = s.seat
    w.set(_O["phase"] + s.phase)
    w.set(_O["actor"] + rel[s.actor])
    w.set(_O["turn_seat"] + rel[p])
    for q in s.marks:
        w.set(_O["marks"] + rel[q])
    # a contract's colours can be asked before any key is chosen: write them first
    if s.phase == CONTRACT_COLOUR:
        w.contract(_O["contract"], s.ctr)
        w.set(_O["contract_level"] + s.ctr_lvl)
        for i, c in enumerate(s.picks):
            w.set(_O["contract_picks"] + i * D.NUM_COLOURS + c)
    if s.lvl < 0:
        return
    li = s.lvl
    w.set(_O["key_level"] + li)
    w.set(_O["key_kind"] + (s.key - D.OWN_X + 1 if s.key >= D.OWN_X else 0))
    w.set(_O["uses_left"], s.uses)
    w.set(_O["sponsor_used"], s.sponsor_used)
    w.set(_O["free_costs"], s.free)
    dtype = s.col[p][D.level_slot(li)]
    w.set(_O["active_diver"] + dtype)
    w.set(_O["active_upgraded"], s.up[p][dtype])
    if s.phase == COPY:
        dtype, upg = s._copied()
        w.set(_O["copy_diver"] + dtype)
        w.set(_O["copy_upgraded"], upg)
        w.set(_O["copy_owner"] + rel[s.copy_seat])
        w.set(_O["copy_depth"], s.copy_depth)
    w.token(_O["token"], s.tok)
    w.set(_O["drawn_count"], len(s.drawn))
    if s.phase == KEEP and seat == p:
        for i, card in enumerate(s.drawn):
            w.contract(_O["drawn"] + i * CONTRACT_FEATS, card)
