"""The fixed-size Otys observation of one seat (same size for 2-4 players).

Seat blocks are from the observer's point of view: block 0 is the observer, then the
others in turn order; absent seats (fewer than 4 players) stay zero. Only what that
player could know at the table is written: other hands appear as sizes, the deck as
a size, the bag as its composition (public by counting), and cards drawn for a keep
decision only to the player who drew them. The layout table is ``LAYOUT.markdown()``
(copied into the README).

:func:`write_plain` fills the layout's named views straight from the state; it is the
definition of the observation. The env uses the cached writer of
:mod:`.observe_cache`, which must give the same bytes (its tests compare).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs.core.observer import ObservationLayout

from . import data as D
from .config import Tables
from .phases import CONTRACT_COLOUR, COPY, KEEP, NUM_PHASES
from .rules import State

S = D.MAX_PLAYERS
MIN_PLAYERS = 2
KEY_KINDS = 3  # numbered, own X, neutral X
NKIND, NBACK, NCOL = len(D.TOKEN_KINDS), len(D.TOKEN_BACKS), D.NUM_COLOURS
TOKEN_FEATS = 1 + NKIND + NCOL + NBACK  # present, effect, colours shown, back
CONTRACT_FEATS = 1 + 1 + NCOL + D.MAX_NUMBERS + 3  # present, number card, needs, payout
__all__ = ["CONTRACT_FEATS", "LAYOUT", "OBS_SIZE", "TOKEN_FEATS", "write_plain"]

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
_NAMES = [name for name, _, _ in LAYOUT.pieces]
# the pieces with a block per seat (relative), first in the layout
SEAT_PIECES = tuple(_NAMES[: _NAMES.index("num_players")])
# the pending decision and its context (all zero once the game is over), last
PENDING_PIECES = tuple(_NAMES[_NAMES.index("phase") :])


def write_plain(s: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``s`` into the float32 vector ``out``, every value
    computed from the state (seat blocks rotated so that block 0 is ``seat``)."""
    out[:] = 0.0
    v = LAYOUT.views(out)
    n, t = s.n, s.tables
    tokens, contracts, _ = feature_rows(t)
    for k in range(n):
        q = (seat + k) % n
        v["present"][k] = 1
        v["first_player"][k] = q == 0  # seat 0 holds the marker all game
        for slot, dtype in enumerate(s.divers[q]):
            v["divers"][k, slot, dtype] = 1
            v["upgraded"][k, slot] = s.upgraded[q][dtype] != 0
        v["resources"][k] = np.reshape(s.resources[q], (D.NUM_LEVELS, NCOL))
        v["free_space"][k] = np.subtract(t.capacity, v["resources"][k].sum(axis=1))
        v["keys_home"][k] = s.keys_home[q]
        track = s.hacker_track[q]
        for code in track:
            if code != D.NEUTRAL_X:
                v["keys_track"][k, code] = 1
        v["neutral_track"][k] = track.count(D.NEUTRAL_X)
        v["track_room"][k] = t.hacker_capacity[s.hacker[q]] - len(track)
        v["hacker"][k] = s.hacker[q]
        v["mechanic"][k] = s.mechanic[q]
        v["max_move"][k] = t.moves[s.mechanic[q]]
        for name in ("credits", "batteries", "pp", "neutral_held"):
            v[name][k] = getattr(s, name)[q]
        for level, token in enumerate(s.board_tokens[q]):
            if token >= 0:
                v["reward_backs"][k, level, t.token_back[token]] = 1
        v["hand_size"][k] = len(s.hands[q])
    v["num_players"][n - MIN_PLAYERS] = 1
    v["round"][0] = s.round
    v["end_triggered"][0] = s.end_triggered
    for level, tile in enumerate(s.sponsors):
        v["sponsor_tile"][level, tile] = 1
        v["sponsor_advanced"][level] = s.advanced[tile]
    v["display"].reshape(-1, TOKEN_FEATS)[: len(s.display)] = tokens[s.display]
    for colour, filled in enumerate(s.store):
        v["store"][colour, :filled] = 1
    v["public"][: len(s.public)] = contracts[s.public]
    v["hand"][: len(s.hands[seat])] = contracts[s.hands[seat]]
    v["deck_size"][0] = len(s.deck)
    v["discard_size"][0] = len(s.discard)
    v["neutral_supply"][0] = s.neutral_supply
    v["bag_size"][0] = len(s.bag)
    for token in s.bag:
        v["bag_kinds"][t.token_kind[token], t.token_back[token]] += 1
        for colour in t.token_colours[token]:
            v["bag_colours"][colour] += 1
    for token in s.token_discard:
        v["token_discard"][t.token_kind[token], t.token_back[token]] += 1
    if not s.over:
        write_pending(s, seat, v, contracts, tokens)


def write_pending(s: State, seat: int, v: dict[str, np.ndarray], contracts: np.ndarray,
                  tokens: np.ndarray) -> None:
    """The pending decision and its context (:data:`PENDING_PIECES`) into zeroed views
    ``v``; ``contracts`` and ``tokens`` are the :func:`feature_rows`."""
    n, p, phase, level = s.n, s.seat, s.phase, s.level
    v["phase"][phase] = 1
    v["actor"][(s.actor - seat) % n] = 1
    v["turn_seat"][(p - seat) % n] = 1
    for q in s.marks:
        v["marks"][(q - seat) % n] = 1
    if phase == CONTRACT_COLOUR:  # asked before any key is chosen too
        v["contract"][:] = contracts[s.contract]
        v["contract_level"][s.contract_level] = 1
        for number, colour in enumerate(s.colour_picks):
            v["contract_picks"][number, colour] = 1
    if level < 0:  # no key chosen yet this turn
        return
    v["key_level"][level] = 1
    v["key_kind"][s.key - D.OWN_X + 1 if s.key >= D.OWN_X else 0] = 1
    v["uses_left"][0] = s.uses_left
    v["sponsor_used"][0] = s.sponsor_used
    v["free_costs"][0] = s.free_costs
    dtype = s.divers[p][D.level_slot(level)]  # the diver at the key's level
    v["active_diver"][dtype] = 1
    v["active_upgraded"][0] = s.upgraded[p][dtype]
    if phase == COPY:
        dtype, upgraded = s._copied()
        v["copy_diver"][dtype] = 1
        v["copy_upgraded"][0] = upgraded
        v["copy_owner"][(s.copy_seat - seat) % n] = 1
        v["copy_depth"][0] = s.copy_depth
    if s.token >= 0:
        v["token"][:] = tokens[s.token]
    if s.drawn:
        v["drawn_count"][0] = len(s.drawn)
        if phase == KEEP and seat == p:  # only the drawer sees the cards
            v["drawn"][: len(s.drawn)] = contracts[s.drawn]


@lru_cache(maxsize=64)
def feature_rows(t: Tables) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Feature rows of every reward token and contract, each with an extra all-zero
    last row (index -1, an empty space, reads zeros), and each token's (effect, back)
    index into a flat (effect, back) table. Derived from the config's tables only."""
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
