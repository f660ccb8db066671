"""The card list as columns of ints, built once per card list (the hot path reads these),
and a card's faces as a :class:`Card` with its observation features."""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from .data import ANIMALS, GREEN, MAX_CORALS_PER_CARD, MAX_EYES_PER_CARD, YELLOW

NO_ANIMAL = -1  # CardTable.animal of a card that shows no animal
# one card's observation features, in order: its animal (one-hot), corals / 2, chest,
# eyes / 2, green crystal, yellow crystal, base, and 1 (a card is there)
CARD_FEATURE_NAMES = (*ANIMALS, "corals", "chest", "eyes", "green", "yellow", "base", "present")
CARD_FEATURES = len(CARD_FEATURE_NAMES)
CORAL_SCALE = MAX_CORALS_PER_CARD  # a card's corals are divided by this
EYE_SCALE = MAX_EYES_PER_CARD  # a card's eyes are divided by this
_CRYSTAL_CODES = {"-": 0, "green": GREEN, "yellow": YELLOW}
_AT = {name: i for i, name in enumerate(CARD_FEATURE_NAMES)}
_CORALS, _CHEST, _EYES = _AT["corals"], _AT["chest"], _AT["eyes"]
_GREEN, _YELLOW, _BASE, _PRESENT = _AT["green"], _AT["yellow"], _AT["base"], _AT["present"]


class Card(NamedTuple):
    """What a card shows (all that the rules read of it); cards that show the same are
    alike to every rule, so a seat's view holds cards as these."""

    animal: int  # an index into ANIMALS, or NO_ANIMAL
    corals: int
    chest: int  # 0 or 1
    eyes: int
    crystal: int  # 0 none, GREEN, YELLOW
    base: int  # 0 or 1


@cache
def card_features(card: Card) -> tuple[float, ...]:
    """``card``'s observation features, in :data:`CARD_FEATURE_NAMES` order."""
    f = [0.0] * CARD_FEATURES
    if card.animal != NO_ANIMAL:
        f[card.animal] = 1.0
    f[_CORALS] = card.corals / CORAL_SCALE
    f[_CHEST] = float(card.chest)
    f[_EYES] = card.eyes / EYE_SCALE
    f[_GREEN] = float(card.crystal == GREEN)
    f[_YELLOW] = float(card.crystal == YELLOW)
    f[_BASE] = float(card.base)
    f[_PRESENT] = 1.0
    return tuple(f)


# Every card there can be, numbered by a code that is a linear function of its features
# (CODE_WEIGHTS), so that a decoder reads many cards at once with one matrix product.
# The code counts (animal + 1, corals, chest, eyes, crystal, base) in mixed radix.
_RADIX = (len(ANIMALS) + 1, MAX_CORALS_PER_CARD + 1, 2, MAX_EYES_PER_CARD + 1, 3, 2)
_PLACE = [math.prod(_RADIX[:k]) for k in range(len(_RADIX))]  # each field's place value


def card_code(card: Card) -> int:
    """``card``'s number among :data:`CARD_OF_CODE`."""
    digits = (card.animal + 1, card.corals, card.chest, card.eyes, card.crystal, card.base)
    return sum(digit * place for digit, place in zip(digits, _PLACE))


def _card_of_code(code: int) -> Card:
    animal, *rest = (code // place % radix for place, radix in zip(_PLACE, _RADIX))
    return Card(animal - 1, *rest)


CARD_OF_CODE = [_card_of_code(code) for code in range(math.prod(_RADIX))]
# card_features(card) @ CODE_WEIGHTS == card_code(card), exactly in float32 (halves and
# small whole numbers)
CODE_WEIGHTS = np.zeros(CARD_FEATURES, np.float32)
CODE_WEIGHTS[: len(ANIMALS)] = np.arange(1, len(ANIMALS) + 1) * _PLACE[0]
CODE_WEIGHTS[[_CORALS, _CHEST, _EYES]] = (_PLACE[1] * CORAL_SCALE, _PLACE[2], _PLACE[3] * EYE_SCALE)
CODE_WEIGHTS[[_GREEN, _YELLOW, _BASE]] = (_PLACE[4] * GREEN, _PLACE[4] * YELLOW, _PLACE[5])


def card_of_features(f) -> Card:
    """The inverse of :func:`card_features`: the card a (float32) feature row shows."""
    return CARD_OF_CODE[round(float(np.dot(np.asarray(f, np.float32), CODE_WEIGHTS)))]


class Pile(NamedTuple):
    """A face-up pile of cards, counted by what they show (its order aside)."""

    animals: tuple[int, ...]  # cards of each animal, in ANIMALS order
    corals: int  # corals shown, summed
    chests: int
    eyes: int  # eyes shown, summed
    green: int  # cards with a green crystal
    yellow: int
    bases: int
    cards: int


def pile_of(cards) -> Pile:
    """The :class:`Pile` of some :class:`Card`\\ s."""
    animals = [0] * len(ANIMALS)
    corals = chests = eyes = green = yellow = bases = count = 0
    for card in cards:
        if card.animal != NO_ANIMAL:
            animals[card.animal] += 1
        corals += card.corals
        chests += card.chest
        eyes += card.eyes
        green += card.crystal == GREEN
        yellow += card.crystal == YELLOW
        bases += card.base
        count += 1
    return Pile(tuple(animals), corals, chests, eyes, green, yellow, bases, count)


def pile_features(pile: Pile) -> tuple[float, ...]:
    """Its cards' :func:`card_features` summed."""
    return (*map(float, pile.animals), pile.corals / CORAL_SCALE, float(pile.chests),
            pile.eyes / EYE_SCALE, float(pile.green), float(pile.yellow), float(pile.bases),
            float(pile.cards))


def pile_of_features(f) -> Pile:
    """The inverse of :func:`pile_features`."""
    return Pile(tuple(round(x) for x in f[: len(ANIMALS)]), round(f[_CORALS] * CORAL_SCALE),
                round(f[_CHEST]), round(f[_EYES] * EYE_SCALE), round(f[_GREEN]),
                round(f[_YELLOW]), round(f[_BASE]), round(f[_PRESENT]))


class CardTable:
    """Columns over every card id; ``round_ids[r]`` are the ids of round ``r``'s deck."""

    def __init__(self, rounds) -> None:
        self.animal: list[int] = []  # NO_ANIMAL, or an index into ANIMALS
        self.corals: list[int] = []
        self.chest: list[int] = []
        self.eyes: list[int] = []
        self.crystal: list[int] = []  # 0 none, 1 green, 2 yellow
        self.base: list[int] = []
        self.round_ids: list[list[int]] = []
        self.cards: list[Card] = []  # what each card shows
        for deck in rounds:
            ids = []
            for animal, corals, chest, eyes, crystal, base in deck:
                ids.append(len(self.animal))
                self.animal.append(ANIMALS.index(animal) if animal != "-" else NO_ANIMAL)
                self.corals.append(int(corals))
                self.chest.append(int(chest))
                self.eyes.append(int(eyes))
                self.crystal.append(_CRYSTAL_CODES[crystal])
                self.base.append(int(base))
                self.cards.append(Card(self.animal[-1], int(corals), int(chest), int(eyes),
                                       self.crystal[-1], int(base)))
            self.round_ids.append(ids)
        # one float32 feature row per card (for the observation)
        self.features = np.array([card_features(card) for card in self.cards],
                                 np.float32).reshape(len(self.cards), CARD_FEATURES)

    def __len__(self) -> int:
        return len(self.animal)

    def label(self, c: int) -> str:
        """A short readable label, e.g. ``crab 2co chest 1eye green``."""
        parts = []
        if self.animal[c] >= 0:
            parts.append(ANIMALS[self.animal[c]])
        if self.corals[c]:
            parts.append(f"{self.corals[c]}coral")
        if self.chest[c]:
            parts.append("chest")
        if self.eyes[c]:
            parts.append(f"{self.eyes[c]}eye")
        if self.crystal[c]:
            parts.append("green" if self.crystal[c] == GREEN else "yellow")
        if self.base[c]:
            parts.append("base")
        return " ".join(parts)


@lru_cache(maxsize=16)
def card_table(rounds) -> CardTable:
    """The (shared, read-only) table of a card list; built once per list."""
    return CardTable(rounds)
