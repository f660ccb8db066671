"""The fixed-size Otys observation of one seat (same size for 2-4 players).

Seat blocks are from the observer's point of view: block 0 is the observer, then the
others in turn order; absent seats (fewer than 4 players) stay zero. Only what that
player could know at the table is written: other hands appear as sizes, the deck as
a size, the bag as its composition (public by counting), and cards drawn for a keep
decision only to the player who drew them. The layout table is ``LAYOUT.markdown()``
(copied into the README).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.core import ObservationLayout

from . import data as D
from .config import Tables
from .observe_cache import (
    CONTRACT_FEATS,
    HAND_FEATS,
    SEAT_FIELDS,
    TAIL_FIRST,
    TOKEN_FEATS,
    ObsCache,
    seat_columns,
    seat_size,
    zeros,
)
from .phases import CONTRACT_COLOUR, COPY, KEEP, NUM_PHASES
from .rules import State

S = D.MAX_PLAYERS
KEY_KINDS = 3  # numbered, own X, neutral X
__all__ = ["CONTRACT_FEATS", "LAYOUT", "OBS_SIZE", "TOKEN_FEATS", "write_observation"]

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
        ("phase", (NUM_PHASES,), "one-hot pending decision (see phases.PHASE_NAMES)"),
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
SEATS_END = LAYOUT.offsets[SEAT_FIELDS[-1]][1]
assert SEATS_END == LAYOUT.offsets[TAIL_FIRST][0], "the seat blocks come first"
# offsets in the cache's tail buffer (the vector from ``TAIL_FIRST`` on)
_T = {name: a - SEATS_END for name, (a, _, _) in LAYOUT.offsets.items() if a >= SEATS_END}
_HAND, _PENDING = _T["hand"], _T["phase"]  # the pending decision runs to the end
_ZERO_PENDING = zeros(OBS_SIZE - SEATS_END - _PENDING)


def new_cache(t: Tables, n: int) -> ObsCache:
    """An empty observation cache for ``n`` players of tables ``t``."""
    return ObsCache(t, n, LAYOUT.offsets, [_seat_order(n, seat) for seat in range(n)])


@cache
def _seat_order(n: int, seat: int) -> np.ndarray:
    """For each float of the seat blocks seen by ``seat``: its index in the cache's seat
    rows (relative block k is absolute seat ``(seat + k) % n``; absent seats read the
    zero row)."""
    cols = seat_columns(LAYOUT.offsets)
    row = sum(seat_size(LAYOUT.offsets, name) for name in SEAT_FIELDS)
    order = np.empty(SEATS_END, np.intp)
    for name in SEAT_FIELDS:
        lo, m = LAYOUT.offsets[name][0], seat_size(LAYOUT.offsets, name)
        for k in range(S):
            q = (seat + k) % n if k < n else S
            order[lo + k * m : lo + (k + 1) * m] = np.arange(m) + q * row + cols[name]
    order.flags.writeable = False
    return order


def write_observation(s: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``s`` into the float32 vector ``out``. Every value is
    written (``out`` need not be zeroed): the seat blocks by one gather from the cache,
    the rest by one copy of its tail after the observer's hand and the pending decision
    are filled in."""
    cache = getattr(s, "_obs_cache", None)
    if cache is None or cache.tables is not s.tables or cache.n != s.n:
        cache = s._obs_cache = new_cache(s.tables, s.n)
    cache.update(s)
    # (mode "clip": the indices are valid, and it spares numpy a buffered copy)
    cache.seats.take(cache.orders[seat], out=out[:SEATS_END], mode="clip")
    buf = cache.tail_buf
    buf[_HAND : _HAND + HAND_FEATS] = cache.hand_rows[seat]
    buf[_PENDING:] = _ZERO_PENDING
    if not s.over:
        _pending(s, seat, buf, cache)
    out[SEATS_END:] = cache.tail


def _pending(s: State, seat: int, buf, cache: ObsCache) -> None:
    """The pending decision and its context, into the cache's zeroed tail buffer
    (zeros are left unwritten)."""
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
            buf[_PICKS + i * D.NUM_COLOURS + c] = 1
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
) = (_T[name] for name in (
    "phase", "actor", "turn_seat", "marks", "contract", "contract_level", "contract_picks",
    "key_level", "key_kind", "uses_left", "sponsor_used", "free_costs", "active_diver",
    "active_upgraded", "copy_diver", "copy_upgraded", "copy_owner", "copy_depth", "token",
    "drawn_count", "drawn",
))  # fmt: skip
