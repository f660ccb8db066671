"""The War phase (``RULES.md``, "War phase"): pacts, payments,
deployment, battles, stealing, the return home. Pure functions on plain lists.

Seats form a ring: the left neighbour of ``s`` is ``s+1``, the right ``s-1`` (mod n).
Border ``b`` lies between seat ``b`` (its left side) and seat ``b+1`` (its right side).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .data import (
    ATTACK_VALUE,
    DEFENCE_VALUE,
    HAND,
    JOIN_ATTACK,
    JOIN_DEFENCE,
    OFFER_PAYMENT,
    RESTING_VALUE,
    SHIELD,
    SPEAR,
)
from .orders import LEFT, NO_ORDER, ORDERS, RIGHT, SIDE_STEP

SIDES = (LEFT, RIGHT)


def border_of(seat: int, side: int, n: int) -> int:
    """The border on ``side`` of ``seat``."""
    return seat if side == LEFT else (seat - 1) % n


def fight(a_units: int, a_value: int, b_units: int, b_value: int) -> tuple[int, int]:
    """Losses ``(a_lost, b_lost)`` of one fight (``RULES.md``, "One fight").

    The side with the lower total value is wiped out; the higher loses the fewest
    warriors whose values reach the loser's total; equal totals wipe out both.
    """
    va, vb = a_units * a_value, b_units * b_value
    if va > vb:
        return -(-vb // a_value), b_units
    if vb > va:
        return a_units, -(-va // b_value)
    return a_units, b_units


def share_losses(counts: list[int], losses: int) -> list[int]:
    """Split ``losses`` over ``counts`` in proportion (largest remainder).

    Ties in the remainder cost the earlier entry first, so list the group's leader
    first, then helpers by their distance along the chain (or Attack before Defence).
    """
    total = sum(counts)
    if losses >= total:
        return list(counts)
    if losses <= 0:
        return [0] * len(counts)
    shares = [losses * c // total for c in counts]
    left = losses - sum(shares)
    by_remainder = sorted(range(len(counts)), key=lambda i: (-(losses * counts[i] % total), i))
    for i in by_remainder[:left]:
        shares[i] += 1
    return shares


@dataclass
class Group:
    """Warriors of one or more leaders fighting together.

    ``members`` are ``[seat, count]`` pairs, the group's leader first, then helpers in
    order of their distance along the chain of pacts.
    """

    leader: int
    side: int  # the side of the leader's city the group faces
    members: list[list[int]] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)  # what each member sent, same order

    def add(self, seat: int, count: int) -> None:
        """Add a member with the warriors it sends."""
        self.members.append([seat, count])
        self.sent.append(count)

    def total(self) -> int:
        """Warriors still in the group."""
        return sum(m[1] for m in self.members)

    def lose(self, losses: int) -> None:
        """Remove ``losses`` warriors, shared in proportion."""
        for member, lost in zip(self.members, share_losses([m[1] for m in self.members], losses)):
            member[1] -= lost


@dataclass
class WarResult:
    """What a war did: the dead (returned to the pool) and a readable log."""

    dead: int = 0
    paid: list[int] = field(default_factory=list)  # beans each seat paid through pacts
    log: list[str] = field(default_factory=list)


class War:
    """One War phase over the orders of the active leaders (``NO_ORDER`` = busted)."""

    def __init__(self, n: int, start: int, orders: list[int], split_spoils: bool):
        self.n = n
        self.start = start
        self.orders = orders
        self.split_spoils = split_spoils
        self.cards = [[-1, -1] for _ in range(n)]
        self.offers = [[-1, -1] for _ in range(n)]
        for s, order in enumerate(orders):
            if order != NO_ORDER:
                lc, lo, rc, ro = ORDERS[order]
                self.cards[s] = [lc, rc]
                self.offers[s] = [lo, ro]
        self.pacts = [
            self.cards[b][LEFT] == HAND and self.cards[(b + 1) % n][RIGHT] == HAND
            for b in range(n)
        ]

    # ------------------------------------------------------------------ pacts
    def has_pact(self, seat: int, side: int) -> bool:
        """Whether a pact stands on ``side`` of ``seat``."""
        return self.pacts[border_of(seat, side, self.n)]

    def neighbour(self, seat: int, side: int) -> int:
        """The seat on ``side`` of ``seat``."""
        return (seat + SIDE_STEP[side]) % self.n

    def payments(self, beans: list[int]) -> list[int]:
        """Pay the pay offers of formed pacts at once; return what each seat paid.

        A payer is limited to the beans it held before any payment and pays its left
        pact first.
        """
        paid = [0] * self.n
        received = [0] * self.n
        for s in range(self.n):
            budget = beans[s]
            for side in SIDES:
                amount = OFFER_PAYMENT.get(self.offers[s][side], 0)
                if amount and self.cards[s][side] == HAND and self.has_pact(s, side):
                    amount = min(amount, budget)
                    budget -= amount
                    paid[s] += amount
                    received[self.neighbour(s, side)] += amount
        for s in range(self.n):
            beans[s] += received[s] - paid[s]
        return paid

    def walk(self, sender: int, side: int, card: int) -> tuple[int, int] | None:
        """Follow formed pacts from ``sender`` towards ``side`` to a leader whose far
        side holds ``card``; ``(that leader, pacts crossed)`` or None (stay home)."""
        step = SIDE_STEP[side]
        seat, dist = (sender + step) % self.n, 1
        while seat != sender:
            if self.cards[seat][side] == card:
                if (seat + step) % self.n == sender:
                    return None  # that card faces the sender's own city
                return seat, dist
            if self.cards[seat][side] != HAND or not self.has_pact(seat, side):
                return None
            seat, dist = (seat + step) % self.n, dist + 1
        return None

    def _join(self, sender: int, card: int, offer: int) -> tuple[int, int, int] | None:
        """Where a join offer of ``sender`` takes its warriors: ``(leader, side, dist)``."""
        if card in self.cards[sender]:
            return None  # a leader with its own Spear (Shield) does not join
        for side in SIDES:
            if (
                self.cards[sender][side] == HAND
                and self.offers[sender][side] == offer
                and self.has_pact(sender, side)
            ):
                found = self.walk(sender, side, card)
                if found is not None:
                    return found[0], side, found[1]
        return None

    def deploy(self, atk: list[int], dfn: list[int]) -> tuple[dict, dict, list[int], list[int]]:
        """Attack groups by leader, defence groups by (leader, side), resting counts."""
        attacks: dict[int, Group] = {}
        defences: dict[tuple[int, int], Group] = {}
        rest_atk, rest_def = list(atk), list(dfn)
        for s in range(self.n):
            for side in SIDES:
                if self.cards[s][side] == SPEAR:
                    attacks[s] = Group(s, side)
                    attacks[s].add(s, atk[s])
                    rest_atk[s] = 0
                elif self.cards[s][side] == SHIELD:
                    defences[(s, side)] = Group(s, side)
                    defences[(s, side)].add(s, dfn[s])
                    rest_def[s] = 0
        helpers_atk, helpers_def = [], []
        for s in range(self.n):
            if self.orders[s] == NO_ORDER:
                continue
            found = self._join(s, SPEAR, JOIN_ATTACK)
            if found is not None and atk[s] > 0:
                helpers_atk.append((found[2], s, found[0]))
                rest_atk[s] = 0
            found = self._join(s, SHIELD, JOIN_DEFENCE)
            if found is not None and dfn[s] > 0:
                helpers_def.append((found[2], s, (found[0], found[1])))
                rest_def[s] = 0
        for _, s, leader in sorted(helpers_atk):
            attacks[leader].add(s, atk[s])
        for _, s, key in sorted(helpers_def):
            defences[key].add(s, dfn[s])
        return attacks, defences, rest_atk, rest_def

    # ---------------------------------------------------------------- battles
    def battle_order(self, attacks: dict, atk: list[int], dfn: list[int], beans: list[int]):
        """Attack leaders by own army size, then beans, then nearness to the start."""
        return sorted(
            attacks,
            key=lambda s: (-(atk[s] + dfn[s]), -beans[s], (s - self.start) % self.n),
        )

    def run(self, atk: list[int], dfn: list[int], beans: list[int]) -> WarResult:
        """Resolve the whole war, updating ``atk``, ``dfn`` and ``beans`` in place."""
        result = WarResult()
        before = sum(atk) + sum(dfn)
        result.paid = self.payments(beans)
        attacks, defences, rest_atk, rest_def = self.deploy(atk, dfn)
        for leader in self.battle_order(attacks, atk, dfn, beans):
            self._battle(attacks, defences, rest_atk, rest_def, beans, attacks[leader], result)
        for s in range(self.n):
            atk[s], dfn[s] = rest_atk[s], rest_def[s]
        for group in attacks.values():
            for seat, count in group.members:
                atk[seat] += count
        for group in defences.values():
            for seat, count in group.members:
                dfn[seat] += count
        result.dead = before - sum(atk) - sum(dfn)
        return result

    def _battle(self, attacks, defences, rest_atk, rest_def, beans, group, result) -> None:
        """One attack group against its target: spear fight, shield fight, city, steal."""
        leader = group.leader
        target = self.neighbour(leader, group.side)
        back = 1 - group.side  # the side of the target's city that faces the leader
        if group.total() == 0:
            return
        log = result.log
        counter = attacks.get(target)
        if counter is not None and counter.side == back and counter.total() > 0:
            lost, won = fight(group.total(), ATTACK_VALUE, counter.total(), ATTACK_VALUE)
            log.append(
                f"p{leader} attack {group.total()} vs p{target} attack {counter.total()}: "
                f"-{lost}/-{won}"
            )
            group.lose(lost)
            counter.lose(won)
        shield = defences.get((target, back))
        if group.total() and shield is not None and shield.total() > 0:
            lost, won = fight(group.total(), ATTACK_VALUE, shield.total(), DEFENCE_VALUE)
            log.append(
                f"p{leader} attack {group.total()} vs p{target} shield {shield.total()}: "
                f"-{lost}/-{won}"
            )
            group.lose(lost)
            shield.lose(won)
        if not group.total():
            return
        resting = rest_atk[target] + rest_def[target]
        if resting:
            lost, won = fight(group.total(), ATTACK_VALUE, resting, RESTING_VALUE)
            log.append(
                f"p{leader} attack {group.total()} vs p{target} city {resting}: -{lost}/-{won}"
            )
            group.lose(lost)
            a_lost, d_lost = share_losses([rest_atk[target], rest_def[target]], won)
            rest_atk[target] -= a_lost
            rest_def[target] -= d_lost
        if group.total() and rest_atk[target] + rest_def[target] == 0:
            self._steal(group, target, beans, log)

    def _steal(self, group: Group, target: int, beans, log) -> None:
        """The leader takes all the target's beans (split with helpers by config)."""
        loot, beans[target] = beans[target], 0
        helpers = [m[0] for m, sent in zip(group.members[1:], group.sent[1:]) if sent > 0]
        if self.split_spoils and helpers:
            share = loot // (len(helpers) + 1)
            for seat in helpers:
                beans[seat] += share
            beans[group.leader] += loot - share * len(helpers)
        else:
            beans[group.leader] += loot
        log.append(f"p{group.leader} steals {loot} beans from p{target}")


def resolve_war(
    n: int,
    start: int,
    orders: list[int],
    atk: list[int],
    dfn: list[int],
    beans: list[int],
    split_spoils: bool = False,
) -> WarResult:
    """Resolve a War phase in place; the caller returns ``result.dead`` to the pool."""
    return War(n, start, orders, split_spoils).run(atk, dfn, beans)
