"""The War phase (``RULES.md``, "War phase"): pacts, payments,
deployment, battles, stealing, the return home. Pure functions on plain lists.

Seats form a ring: the left neighbour of ``s`` is ``s+1``, the right ``s-1`` (mod n).
Border ``b`` lies between seat ``b`` (its left side) and seat ``b+1`` (its right side).
A seat's laid cards are ``(left card, right card)`` and its offers ``(left offer, right
offer)`` (:func:`laid_orders`; ``NO_CARDS`` for a leader who lays nothing).

Every fact of a war has one function here, on plain values: the pacts
(:func:`forms_pact`, :func:`pacts_of`), where a join offer sends its warriors
(:func:`may_join`, :func:`walk`, :func:`join`), the payments (:func:`payment`,
:func:`payments`), the deployment (:func:`deployment`, :func:`deploy`), the battle
order (:func:`battle_ranks`) and the battles and thefts (:func:`resolve_battles`).
:func:`resolve_war` plays a whole war with them for the engine; greedy's lookahead
calls the same functions on the wars it imagines.
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
NO_CARDS = None  # the cards of a leader who lays no order (busted)


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


def battle_ranks(attack, defence, beans, near) -> list[int]:
    """Each seat's place in the battle order: own army, then beans, then ``near[s]``
    (the distance from the Starting Leader)."""
    order = sorted(
        range(len(attack)), key=lambda s: (-(attack[s] + defence[s]), -beans[s], near[s])
    )
    rank = [0] * len(order)
    for place, seat in enumerate(order):
        rank[seat] = place
    return rank


def resolve_battles(
    spears, shields, helpers, attack, defence, beans, rank, split_spoils, shield_helpers=(),
    log=None,
):
    """The battles and thefts of a war whose pacts and payments are settled.

    ``spears`` are ``(leader, target, side)``, ``shields`` ``(leader, side)``;
    ``helpers`` are ``(seat, leader)``: that seat's Attack warriors join the leader's
    attack, and ``shield_helpers`` ``(seat, (leader, side))`` its Defence warriors the
    leader's Shield there, each list by distance along the chain of pacts (a helper
    without warriors, or whose leader lays no such card, stays home). Attack leaders
    fight in ``rank`` order (:func:`battle_ranks`); ``log``, a list, gets one line per
    fight and theft. Returns the new ``(attack, defence, beans)``; an input list comes back
    unchanged (the same object) where the war leaves it so: never modify the result.
    """
    if not spears:
        return attack, defence, beans  # no attack: every warrior goes home, no bean moves
    resting_attack, resting_defence = list(attack), list(defence)
    attacks: dict[int, list] = {}  # leader -> [target, side, warriors per member, members]
    for s, target, side in spears:
        attacks[s] = [target, side, [attack[s]], [s]]
        resting_attack[s] = 0
    guards: dict[tuple[int, int], list] = {}  # (seat, side) -> [warriors per member, members]
    for s, side in shields:
        guards[(s, side)] = [[defence[s]], [s]]
        resting_defence[s] = 0
    for seat, leader in helpers:
        if attack[seat] > 0 and leader in attacks:
            group = attacks[leader]
            group[2].append(attack[seat])
            group[3].append(seat)
            resting_attack[seat] = 0
    for seat, key in shield_helpers:
        if defence[seat] > 0 and key in guards:
            guard = guards[key]
            guard[0].append(defence[seat])
            guard[1].append(seat)
            resting_defence[seat] = 0
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
        city_attack, city_defence = resting_attack[target], resting_defence[target]
        resting = city_attack + city_defence
        if resting:
            lost, won = fight(total, ATTACK_VALUE, resting, RESTING_VALUE)
            if log is not None:
                log.append(f"p{s} attack {total} vs p{target} city {resting}: -{lost}/-{won}")
            _lose(counts, lost)
            attack_lost, defence_lost = share_losses([city_attack, city_defence], won)
            city_attack -= attack_lost
            city_defence -= defence_lost
            resting_attack[target], resting_defence[target] = city_attack, city_defence
            resting = city_attack + city_defence
            total = sum(counts)
        if total and resting == 0:
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
            resting_attack[seat] += count
    for counts, members in guards.values():
        for seat, count in zip(members, counts):
            resting_defence[seat] += count
    return resting_attack, resting_defence, new_beans


@dataclass
class WarResult:
    """What a war did: the dead (returned to the pool) and a readable log."""

    dead: int = 0
    paid: list[int] = field(default_factory=list)  # beans each seat paid through pacts
    log: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- the laid orders
def laid_orders(orders: list[int]) -> tuple[list, list]:
    """Each seat's ``(left card, right card)`` and ``(left offer, right offer)`` from its
    order id (``NO_CARDS`` for ``NO_ORDER``: a busted leader lays nothing)."""
    cards, offers = [], []
    for order in orders:
        if order == NO_ORDER:
            cards.append(NO_CARDS)
            offers.append(NO_CARDS)
        else:
            left_card, left_offer, right_card, right_offer = ORDERS[order]
            cards.append((left_card, right_card))
            offers.append((left_offer, right_offer))
    return cards, offers


# ------------------------------------------------------------------------- pacts
def forms_pact(card: int, facing_card: int) -> bool:
    """Whether a card and the neighbour's card facing it make a pact (two Hands)."""
    return card == HAND and facing_card == HAND


def pacts_of(cards: list) -> list[bool]:
    """``pacts[b]``: a pact stands on border ``b`` (seat ``b``'s left card and seat
    ``b+1``'s right card are both Hands); ``cards[s]`` is a pair or ``NO_CARDS``."""
    n = len(cards)
    out = []
    for b in range(n):
        left_seat, right_seat = cards[b], cards[(b + 1) % n]
        out.append(
            left_seat is not NO_CARDS
            and right_seat is not NO_CARDS
            and forms_pact(left_seat[LEFT], right_seat[RIGHT])
        )
    return out


def has_pact(pacts: list[bool], seat: int, side: int) -> bool:
    """Whether a pact stands on ``side`` of ``seat``."""
    return pacts[border_of(seat, side, len(pacts))]


# ------------------------------------------------------------------------- joins
def may_join(pair, card: int) -> bool:
    """Whether a leader laying ``pair`` may send warriors by a join offer toward ``card``
    (only a leader without its own Spear joins an attack; without a Shield, a defence)."""
    return pair is not NO_CARDS and card not in pair


def walk(cards: list, pacts: list[bool], sender: int, side: int, card: int):
    """Follow formed pacts from ``sender`` towards ``side`` to a leader whose far side
    holds ``card``; ``(that leader, pacts crossed)`` or None (the warriors stay home)."""
    n = len(cards)
    step = SIDE_STEP[side]
    seat, crossed = (sender + step) % n, 1
    while seat != sender:
        pair = cards[seat]
        if pair is NO_CARDS:
            return None
        if pair[side] == card:
            if (seat + step) % n == sender:
                return None  # that card faces the sender's own city
            return seat, crossed
        if pair[side] != HAND or not has_pact(pacts, seat, side):
            return None
        seat, crossed = (seat + step) % n, crossed + 1
    return None


def join(cards: list, offers: list, pacts: list[bool], sender: int, card: int, offer: int):
    """Where a join offer of ``sender`` takes its warriors: ``(leader, side, pacts
    crossed)``, or None. ``offer`` is JOIN_ATTACK with ``card`` SPEAR (Attack warriors)
    or JOIN_DEFENCE with SHIELD (Defence warriors); the left Hand is tried first."""
    pair = cards[sender]
    if not may_join(pair, card):
        return None
    for side in SIDES:
        if (
            pair[side] == HAND
            and offers[sender][side] == offer
            and has_pact(pacts, sender, side)
        ):
            found = walk(cards, pacts, sender, side, card)
            if found is not None:
                return found[0], side, found[1]
    return None


def deploy(cards: list, offers: list, pacts: list[bool]) -> tuple[tuple, tuple, list, list]:
    """The Spears, Shields, attack helpers and shield helpers of the war, in the form
    :func:`resolve_battles` takes (helpers nearest along the chain first)."""
    n = len(cards)
    spears, shields = (), ()
    attack_helpers, shield_helpers = [], []
    for s, pair in enumerate(cards):
        if pair is NO_CARDS:
            continue
        seat_spears, seat_shields = deployment(s, pair, n)
        spears += seat_spears
        shields += seat_shields
        found = join(cards, offers, pacts, s, SPEAR, JOIN_ATTACK)
        if found is not None:
            attack_helpers.append((found[2], s, found[0]))
        found = join(cards, offers, pacts, s, SHIELD, JOIN_DEFENCE)
        if found is not None:
            shield_helpers.append((found[2], s, (found[0], found[1])))
    helpers = [(s, leader) for _, s, leader in sorted(attack_helpers)]
    shield_helpers = [(s, key) for _, s, key in sorted(shield_helpers)]
    return spears, shields, helpers, shield_helpers


# ---------------------------------------------------------------------- payments
def payment(offer: int, budget: int) -> int:
    """Beans a Hand's ``offer`` pays through a formed pact, from a payer who has
    ``budget`` beans left for it (0 for an offer that pays nothing)."""
    return min(OFFER_PAYMENT.get(offer, 0), budget)


def payments(cards: list, offers: list, pacts: list[bool], beans: list[int]) -> tuple[list, list]:
    """The pay offers of formed pacts, paid at once: ``(beans after, paid by each seat)``.

    A payer is limited to the beans it held before any payment and pays its left pact
    first."""
    n = len(cards)
    paid = [0] * n
    received = [0] * n
    for s, pair in enumerate(cards):
        if pair is NO_CARDS:
            continue
        budget = beans[s]
        for side in SIDES:
            if pair[side] == HAND and has_pact(pacts, s, side):
                amount = payment(offers[s][side], budget)
                budget -= amount
                paid[s] += amount
                received[(s + SIDE_STEP[side]) % n] += amount
    return [b + r - p for b, r, p in zip(beans, received, paid)], paid


# ----------------------------------------------------------------------- the war
def resolve_war(
    n: int,
    start: int,
    orders: list[int],
    attack: list[int],
    defence: list[int],
    beans: list[int],
    split_spoils: bool = False,
) -> WarResult:
    """Resolve a War phase over the orders (``NO_ORDER``: a busted leader), updating
    ``attack``, ``defence`` and ``beans`` in place; the caller returns ``result.dead``
    to the pool."""
    result = WarResult()
    before = sum(attack) + sum(defence)
    cards, offers = laid_orders(orders)
    pacts = pacts_of(cards)
    beans[:], result.paid = payments(cards, offers, pacts, beans)
    spears, shields, helpers, shield_helpers = deploy(cards, offers, pacts)
    rank = battle_ranks(attack, defence, beans, [(s - start) % n for s in range(n)])
    attack[:], defence[:], beans[:] = resolve_battles(
        spears, shields, helpers, attack, defence, beans, rank, split_spoils,
        shield_helpers, result.log,
    )
    result.dead = before - sum(attack) - sum(defence)
    return result
