"""The fixed-size observation of one seat (padded to 8 seats, 4 die colours).

Seats are relative to the observer: row 0 is the observer, row ``i`` the leader ``i``
seats to its left (turn order). Counts are divided by ``COUNT_SCALE``. An order is
16 numbers: left card (spear, shield, hand), left offer (5), right card (3), right
offer (5), each one-hot (offers all 0 on a Spear or Shield). The layout table is in
``README.md`` (``LAYOUT.markdown()``).

What a seat sees is only what a leader at the table knows: all cards and tokens, the
dice of the current campaign turn, every declaration, its own secret order, and the
others' orders only once revealed (the ``revealed`` rows hold the last war's orders).

:func:`write_plain` fills the layout's named views straight from the state; it is the
definition of the observation. The env uses the cached writer of
:mod:`.observe_cache`, which must give the same bytes (its tests compare).
"""

from __future__ import annotations

import numpy as np

from envs.core.observer import ObservationLayout, Values

from .campaign import DECISION_NAMES, NO_DECISION
from .data import (
    CARD_NAMES,
    DICE_PER_ROLL,
    FACE_NAMES,
    HAND,
    LOADED_COUNT_MAX,
    MAX_DECISIONS,
    MAX_DIE_KINDS,
    MAX_PLAYERS,
    NO_OFFER,
    NUM_CARDS,
    NUM_FACES,
    NUM_OFFERS,
    OFFER_NAMES,
    POOL_BY_PLAYERS,
    PRIEST,
)
from .orders import NO_ORDER, NUM_ORDERS, ORDERS
from .rules import CAMPAIGN, COMMIT_PHASE, PHASE_NAMES, UNSAID, Config, State, dice_table

COUNT_SCALE = 10.0  # divides warrior, bean and dice counts
P, K, F = MAX_PLAYERS, MAX_DIE_KINDS, NUM_FACES
SIDE_FEATURES = NUM_CARDS + NUM_OFFERS
ORDER_FEATURES = 2 * SIDE_FEATURES
# an order's 16 numbers, named: each side's card, then the offer its Hand carries
ORDER_FEATURE_NAMES = tuple(f"{side}_{name}" for side in ("left", "right")
                            for name in (*CARD_NAMES, *OFFER_NAMES))
NUM_DECISIONS = len(DECISION_NAMES) - 1  # "none" has no slot


# The bounds that depend on the config (each a function of the Config): every count
# over COUNT_SCALE, at most what the rule holding it down allows.
def warriors(config: Config) -> int:
    """The warriors of the game (the pool's at the start: every card holds fewer)."""
    return config.pool_warriors or POOL_BY_PLAYERS[config.num_players]


def beans(config: Config) -> int:
    """The cocoa beans of the game."""
    return config.pool_beans or POOL_BY_PLAYERS[config.num_players]


def dice_of_kind(config: Config) -> np.ndarray:
    """The dice of each colour (zero for the colours past the config's)."""
    counts = np.zeros(K)
    for k, (_, count, _) in enumerate(dice_table(config)):
        counts[k] = count
    return counts


def dice(config: Config) -> float:
    """All the campaign dice: the most non-priest faces one turn can roll (each such
    die leaves the bag for the turn)."""
    return float(dice_of_kind(config).sum())


def rolled_high(config: Config) -> list[float]:
    """The faces rolled this turn: each face but the priest at most once a die; priests
    return to the bag, so a turn may roll them for ever: at most a loaded state's
    (``LOADED_COUNT_MAX``) plus three a roll, a roll each decision and the first."""
    most = [dice(config)] * F
    most[PRIEST] = LOADED_COUNT_MAX + DICE_PER_ROLL * (MAX_DECISIONS + 1)
    return [m / COUNT_SCALE for m in most]


def _count(most):
    """A bound of counts over COUNT_SCALE, ``most`` a function of the config."""
    return lambda config: np.divide(most(config), COUNT_SCALE)


ORDERS_OF_SEATS = Values(None, ("spoke", "said_nothing", *ORDER_FEATURE_NAMES))
LAYOUT = ObservationLayout(
    [
        ("seat_present", (P,), "1 for each seat in play (relative; own seat first)"),
        ("attack", (P,), "warriors on each leader's Attack card / 10", Values(high=_count(warriors))),
        ("defence", (P,), "warriors on each leader's Defence card / 10", Values(high=_count(warriors))),
        ("beans", (P,), "each leader's cocoa beans / 10", Values(high=_count(beans))),
        ("busted", (P,), "1 if the leader busted this round (sits out, city impassable)"),
        ("campaign_done", (P,), "1 if the leader has had its campaign turn this round"),
        ("starting_leader", (P,), "one-hot: the Starting Leader of this round"),
        ("campaign_leader", (P,), "one-hot: whose campaign turn it is (campaign only)"),
        ("acting", (P,), "one-hot: who takes the pending decision"),
        ("pool", (2,), "warriors, beans left in the pool / 10",
         Values(("warriors", "beans"), high=_count(lambda c: (warriors(c), beans(c))))),
        ("phase", (len(PHASE_NAMES),), "one-hot: campaign, talk, commit, over", Values(PHASE_NAMES)),
        ("decision", (NUM_DECISIONS,), "one-hot: roll_or_stop, priority, steal, declare, commit",
         Values(DECISION_NAMES[:NUM_DECISIONS])),
        ("game", (4,), "round / round_cap, final round, bean target / 10, split spoils",
         Values(("round", "final_round", "bean_target", "split_spoils"),
                high=lambda c: (1.0, 1.0, c.bean_target / COUNT_SCALE, 1.0))),
        ("dice_count", (K,), "dice of each colour in the game / 10", Values(high=_count(dice_of_kind))),
        ("dice_faces", (K, F), "share of each face (warrior, bean, priest, saboteur) per colour",
         Values(None, FACE_NAMES)),
        ("bag", (K,), "dice of each colour in the bag / 10", Values(high=_count(dice_of_kind))),
        ("priests_aside", (K,), "priest dice of each colour set aside / 10", Values(high=_count(dice_of_kind))),
        ("rolled", (F,), "faces rolled this turn (warrior, bean, priest, saboteur) / 10",
         Values(FACE_NAMES, high=rolled_high)),
        ("last_roll", (K, F), "the last roll: dice by colour and face",
         Values(None, FACE_NAMES, high=lambda c: np.minimum(dice_of_kind(c), DICE_PER_ROLL)[:, None])),
        ("payable", (2,), "warriors, beans the pool would pay on stopping now / 10",
         Values(("warriors", "beans"), high=_count(lambda c: (min(dice(c), warriors(c)),
                                                                min(dice(c), beans(c)))))),
        ("theft", (1,), "saboteurs of the roll being paid for (pending theft) / 10",
         Values(high=DICE_PER_ROLL / COUNT_SCALE)),
        ("takers", (P,), "1 for the neighbours taking warriors in the pending theft"),
        ("declared", (P, 2 + ORDER_FEATURES), "spoke?, said nothing?, declared order", ORDERS_OF_SEATS),
        ("committed", (P,), "1 if the leader has laid its secret order this round"),
        ("own_order", (1 + ORDER_FEATURES,), "own secret order this round: laid?, order",
         Values(("laid", *ORDER_FEATURE_NAMES))),
        ("revealed", (P, 1 + ORDER_FEATURES), "last war's revealed orders: had one?, order",
         Values(None, ("had_one", *ORDER_FEATURE_NAMES))),
        ("revealed_age", (2,), "one-hot: 'revealed' is this round's war / the previous round's",
         Values(("this_round", "previous_round"))),
    ],
    default_config=Config,
)  # fmt: skip


def _order_vectors() -> np.ndarray:
    """Each order's 16 numbers (one row per order id)."""
    vec = np.zeros((NUM_ORDERS, ORDER_FEATURES), dtype=np.float32)
    for i, (lc, lo, rc, ro) in enumerate(ORDERS):
        for base, card, offer in ((0, lc, lo), (SIDE_FEATURES, rc, ro)):
            vec[i, base + card] = 1.0
            if card == HAND and offer != NO_OFFER:
                vec[i, base + NUM_CARDS + offer] = 1.0
    return vec


ORDER_VEC = _order_vectors()
# pieces with one row per seat (relative in the observation)
SEAT_PIECES = (
    "seat_present", "attack", "defence", "beans", "busted", "campaign_done",
    "starting_leader", "campaign_leader", "acting", "takers", "declared", "committed",
    "revealed",
)  # fmt: skip
# seat pieces that are a state list of counts or flags: (piece, state field, divisor)
SEAT_COUNTS = (
    ("attack", "attack", COUNT_SCALE), ("defence", "defence", COUNT_SCALE),
    ("beans", "beans", COUNT_SCALE), ("busted", "busted", 1), ("campaign_done", "done", 1),
)  # fmt: skip


def write_plain(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the float32 vector ``out``, every value
    computed from the state (seat rows rotated so that row 0 is ``seat``)."""
    out[:] = 0.0
    v = LAYOUT.views(out)
    n, cfg = state.n, state.config
    order = [(seat + k) % n for k in range(n)]  # relative row -> seat
    row = [(s - seat) % n for s in range(n)]  # seat -> relative row
    v["seat_present"][:n] = 1.0
    for name, field, scale in SEAT_COUNTS:
        values = getattr(state, field)
        v[name][:n] = [values[s] / scale for s in order]
    v["starting_leader"][row[state.start]] = 1.0
    if state.current_player() >= 0:
        v["acting"][row[state.current_player()]] = 1.0
    v["pool"][:] = state.pool_warriors / COUNT_SCALE, state.pool_beans / COUNT_SCALE
    v["phase"][state.phase] = 1.0
    if state.decision != NO_DECISION:
        v["decision"][state.decision] = 1.0
    v["game"][:] = (state.round / cfg.round_cap, state.final_round,
                    cfg.bean_target / COUNT_SCALE, cfg.split_spoils)
    v["dice_count"][: len(state.kinds)] = [c / COUNT_SCALE for c in state.kind_counts]
    v["dice_faces"][: len(state.kinds)] = face_shares(state.kinds)
    if state.phase == CAMPAIGN:  # the dice of the campaign turn under way
        kinds = len(state.kinds)
        v["campaign_leader"][row[state.active]] = 1.0
        v["bag"][:kinds] = [c / COUNT_SCALE for c in state.bag]
        v["priests_aside"][:kinds] = [c / COUNT_SCALE for c in state.aside]
        v["rolled"][:] = [c / COUNT_SCALE for c in state.rolled]
        for kind, face in state.last_roll:
            v["last_roll"][kind, face] += 1.0
        v["payable"][:] = [c / COUNT_SCALE for c in state.payable()]
        if state.takers:
            v["theft"][0] = state.theft / COUNT_SCALE
            for s in state.takers:
                v["takers"][row[s]] = 1.0
    for s, declared in enumerate(state.declared):
        if declared != UNSAID:  # spoke: an order, or nothing
            v["declared"][row[s], 0] = 1.0
            if declared == NO_ORDER:
                v["declared"][row[s], 1] = 1.0
            else:
                v["declared"][row[s], 2:] = ORDER_VEC[declared]
    if state.phase == COMMIT_PHASE:  # who has laid an order, not which
        for s in state.actives[: state.cursor]:
            v["committed"][row[s]] = 1.0
    own = state.committed[seat]
    if own != NO_ORDER:
        v["own_order"][:] = 1.0, *ORDER_VEC[own]
    for s, revealed in enumerate(state.revealed):
        if revealed != NO_ORDER:
            v["revealed"][row[s]] = 1.0, *ORDER_VEC[revealed]
    age = state.round - state.revealed_round
    if state.revealed_round and age < 2:
        v["revealed_age"][age] = 1.0


def face_shares(kinds: list[tuple[int, ...]]) -> list[list[float]]:
    """Each die colour's share of each face (one row per colour)."""
    shares = [[0.0] * F for _ in kinds]
    for k, faces in enumerate(kinds):
        for face in faces:
            shares[k][face] += 1.0 / len(faces)
    return shares


__all__ = ["COUNT_SCALE", "LAYOUT", "ORDER_VEC", "write_plain"]
