"""The committed card list and token tables match the rulings' composition."""

from collections import Counter

import pytest

from otrio.envs.oceanos.cards import CARDS
from otrio.envs.oceanos.data import (
    BIG_ANIMALS,
    DECK_COMPOSITION,
    DECK_SIZES,
    KRAKEN_TOKENS,
    SMALL_ANIMALS,
    TREASURE_TOKENS,
)


def composition(deck):
    c = Counter()
    for animal, corals, chest, eyes, crystal, base in deck:
        c["small_animal"] += animal in SMALL_ANIMALS
        c["big_animal"] += animal in BIG_ANIMALS
        c["coral_1"] += corals == 1
        c["coral_2"] += corals == 2
        c["chest"] += chest
        c["eye_1"] += eyes == 1
        c["eye_2"] += eyes == 2
        c["green_crystal"] += crystal == "green"
        c["yellow_crystal"] += crystal == "yellow"
        c["base"] += base
    return c


@pytest.mark.parametrize("r", range(3))
def test_deck_matches_rulings_table(r):
    deck = CARDS[r]
    assert len(deck) == DECK_SIZES[r] == (40, 45, 50)[r]
    comp = composition(deck)
    for symbol, counts in DECK_COMPOSITION.items():
        assert comp[symbol] == counts[r], symbol


@pytest.mark.parametrize("r", range(3))
def test_animals_evenly_split_and_cards_legal(r):
    deck = CARDS[r]
    animals = Counter(card[0] for card in deck if card[0] != "-")
    assert len({animals[a] for a in SMALL_ANIMALS}) == 1
    assert len({animals[a] for a in BIG_ANIMALS}) == 1
    for animal, corals, chest, eyes, crystal, base in deck:
        assert not (crystal != "-" and base), "a card with a crystal and a base"
        assert animal != "-" or corals or chest or eyes or crystal != "-" or base, "blank card"


def test_rulings_table_numbers():
    assert sum(DECK_SIZES) == 135
    assert DECK_COMPOSITION["big_animal"] == (4, 8, 12)
    assert KRAKEN_TOKENS == {"small": (0, -1, -2), "medium": (-1, -2, -3), "big": (-2, -3, -4)}
    assert Counter(TREASURE_TOKENS) == {2: 12, 3: 10, 4: 8}
