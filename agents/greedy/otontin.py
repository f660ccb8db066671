"""Greedy Otontin: value each legal action by its immediate worth to the seat.

The heuristic, read from the seat's observation alone:

* the coming war is played out with the rules' arithmetic on the local ring (us, both
  neighbours, the leaders beyond standing still), each neighbour committing any of the
  47 orders with equal chance (declarations bind nobody and are not read), grouped by
  its card toward us and its card away; an attacker may be joined by the leader beyond.
  An outcome is worth our beans, our warriors kept and the beans rivals lose (counted by
  their wealth); in the final round, mostly whether we end first (the war model lives in
  :mod:`agents.greedy.otontin_war`);
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

from functools import lru_cache

import numpy as np

from envs.otontin.actions import (
    ATTACK_CARD,
    DEFENCE_CARD,
    ROLL,
    commit_id,
    declare_id,
    priority_id,
    steal_cards,
    stop_id,
)
from envs.otontin.campaign import (
    CHOOSE_PRIORITY,
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECLARE_ORDER,
)
from envs.otontin.data import (
    BEAN,
    BUST_SABOTEURS,
    DICE_PER_ROLL,
    HAND,
    SABOTEUR,
    SPEAR,
    TRUCE,
    WARRIOR,
)
from envs.otontin.observe import COUNT_SCALE, LAYOUT
from envs.otontin.orders import LEFT, ORDERS

from ..base import ValuingAgent
from .otontin_war import (
    BEAN_VALUE,
    FINAL_WARRIOR_VALUE,
    NO_PLAN,
    SIDES,
    WARRIOR_VALUE,
    WarModel,
    local_war,
)

THEFT_GAIN_VALUE = 0.1  # a warrior a saboteur hands a neighbour (a stronger threat)
TIE_TOLERANCE = 1e-9  # values this close are tied (as in Agent.choose_best)
ROLL_CACHE_SIZE = 4096  # roll distributions kept (one per bag content)

_SPAN = {name: (a, b) for name, (a, b, _) in LAYOUT.offsets.items()}  # flat slices
_FACES = LAYOUT.offsets["dice_faces"][2][1]  # faces per die colour


def _count(x: float) -> int:
    """A count from its scaled observation entry."""
    return int(round(x * COUNT_SCALE))


def _argmax(part: list) -> int:
    """Index of the first largest entry (one-hot decoding)."""
    return part.index(max(part))


class _Table:
    """What the seat sees, decoded once per decision (rows relative, row 0 = us)."""

    def __init__(self, o: list[float]):
        self.o = o
        self.n = n = int(sum(self.piece("seat_present")))
        self.atk = [_count(x) for x in self.piece("attack")[:n]]
        self.dfn = [_count(x) for x in self.piece("defence")[:n]]
        self.beans = [_count(x) for x in self.piece("beans")[:n]]
        self.busted = [bool(x) for x in self.piece("busted")[:n]]
        self.start = _argmax(self.piece("starting_leader"))
        game = self.piece("game")
        self.final = bool(game[1])
        self.split_spoils = bool(game[3])
        self.pool_warriors, self.pool_beans = (_count(x) for x in self.piece("pool"))
        self.decision = _argmax(self.piece("decision"))

    def piece(self, name: str) -> list[float]:
        """The flat entries of one piece of the observation."""
        a, b = _SPAN[name]
        return self.o[a:b]

    def counts(self, name: str) -> list[int]:
        """The counts of a piece (scaled by ``COUNT_SCALE`` in the observation)."""
        return [_count(x) for x in self.piece(name)]

    def army(self, row: int) -> int:
        return self.atk[row] + self.dfn[row]

    def model(self, cache: dict) -> WarModel:
        """The war model of this table."""
        return WarModel(
            self.n, self.start, self.final, self.split_spoils, self.busted, self.beans, cache
        )


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


class GreedyOtontin(ValuingAgent):
    """The Otontin heuristic (see the module docstring)."""

    spec = "greedy"

    def __init__(self) -> None:
        super().__init__()
        self._war_cache: dict[tuple, dict[int, float]] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._war_cache = {}

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        table = _Table(observation["observation"].tolist())
        model = table.model(self._war_cache)
        if table.decision == CHOOSE_PRIORITY:
            values = self._priority_values(table, model)
        elif table.decision == CHOOSE_STEAL:
            values = self._steal_values(table, model, legal)
        elif table.decision == DECLARE_ORDER:
            values = self._declare_values(table, model)
        elif table.decision == COMMIT_ORDER:
            values = self._commit_values(table, model)
        else:
            values = self._campaign_values(table, model, legal)
        return values

    # ------------------------------------------------------------- strategy
    def _commit_values(self, table: _Table, model: WarModel) -> dict[int, float]:
        worth = model.values(table.atk, table.dfn, table.beans)
        return {commit_id(order): value for order, value in worth.items()}

    def _declare_values(self, table: _Table, model: WarModel) -> dict[int, float]:
        worth = model.values(table.atk, table.dfn, table.beans)
        best = max(worth.values())
        plans = [order for order, value in worth.items() if value >= best - TIE_TOLERANCE]
        return {declare_id(_masked(order)): 0.0 for order in plans}

    # ------------------------------------------------------------- campaign
    def _campaign_values(self, table: _Table, model: WarModel, legal) -> dict[int, float]:
        rolled = table.counts("rolled")
        paid_w, paid_b = table.counts("payable")
        warrior_value = FINAL_WARRIOR_VALUE if table.final else WARRIOR_VALUE
        values: dict[int, float] = {}
        for card in (ATTACK_CARD, DEFENCE_CARD):
            if stop_id(card) in legal:
                atk, dfn = list(table.atk), list(table.dfn)
                (atk if card == ATTACK_CARD else dfn)[0] += paid_w
                values[stop_id(card)] = (
                    BEAN_VALUE * paid_b
                    + model.best(atk, dfn, _plus(table.beans, 0, paid_b))
                    - model.best(table.atk, table.dfn, table.beans)
                    + warrior_value * paid_w
                )
        if ROLL in legal:
            haul = max(values.values())
            values[ROLL] = haul + self._roll_gain(table, model, rolled, paid_w, paid_b, haul)
        return values

    def _roll_gain(self, table, model, rolled, paid_w, paid_b, haul) -> float:
        bag = table.counts("bag")
        if not any(bag):
            bag = table.counts("priests_aside")
        faces = table.piece("dice_faces")
        shares = tuple(tuple(faces[i : i + _FACES]) for i in range(0, len(faces), _FACES))
        outcomes = roll_outcomes(tuple(bag), shares)
        warrior_value = FINAL_WARRIOR_VALUE if table.final else WARRIOR_VALUE
        room_w = max(0, table.pool_warriors - paid_w)
        room_b = max(0, table.pool_beans - paid_b)
        active = model.best(table.atk, table.dfn, table.beans)
        busted = model.values(table.atk, table.dfn, table.beans, busted_self=True)[NO_PLAN]
        sit_out = active - busted
        theft_costs = self._theft_costs(table, model)
        gain = 0.0
        for (w, b, s), p in outcomes.items():
            theft = theft_costs[s]
            if rolled[SABOTEUR] + s >= BUST_SABOTEURS:
                gain += p * (-haul - sit_out - theft)
            else:
                gain += p * (warrior_value * min(w, room_w) + BEAN_VALUE * min(b, room_b) - theft)
        return gain

    @staticmethod
    def _smaller_neighbours(table: _Table) -> list[int]:
        mine = table.army(0)
        return [r for r in sorted({1, table.n - 1}) if table.army(r) < mine]

    def _theft_costs(self, table: _Table, model: WarModel) -> dict[int, float]:
        """Cost of the saboteurs of one roll: warriors lost, and the war they tilt.

        Each smaller neighbour is assumed to take from our Attack card (the Defence card
        covers a shortfall) into its own Attack card, the threatening choice.
        """
        takers = self._smaller_neighbours(table)
        warrior_value = FINAL_WARRIOR_VALUE if table.final else WARRIOR_VALUE
        now = model.best(table.atk, table.dfn, table.beans)
        costs = {0: 0.0}
        for saboteurs in range(1, DICE_PER_ROLL + 1):
            atk, dfn = list(table.atk), list(table.dfn)
            lost = 0
            for taker in takers:
                take = min(saboteurs, table.army(0) - lost)
                from_attack = min(take, atk[0])
                atk[0] -= from_attack
                dfn[0] -= take - from_attack
                atk[taker] += take
                lost += take
            war_loss = now - model.best(atk, dfn, table.beans) if lost else 0.0
            costs[saboteurs] = war_loss + lost * (warrior_value + THEFT_GAIN_VALUE)
        return costs

    # ------------------------------------------------------------- saboteurs
    def _steal_values(self, table: _Table, model: WarModel, legal) -> dict[int, float]:
        k = table.counts("theft")[0]
        payer = _argmax(table.piece("campaign_leader"))
        amount = min(k, table.army(payer))
        values = {}
        for action in legal:
            source, destination = steal_cards(action)
            atk, dfn = list(table.atk), list(table.dfn)
            cards = [atk, dfn]
            first = min(amount, cards[source][payer])
            cards[source][payer] -= first
            cards[1 - source][payer] -= amount - first
            cards[destination][0] += amount
            values[action] = model.best(atk, dfn, table.beans)
        return values

    def _priority_values(self, table: _Table, model: WarModel) -> dict[int, float]:
        k = table.counts("theft")[0]
        values = {}
        for side in SIDES:
            first = 1 if side == LEFT else table.n - 1
            second = table.n - 1 if side == LEFT else 1
            atk, dfn = list(table.atk), list(table.dfn)
            left_over = table.army(0)
            for taker in (first, second):
                take = min(k, left_over)
                left_over -= take
                from_atk = min(take, atk[0])
                atk[0] -= from_atk
                dfn[0] -= take - from_atk
                atk[taker] += take
            values[priority_id(side)] = model.best(atk, dfn, table.beans)
        return values


def _masked(order: int) -> int:
    """The same order with its Spear shown as a Hand (truce)."""
    lc, lo, rc, ro = ORDERS[order]
    if lc == SPEAR:
        lc, lo = HAND, TRUCE
    if rc == SPEAR:
        rc, ro = HAND, TRUCE
    return ORDERS.index((lc, lo, rc, ro))


def _plus(values: list[int], index: int, amount: int) -> list[int]:
    out = list(values)
    out[index] += amount
    return out


__all__ = ["GreedyOtontin", "local_war", "roll_outcomes"]
