"""Greedy Oceanos: value each legal action by its immediate worth to the seat.

The heuristic, read from the seat's view alone (``otrio.envs.oceanos.view.SeatView``):

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

Its numbers are a :class:`Weights` (``GreedyOceanos(weights=Weights(upgrade=4.0))``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from otrio.envs.oceanos.actions import (
    DISCARD_NONE,
    DIVER_PLACE,
    DIVER_SKIP,
    STOP,
    UPGRADE_SKIP,
    discard_slot,
    keep_slot,
    upgrade_part,
)
from otrio.envs.oceanos.cards_table import NO_ANIMAL, Card
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.data import (
    AIRLOCK,
    AQUARIUM,
    AQUARIUM_CAPACITY,
    COCKPIT,
    GREEN,
    MOTOR,
    NUM_ROUNDS,
    PROPELLER,
    PROPELLER_STARS,
    STARS_PER_ANIMAL,
    TURNS_PER_ROUND,
)
from otrio.envs.oceanos.observe import decode
from otrio.envs.oceanos.rules import Decision
from otrio.envs.oceanos.view import SeatView

from ..base import ValuingAgent


@dataclass(frozen=True)
class Weights:
    """Greedy's numbers (stars, or shares of a value)."""

    treasure: float = 2.9  # a chest's treasure (about the designed tokens' mean)
    treasure_without_diver: float = 0.3  # its share with no diver ready
    kraken: tuple[float, ...] = (1.0, 2.0, 3.0)  # each round's expected Kraken loss
    kraken_early: float = 0.6  # its share in a round's first two turns
    eye: float = 0.2  # an eye that does not make the seat the most-eyed
    stars_per_coral: float = 0.9
    animal_without_room: float = 0.3  # a new animal's share when the aquarium is full
    upgrade: float = 3.0  # an upgrade's worth, for a base or a crystal
    crystal: float = 0.5  # a crystal's share of an upgrade
    crystal_completes: float = 1.5  # its factor when it pairs with a waiting crystal
    base_without_crystals: float = 0.3
    keep_none: float = 0.0  # stop keeping
    discard_none: float = 0.5  # two-player turn: put nothing under the deck
    diver_place: float = 1.0  # a diver under chests, in the last round, or one to spare
    diver_place_else: float = -0.5
    diver_skip: float = 0.0
    upgrade_skip: float = 0.0
    aquarium: float = 0.7  # share of the stars the aquarium's room could add
    cockpit: float = 0.25  # per turn left
    motor: float = 1.2  # per round left
    airlock: float = 1.5  # per round left


WEIGHTS = Weights()


class GreedyOceanos(ValuingAgent):
    """The Oceanos heuristic (see the module docstring). ``config``, when given, is the
    one the decoded views carry (the heuristic reads none of it)."""

    spec = "greedy"

    def __init__(self, weights: Weights | None = None, config: Config | None = None) -> None:
        super().__init__()
        self.weights = WEIGHTS if weights is None else weights  # the module's, read when made
        self.config = config

    @classmethod
    def for_env(cls, env) -> GreedyOceanos:
        """The agent for ``env``'s game: its observations are decoded at its config."""
        return cls(config=env.unwrapped.config)

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        return self.values_of_view(decode(observation["observation"], self.config), legal)

    def values_of_view(self, view: SeatView, legal: list[int]) -> dict[int, float]:
        """Legal action id -> its value to the seat whose ``view`` it is (its decision)."""
        w = self.weights
        ctx = _Context(view, w)
        decision = view.decision
        if decision == Decision.KEEP or decision == Decision.KEEP_MORE:
            return {a: w.keep_none if a == STOP else ctx.card_value(view.hand[keep_slot(a)])
                    for a in legal}
        if decision == Decision.DIVER:
            return {DIVER_PLACE: ctx.diver_value(), DIVER_SKIP: w.diver_skip}
        if decision == Decision.DISCARD:
            return {a: w.discard_none if a == DISCARD_NONE
                    else ctx.card_value(view.hand[discard_slot(a)]) for a in legal}
        return {a: w.upgrade_skip if a == UPGRADE_SKIP else ctx.upgrade_value(upgrade_part(a))
                for a in legal}


class _Context:
    """What the heuristic reads of the view, once per decision."""

    def __init__(self, view: SeatView, weights: Weights):
        self.w = weights
        table, me = view.table, view.players[0]
        self.round, self.turn = table.round, table.turn
        self.rounds_left = NUM_ROUNDS - self.round  # round ends still to score
        self.levels = me.levels
        self.rows = me.rows
        self.kinds = {card.animal for row in me.rows for card in row} - {NO_ANIMAL}
        self.capacity = AQUARIUM_CAPACITY[self.levels[AQUARIUM] - 1]
        self.divers_ready = me.divers_ready
        self.green, self.yellow = me.green > 0, me.yellow > 0
        self.my_eyes = me.eyes_this_round
        self.most_other_eyes = max((p.eyes_this_round for p in view.players[1:]), default=0)

    def card_value(self, card: Card) -> float:
        w = self.w
        # the sum is a float32, as when greedy read the card off the float32 observation:
        # the same values to the bit (a float64 sum breaks some near-ties the other way)
        value = np.float32(0.0)
        if card.animal != NO_ANIMAL and card.animal not in self.kinds:
            room = len(self.kinds) < self.capacity
            value += STARS_PER_ANIMAL * self.rounds_left * (1.0 if room else w.animal_without_room)
        value += w.stars_per_coral * card.corals
        if card.chest:
            value += w.treasure * (1.0 if self.divers_ready else w.treasure_without_diver)
        if card.eyes:
            if self.my_eyes + card.eyes >= self.most_other_eyes:
                value -= w.kraken[self.round] * (1.0 if self.turn >= 2 else w.kraken_early)
            else:
                value -= w.eye * card.eyes
        if card.crystal:
            completes = self.yellow if card.crystal == GREEN else self.green  # or YELLOW
            value += w.crystal * w.upgrade * (w.crystal_completes if completes else 1.0)
        if card.base:
            value += w.upgrade if (self.green or self.yellow) else w.base_without_crystals
        return value

    def diver_value(self) -> float:
        col = len(self.rows[self.round]) - 1  # the card just placed
        chests = sum(1 for row in self.rows[: self.round + 1] if col < len(row) and row[col].chest)
        if chests >= 2 or self.round == NUM_ROUNDS - 1 or self.divers_ready > 1:
            return self.w.diver_place
        return self.w.diver_place_else

    def upgrade_value(self, part: int) -> float:
        w = self.w
        level = self.levels[part]
        left = self.rounds_left
        if part == PROPELLER:
            return (PROPELLER_STARS[level] - PROPELLER_STARS[level - 1]) * left
        if part == AQUARIUM:
            extra = AQUARIUM_CAPACITY[level] - AQUARIUM_CAPACITY[level - 1]
            over = max(0, len(self.kinds) + 1 - self.capacity)
            return STARS_PER_ANIMAL * min(extra, over + 1) * left * w.aquarium
        turns_left = TURNS_PER_ROUND * left - self.turn
        if part == COCKPIT:
            return w.cockpit * turns_left
        if part == MOTOR:
            return w.motor * left
        if part == AIRLOCK:
            return w.airlock * left
        return 0.0
