"""The fixed-size Otys observation of one seat (same size for 2-4 players).

Seat blocks are from the observer's point of view: block 0 is the observer, then the
others in turn order; absent seats (fewer than 4 players) stay zero. Only what that
player could know at the table is written: other hands appear as sizes, the deck as
a size, the bag as its composition (public by counting), and cards drawn for a keep
decision only to the player who drew them. The layout table is ``LAYOUT.markdown()``
(copied into the README).

:func:`write_plain` is the definition of the observation: it writes the seat's view
(:func:`otrio.envs.otys.view.view`) with :func:`encode`, which fills the layout's named views;
:func:`decode` is its exact inverse, observation -> view. The env uses the cached
writer of :mod:`.observe_cache`, which must give the same bytes (its tests compare).
"""

from __future__ import annotations

from functools import lru_cache
from struct import Struct

import numpy as np

from otrio.envs.core.observer import FLOAT_BYTES, ObservationLayout, Values

from . import data as D
from .config import Config, Contract, Tables, Token, tables_for
from .phases import CONTRACT_COLOUR, COPY, NO_PHASE, NUM_PHASES, Phase
from .rules import State
from .view import NO_TOKEN, PlayerView, SeatView, new_view, view

S = D.MAX_PLAYERS
MIN_PLAYERS = 2
KEY_KINDS = ("numbered", "own_x", "neutral_x")
NKIND, NBACK, NCOL = len(D.TOKEN_KINDS), len(D.TOKEN_BACKS), D.NUM_COLOURS
# a reward token's features: present, its immediate effect (one-hot), the colours it
# shows, its back (one-hot); feature_rows() writes them in this order
TOKEN_FEATURE_NAMES = ("present", *(f"effect_{k}" for k in D.TOKEN_KINDS),
                       *(f"shows_{c}" for c in D.COLOUR_NAMES), *(f"back_{b}" for b in D.TOKEN_BACKS))
TOKEN_FEATS = len(TOKEN_FEATURE_NAMES)
# a contract's features: present, a number card?, a combination's needs per colour, a
# number card's numbers (largest first), its payout; feature_rows() writes them in order
CONTRACT_FEATURE_NAMES = ("present", "number_card", *(f"needs_{c}" for c in D.COLOUR_NAMES),
                          *(f"number{k}" for k in range(1, D.MAX_NUMBERS + 1)),
                          "pp", "credits", "batteries")
CONTRACT_FEATS = len(CONTRACT_FEATURE_NAMES)
LEVELS = tuple(f"level{k}" for k in range(1, D.NUM_LEVELS + 1))
__all__ = ["CONTRACT_FEATS", "CONTRACT_FEATURE_NAMES", "LAYOUT", "OBS_SIZE", "TOKEN_FEATS",
           "TOKEN_FEATURE_NAMES", "decode", "encode", "observed_players", "write_plain"]


# The bounds that depend on the config (each a function of the Config). Counts are
# written unscaled, so a count's bound is the most the rules let it reach.
def contract_high(config: Config) -> np.ndarray:
    """Each contract feature's most over the config's contracts."""
    return feature_rows(tables_for(config))[1].max(axis=0)


def capacity(config: Config) -> np.ndarray:
    """Each level's resource spaces, as a column (one row per level)."""
    return np.reshape(config.components.level_capacity, (D.NUM_LEVELS, 1))


def kind_back_counts(config: Config) -> np.ndarray:
    """The reward tokens of each (immediate effect, back): the most of a bag or a pile."""
    t, counts = tables_for(config), np.zeros((NKIND, NBACK))
    for kind, back in zip(t.token_kind, t.token_back):
        counts[kind, back] += 1
    return counts


def colour_counts(config: Config) -> np.ndarray:
    """The reward tokens showing each colour."""
    counts = np.zeros(NCOL)
    for colours in tables_for(config).token_colours:
        counts[list(colours)] += 1
    return counts


def open_count_most(start: int, per_decision: int) -> int:
    """The most a count that no rule bounds (credits, batteries, PP) can reach: a loaded
    state's (:data:`~otrio.envs.otys.data.LOADED_COUNT_MAX`), or a fresh game's ``start``,
    plus ``per_decision`` (the most one decision adds to one seat's count) for each
    decision the truncation guard allows."""
    return max(D.LOADED_COUNT_MAX, start) + per_decision * D.MAX_DECISIONS


def most_credits(config: Config) -> int:
    """One decision adds at most: a completed contract's credits and its level's orange
    token back, a Trader sale, the upgraded Plant Expert's credit, Sponsor #1's and, in
    the Spy variant, a Spy's cost handed over or back (every source at once)."""
    t = tables_for(config)
    per_decision = (max(t.contract_credits) + D.PERMANENT_CREDITS + max(t.store_credits)
                    + D.TRADER_UPGRADE_BONUS + D.EXPERT_CREDIT + D.SPONSOR_CREDIT
                    + max(map(max, D.DIVER_COST)))
    return open_count_most(t.start_credits, per_decision)


def most_batteries(config: Config) -> int:
    """One decision adds at most: a contract's batteries, the upgraded Fuel Expert's, a
    token's and Sponsor #5's (every source at once)."""
    t = tables_for(config)
    per_decision = (max(t.contract_batteries) + D.EXPERT_BATTERY + D.TOKEN_BATTERY
                    + D.SPONSOR_BATTERY)
    return open_count_most(t.start_batteries, per_decision)


def most_pp(config: Config) -> int:
    """One decision adds at most: a contract's PP and its level's green token back, a
    Trader sale for PP, a token's PP and Sponsor #4's flip (every source at once)."""
    t = tables_for(config)
    per_decision = (max(t.contract_pp) + D.PERMANENT_PP + max(t.store_pp)
                    + D.TRADER_UPGRADE_BONUS + D.TOKEN_PP + D.SPONSOR_UPGRADE_PP)
    return open_count_most(0, per_decision)


def _components(key: str):
    """A bound that is one component value of the config."""
    return lambda config: getattr(config.components, key)


_HACKER = _components("hacker_capacity")
_MOVES = _components("mechanic_moves")
_NEUTRAL = _components("neutral_x_keys")
CONTRACTS = Values(None, CONTRACT_FEATURE_NAMES, high=contract_high)

LAYOUT = ObservationLayout(
    [
        ("present", (S,), "seat is in the game (relative seats: 0 = observer)"),
        ("first_player", (S,), "seat holds the First Player marker"),
        ("divers", (S, D.NUM_SLOTS, D.NUM_DIVERS), "one-hot diver type per slot (0-2 surface, 3-7 levels 1-5)",
         Values(None, None, D.DIVER_NAMES)),
        ("upgraded", (S, D.NUM_SLOTS), "diver in the slot shows its upgraded side"),
        ("resources", (S, D.NUM_LEVELS, D.NUM_COLOURS), "resources per level and colour (MPFT)",
         Values(None, LEVELS, D.COLOUR_NAMES, high=capacity)),
        ("free_space", (S, D.NUM_LEVELS), "free resource spaces per level",
         Values(None, LEVELS, high=lambda config: capacity(config)[:, 0])),
        ("keys_home", (S, D.NUM_OWN_KEYS), "own keys 1-5 and X on the player board",
         Values(None, D.KEY_NAMES[: D.NUM_OWN_KEYS])),
        ("keys_track", (S, D.NUM_OWN_KEYS), "own keys 1-5 and X on the Hacker track",
         Values(None, D.KEY_NAMES[: D.NUM_OWN_KEYS])),
        ("neutral_held", (S,), "neutral X keys held", Values(high=_NEUTRAL)),
        ("neutral_track", (S,), "neutral X keys on the Hacker track", Values(high=_NEUTRAL)),
        # a track holds at most its capacity; a Hacker improvement then lowers that
        ("track_room", (S,), "keys the Hacker track takes before the full return",
         Values(low=lambda config: min(_HACKER(config)) - max(_HACKER(config)),
                high=lambda config: max(_HACKER(config)))),
        ("hacker", (S,), "Hacker improvements", Values(high=lambda config: len(_HACKER(config)) - 1)),
        ("mechanic", (S,), "Mechanic improvements", Values(high=lambda config: len(_MOVES(config)) - 1)),
        ("max_move", (S,), "propeller reach", Values(high=lambda config: max(_MOVES(config)))),
        ("credits", (S,), "credits", Values(high=most_credits)),
        ("batteries", (S,), "batteries", Values(high=most_batteries)),
        ("pp", (S,), "prestige points", Values(high=most_pp)),
        ("reward_backs", (S, D.NUM_LEVELS, len(D.TOKEN_BACKS)), "reward token back per level (2 credits, 1 PP)",
         Values(None, LEVELS, D.TOKEN_BACKS)),
        ("hand_size", (S,), "private contracts in hand", Values(high=_components("hand_limit"))),
        ("num_players", (S - 1,), "one-hot 2, 3, 4 players",
         Values([f"{n}p" for n in range(MIN_PLAYERS, S + 1)])),
        ("round", (1,), "round number", Values(high=lambda config: config.round_cap)),
        ("end_triggered", (1,), "someone reached the end PP; this round is the last"),
        ("sponsor_tile", (D.NUM_LEVELS, D.NUM_SPONSORS), "one-hot sponsor tile #1-#5 per level",
         Values(LEVELS, [f"tile{k}" for k in range(1, D.NUM_SPONSORS + 1)])),
        ("sponsor_advanced", (D.NUM_LEVELS,), "that tile shows its advanced side", Values(LEVELS)),
        ("display", (D.NUM_LEVELS, D.DISPLAY_TOKENS, TOKEN_FEATS), "reward tokens on the Colony display",
         Values(LEVELS, None, TOKEN_FEATURE_NAMES)),
        ("store", (D.NUM_COLOURS, D.STORE_ROWS), "store occupancy per colour column and row",
         Values(D.COLOUR_NAMES, None)),
        ("public", (D.MAX_PUBLIC, CONTRACT_FEATS), "public contracts", CONTRACTS),
        ("hand", (D.MAX_HAND, CONTRACT_FEATS), "own private contracts, in hand-slot order", CONTRACTS),
        ("deck_size", (1,), "contracts in the deck", Values(high=lambda config: len(config.components.contracts))),
        ("discard_size", (1,), "contracts discarded", Values(high=lambda config: len(config.components.contracts))),
        ("neutral_supply", (1,), "neutral X keys in the supply", Values(high=_NEUTRAL)),
        ("bag_size", (1,), "reward tokens in the bag", Values(high=lambda config: len(config.components.reward_tokens))),
        ("bag_kinds", (len(D.TOKEN_KINDS), len(D.TOKEN_BACKS)), "bag: tokens per immediate effect and back",
         Values(D.TOKEN_KINDS, D.TOKEN_BACKS, high=kind_back_counts)),
        ("bag_colours", (D.NUM_COLOURS,), "bag: resource tokens showing each colour",
         Values(D.COLOUR_NAMES, high=colour_counts)),
        ("token_discard", (len(D.TOKEN_KINDS), len(D.TOKEN_BACKS)), "discarded tokens per effect and back",
         Values(D.TOKEN_KINDS, D.TOKEN_BACKS, high=kind_back_counts)),
        ("phase", (NUM_PHASES,), "one-hot pending decision (see phases.PHASE_NAMES)",
         Values([Phase(k).name.lower() for k in range(NUM_PHASES)])),
        ("actor", (S,), "relative seat that takes the pending decision"),
        ("turn_seat", (S,), "relative seat whose turn it is"),
        ("key_level", (D.NUM_LEVELS,), "level of this turn's key", Values(LEVELS)),
        ("key_kind", (len(KEY_KINDS),), "numbered / own X / neutral X key", Values(KEY_KINDS)),
        ("uses_left", (1,), "diver effect uses left this turn", Values(high=D.DOUBLE_USES)),
        ("sponsor_used", (1,), "the sponsor was used this turn"),
        ("free_costs", (1,), "Sponsor #1 advanced is in force"),
        ("active_diver", (D.NUM_DIVERS,), "diver at the key's level (own board)", Values(D.DIVER_NAMES)),
        ("active_upgraded", (1,), "it is upgraded"),
        ("copy_diver", (D.NUM_DIVERS,), "diver a Spy copy is about to use", Values(D.DIVER_NAMES)),
        ("copy_upgraded", (1,), "it is upgraded"),
        ("copy_owner", (S,), "relative seat owning it"),
        ("copy_depth", (1,), "1: copied by own Spy, 2: through a copied Spy", Values(high=D.MAX_COPY_DEPTH)),
        ("token", (TOKEN_FEATS,), "reward token being resolved", Values(TOKEN_FEATURE_NAMES)),
        ("drawn_count", (1,), "contracts drawn for the pending keep decision", Values(high=D.DRAW_COUNT)),
        ("drawn", (D.DRAW_COUNT, CONTRACT_FEATS), "contracts drawn for the keep decision (drawer only)", CONTRACTS),
        ("contract", (CONTRACT_FEATS,), "contract being completed",
         Values(CONTRACT_FEATURE_NAMES, high=contract_high)),
        ("contract_level", (D.NUM_LEVELS,), "its level", Values(LEVELS)),
        ("contract_picks", (D.MAX_NUMBERS, D.NUM_COLOURS), "colours chosen so far, per number",
         Values(None, D.COLOUR_NAMES)),
        ("marks", (S,), "designer's variant: seats whose copied diver will resurface"),
    ],
    default_config=Config,
)  # fmt: skip
OBS_SIZE = LAYOUT.size
_NAMES = [name for name, _, _ in LAYOUT.pieces]
# the pieces with a block per seat (relative), first in the layout
SEAT_PIECES = tuple(_NAMES[: _NAMES.index("num_players")])
# the pending decision and its context (all zero once the game is over), last
PENDING_PIECES = tuple(_NAMES[_NAMES.index("phase") :])


def write_plain(s: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``s`` into the float32 vector ``out``: the observation's
    definition, ``encode(view(s, seat), out)``."""
    encode(view(s, seat), out)


def encode(v: SeatView, out: np.ndarray) -> None:
    """Write the seat view ``v`` into the float32 vector ``out`` (every value): seat
    blocks as the view's (block 0 the viewer), the facts the rules derive from the
    view (free spaces, the track's room, the reach, the active and copied divers)
    written beside it."""
    out[:] = 0.0
    w = LAYOUT.views(out)
    n = v.num_players
    first = -v.seat % n  # the block of seat 0, which holds the First Player marker
    for k, player in enumerate(v.players):
        w["present"][k] = 1
        w["first_player"][k] = k == first
        for slot, dtype in enumerate(player.divers):
            w["divers"][k, slot, dtype] = 1
            w["upgraded"][k, slot] = player.upgraded[dtype] != 0
        w["resources"][k] = player.resources
        w["free_space"][k] = [v.free_space(k, level) for level in range(D.NUM_LEVELS)]
        w["keys_home"][k] = player.keys_home
        w["keys_track"][k] = player.keys_track
        w["neutral_track"][k] = player.neutral_track
        w["track_room"][k] = v.track_room(k)
        w["hacker"][k] = player.hacker
        w["mechanic"][k] = player.mechanic
        w["max_move"][k] = v.reach(k)
        w["credits"][k] = player.credits
        w["batteries"][k] = player.batteries
        w["pp"][k] = player.pp
        w["neutral_held"][k] = player.neutral_held
        for level, back in enumerate(player.backs):
            if back != NO_TOKEN:
                w["reward_backs"][k, level, back] = 1
        w["hand_size"][k] = player.hand_size
    w["num_players"][n - MIN_PLAYERS] = 1
    w["round"][0] = v.round
    w["end_triggered"][0] = v.end_triggered
    for level, tile in enumerate(v.sponsors):
        w["sponsor_tile"][level, tile] = 1
        w["sponsor_advanced"][level] = v.advanced[tile]
    _write_rows(w["display"].reshape(-1, TOKEN_FEATS), v.display, token_features)
    for colour, filled in enumerate(v.store):
        w["store"][colour, :filled] = 1
    _write_rows(w["public"], v.public, contract_features)
    _write_rows(w["hand"], v.hand, contract_features)
    w["deck_size"][0] = v.deck_size
    w["discard_size"][0] = v.discard_size
    w["neutral_supply"][0] = v.neutral_supply
    w["bag_size"][0] = v.bag_size
    w["bag_kinds"][:] = v.bag_kinds
    w["bag_colours"][:] = v.bag_colours
    w["token_discard"][:] = v.token_discard
    if v.phase != NO_PHASE:
        _encode_pending(v, w)


def _encode_pending(v: SeatView, w: dict[str, np.ndarray]) -> None:
    """The pending decision and its context (:data:`PENDING_PIECES`) into zeroed views."""
    w["phase"][v.phase] = 1
    w["actor"][v.actor] = 1
    w["turn_seat"][v.turn_seat] = 1
    for k in v.marks:
        w["marks"][k] = 1
    if v.contract is not None:  # a number card's colours (asked before any key too)
        w["contract"][:] = contract_features(v.contract)
        w["contract_level"][v.contract_level] = 1
        for number, colour in enumerate(v.colour_picks):
            w["contract_picks"][number, colour] = 1
    if v.level < 0:  # no key chosen yet this turn
        return
    w["key_level"][v.level] = 1
    w["key_kind"][v.key_kind] = 1
    w["uses_left"][0] = v.uses_left
    w["sponsor_used"][0] = v.sponsor_used
    w["free_costs"][0] = v.free_costs
    dtype, upgraded = v.active_diver()
    w["active_diver"][dtype] = 1
    w["active_upgraded"][0] = upgraded
    if v.copy_owner >= 0:
        dtype, upgraded = v.copied_diver()
        w["copy_diver"][dtype] = 1
        w["copy_upgraded"][0] = upgraded
        w["copy_owner"][v.copy_owner] = 1
        w["copy_depth"][0] = v.copy_depth
    if v.token is not None:
        w["token"][:] = token_features(v.token)
    w["drawn_count"][0] = v.drawn_count
    _write_rows(w["drawn"], v.drawn, contract_features)


def _write_rows(rows: np.ndarray, items, features) -> None:
    for row, item in zip(rows, items):
        if item is not None:
            row[:] = features(item)


def token_features(token: Token) -> list[float]:
    """A reward token's features (:data:`TOKEN_FEATURE_NAMES`)."""
    row = [0.0] * TOKEN_FEATS
    row[0] = row[1 + token.kind] = row[1 + NKIND + NCOL + token.back] = 1.0
    for c in token.colours:
        row[1 + NKIND + c] = 1.0
    return row


def contract_features(card: Contract) -> list[float]:
    """A contract's features (:data:`CONTRACT_FEATURE_NAMES`)."""
    row = [0.0] * CONTRACT_FEATS
    row[0] = 1.0
    if card.number:
        row[1] = 1.0
        row[_NUMBERS : _NUMBERS + len(card.needs)] = card.needs
    else:
        row[_NEEDS : _NEEDS + NCOL] = card.needs
    row[_PAYOUT : _PAYOUT + 3] = card.pp, card.credits, card.batteries
    return row


_NEEDS, _NUMBERS, _PAYOUT = 2, 2 + NCOL, 2 + NCOL + D.MAX_NUMBERS  # contract feature columns


@lru_cache(maxsize=64)
def feature_rows(t: Tables) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Feature rows of every reward token and contract (:func:`token_features`,
    :func:`contract_features`), each with an extra all-zero last row (index -1, an empty
    space, reads zeros), and each token's (effect, back) index into a flat (effect,
    back) table. Derived from the config's tables only."""
    tokens = np.zeros((t.num_tokens + 1, TOKEN_FEATS), np.float32)
    tokens[: t.num_tokens] = [token_features(token) for token in t.tokens]
    contracts = np.zeros((t.num_contracts + 1, CONTRACT_FEATS), np.float32)
    contracts[: t.num_contracts] = [contract_features(card) for card in t.contracts]
    kind_back = [k * NBACK + b for k, b in zip(t.token_kind, t.token_back)]
    return tokens, contracts, kind_back


# ------------------------------------------------------------------ the inverse
# The decoder reads the observation in sections (each seat's block, the sponsors, the
# display, the store, the contracts, the counts, the pending decision), each parsed from
# its float32 bytes and remembered by them in a bounded memo: a section's facts are a
# pure function of its bytes, and most sections repeat from one decision to the next.
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_MEMO_SIZE = 4096  # parsed sections kept per memo (cleared when full)
_TABLES: dict[int, tuple[Config, Tables]] = {}  # id(config) -> (config, its tables)
_STRUCTS: dict[int, Struct] = {}


def _tables(config: Config) -> Tables:
    """``tables_for(config)``, remembered by identity (hashing a config costs more than
    decoding an observation)."""
    hit = _TABLES.get(id(config))
    if hit is None or hit[0] is not config:
        if len(_TABLES) >= 64:
            _TABLES.clear()
        hit = _TABLES[id(config)] = (config, tables_for(config))
    return hit[1]


def _unpack(key: bytes) -> tuple[float, ...]:
    """The float32 values of ``key``."""
    size = len(key) // FLOAT_BYTES
    unpack = _STRUCTS.get(size) or _STRUCTS.setdefault(size, Struct(f"{size}f"))
    return unpack.unpack(key)


def _memo(memo: dict, key: bytes, parse, raw: bool = False):
    """``parse(floats of key)`` (``raw``: ``parse(key)``), remembered in ``memo`` by ``key``."""
    value = memo.get(key)
    if value is None:
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        value = memo[key] = parse(key if raw else _unpack(key))
    return value


def _one_hot(o, at: int, size: int) -> int:
    """The index of the 1 in ``o[at:at+size]``, or -1 when all are zero."""
    part = o[at : at + size]
    return part.index(1.0) if 1.0 in part else -1


def _ints(o, at: int, size: int) -> tuple[int, ...]:
    return tuple(map(int, o[at : at + size]))


def _token(o, at: int) -> Token | None:
    """The reward token whose features start at ``o[at]`` (None: an empty space)."""
    if not o[at]:
        return None
    colours = tuple(c for c in range(NCOL) if o[at + 1 + NKIND + c])
    return Token(_one_hot(o, at + 1, NKIND), colours, _one_hot(o, at + 1 + NKIND + NCOL, NBACK))


def _contract(o, at: int) -> Contract | None:
    """The contract whose features start at ``o[at]`` (None: an empty slot)."""
    if not o[at]:
        return None
    number = o[at + 1] > 0
    if number:
        needs = tuple(int(x) for x in o[at + _NUMBERS : at + _NUMBERS + D.MAX_NUMBERS] if x)
    else:
        needs = _ints(o, at + _NEEDS, NCOL)
    pp, credits, batteries = _ints(o, at + _PAYOUT, 3)
    return Contract(number, needs, pp, credits, batteries)


# one seat's block as the decoder reads it: these pieces' entries of the seat, in order
# (the others are derived: free spaces, the track's room, the reach)
_SEAT_READ = ("divers", "upgraded", "resources", "keys_home", "keys_track", "neutral_held",
              "neutral_track", "hacker", "mechanic", "credits", "batteries", "pp", "reward_backs",
              "hand_size")
_SEAT_WIDTHS = {name: (b - a) // shape[0] for name, (a, b, shape) in LAYOUT.offsets.items()
                if name in SEAT_PIECES}
_IN_SEAT = dict(zip(_SEAT_READ, np.cumsum([0] + [_SEAT_WIDTHS[name] for name in _SEAT_READ]).tolist()))
_SEAT_SIZE = sum(_SEAT_WIDTHS[name] for name in _SEAT_READ)
_SEAT_INDEX = np.array([_AT[name] + k * _SEAT_WIDTHS[name] + i for k in range(S) for name in _SEAT_READ
                        for i in range(_SEAT_WIDTHS[name])], np.intp)  # every seat's, seat by seat


def _parse_column(o) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A seat's divers per slot and upgraded flags per diver type, from its ``divers``
    then ``upgraded`` entries."""
    flags = _IN_SEAT["upgraded"]
    divers = [o.index(1.0, slot * D.NUM_DIVERS, (slot + 1) * D.NUM_DIVERS) - slot * D.NUM_DIVERS
              for slot in range(D.NUM_SLOTS)]
    upgraded = [0] * D.NUM_DIVERS
    for slot, dtype in enumerate(divers):
        upgraded[dtype] = int(o[flags + slot])
    return tuple(divers), tuple(upgraded)


def _parse_resources(o) -> tuple[tuple[int, ...], ...]:
    counts = tuple(map(int, o))
    return tuple(counts[b : b + NCOL] for b in range(0, D.NUM_LEVELS * NCOL, NCOL))


_COLUMNS: dict[bytes, tuple] = {}
_RESOURCES: dict[bytes, tuple] = {}
_COLUMN_END = FLOAT_BYTES * _IN_SEAT["resources"]  # a seat's bytes: its column, then
_RESOURCES_END = FLOAT_BYTES * _IN_SEAT["keys_home"]  # its resources, then the rest
_REST = {name: _IN_SEAT[name] - _IN_SEAT["keys_home"] for name in _SEAT_READ[3:]}
assert _SEAT_READ[:4] == ("divers", "upgraded", "resources", "keys_home")  # (the split above)
assert NBACK == 2  # (a back is credits or PP: _parse_seat reads them so)


def _parse_seat(key: bytes) -> PlayerView:
    """One seat's block (its ``_SEAT_READ`` entries' bytes), the column and the
    resources remembered apart (they change less often than the counts)."""
    part = key[:_COLUMN_END]
    divers, upgraded = _COLUMNS.get(part) or _memo(_COLUMNS, part, _parse_column)
    part = key[_COLUMN_END:_RESOURCES_END]
    resources = _RESOURCES.get(part) or _memo(_RESOURCES, part, _parse_resources)
    o, at = _unpack(key[_RESOURCES_END:]), _REST
    backs = at["reward_backs"]
    return PlayerView(
        divers, upgraded, resources, _ints(o, at["keys_home"], D.NUM_OWN_KEYS),
        _ints(o, at["keys_track"], D.NUM_OWN_KEYS), int(o[at["neutral_track"]]), int(o[at["neutral_held"]]),
        int(o[at["hacker"]]), int(o[at["mechanic"]]), int(o[at["credits"]]), int(o[at["batteries"]]),
        int(o[at["pp"]]),
        tuple([D.BACK_CREDITS if o[b + D.BACK_CREDITS] else D.BACK_PP if o[b + D.BACK_PP] else NO_TOKEN
               for b in range(backs, backs + D.NUM_LEVELS * NBACK, NBACK)]),
        int(o[at["hand_size"]]),
    )  # fmt: skip


def _parse_sponsors(o) -> tuple[tuple[int, ...], tuple[int, ...]]:
    tiles = [_one_hot(o, level * D.NUM_SPONSORS, D.NUM_SPONSORS) for level in range(D.NUM_LEVELS)]
    advanced = [0] * D.NUM_SPONSORS
    for level, tile in enumerate(tiles):
        advanced[tile] = int(o[D.NUM_LEVELS * D.NUM_SPONSORS + level])
    return tuple(tiles), tuple(advanced)


def _parse_display(o) -> tuple[Token | None, ...]:
    return tuple(_token(o, i * TOKEN_FEATS) for i in range(D.NUM_LEVELS * D.DISPLAY_TOKENS))


def _parse_store(o) -> tuple[int, ...]:
    return tuple(int(sum(o[c * D.STORE_ROWS : (c + 1) * D.STORE_ROWS])) for c in range(NCOL))


def _parse_contracts(o) -> tuple[tuple[Contract | None, ...], tuple[Contract | None, ...]]:
    """Every public slot, every hand slot (None where empty)."""
    hand = D.MAX_PUBLIC * CONTRACT_FEATS
    return (tuple(_contract(o, i * CONTRACT_FEATS) for i in range(D.MAX_PUBLIC)),
            tuple(_contract(o, hand + i * CONTRACT_FEATS) for i in range(D.MAX_HAND)))


_IN_COUNTS = {name: _AT[name] - _AT["deck_size"] for name in ("bag_kinds", "bag_colours", "token_discard")}
_IN_PENDING = {name: _AT[name] - _AT["phase"] for name in PENDING_PIECES}


def _parse_counts(o) -> tuple:
    """deck_size .. token_discard (``_COUNTS``): the decks' and the bag's counts."""
    at = _IN_COUNTS
    return (*map(int, o[:4]), tuple(_ints(o, at["bag_kinds"] + k * NBACK, NBACK) for k in range(NKIND)),
            _ints(o, at["bag_colours"], NCOL),
            tuple(_ints(o, at["token_discard"] + k * NBACK, NBACK) for k in range(NKIND)))


def _parse_pending(o) -> tuple:
    """The pending decision's fields (``SeatView`` order from ``phase``)."""
    at = _IN_PENDING
    phase = _one_hot(o, at["phase"], NUM_PHASES)
    if phase < 0:
        return (NO_PHASE, -1, -1, (), -1, -1, 0, 0, 0, -1, 0, None, 0, (), None, -1, ())
    marks = tuple(k for k in range(S) if o[at["marks"] + k])
    contract, contract_level, picks = None, -1, ()
    if phase == CONTRACT_COLOUR:
        contract, contract_level = _contract(o, at["contract"]), _one_hot(o, at["contract_level"], D.NUM_LEVELS)
        picks = tuple(c for c in (_one_hot(o, at["contract_picks"] + i * NCOL, NCOL)
                                  for i in range(D.MAX_NUMBERS)) if c >= 0)
    head = (phase, _one_hot(o, at["actor"], S), _one_hot(o, at["turn_seat"], S), marks)
    tail = (contract, contract_level, picks)
    level = _one_hot(o, at["key_level"], D.NUM_LEVELS)
    if level < 0:
        return (*head, -1, -1, 0, 0, 0, -1, 0, None, 0, (), *tail)
    kind = _one_hot(o, at["key_kind"], len(KEY_KINDS))
    copy_owner, copy_depth = -1, 0
    if phase == COPY:
        copy_owner, copy_depth = _one_hot(o, at["copy_owner"], S), int(o[at["copy_depth"]])
    drawn_count = int(o[at["drawn_count"]])
    drawn = ()
    if o[at["drawn"]]:
        drawn = tuple(_contract(o, at["drawn"] + i * CONTRACT_FEATS) for i in range(drawn_count))
    return (*head, level, kind, int(o[at["uses_left"]]), int(o[at["sponsor_used"]]),
            int(o[at["free_costs"]]), copy_owner, copy_depth, _token(o, at["token"]), drawn_count,
            drawn, *tail)


def _span(first: str, last: str) -> slice:
    """The bytes of the pieces ``first`` to ``last`` (in layout order)."""
    return slice(FLOAT_BYTES * _AT[first], FLOAT_BYTES * LAYOUT.offsets[last][1])


# (byte span, parser, memo) of each table section
_SPONSORS = (_span("sponsor_tile", "sponsor_advanced"), _parse_sponsors, {})
_DISPLAY = (_span("display", "display"), _parse_display, {})
_STORE = (_span("store", "store"), _parse_store, {})
_CONTRACTS = (_span("public", "hand"), _parse_contracts, {})
_COUNTS = (_span("deck_size", "token_discard"), _parse_counts, {})
_PENDING = (_span(PENDING_PIECES[0], PENDING_PIECES[-1]), _parse_pending, {})
_SEATS: dict[bytes, PlayerView] = {}
_SEAT_BYTES = FLOAT_BYTES * _SEAT_SIZE


def _section(raw: bytes, section: tuple):
    span, parse, memo = section
    key = raw[span]
    return memo.get(key) or _memo(memo, key, parse)


def observed_players(observation: np.ndarray) -> int:
    """The player count of the game an observation was written in."""
    return int(observation[_AT["present"] : _AT["present"] + S].sum())


_HEAD = _span("present", "first_player")  # who is in the game, who holds the marker
_ROUND = _span("round", "end_triggered")


def decode(observation: np.ndarray, config: Config) -> SeatView:
    """The seat view an observation of a game at ``config`` was written from: the
    exact inverse of :func:`encode` (``decode(observation, config) == view(state, seat)``)."""
    if observation.dtype != np.float32:
        observation = observation.astype(np.float32)
    t = _tables(config)
    raw = observation.tobytes()
    head = _unpack(raw[_HEAD])
    n = int(sum(head[:S]))
    seat = -head[S : S + n].index(1.0) % n
    blocks = observation.take(_SEAT_INDEX[: n * _SEAT_SIZE]).tobytes()
    players = []
    for k in range(n):
        key = blocks[k * _SEAT_BYTES : (k + 1) * _SEAT_BYTES]
        players.append(_SEATS.get(key) or _memo(_SEATS, key, _parse_seat, raw=True))
    public, hand = _section(raw, _CONTRACTS)
    round_, end_triggered = _unpack(raw[_ROUND])
    return new_view(
        config, t, seat, tuple(players), hand[: players[0].hand_size], int(round_), int(end_triggered),
        *_section(raw, _SPONSORS), _section(raw, _DISPLAY), _section(raw, _STORE), public[: t.public],
        *_section(raw, _COUNTS), *_section(raw, _PENDING),
    )  # fmt: skip
