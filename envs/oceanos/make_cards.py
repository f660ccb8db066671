"""Generate the committed Oceanos card list (``envs/oceanos/cards.py``) once.

The rulings give only the symbol composition of each round deck; this script deals
the symbols onto cards with a fixed seed, keeping every card legal (at least one
symbol, never a crystal and a base together, one animal at most), and writes the
result as a plain table. Run it only to regenerate on purpose:

    python -m otrio.envs.oceanos.make_cards > envs/oceanos/cards.py
"""

from __future__ import annotations

import numpy as np

from otrio.envs.oceanos.data import BIG_ANIMALS, DECK_COMPOSITION, DECK_SIZES, SMALL_ANIMALS

SEED = 20261130


def deal_round(r: int, rng: np.random.Generator) -> list[tuple]:
    size = DECK_SIZES[r]
    comp = {k: v[r] for k, v in DECK_COMPOSITION.items()}

    def column(values: list) -> list:
        values = values + [None] * (size - len(values))
        assert len(values) == size, "composition larger than the deck"
        return values

    small = [SMALL_ANIMALS[i % 4] for i in range(comp["small_animal"])]
    big = [BIG_ANIMALS[i % 4] for i in range(comp["big_animal"])]
    while True:
        animals = column(small + big)
        corals = column([1] * comp["coral_1"] + [2] * comp["coral_2"])
        chests = column([1] * comp["chest"])
        eyes = column([1] * comp["eye_1"] + [2] * comp["eye_2"])
        crystal_or_base = column(
            ["green"] * comp["green_crystal"] + ["yellow"] * comp["yellow_crystal"]
            + ["base"] * comp["base"]
        )
        for col in (animals, corals, chests, eyes, crystal_or_base):
            rng.shuffle(col)
        cards = []
        for a, c, t, e, x in zip(animals, corals, chests, eyes, crystal_or_base):
            crystal = x if x in ("green", "yellow") else "-"
            cards.append((a or "-", c or 0, t or 0, e or 0, crystal, int(x == "base")))
        if all(card != ("-", 0, 0, 0, "-", 0) for card in cards):
            return sorted(cards)


def main() -> None:
    rng = np.random.default_rng(SEED)
    print('"""The Oceanos card list, generated once by envs/oceanos/make_cards.py.')
    print()
    print("Designed data (the rulings give only the composition per round deck; a test")
    print('proves this list matches it). Columns: animal, corals, chest, eyes, crystal, base."""')
    print()
    print("# fmt: off")
    print("CARDS = (")
    for r in range(3):
        print(f"    (  # round {r + 1}: {DECK_SIZES[r]} cards")
        for card in deal_round(r, rng):
            print(f"        {card!r},")
        print("    ),")
    print(")")
    print("# fmt: on")


if __name__ == "__main__":
    main()
