"""Greedy Otontin: value each legal action by its immediate worth to the seat.

The heuristic reads the seat's view alone (:class:`otrio.envs.otontin.view.SeatView`:
``values_of_view``; ``action_values`` decodes the observation into it first):

* the coming war is played out with the rules' arithmetic on the local ring (us, both
  neighbours, the leaders beyond standing still), each neighbour committing any of the
  47 orders with equal chance (declarations bind nobody and are not read), grouped by
  its card toward us and its card away; an attacker may be joined by the leader beyond.
  An outcome is worth our beans, our warriors kept and the beans rivals lose (counted by
  their wealth); in the final round, mostly whether we end first (the war model lives in
  :mod:`otrio.agents.greedy.otontin_war`);
* commit the best order (Spear toward a weak or rich neighbour, Shield toward the one
  whose attack costs most, Hands where expected pay offers beat the risk); never offer
  pay, offer join_attack only where helping an attack pays; declare the same order with
  the Spear shown as a Hand;
* roll again while one more roll (exact odds of the bag) adds more beans and warriors
  than the saboteurs cost (warriors the smaller neighbours take, the war they tilt) and
  the bust risks (the haul plus the war we would sit out); new warriors, and warriors
  taken as a saboteur's taker, go where the war is best; a payer short of warriors pays
  first the neighbour whose gain hurts our war least.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from otrio.envs.otontin.actions import (
    ATTACK_CARD,
    DEFENCE_CARD,
    ROLL,
    commit_id,
    declare_id,
    priority_id,
    steal_cards,
    stop_id,
)
from otrio.envs.otontin.campaign import (
    CHOOSE_PRIORITY,
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECLARE_ORDER,
    taken_from,
    theft_amount,
    theft_takers,
)
from otrio.envs.otontin.data import (
    BEAN,
    BUST_SABOTEURS,
    DICE_PER_ROLL,
    HAND,
    NUM_FACES,
    SABOTEUR,
    SPEAR,
    TRUCE,
    WARRIOR,
)
from otrio.envs.otontin.observe import decode
from otrio.envs.otontin.orders import ORDERS, SIDE_STEP
from otrio.envs.otontin.rules import Config
from otrio.envs.otontin.view import SeatView

from ..base import ValuingAgent
from .otontin_war import NO_PLAN, SIDES, WEIGHTS, WarModel, Weights, local_war

TIE_TOLERANCE = 1e-9  # values this close are tied (as in Agent.choose_best)
ROLL_CACHE_SIZE = 4096  # roll distributions kept (one per bag content)


# ------------------------------------------------------------------ the dice
@lru_cache(maxsize=ROLL_CACHE_SIZE)
def roll_outcomes(bag: tuple[int, ...], shares: tuple[tuple[float, ...], ...]):
    """Distribution of the next roll: ``{(warriors, beans, saboteurs): chance}``."""
    out: dict[tuple[int, int, int], float] = {}
    draws = min(DICE_PER_ROLL, sum(bag))

    def walk(left: int, bag: list[int], p: float, w: int, b: int, s: int) -> None:
        if left == 0:
            out[(w, b, s)] = out.get((w, b, s), 0.0) + p
            return
        remaining = sum(bag)
        for colour, count in enumerate(bag):
            if not count:
                continue
            pc = p * count / remaining
            bag[colour] -= 1
            face = shares[colour]
            other = 1.0 - face[WARRIOR] - face[BEAN] - face[SABOTEUR]
            for share, dw, db, ds in (
                (face[WARRIOR], 1, 0, 0),
                (face[BEAN], 0, 1, 0),
                (face[SABOTEUR], 0, 0, 1),
                (other, 0, 0, 0),
            ):
                if share > 0:
                    walk(left - 1, bag, pc * share, w + dw, b + db, s + ds)
            bag[colour] += 1

    walk(draws, list(bag), 1.0, 0, 0, 0)
    return out


@cache
def face_chances(dice_faces: tuple[tuple[int, ...], ...]) -> tuple[tuple[float, ...], ...]:
    """Each die colour's chance of each face (its faces are equally likely)."""
    return tuple(tuple(faces.count(face) / len(faces) for face in range(NUM_FACES))
                 for faces in dice_faces)


class GreedyOtontin(ValuingAgent):
    """The Otontin heuristic (see the module docstring). ``config`` is the game's
    (public) config, read where an observation is decoded (default: the default
    config); ``weights`` what it counts an outcome worth."""

    spec = "greedy"

    def __init__(self, config: Config | None = None, weights: Weights = WEIGHTS) -> None:
        super().__init__()
        self.config = Config() if config is None else config
        self.weights = weights
        self._war_cache: dict[tuple, dict[int, float]] = {}

    @classmethod
    def for_env(cls, env) -> GreedyOtontin:
        """The agent for ``env``'s game: its observations are decoded at its config."""
        return cls(config=env.unwrapped.config)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._war_cache = {}

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        return self.values_of_view(decode(observation["observation"], self.config), legal)

    def values_of_view(self, view: SeatView, legal: list[int]) -> dict[int, float]:
        """Legal action id -> its value to the seat whose view this is (the numbers of
        :meth:`action_values`, without the observation)."""
        model = WarModel(view.num_players, view.starting_leader, view.final_round,
                         view.split_spoils, view.busted, view.beans, self._war_cache,
                         self.weights)
        decision = view.decision
        if decision == CHOOSE_PRIORITY:
            return self._priority_values(view, model)
        if decision == CHOOSE_STEAL:
            return self._steal_values(view, model, legal)
        if decision == DECLARE_ORDER:
            return self._declare_values(view, model)
        if decision == COMMIT_ORDER:
            return self._commit_values(view, model)
        return self._campaign_values(view, model, legal)

    # ------------------------------------------------------------- strategy
    def _commit_values(self, view: SeatView, model: WarModel) -> dict[int, float]:
        worth = model.values(view.attack, view.defence, view.beans)
        return {commit_id(order): value for order, value in worth.items()}

    def _declare_values(self, view: SeatView, model: WarModel) -> dict[int, float]:
        worth = model.values(view.attack, view.defence, view.beans)
        best = max(worth.values())
        plans = [order for order, value in worth.items() if value >= best - TIE_TOLERANCE]
        return {declare_id(_masked(order)): 0.0 for order in plans}

    # ------------------------------------------------------------- campaign
    def _campaign_values(self, view: SeatView, model: WarModel, legal) -> dict[int, float]:
        paid_warriors, paid_beans = view.payable
        weights = self.weights
        warrior_value = weights.warrior(view.final_round)
        now = model.best(view.attack, view.defence, view.beans)
        values: dict[int, float] = {}
        for card in (ATTACK_CARD, DEFENCE_CARD):
            if stop_id(card) in legal:
                attack, defence = list(view.attack), list(view.defence)
                (attack if card == ATTACK_CARD else defence)[0] += paid_warriors
                values[stop_id(card)] = (
                    weights.bean_value * paid_beans
                    + model.best(attack, defence, _plus(view.beans, 0, paid_beans))
                    - now
                    + warrior_value * paid_warriors
                )
        if ROLL in legal:
            haul = max(values.values())
            values[ROLL] = haul + self._roll_gain(view, model, paid_warriors, paid_beans, haul)
        return values

    def _roll_gain(self, view: SeatView, model, paid_warriors, paid_beans, haul) -> float:
        bag = view.bag if any(view.bag) else view.priests_aside  # the priests go back in
        outcomes = roll_outcomes(bag, face_chances(view.dice_faces))
        weights = self.weights
        warrior_value = weights.warrior(view.final_round)
        room_warriors = max(0, view.pool_warriors - paid_warriors)
        room_beans = max(0, view.pool_beans - paid_beans)
        active = model.best(view.attack, view.defence, view.beans)
        busted = model.values(view.attack, view.defence, view.beans, busted_self=True)[NO_PLAN]
        sit_out = active - busted
        theft_costs = self._theft_costs(view, model)
        saboteurs_so_far = view.rolled[SABOTEUR]
        gain = 0.0
        for (warriors, beans, saboteurs), p in outcomes.items():
            theft = theft_costs[saboteurs]
            if saboteurs_so_far + saboteurs >= BUST_SABOTEURS:
                gain += p * (-haul - sit_out - theft)
            else:
                gain += p * (warrior_value * min(warriors, room_warriors)
                             + weights.bean_value * min(beans, room_beans) - theft)
        return gain

    def _theft_costs(self, view: SeatView, model: WarModel) -> dict[int, float]:
        """Cost of the saboteurs of one roll: warriors lost, and the war they tilt.

        The rules' takers (the smaller neighbours) are each assumed to take from our
        Attack card (the Defence card covers a shortfall) into their own Attack card,
        the threatening choice.
        """
        n = view.num_players
        takers = theft_takers([view.army(row) for row in range(n)], 0)
        weights = self.weights
        warrior_value = weights.warrior(view.final_round)
        now = model.best(view.attack, view.defence, view.beans)
        costs = {0: 0.0}
        for saboteurs in range(1, DICE_PER_ROLL + 1):
            attack, defence = list(view.attack), list(view.defence)
            lost = 0
            for taker in takers:
                take = theft_amount(saboteurs, attack[0] + defence[0])
                attack[0], defence[0] = taken_from(attack[0], defence[0], ATTACK_CARD, take)
                attack[taker] += take
                lost += take
            war_loss = now - model.best(attack, defence, view.beans) if lost else 0.0
            costs[saboteurs] = war_loss + lost * (warrior_value + weights.theft_gain_value)
        return costs

    # ------------------------------------------------------------- saboteurs
    def _steal_values(self, view: SeatView, model: WarModel, legal) -> dict[int, float]:
        payer = view.campaign_leader
        amount = theft_amount(view.theft, view.army(payer))
        values = {}
        for action in legal:
            source, destination = steal_cards(action)
            attack, defence = list(view.attack), list(view.defence)
            attack[payer], defence[payer] = taken_from(attack[payer], defence[payer], source,
                                                       amount)
            (attack if destination == ATTACK_CARD else defence)[0] += amount
            values[action] = model.best(attack, defence, view.beans)
        return values

    def _priority_values(self, view: SeatView, model: WarModel) -> dict[int, float]:
        n = view.num_players
        values = {}
        for side in SIDES:
            first = SIDE_STEP[side] % n  # the neighbour on that side is paid first
            attack, defence = list(view.attack), list(view.defence)
            for taker in (first, n - first):
                take = theft_amount(view.theft, attack[0] + defence[0])
                attack[0], defence[0] = taken_from(attack[0], defence[0], ATTACK_CARD, take)
                attack[taker] += take
            values[priority_id(side)] = model.best(attack, defence, view.beans)
        return values


def _masked(order: int) -> int:
    """The same order with its Spear shown as a Hand (truce)."""
    left_card, left_offer, right_card, right_offer = ORDERS[order]
    if left_card == SPEAR:
        left_card, left_offer = HAND, TRUCE
    if right_card == SPEAR:
        right_card, right_offer = HAND, TRUCE
    return ORDERS.index((left_card, left_offer, right_card, right_offer))


def _plus(values, index: int, amount: int) -> list[int]:
    out = list(values)
    out[index] += amount
    return out


__all__ = ["GreedyOtontin", "Weights", "local_war", "roll_outcomes"]
