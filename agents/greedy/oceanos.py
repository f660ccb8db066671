"""Greedy Oceanos: value each legal action by its immediate worth to the seat.

The heuristic, read from the seat's observation alone:

* a card is worth its new animal (2 stars at each remaining round end, if the
  aquarium has room), its corals (about a star each), a chest (a treasure, ~3 stars,
  if a diver is free), a crystal (half an upgrade) and a base (an upgrade, if crystals
  wait); Kraken eyes cost this round's expected token when they would make the seat
  (one of) the most-eyed, a little otherwise;
* extra cards with fuel are kept while the best card left is worth more than nothing;
* a diver goes down where the column above already holds chests (or late in the game);
* an upgrade goes to the part with the best return over the rounds left (propeller
  stars, aquarium room for the animals held, cockpit and motor tempo, airlock divers);
* in the two-player turn the card put under the deck is the one most valuable to the
  opponent who would receive it.
"""

from __future__ import annotations

import numpy as np

from envs.oceanos.actions import (
    DISCARD_NONE,
    DIVER_PLACE,
    DIVER_SKIP,
    STOP,
    UPGRADE_SKIP,
    discard_slot,
    keep_slot,
    upgrade_part,
)
from envs.oceanos.data import (
    AIRLOCK,
    AQUARIUM,
    AQUARIUM_CAPACITY,
    COCKPIT,
    MOTOR,
    NUM_ROUNDS,
    PROPELLER,
    PROPELLER_STARS,
    TURNS_PER_ROUND,
)
from envs.oceanos.observe import LAYOUT, PLAYER_FEATURES, TABLEAU_FEATURES
from envs.oceanos.rules import Decision

from ..base import ValuingAgent

N_ANIMALS = 8
CORAL, CHEST, EYES, GREEN, YELLOW, BASE, PRESENT = range(N_ANIMALS, N_ANIMALS + 7)
DIVER_FLAG = TABLEAU_FEATURES - 1
P = {name: i for i, name in enumerate(PLAYER_FEATURES)}
TREASURE_MEAN = 2.9  # mean of the designed treasure tokens
EXPECTED_KRAKEN = (1.0, 2.0, 3.0)  # mean loss of the small, medium and big token
STARS_PER_CORAL = 0.9
UPGRADE_WORTH = 3.0


class GreedyOceanos(ValuingAgent):
    """The Oceanos heuristic (see the module docstring)."""

    spec = "greedy"

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        v = LAYOUT.views(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        ctx = _Context(v)
        decision = int(np.argmax(v["decision"]))
        values: dict[int, float] = {}
        if decision in (Decision.KEEP, Decision.KEEP_MORE):
            for a in legal:
                values[a] = 0.0 if a == STOP else ctx.card_value(v["hand"][keep_slot(a)])
        elif decision == Decision.DIVER:
            values = {DIVER_PLACE: ctx.diver_value(), DIVER_SKIP: 0.0}
        elif decision == Decision.DISCARD:
            for a in legal:
                values[a] = 0.5 if a == DISCARD_NONE else ctx.card_value(v["hand"][discard_slot(a)])
        else:
            for a in legal:
                values[a] = 0.0 if a == UPGRADE_SKIP else ctx.upgrade_value(upgrade_part(a))
        return values


class _Context:
    """What the seat knows, decoded once per decision."""

    def __init__(self, v: dict[str, np.ndarray]):
        self.v = v
        self.round = int(np.argmax(v["round"]))
        self.turn = int(np.argmax(v["turn"]))
        self.rounds_left = NUM_ROUNDS - self.round  # round ends still to score
        me = v["player"][0]
        self.levels = [int(np.argmax(part)) + 1 for part in v["levels"][0]]
        tab = v["tableau"][0]
        self.kinds = set(np.flatnonzero(tab[:, :, :N_ANIMALS].max(axis=(0, 1))).tolist())
        self.capacity = AQUARIUM_CAPACITY[self.levels[AQUARIUM] - 1]
        self.divers_ready = round(me[P["divers_ready"]] * 3)
        self.green = me[P["green"]] > 0
        self.yellow = me[P["yellow"]] > 0
        present = v["player"][:, P["present"]] > 0
        eyes = v["player"][:, P["eyes_this_round"]] * 10
        self.my_eyes = float(eyes[0])
        others = eyes[1:][present[1:]]
        self.most_other_eyes = float(others.max()) if others.size else 0.0
        self.row_length = int(tab[self.round, :, PRESENT].sum())
        self.tab = tab

    def card_value(self, f: np.ndarray) -> float:
        if f[PRESENT] == 0:
            return -1e9
        value = 0.0
        if f[:N_ANIMALS].any():
            animal = int(np.argmax(f[:N_ANIMALS]))
            if animal not in self.kinds:
                room = len(self.kinds) < self.capacity
                value += 2.0 * self.rounds_left * (1.0 if room else 0.3)
        value += STARS_PER_CORAL * f[CORAL] * 2
        if f[CHEST]:
            value += TREASURE_MEAN * (1.0 if self.divers_ready else 0.3)
        eyes = f[EYES] * 2
        if eyes:
            if self.my_eyes + eyes >= self.most_other_eyes:
                value -= EXPECTED_KRAKEN[self.round] * (1.0 if self.turn >= 2 else 0.6)
            else:
                value -= 0.2 * eyes
        if f[GREEN] or f[YELLOW]:
            completes = (f[GREEN] and self.yellow) or (f[YELLOW] and self.green)
            value += 0.5 * UPGRADE_WORTH * (1.5 if completes else 1.0)
        if f[BASE]:
            value += UPGRADE_WORTH if (self.green or self.yellow) else 0.3
        return value

    def diver_value(self) -> float:
        col = self.row_length - 1
        chests = sum(self.tab[r, col, CHEST] > 0 for r in range(self.round + 1))
        if chests >= 2 or self.round == NUM_ROUNDS - 1 or self.divers_ready > 1:
            return 1.0
        return -0.5

    def upgrade_value(self, part: int) -> float:
        level = self.levels[part]
        left = self.rounds_left
        if part == PROPELLER:
            return (PROPELLER_STARS[level] - PROPELLER_STARS[level - 1]) * left
        if part == AQUARIUM:
            extra = AQUARIUM_CAPACITY[level] - AQUARIUM_CAPACITY[level - 1]
            over = max(0, len(self.kinds) + 1 - self.capacity)
            return 2.0 * min(extra, over + 1) * left * 0.7
        turns_left = TURNS_PER_ROUND * left - self.turn
        if part == COCKPIT:
            return 0.25 * turns_left
        if part == MOTOR:
            return 1.2 * left
        if part == AIRLOCK:
            return 1.5 * left
        return 0.0
