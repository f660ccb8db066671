"""The Oceanos observation of one seat: a fixed float32 vector with a layout table.

Seats are relative: index 0 is the observing seat, then the others in turn order
(to its left). Everything here is public or the seat's own; the deck order, other
hands, other players' face-down cards and the bag order never appear.

The observation is the seat's :class:`~.view.SeatView` written as floats:
:func:`encode` fills the layout's named views from a view, one piece after the other,
and is the definition of the observation; :func:`write_plain` is ``encode(view(state,
seat))`` and :func:`decode` its exact inverse. The env uses the cached writer of
:mod:`.observe_cache`, which must give the same bytes (its tests compare).
"""

from __future__ import annotations

import numpy as np

from otrio.envs.core.observer import ObservationLayout, Values

from .cards_table import (
    CARD_FEATURE_NAMES,
    CARD_FEATURES,
    CARD_OF_CODE,
    CODE_WEIGHTS,
    Card,
    card_features,
    card_table,
    pile_features,
    pile_of,
    pile_of_features,
)
from .config import Config
from .data import (
    ANIMALS,
    AQUARIUM_CAPACITY,
    DIVER_TOKENS_PER_PLAYER,
    FUEL_TOKENS_PER_PLAYER,
    GREEN,
    KRAKEN_SIZES,
    MAX_CELLS,
    MAX_DIVERS,
    MAX_FUEL,
    MAX_HAND,
    MAX_KEPT,
    MAX_LEVEL,
    MAX_PLAYERS,
    MAX_ROW,
    MIN_PLAYERS,
    NUM_ROUNDS,
    PARTS,
    PROPELLER_STARS,
    STARS_PER_ANIMAL,
    TREASURE_TOKENS,
    TURNS_PER_ROUND,
    YELLOW,
)
from .rules import Decision, State
from .view import PLAYER_NUMBERS, PlayerView, SeatView, TableView, view

TABLEAU_FEATURES = CARD_FEATURES + 1  # plus "a scuba diver is on this card"
TABLEAU_FEATURE_NAMES = (*CARD_FEATURE_NAMES, "diver")
DECK_SCALE = 50.0
DISCARD_SCALE = 10.0
SCORE_SCALE = 50.0
KRAKEN_SCALE = 4  # divides Kraken token values
CRYSTAL_SCALE = 4  # divides unspent crystals
EYES_SCALE = 10  # divides the eyes in this round's row
BAG_SCALE = len(TREASURE_TOKENS)  # divides the treasure tokens left in the bag


# The bounds that depend on the config's components (each a function of the Config).
def biggest_deck(config: Config) -> int:
    """The most cards of one round's deck (what its deck, or its discard pile, holds)."""
    return max(map(len, config.cards))


def deck_features(config: Config):
    """Each card feature summed over one round's deck, the most over the rounds (what a
    pile of that round's cards can sum to)."""
    table = card_table(config.cards)
    return np.max([table.features[ids].sum(axis=0) for ids in table.round_ids], axis=0)


def kraken_least(config: Config) -> list[int]:
    """The least (most negative) Kraken token of each size."""
    return [min(getattr(config.kraken_tokens, size)) for size in KRAKEN_SIZES]


def crystal_cards(config: Config, colour: int) -> int:
    """The most unspent crystals of ``colour`` a seat can hold: one per card of that
    crystal on its rows (spending clears them)."""
    return min(card_table(config.cards).crystal.count(colour), MAX_CELLS)


def score_range(config: Config) -> tuple[int, int]:
    """The least and the most points a seat can hold. Points come only from scoring
    (``State._score_round``, ``_end_game``): each round, animals (2 a kind, up to the
    aquarium) and the propeller's stars, and at most that round's Kraken token (the
    only loss); at the end the biggest reef (at most every coral on its rows) and one
    treasure token per chest collected (at most one a card on its rows)."""
    table = card_table(config.cards)
    rounds = NUM_ROUNDS * (STARS_PER_ANIMAL * min(len(ANIMALS), max(AQUARIUM_CAPACITY))
                           + max(PROPELLER_STARS))
    treasure = sum(sorted(config.treasure_tokens)[-MAX_CELLS:])
    return sum(kraken_least(config)), rounds + MAX_CELLS * max(table.corals) + treasure


def most_eyes(config: Config) -> int:
    """The most Kraken eyes one round's row can show."""
    return MAX_ROW * max(card_table(config.cards).eyes)


# the per-seat numbers (the ``player`` piece): what each is divided by and the most it
# can be (a count, or a function of the config); their values come from
# view.player_columns(), in this order ("present", then a PlayerView's numbers)
PLAYER_COLUMNS = {
    "present": (1, 1), "captain": (1, 1),
    "fuel_ready": (MAX_FUEL, FUEL_TOKENS_PER_PLAYER),
    "fuel_fresh": (MAX_FUEL, FUEL_TOKENS_PER_PLAYER),
    "fuel_used": (MAX_FUEL, FUEL_TOKENS_PER_PLAYER),
    "divers_ready": (MAX_DIVERS, DIVER_TOKENS_PER_PLAYER),
    "divers_placed": (MAX_DIVERS, DIVER_TOKENS_PER_PLAYER),
    "green": (CRYSTAL_SCALE, lambda config: crystal_cards(config, GREEN)),
    "yellow": (CRYSTAL_SCALE, lambda config: crystal_cards(config, YELLOW)),
    "score": (SCORE_SCALE, lambda config: score_range(config)[1]),
    "hand_size": (MAX_HAND, MAX_HAND), "kept_face_down": (MAX_KEPT, MAX_KEPT),
    "eyes_this_round": (EYES_SCALE, most_eyes), "animal_kinds": (len(ANIMALS), len(ANIMALS)),
}  # fmt: skip
PLAYER_SCALE = {name: scale for name, (scale, _) in PLAYER_COLUMNS.items()}
PLAYER_FEATURES = tuple(PLAYER_SCALE)
assert PLAYER_FEATURES == ("present", *PLAYER_NUMBERS), "a column per PlayerView number"


def player_high(config: Config) -> list[float]:
    """The upper bound of each player feature: its most over its scale."""
    return [(most(config) if callable(most) else most) / scale
            for scale, most in PLAYER_COLUMNS.values()]


def player_low(config: Config) -> list[float]:
    """The lower bound of each player feature (only points can be below zero)."""
    return [score_range(config)[0] / SCORE_SCALE if name == "score" else 0.0
            for name in PLAYER_FEATURES]


CARDS = Values(None, CARD_FEATURE_NAMES)  # rows of card features, each in [0, 1]
LAYOUT = ObservationLayout([
    ("decision", (len(Decision),), "pending decision kind (one-hot)",
     Values([d.name.lower() for d in Decision])),
    ("actor", (MAX_PLAYERS,), "relative seat of the deciding player (one-hot)"),
    ("hand", (MAX_HAND, CARD_FEATURES), "own hand, slot k = action keep:slotK / discard:slotK", CARDS),
    ("kept", (MAX_KEPT, CARD_FEATURES), "own face-down kept cards this turn, in order", CARDS),
    ("passed", (MAX_HAND, CARD_FEATURES), "cards this seat handed on this turn", CARDS),
    ("placing", (CARD_FEATURES,), "the card being placed (diver / upgrade decisions)",
     Values(CARD_FEATURE_NAMES)),
    ("round", (NUM_ROUNDS,), "round (one-hot)"),
    ("turn", (TURNS_PER_ROUND,), "turn in the round (one-hot)"),
    ("players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "player count 2..5 (one-hot)",
     Values([f"{n}p" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)])),
    ("variants", (2,), "two-player turn in use, Troubled Waters",
     Values(("two_player_turn", "troubled_waters"))),
    ("kraken", (len(KRAKEN_SIZES), 2), "per size: value known, value / 4",
     Values(KRAKEN_SIZES, ("known", "value"), high=(1.0, 0.0),
            low=lambda config: [[0.0, least / KRAKEN_SCALE] for least in kraken_least(config)])),
    ("deck", (2,), "cards left in this round's deck, in its discard pile (/50)",
     Values(("left", "discarded"), high=lambda config: biggest_deck(config) / DECK_SCALE)),
    ("bag", (1,), "treasure tokens left in the bag / 30",
     Values(high=lambda config: len(config.treasure_tokens) / BAG_SCALE)),
    ("discards", (CARD_FEATURES,), "this round's face-up discard pile: its cards' features summed / 10",
     Values(CARD_FEATURE_NAMES, high=lambda config: deck_features(config) / DISCARD_SCALE)),
    ("levels", (MAX_PLAYERS, len(PARTS), MAX_LEVEL), "submarine part levels (one-hot)",
     Values(None, PARTS, [f"level{k}" for k in range(1, MAX_LEVEL + 1)])),
    ("player", (MAX_PLAYERS, len(PLAYER_FEATURES)), "per seat: " + ", ".join(PLAYER_FEATURES),
     Values(None, PLAYER_FEATURES, low=player_low, high=player_high)),
    ("tableau", (MAX_PLAYERS, NUM_ROUNDS, MAX_ROW, TABLEAU_FEATURES),
     "every seat's rows of cards (card features + diver)",
     Values(None, None, None, TABLEAU_FEATURE_NAMES)),
], default_config=Config)
OBSERVATION_SIZE = LAYOUT.size
# the pieces table_values() gives: they depend on the table alone, not on the observer
TABLE_PIECES = ("round", "turn", "players", "variants", "kraken", "deck", "bag", "discards")
_TABLEAU_SHAPE = (MAX_PLAYERS, NUM_ROUNDS, MAX_ROW)  # a tableau slot per seat, round, column


def write_plain(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation of ``state`` into the float32 vector ``out``: its
    :func:`~.view.view` encoded (:func:`encode`)."""
    encode(view(state, seat), out)


def encode(seen: SeatView, out: np.ndarray) -> None:
    """Write the view ``seen`` into the float32 vector ``out`` (every value of it): the
    definition of the observation."""
    out[:] = 0.0
    v = LAYOUT.views(out)
    if seen.decision is not None:
        v["decision"][seen.decision] = 1.0
        v["actor"][seen.actor] = 1.0
    if seen.placing is not None:
        v["placing"][:] = card_features(seen.placing)
    for name, cards in (("hand", seen.hand), ("kept", seen.kept), ("passed", seen.passed)):
        if cards:
            v[name][: len(cards)] = list(map(card_features, cards))
    out[_TABLE:_TABLE_END] = table_values(seen.table)
    scales = PLAYER_SCALE.values()
    for k, player in enumerate(seen.players):
        for part, level in enumerate(player.levels):
            v["levels"][k, part, level - 1] = 1.0
        numbers = (1, *player[: len(PLAYER_NUMBERS)])  # "present", then the numbers
        v["player"][k] = [value / scale for value, scale in zip(numbers, scales)]
        for r, row in enumerate(player.rows):
            if row:
                v["tableau"][k, r, : len(row), :-1] = list(map(card_features, row))
        for r, c in player.divers:
            v["tableau"][k, r, c, -1] = 1.0


def table_values(table: TableView) -> list[float]:
    """The values of the :data:`TABLE_PIECES` (the same for every observer), in layout
    order. The cache rewrites them when :func:`~.view.table_key` changes."""
    values = [0.0] * (_TABLE_END - _TABLE)
    values[_ROUND.start + table.round] = 1.0
    values[_TURN.start + table.turn] = 1.0
    values[_COUNT.start + table.num_players - MIN_PLAYERS] = 1.0
    values[_VARIANTS : _VARIANTS + 2] = float(table.two_player_turn), float(table.troubled_waters)
    for size, value in enumerate(table.kraken):
        if value is not None:
            values[_KRAKEN.start + 2 * size : _KRAKEN.start + 2 * size + 2] = (
                1.0, value / KRAKEN_SCALE)
    pile = table.discards
    values[_DECK : _DECK + 2] = table.deck / DECK_SCALE, pile.cards / DECK_SCALE
    values[_BAG] = table.bag / BAG_SCALE
    if pile.cards:
        values[_DISCARDS] = [x / DISCARD_SCALE for x in pile_features(pile)]
    return values


# the table pieces, one run of the layout; where each piece lies in that run
_TABLE, _TABLE_END = LAYOUT.offsets[TABLE_PIECES[0]][0], LAYOUT.offsets[TABLE_PIECES[-1]][1]
assert _TABLE_END - _TABLE == sum(LAYOUT.offsets[name][1] - LAYOUT.offsets[name][0]
                                  for name in TABLE_PIECES), "the table pieces are one run"
_ROUND, _TURN, _COUNT, _KRAKEN, _DISCARDS = (
    slice(LAYOUT.offsets[name][0] - _TABLE, LAYOUT.offsets[name][1] - _TABLE)
    for name in ("round", "turn", "players", "kraken", "discards"))
_VARIANTS, _DECK, _BAG = (LAYOUT.offsets[name][0] - _TABLE for name in ("variants", "deck", "bag"))


# --------------------------------------------------------------------- decoding
_START = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_PRESENT = CARD_FEATURE_NAMES.index("present")
_DIVER = CARD_FEATURES  # a tableau slot's diver flag follows its card features
# A card slot's code is a linear function of its features, exact in float32 (sums of
# halves and small whole numbers): 0 when the slot is empty, else 1 + 2 * the card's
# cards_table.card_code; _CARD_IN_SLOT turns it back into the card (None: empty).
_SLOT_WEIGHTS = 2 * CODE_WEIGHTS
_SLOT_WEIGHTS[_PRESENT] = 1
_TABLEAU_WEIGHTS = np.append(_SLOT_WEIGHTS, np.float32(0))  # the diver flag aside
_CARD_IN_SLOT = [code % 2 and CARD_OF_CODE[code // 2] or None
                 for code in range(2 * len(CARD_OF_CODE))]
_card_in_slot = _CARD_IN_SLOT.__getitem__


def _filled(codes: list[int]) -> tuple[Card, ...]:
    """The cards of some slots' codes (the cards fill the first slots)."""
    return tuple(map(_card_in_slot, codes[: len(codes) - codes.count(0)]))


# the own card pieces and the card being placed follow each other: their card slots
# are one run
_PIECES = ("hand", "kept", "passed", "placing")
_OWN = slice(_START["hand"], LAYOUT.offsets["placing"][1])
_RUNS = np.cumsum([0] + [np.prod(LAYOUT.offsets[name][2][:-1], dtype=int)
                         for name in _PIECES]).tolist()
assert _OWN.stop - _OWN.start == _RUNS[-1] * CARD_FEATURES, "the own pieces follow each other"
_TABLEAU = LAYOUT.slice("tableau")
_PER_SEAT = NUM_ROUNDS * MAX_ROW  # tableau slots of a seat
_DIVIDERS = np.array(list(PLAYER_SCALE.values()), np.float64)
_ACTOR, _HAND = _START["actor"], _START["hand"]  # the decision piece ends where actor starts
_LEVELS, _PLAYERS = LAYOUT.slice("levels"), LAYOUT.slice("player")
_LEVEL_SHAPE, _PLAYER_SHAPE = LAYOUT.offsets["levels"][2], LAYOUT.offsets["player"][2]
_LEVEL_VALUES = np.arange(1, MAX_LEVEL + 1, dtype=np.float32)  # a level's one-hot @ this


def _hot(values: list[float]) -> int | None:
    """The index of the one hot value of a one-hot list (None: all zero)."""
    return values.index(1.0) if 1.0 in values else None


def decode(observation: np.ndarray, config: Config | None) -> SeatView:
    """The :class:`~.view.SeatView` that ``observation`` (a seat's float32 observation,
    written by :func:`encode`) encodes: its exact inverse. ``config`` is the game's,
    which the view holds (the observation holds the public facts that change)."""
    head = observation[:_HAND].tolist()
    decision = _hot(head[:_ACTOR])
    actor = None if decision is None else _hot(head[_ACTOR:])
    table = decode_table(observation[_TABLE:_TABLE_END].tolist())
    n = table.num_players
    own = (observation[_OWN].reshape(-1, CARD_FEATURES) @ _SLOT_WEIGHTS).astype(np.intp).tolist()
    hand, kept, passed, placing = [_filled(own[a:b]) for a, b in zip(_RUNS, _RUNS[1:])]
    cells = observation[_TABLEAU].reshape(-1, TABLEAU_FEATURES)[: n * _PER_SEAT]
    codes = (cells @ _TABLEAU_WEIGHTS).astype(np.intp).tolist()
    divers = np.flatnonzero(cells[:, _DIVER]).tolist()  # by seat, round, slot
    numbers = np.rint(observation[_PLAYERS].reshape(_PLAYER_SHAPE)[:n] * _DIVIDERS).astype(
        int).tolist()
    levels = (observation[_LEVELS].reshape(_LEVEL_SHAPE)[:n] @ _LEVEL_VALUES).astype(int).tolist()
    rows = [_filled(codes[at : at + MAX_ROW]) for at in range(0, n * _PER_SEAT, MAX_ROW)]
    placed = [[] for _ in range(n)]
    for i in divers:
        placed[i // _PER_SEAT].append(divmod(i % _PER_SEAT, MAX_ROW))
    players = tuple([
        PlayerView._make((bool(numbers[k][1]), *numbers[k][2:], tuple(levels[k]),
                          tuple(rows[k * NUM_ROUNDS : (k + 1) * NUM_ROUNDS]), tuple(placed[k])))
        for k in range(n)])  # numbers: "present", "captain", then the counts
    return SeatView(None if decision is None else Decision(decision), actor, hand, kept, passed,
                    placing[0] if placing else None, table, players, config)


def decode_table(values: list[float]) -> TableView:
    """The :class:`~.view.TableView` that the :data:`TABLE_PIECES`\\ ' ``values`` hold."""
    kraken = values[_KRAKEN]  # per size: known, value
    kraken = tuple(round(value * KRAKEN_SCALE) if known else None
                   for known, value in zip(kraken[0::2], kraken[1::2]))
    discards = values[_DISCARDS]
    pile = pile_of_features([x * DISCARD_SCALE for x in discards]) if any(discards) else _NO_PILE
    return TableView(values[_ROUND].index(1.0), values[_TURN].index(1.0),
                     MIN_PLAYERS + values[_COUNT].index(1.0), bool(values[_VARIANTS]),
                     bool(values[_VARIANTS + 1]), kraken, round(values[_DECK] * DECK_SCALE),
                     pile, round(values[_BAG] * BAG_SCALE))


_NO_PILE = pile_of([])
