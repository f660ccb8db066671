"""The War phase (``RULES.md``, "War phase"): pacts, payments,
deployment, battles, stealing, the return home. Pure functions on plain lists.

Seats form a ring: the left neighbour of ``s`` is ``s+1``, the right ``s-1`` (mod n).
Border ``b`` lies between seat ``b`` (its left side) and seat ``b+1`` (its right side).

The battles and the stealing live in one place, :func:`resolve_battles`, on plain
inputs (the Spears, Shields and helpers, the counts, the battle order): the engine's
:class:`War` calls it once the pacts, payments and joins are settled, and greedy's
lookahead calls it on the wars it imagines.
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


def _lose(counts: list[int], losses: int) -> None:
    """A group loses warriors, its members in proportion (the leader first)."""
    if len(counts) == 1:
        counts[0] -= min(losses, counts[0])
        return
    for i, lost in enumerate(share_losses(counts, losses)):
        counts[i] -= lost


def deployment(seat: int, pair, n: int) -> tuple[tuple, tuple]:
    """The Spear ``(seat, target, side)`` and Shield ``(seat, side)`` entries of the
    ``(left card, right card)`` ``pair`` of ``seat`` on a ring of ``n`` (None: no cards)."""
    spears, shields = [], []
    if pair is not None:
        for side in SIDES:
            if pair[side] == SPEAR:
                spears.append((seat, (seat + SIDE_STEP[side]) % n, side))
            elif pair[side] == SHIELD:
                shields.append((seat, side))
    return tuple(spears), tuple(shields)


def battle_ranks(atk, dfn, beans, near) -> list[int]:
    """Each seat's place in the battle order: own army, then beans, then ``near[s]``
    (the distance from the Starting Leader)."""
    order = sorted(range(len(atk)), key=lambda s: (-(atk[s] + dfn[s]), -beans[s], near[s]))
    rank = [0] * len(order)
    for place, seat in enumerate(order):
        rank[seat] = place
    return rank


def resolve_battles(
    spears, shields, helpers, atk, dfn, beans, rank, split_spoils, shield_helpers=(), log=None
):
    """The battles and thefts of a war whose pacts and payments are settled.

    ``spears`` are ``(leader, target, side)``, ``shields`` ``(leader, side)``;
    ``helpers`` are ``(seat, leader)``: that seat's Attack warriors join the leader's
    attack, and ``shield_helpers`` ``(seat, (leader, side))`` its Defence warriors the
    leader's Shield there, each list by distance along the chain of pacts (a helper
    without warriors, or whose leader lays no such card, stays home). Attack leaders
    fight in ``rank`` order (:func:`battle_ranks`); ``log``, a list, gets one line per
    fight and theft. Returns the new ``(atk, dfn, beans)``; an input list comes back
    unchanged (the same object) where the war leaves it so: never modify the result.
    """
    if not spears:
        return atk, dfn, beans  # no attack: every warrior goes home, no bean moves
    rest_a, rest_d = list(atk), list(dfn)
    attacks: dict[int, list] = {}  # leader -> [target, side, warriors per member, members]
    for s, target, side in spears:
        attacks[s] = [target, side, [atk[s]], [s]]
        rest_a[s] = 0
    guards: dict[tuple[int, int], list] = {}  # (seat, side) -> [warriors per member, members]
    for s, side in shields:
        guards[(s, side)] = [[dfn[s]], [s]]
        rest_d[s] = 0
    for seat, leader in helpers:
        if atk[seat] > 0 and leader in attacks:
            group = attacks[leader]
            group[2].append(atk[seat])
            group[3].append(seat)
            rest_a[seat] = 0
    for seat, key in shield_helpers:
        if dfn[seat] > 0 and key in guards:
            guard = guards[key]
            guard[0].append(dfn[seat])
            guard[1].append(seat)
            rest_d[seat] = 0
    order = sorted(attacks, key=rank.__getitem__) if len(attacks) > 1 else list(attacks)
    new_beans = beans  # copied at the first theft
    for s in order:
        target, side, counts, members = attacks[s]
        total = sum(counts)
        if not total:
            continue
        back = 1 - side  # the side of the target's city that faces the leader
        counter = attacks.get(target)
        if counter is not None and counter[1] == back:
            against = sum(counter[2])
            if against:
                lost, won = fight(total, ATTACK_VALUE, against, ATTACK_VALUE)
                if log is not None:
                    log.append(f"p{s} attack {total} vs p{target} attack {against}: -{lost}/-{won}")
                _lose(counts, lost)
                _lose(counter[2], won)
                total = sum(counts)
        guard = guards.get((target, back))
        if guard is not None and total:
            held = sum(guard[0])
            if held:
                lost, won = fight(total, ATTACK_VALUE, held, DEFENCE_VALUE)
                if log is not None:
                    log.append(f"p{s} attack {total} vs p{target} shield {held}: -{lost}/-{won}")
                _lose(counts, lost)
                _lose(guard[0], won)
                total = sum(counts)
        if not total:
            continue
        ra, rd = rest_a[target], rest_d[target]
        if ra + rd:
            lost, won = fight(total, ATTACK_VALUE, ra + rd, RESTING_VALUE)
            if log is not None:
                log.append(f"p{s} attack {total} vs p{target} city {ra + rd}: -{lost}/-{won}")
            _lose(counts, lost)
            a_lost, d_lost = share_losses([ra, rd], won)
            ra -= a_lost
            rd -= d_lost
            rest_a[target], rest_d[target] = ra, rd
            total = sum(counts)
        if total and ra + rd == 0:
            if new_beans is beans:
                new_beans = list(beans)
            loot, new_beans[target] = new_beans[target], 0
            if log is not None:
                log.append(f"p{s} steals {loot} beans from p{target}")
            if split_spoils and len(counts) > 1:
                share = loot // len(counts)
                for helper in members[1:]:
                    new_beans[helper] += share
                loot -= share * (len(counts) - 1)
            new_beans[s] += loot
    for _, _, counts, members in attacks.values():
        for seat, count in zip(members, counts):
            rest_a[seat] += count
    for counts, members in guards.values():
        for seat, count in zip(members, counts):
            rest_d[seat] += count
    return rest_a, rest_d, new_beans


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

    def deploy(self) -> tuple[tuple, tuple, list, list]:
        """The Spears, Shields, attack helpers and shield helpers of the war, in the
        form :func:`resolve_battles` takes (helpers nearest along the chain first)."""
        spears, shields = (), ()
        helpers_atk, helpers_def = [], []
        for s in range(self.n):
            if self.orders[s] == NO_ORDER:
                continue
            sp, sh = deployment(s, self.cards[s], self.n)
            spears += sp
            shields += sh
            found = self._join(s, SPEAR, JOIN_ATTACK)
            if found is not None:
                helpers_atk.append((found[2], s, found[0]))
            found = self._join(s, SHIELD, JOIN_DEFENCE)
            if found is not None:
                helpers_def.append((found[2], s, (found[0], found[1])))
        helpers = [(s, leader) for _, s, leader in sorted(helpers_atk)]
        shield_helpers = [(s, key) for _, s, key in sorted(helpers_def)]
        return spears, shields, helpers, shield_helpers

    # ---------------------------------------------------------------- battles
    def run(self, atk: list[int], dfn: list[int], beans: list[int]) -> WarResult:
        """Resolve the whole war, updating ``atk``, ``dfn`` and ``beans`` in place."""
        result = WarResult()
        before = sum(atk) + sum(dfn)
        result.paid = self.payments(beans)
        spears, shields, helpers, shield_helpers = self.deploy()
        rank = battle_ranks(atk, dfn, beans, [(s - self.start) % self.n for s in range(self.n)])
        atk[:], dfn[:], beans[:] = resolve_battles(
            spears, shields, helpers, atk, dfn, beans, rank, self.split_spoils,
            shield_helpers, result.log,
        )
        result.dead = before - sum(atk) - sum(dfn)
        return result


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
