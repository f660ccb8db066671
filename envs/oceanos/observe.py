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

from envs.core.observer import ObservationLayout, Values

from .cards_table import (
    CARD_FEATURE_NAMES,
    CARD_FEATURES,
    Card,
    card_features,
    card_of_features,
    card_table,
    pile_features,
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
# the pieces write_table() fills: they depend on the table alone, not on the observer
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
    write_table(seen.table, v)
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


def write_table(table: TableView, v: dict[str, np.ndarray]) -> None:
    """The :data:`TABLE_PIECES` (the same for every observer) into zeroed views ``v``.
    The cache rewrites them when :func:`~.view.table_key` changes."""
    v["round"][table.round] = 1.0
    v["turn"][table.turn] = 1.0
    v["players"][table.num_players - MIN_PLAYERS] = 1.0
    v["variants"][:] = table.two_player_turn, table.troubled_waters
    for size, value in enumerate(table.kraken):
        if value is not None:
            v["kraken"][size] = 1.0, value / KRAKEN_SCALE
    pile = table.discards
    v["deck"][:] = table.deck / DECK_SCALE, pile.cards / DECK_SCALE
    v["bag"][0] = table.bag / BAG_SCALE
    if pile.cards:
        v["discards"][:] = np.asarray(pile_features(pile), np.float32) / DISCARD_SCALE


# --------------------------------------------------------------------- decoding
_START = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_CARD_BYTES = CARD_FEATURES * 4  # a card's float32 features as bytes
_PRESENT = CARD_FEATURE_NAMES.index("present")
# the float index of each card slot's first feature: of the own card pieces, and of the
# tableau by seat, round and column
_SLOTS = {name: _START[name] + CARD_FEATURES * np.arange(LAYOUT.offsets[name][2][0])
          for name in ("hand", "kept", "passed")}
_CELLS = _START["tableau"] + TABLEAU_FEATURES * np.arange(np.prod(_TABLEAU_SHAPE)).reshape(
    _TABLEAU_SHAPE)
_DIVIDERS = np.array(list(PLAYER_SCALE.values()), np.float64)
_seen_cards: dict[bytes, Card] = {}  # a card's feature bytes -> the card (filled as met)


def _card(raw: bytes, at: int) -> Card:
    """The card whose features start at float index ``at`` of the observation ``raw``."""
    chunk = raw[4 * at : 4 * at + _CARD_BYTES]
    card = _seen_cards.get(chunk)
    if card is None:
        card = _seen_cards[chunk] = card_of_features(np.frombuffer(chunk, np.float32).tolist())
    return card


def _one_hot(values: np.ndarray) -> int | None:
    """The index of the one hot value (None: all zero)."""
    at = int(values.argmax())
    return at if values[at] else None


def decode(observation: np.ndarray, config: Config) -> SeatView:
    """The :class:`~.view.SeatView` that ``observation`` (a seat's float32 observation,
    written by :func:`encode`) encodes: its exact inverse. ``config`` is the game's (the
    observation holds its public facts that change, not the component tables)."""
    v = LAYOUT.views(observation)
    raw = observation.tobytes()
    decision = _one_hot(v["decision"])
    actor = None if decision is None else _one_hot(v["actor"])
    placing = _card(raw, _START["placing"]) if v["placing"][_PRESENT] else None
    own = {}  # the cards fill their piece's first slots
    for name, slots in _SLOTS.items():
        count = int(observation[slots + _PRESENT].sum())
        own[name] = tuple(_card(raw, at) for at in slots[:count].tolist())
    table = decode_table(v)
    n = table.num_players
    numbers = np.rint(v["player"][:n] * _DIVIDERS).astype(int).tolist()
    levels = (v["levels"][:n].argmax(axis=-1) + 1).tolist()
    lengths = observation[_CELLS[:n] + _PRESENT].sum(axis=-1).astype(int).tolist()
    divers = np.argwhere(observation[_CELLS[:n] + CARD_FEATURES]).tolist()  # (seat, round, slot)
    players = []
    for k in range(n):
        rows = tuple(tuple(_card(raw, at) for at in _CELLS[k, r, :count].tolist())
                     for r, count in enumerate(lengths[k]))
        placed = tuple((r, c) for seat, r, c in divers if seat == k)
        _, captain, *rest = numbers[k]  # "present", "captain", then the counts
        players.append(PlayerView(bool(captain), *rest, tuple(levels[k]), rows, placed))
    return SeatView(None if decision is None else Decision(decision), actor, own["hand"],
                    own["kept"], own["passed"], placing, table, tuple(players), config)


def decode_table(v: dict[str, np.ndarray]) -> TableView:
    """The :class:`~.view.TableView` that the :data:`TABLE_PIECES` of views ``v`` hold."""
    kraken = tuple(round(float(value) * KRAKEN_SCALE) if known else None
                   for known, value in v["kraken"].tolist())
    deck, _ = (v["deck"].astype(np.float64) * DECK_SCALE).tolist()
    pile = pile_of_features((v["discards"].astype(np.float64) * DISCARD_SCALE).tolist())
    two_player_turn, troubled_waters = v["variants"].tolist()
    return TableView(_one_hot(v["round"]), _one_hot(v["turn"]),
                     MIN_PLAYERS + _one_hot(v["players"]), bool(two_player_turn),
                     bool(troubled_waters), kraken, round(deck), pile,
                     round(float(v["bag"][0]) * BAG_SCALE))
