"""The Oceanos observation of one seat: a fixed float32 vector with a layout table.

Seats are relative: index 0 is the observing seat, then the others in turn order
(to its left). Everything here is public or the seat's own; the deck order, other
hands, other players' face-down cards and the bag order never appear.

:func:`write_plain` fills the layout's named views straight from the state, one piece
after the other; it is the definition of the observation. The env uses the cached
writer of :mod:`.observe_cache`, which must give the same bytes (its tests compare).
"""

from __future__ import annotations

import numpy as np

from envs.core.observer import ObservationLayout, Values

from .cards_table import CARD_FEATURE_NAMES, CARD_FEATURES, card_table
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
# player_columns(), in this order
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
# the player features a seat sees truly for itself while keeps are secret (the others
# see them as before its keeps; own_counts() gives them)
OWN_COUNTS = ("hand_size", "kept_face_down", "fuel_ready", "fuel_used")


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
_PLACED = (Decision.DIVER, Decision.UPGRADE)  # decisions about the card being placed


def write_plain(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the float32 vector ``out``, every value
    computed from the state (the seat pieces rotated so that row 0 is ``seat``)."""
    out[:] = 0.0
    v = LAYOUT.views(out)
    n, features = state.num_players, state.table.features
    if not state.over:
        v["decision"][seen_decision(state, seat)] = 1.0
        v["actor"][(state.actor - seat) % n] = 1.0
        card = placing_card(state)
        if card is not None:
            v["placing"][:] = features[card]
    for name, cards in (("hand", state.hands[seat]), ("kept", state.kept[seat]),
                        ("passed", state.passed[seat])):
        if cards:
            v[name][: len(cards)] = features[cards]
    write_table(state, v)
    eyes = [sum(state.table.eyes[c] for c in rows[state.round]) for rows in state.rows]
    animal = state.table.animal
    kinds = [len({animal[c] for row in rows for c in row if animal[c] >= 0})
             for rows in state.rows]
    columns = player_columns(state, eyes, kinds)
    if state.choosing():
        for name, value in zip(OWN_COUNTS, own_counts(state, seat)):
            i = PLAYER_FEATURES.index(name)
            columns[i] = [*columns[i][:seat], value, *columns[i][seat + 1 :]]  # (a copy)
    for k in range(n):
        s = (seat + k) % n
        for part, level in enumerate(state.levels[s]):
            v["levels"][k, part, level - 1] = 1.0
        v["player"][k] = [column[s] / scale
                          for column, scale in zip(columns, PLAYER_SCALE.values())]
        for r, row in enumerate(state.rows[s]):
            if row:
                v["tableau"][k, r, : len(row), :-1] = features[row]
        for r, c in state.divers[s]:
            v["tableau"][k, r, c, -1] = 1.0


def seen_decision(state: State, seat: int) -> int:
    """The pending decision as ``seat`` sees it: how many cards another player keeps is
    secret, so another's extra keep shows as a plain keep."""
    if state.decision == Decision.KEEP_MORE and state.actor != seat:
        return Decision.KEEP
    return state.decision


def placing_card(state: State) -> int | None:
    """The card the pending diver or upgrade decision is about (None: no such decision)."""
    if state.placing and state.decision in _PLACED:
        return state.placing[0][1]
    return None


def write_table(state: State, v: dict[str, np.ndarray]) -> None:
    """The :data:`TABLE_PIECES` (the same for every observer) into zeroed views ``v``.
    The cache rewrites them when :func:`table_key` changes."""
    rnd, pile = state.round, state.discards[state.round]
    v["round"][rnd] = 1.0
    v["turn"][min(state.turn, TURNS_PER_ROUND - 1)] = 1.0
    v["players"][state.num_players - MIN_PLAYERS] = 1.0
    v["variants"][:] = not state.captain_mode, state.config.troubled_waters
    known = state.over or state.config.kraken.mode == "fixed"
    for size, value in enumerate(state.kraken):
        if known or size < rnd:  # a token is turned over when its round is scored
            v["kraken"][size] = 1.0, value / KRAKEN_SCALE
    v["deck"][:] = len(state.decks[rnd]) / DECK_SCALE, len(pile) / DECK_SCALE
    v["bag"][0] = len(state.bag) / BAG_SCALE
    if pile:
        v["discards"][:] = state.table.features[pile].sum(axis=0) / DISCARD_SCALE


def table_key(state: State) -> tuple:
    """Every state value :func:`write_table` reads that can change in play."""
    rnd = state.round
    return (rnd, state.turn, state.over, len(state.decks[rnd]), tuple(state.discards[rnd]),
            len(state.bag), *state.kraken)


def player_columns(state: State, eyes: list[int], kinds: list[int]) -> list[list]:
    """Each player feature (:data:`PLAYER_SCALE` order) as a list over the seats in
    absolute order, undivided, as the other players see them; ``eyes`` and ``kinds``
    are each seat's eyes in this round's row and animal kinds collected."""
    n = state.num_players
    if state.choosing():
        hands, kept, ready, used = state.public_counts()
    else:
        hands, kept = list(map(len, state.hands)), list(map(len, state.kept))
        ready, used = state.fuel_ready, state.fuel_used
    return [
        _PRESENT[n], _CAPTAINS[n][state.captain if state.captain_mode else -1], ready,
        state.fuel_fresh, used,
        state.divers_ready, list(map(len, state.divers)), state.green, state.yellow,
        state.score, hands, kept, eyes, kinds,
    ]  # fmt: skip


def own_counts(state: State, seat: int) -> tuple[int, int, int, int]:
    """``seat``'s true :data:`OWN_COUNTS`, which only it knows while keeps are secret."""
    return (len(state.hands[seat]), len(state.kept[seat]), state.fuel_ready[seat],
            state.fuel_used[seat])


# the ``present`` column, and the ``captain`` column by Captain seat (index -1: none,
# a two-player-turn game), by player count; shared, read-only
_PRESENT = {n: [1] * n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
_CAPTAINS = {n: [[p == c for p in range(n)] for c in range(n)] + [[False] * n]
             for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
