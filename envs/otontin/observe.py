"""The fixed-size observation of one seat (padded to 8 seats, 4 die colours).

Seats are relative to the observer: row 0 is the observer, row ``i`` the leader ``i``
seats to its left (turn order). Counts are divided by ``COUNT_SCALE``. An order is
16 numbers: left card (spear, shield, hand), left offer (5), right card (3), right
offer (5), each one-hot (offers all 0 on a Spear or Shield). The layout table is in
``README.md`` (``LAYOUT.markdown()``).

What a seat sees is only what a leader at the table knows, its seat view
(:mod:`.view`): all cards and tokens, the dice of the current campaign turn, every
declaration, its own secret order, and the others' orders only once revealed (the
``revealed`` rows hold the last war's orders).

:func:`write_view` writes a seat view into the layout's named views and
:func:`write_plain` writes the view the rules build (``view(state, seat)``): the
definition of the observation; :func:`decode` is its exact inverse. The env uses the
cached writer of :mod:`.observe_cache`, which must give the same bytes (its tests
compare).
"""

from __future__ import annotations

import numpy as np

from otrio.envs.core.observer import ObservationLayout, Values

from .campaign import DECISION_NAMES, NO_DECISION
from .data import (
    CARD_NAMES,
    COUNT_SCALE,
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
    PRIEST,
)
from .orders import NO_ORDER, NUM_ORDERS, ORDERS
from .rules import PHASE_NAMES, UNSAID, Config, State, dice_table, game_beans, game_warriors
from .view import SeatView, view

SIDE_FEATURES = NUM_CARDS + NUM_OFFERS
ORDER_FEATURES = 2 * SIDE_FEATURES
# an order's 16 numbers, named: each side's card, then the offer its Hand carries
ORDER_FEATURE_NAMES = tuple(f"{side}_{name}" for side in ("left", "right")
                            for name in (*CARD_NAMES, *OFFER_NAMES))
NUM_DECISIONS = len(DECISION_NAMES) - 1  # "none" has no slot


# The bounds that depend on the config (each a function of the Config): every count
# over COUNT_SCALE, at most what the rule holding it down allows (a card or the pool
# holds at most the game's warriors, rules.game_warriors; a leader at most its beans).
def dice_of_kind(config: Config) -> np.ndarray:
    """The dice of each colour (zero for the colours past the config's)."""
    counts = np.zeros(MAX_DIE_KINDS)
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
    most = [dice(config)] * NUM_FACES
    most[PRIEST] = LOADED_COUNT_MAX + DICE_PER_ROLL * (MAX_DECISIONS + 1)
    return [m / COUNT_SCALE for m in most]


def _count(most):
    """A bound of counts over COUNT_SCALE, ``most`` a function of the config."""
    return lambda config: np.divide(most(config), COUNT_SCALE)


ORDERS_OF_SEATS = Values(None, ("spoke", "said_nothing", *ORDER_FEATURE_NAMES))
LAYOUT = ObservationLayout(
    [
        ("seat_present", (MAX_PLAYERS,), "1 for each seat in play (relative; own seat first)"),
        ("attack", (MAX_PLAYERS,), "warriors on each leader's Attack card / 10", Values(high=_count(game_warriors))),
        ("defence", (MAX_PLAYERS,), "warriors on each leader's Defence card / 10", Values(high=_count(game_warriors))),
        ("beans", (MAX_PLAYERS,), "each leader's cocoa beans / 10", Values(high=_count(game_beans))),
        ("busted", (MAX_PLAYERS,), "1 if the leader busted this round (sits out, city impassable)"),
        ("campaign_done", (MAX_PLAYERS,), "1 if the leader has had its campaign turn this round"),
        ("starting_leader", (MAX_PLAYERS,), "one-hot: the Starting Leader of this round"),
        ("campaign_leader", (MAX_PLAYERS,), "one-hot: whose campaign turn it is (campaign only)"),
        ("acting", (MAX_PLAYERS,), "one-hot: who takes the pending decision"),
        ("pool", (2,), "warriors, beans left in the pool / 10",
         Values(("warriors", "beans"), high=_count(lambda c: (game_warriors(c), game_beans(c))))),
        ("phase", (len(PHASE_NAMES),), "one-hot: campaign, talk, commit, over", Values(PHASE_NAMES)),
        ("decision", (NUM_DECISIONS,), "one-hot: roll_or_stop, priority, steal, declare, commit",
         Values(DECISION_NAMES[:NUM_DECISIONS])),
        ("game", (4,), "round / round_cap, final round, bean target / 10, split spoils",
         Values(("round", "final_round", "bean_target", "split_spoils"),
                high=lambda c: (1.0, 1.0, c.bean_target / COUNT_SCALE, 1.0))),
        ("dice_count", (MAX_DIE_KINDS,), "dice of each colour in the game / 10", Values(high=_count(dice_of_kind))),
        ("dice_faces", (MAX_DIE_KINDS, NUM_FACES), "share of each face (warrior, bean, priest, saboteur) per colour",
         Values(None, FACE_NAMES)),
        ("bag", (MAX_DIE_KINDS,), "dice of each colour in the bag / 10", Values(high=_count(dice_of_kind))),
        ("priests_aside", (MAX_DIE_KINDS,), "priest dice of each colour set aside / 10", Values(high=_count(dice_of_kind))),
        ("rolled", (NUM_FACES,), "faces rolled this turn (warrior, bean, priest, saboteur) / 10",
         Values(FACE_NAMES, high=rolled_high)),
        ("last_roll", (MAX_DIE_KINDS, NUM_FACES), "the last roll: dice by colour and face",
         Values(None, FACE_NAMES, high=lambda c: np.minimum(dice_of_kind(c), DICE_PER_ROLL)[:, None])),
        ("payable", (2,), "warriors, beans the pool would pay on stopping now / 10",
         Values(("warriors", "beans"), high=_count(lambda c: (min(dice(c), game_warriors(c)),
                                                                min(dice(c), game_beans(c)))))),
        ("theft", (1,), "saboteurs of the roll being paid for (pending theft) / 10",
         Values(high=DICE_PER_ROLL / COUNT_SCALE)),
        ("takers", (MAX_PLAYERS,), "1 for the neighbours taking warriors in the pending theft"),
        ("declared", (MAX_PLAYERS, 2 + ORDER_FEATURES), "spoke?, said nothing?, declared order", ORDERS_OF_SEATS),
        ("committed", (MAX_PLAYERS,), "1 if the leader has laid its secret order this round"),
        ("own_order", (1 + ORDER_FEATURES,), "own secret order this round: laid?, order",
         Values(("laid", *ORDER_FEATURE_NAMES))),
        ("revealed", (MAX_PLAYERS, 1 + ORDER_FEATURES), "last war's revealed orders: had one?, order",
         Values(None, ("had_one", *ORDER_FEATURE_NAMES))),
        ("revealed_age", (2,), "one-hot: 'revealed' is this round's war / the previous round's",
         Values(("this_round", "previous_round"))),
    ],
    default_config=Config,
)  # fmt: skip


def _order_vectors() -> np.ndarray:
    """Each order's 16 numbers (one row per order id)."""
    vec = np.zeros((NUM_ORDERS, ORDER_FEATURES), dtype=np.float32)
    for i, (left_card, left_offer, right_card, right_offer) in enumerate(ORDERS):
        for base, card, offer in ((0, left_card, left_offer),
                                  (SIDE_FEATURES, right_card, right_offer)):
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
    """Write ``seat``'s view of ``state`` into the float32 vector ``out``: the
    definition of the observation (:func:`write_view` of :func:`.view.view`)."""
    write_view(view(state, seat), out)


def write_view(seat_view: SeatView, out: np.ndarray) -> None:
    """Write a seat's view into the float32 vector ``out`` (every value; rows as in the
    view: row 0 is the viewer)."""
    out[:] = 0.0
    v = LAYOUT.views(out)
    sv = seat_view
    n = sv.num_players
    v["seat_present"][:n] = 1.0
    for name, _, scale in SEAT_COUNTS:  # the view's field is named as the piece
        v[name][:n] = [x / scale for x in getattr(sv, name)]
    v["starting_leader"][sv.starting_leader] = 1.0
    if sv.acting is not None:
        v["acting"][sv.acting] = 1.0
    v["pool"][:] = sv.pool_warriors / COUNT_SCALE, sv.pool_beans / COUNT_SCALE
    v["phase"][sv.phase] = 1.0
    if sv.decision != NO_DECISION:
        v["decision"][sv.decision] = 1.0
    v["game"][:] = (sv.round / sv.round_cap, sv.final_round,
                    sv.bean_target / COUNT_SCALE, sv.split_spoils)
    kinds = len(sv.dice_counts)
    v["dice_count"][:kinds] = [c / COUNT_SCALE for c in sv.dice_counts]
    v["dice_faces"][:kinds] = face_shares(sv.dice_faces)
    # the dice of the campaign turn under way (zeros outside the campaign)
    if sv.campaign_leader is not None:
        v["campaign_leader"][sv.campaign_leader] = 1.0
    v["bag"][:kinds] = [c / COUNT_SCALE for c in sv.bag]
    v["priests_aside"][:kinds] = [c / COUNT_SCALE for c in sv.priests_aside]
    v["rolled"][:] = [c / COUNT_SCALE for c in sv.rolled]
    v["last_roll"][:kinds] = sv.last_roll
    v["payable"][:] = [c / COUNT_SCALE for c in sv.payable]
    v["theft"][0] = sv.theft / COUNT_SCALE
    for row in sv.takers:
        v["takers"][row] = 1.0
    for row, declared in enumerate(sv.declared):
        if declared != UNSAID:  # spoke: an order, or nothing
            v["declared"][row, 0] = 1.0
            if declared == NO_ORDER:
                v["declared"][row, 1] = 1.0
            else:
                v["declared"][row, 2:] = ORDER_VEC[declared]
    v["committed"][:n] = sv.committed
    if sv.own_order != NO_ORDER:
        v["own_order"][:] = 1.0, *ORDER_VEC[sv.own_order]
    for row, revealed in enumerate(sv.revealed):
        if revealed != NO_ORDER:
            v["revealed"][row] = 1.0, *ORDER_VEC[revealed]
    if sv.revealed_age is not None:
        v["revealed_age"][sv.revealed_age] = 1.0


def face_shares(kinds) -> list[list[float]]:
    """Each die colour's share of each face (one row per colour, from its faces)."""
    shares = [[0.0] * NUM_FACES for _ in kinds]
    for k, faces in enumerate(kinds):
        for face in faces:
            shares[k][face] += 1.0 / len(faces)
    return shares


# ------------------------------------------------------------------- decoding
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}  # each piece's first index
_DECLARED_WIDTH = 2 + ORDER_FEATURES
_REVEALED_WIDTH = 1 + ORDER_FEATURES


def _entries(name: str, count: int | None = None, step: int = 1, skip: int = 0) -> list[int]:
    """The indices of a piece's entries (``count`` of them, ``step`` apart, from its
    ``skip``-th)."""
    a, b, _ = LAYOUT.offsets[name]
    count = (b - a - skip) // step if count is None else count
    return [a + skip + i * step for i in range(count)]


# Every whole number a decode reads, gathered at once (counts times COUNT_SCALE, flags
# and one-hots as they are): name -> (indices in the observation, scale).
_WHOLE = {
    "seat_present": (_entries("seat_present"), 1),  # first: the others' rows are past n
    **{name: (_entries(name), COUNT_SCALE) for name in (
        "attack", "defence", "beans", "pool", "bag", "priests_aside", "rolled", "theft")},
    **{name: (_entries(name), 1) for name in (
        "busted", "campaign_done", "starting_leader", "campaign_leader",
        "acting", "phase", "decision", "last_roll", "takers", "committed", "revealed_age")},
    "spoke": (_entries("declared", MAX_PLAYERS, _DECLARED_WIDTH), 1),
    "said_nothing": (_entries("declared", MAX_PLAYERS, _DECLARED_WIDTH, 1), 1),
    "own_laid": (_entries("own_order", 1), 1),
    "had_one": (_entries("revealed", MAX_PLAYERS, _REVEALED_WIDTH), 1),
    "final_round": (_entries("game", 1, 1, 1), 1),
    "bean_target": (_entries("game", 1, 1, 2), COUNT_SCALE),
    "split_spoils": (_entries("game", 1, 1, 3), 1),
}  # fmt: skip
_WHOLE_AT = np.array([i for indices, _ in _WHOLE.values() for i in indices])
_WHOLE_SCALE = np.array([scale for indices, scale in _WHOLE.values() for _ in indices],
                        np.float32)
_ENDS = np.cumsum([len(indices) for indices, _ in _WHOLE.values()]).tolist()
_AT_WHOLE = dict(zip(_WHOLE, [0, *_ENDS[:-1]]))  # name -> its first place in the gather
_PLACES = tuple(_AT_WHOLE[name] for name in (
    "attack", "defence", "beans", "pool", "bag", "priests_aside", "rolled", "theft",
    "busted", "campaign_done", "starting_leader", "campaign_leader", "acting", "phase",
    "decision", "last_roll", "takers", "committed", "revealed_age", "spoke",
    "said_nothing", "own_laid", "had_one", "final_round", "bean_target", "split_spoils"))
# The order features of every order row (the declared rows, the own order, the revealed
# rows), each row's as one whole number (its one-hot bits)
_ORDER_FEATURES_AT = np.array(
    [_entries("declared", ORDER_FEATURES, 1, r * _DECLARED_WIDTH + 2) for r in range(MAX_PLAYERS)]
    + [_entries("own_order", ORDER_FEATURES, 1, 1)]
    + [_entries("revealed", ORDER_FEATURES, 1, r * _REVEALED_WIDTH + 1) for r in range(MAX_PLAYERS)]
)  # fmt: skip
_BITS = (2.0 ** np.arange(ORDER_FEATURES)).astype(np.float32)
# an order row's code -> the order (a float code finds its whole number: equal hashes)
_ORDER_OF_CODE = {int(code): order for order, code in enumerate(ORDER_VEC @ _BITS)}
_OWN_ROW, _REVEALED_ROW = MAX_PLAYERS, MAX_PLAYERS + 1  # order rows past the declared
_DICE_AT = _AT["dice_count"]  # dice_count, then dice_faces
_DICE_END = _AT["dice_faces"] + MAX_DIE_KINDS * NUM_FACES
_ROUND_AT = _AT["game"]  # round / round_cap
_DICE_CACHE: dict[int, tuple] = {}  # id(config) -> (config, its dice, their floats)
_DICE_CACHE_SIZE = 64


def _dice_of(config: Config) -> tuple:
    """The config's dice table, the floats of its ``dice_count`` and ``dice_faces``
    pieces, and the view's ``dice_counts`` and ``dice_faces`` (kept per config object)."""
    cached = _DICE_CACHE.get(id(config))
    if cached is None or cached[0] is not config:
        if len(_DICE_CACHE) >= _DICE_CACHE_SIZE:
            _DICE_CACHE.clear()
        table = dice_table(config)
        out = np.zeros(LAYOUT.size, np.float32)
        v = LAYOUT.views(out)
        v["dice_count"][: len(table)] = [count / COUNT_SCALE for _, count, _ in table]
        v["dice_faces"][: len(table)] = face_shares([faces for _, _, faces in table])
        cached = _DICE_CACHE[id(config)] = (
            config, table, out[_DICE_AT:_DICE_END].tolist(),
            tuple(count for _, count, _ in table), tuple(faces for _, _, faces in table))
    return cached[1:]


def _mark(values: list[int]) -> int | None:
    """The index of a one-hot piece's 1 (None: all zero)."""
    return values.index(1) if 1 in values else None


def decode(observation: np.ndarray, config: Config) -> SeatView:
    """The seat view an observation was written from (the exact inverse of
    :func:`write_view`). ``config`` is the game's: it gives what the observation holds
    only as a share, the round cap (the observation has ``round / round_cap``) and the
    dice's faces (the observation has each face's share); a config whose dice do not
    give the observation's raises ``ValueError``. Everything else is read from the
    observation."""
    table, dice_floats, dice_counts, dice_faces = _dice_of(config)
    if observation[_DICE_AT:_DICE_END].tolist() != dice_floats:
        raise ValueError("the observation's dice are not those of this config: decode it "
                         "with the config of its game")
    kinds = len(table)
    whole = np.rint(observation[_WHOLE_AT] * _WHOLE_SCALE).astype(np.int64).tolist()
    codes = (observation[_ORDER_FEATURES_AT] @ _BITS).tolist()  # whole numbers, as floats
    n = sum(whole[:MAX_PLAYERS])  # seat_present comes first
    (attack, defence, beans, pool, bag, aside, rolled, theft, busted, done, starting,
     campaign_leader, acting, phase, decision, roll, takers, committed, revealed_age, spoke,
     said_nothing, own_laid, had_one, final_round, bean_target, split_spoils) = _PLACES
    order_of = _ORDER_OF_CODE
    decision = _mark(whole[decision : decision + NUM_DECISIONS])
    return SeatView(
        tuple(whole[attack : attack + n]), tuple(whole[defence : defence + n]),
        tuple(whole[beans : beans + n]),
        tuple(map(bool, whole[busted : busted + n])), tuple(map(bool, whole[done : done + n])),
        _mark(whole[starting : starting + n]),
        whole[pool], whole[pool + 1],
        round(float(observation[_ROUND_AT]) * config.round_cap), bool(whole[final_round]),
        _mark(whole[phase : phase + len(PHASE_NAMES)]),
        NO_DECISION if decision is None else decision,
        _mark(whole[acting : acting + n]), _mark(whole[campaign_leader : campaign_leader + n]),
        tuple(whole[bag : bag + kinds]), tuple(whole[aside : aside + kinds]),
        tuple(whole[rolled : rolled + NUM_FACES]),
        tuple([tuple(whole[k : k + NUM_FACES])
               for k in range(roll, roll + kinds * NUM_FACES, NUM_FACES)]),
        whole[theft],
        tuple([row for row, taker in enumerate(whole[takers : takers + n]) if taker]),
        tuple([(NO_ORDER if whole[said_nothing + r] else order_of[codes[r]])
               if whole[spoke + r] else UNSAID for r in range(n)]),
        tuple(map(bool, whole[committed : committed + n])),
        order_of[codes[_OWN_ROW]] if whole[own_laid] else NO_ORDER,
        tuple([order_of[codes[_REVEALED_ROW + r]] if whole[had_one + r] else NO_ORDER
               for r in range(n)]),
        _mark(whole[revealed_age : revealed_age + 2]),
        config.round_cap, whole[bean_target], bool(whole[split_spoils]),
        dice_counts, dice_faces,
    )  # fmt: skip


__all__ = ["COUNT_SCALE", "LAYOUT", "ORDER_VEC", "decode", "write_plain", "write_view"]
