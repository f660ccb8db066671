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

from envs.core.observer import ObservationLayout, Values

from . import data as D
from .config import Config, Tables, tables_for
from .phases import CONTRACT_COLOUR, COPY, KEEP, NUM_PHASES, Phase
from .rules import State

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
           "TOKEN_FEATURE_NAMES", "write_plain"]


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
    state's (:data:`~envs.otys.data.LOADED_COUNT_MAX`), or a fresh game's ``start``,
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
