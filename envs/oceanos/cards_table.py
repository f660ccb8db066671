"""The card list as columns of ints, built once per card list (the hot path reads these)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .data import ANIMALS, GREEN, YELLOW

NO_ANIMAL = -1  # CardTable.animal of a card that shows no animal
# one card's observation features, in order: its animal (one-hot), corals / 2, chest,
# eyes / 2, green crystal, yellow crystal, base, and 1 (a card is there)
CARD_FEATURE_NAMES = (*ANIMALS, "corals", "chest", "eyes", "green", "yellow", "base", "present")
CARD_FEATURES = len(CARD_FEATURE_NAMES)
CORAL_SCALE = EYE_SCALE = 2  # a card's corals and eyes, 0-2 (Config), are divided by this
_CRYSTAL_CODES = {"-": 0, "green": GREEN, "yellow": YELLOW}


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
            self.round_ids.append(ids)
        self.features = self._features()

    def __len__(self) -> int:
        return len(self.animal)

    def _features(self) -> np.ndarray:
        """One float32 feature row per card (for the observation)."""
        at = {name: i for i, name in enumerate(CARD_FEATURE_NAMES)}
        f = np.zeros((len(self), CARD_FEATURES), dtype=np.float32)
        for c in range(len(self)):
            if self.animal[c] >= 0:
                f[c, self.animal[c]] = 1.0
            f[c, at["corals"]] = self.corals[c] / CORAL_SCALE
            f[c, at["chest"]] = self.chest[c]
            f[c, at["eyes"]] = self.eyes[c] / EYE_SCALE
            f[c, at["green"]] = self.crystal[c] == GREEN
            f[c, at["yellow"]] = self.crystal[c] == YELLOW
            f[c, at["base"]] = self.base[c]
            f[c, at["present"]] = 1.0
        return f

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
