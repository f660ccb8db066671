"""Greedy Otontin: value each legal action by its immediate worth to the seat.

The heuristic, read from the seat's observation alone:

* the coming war is played out with the rules' arithmetic on the local ring (us, both
  neighbours, the leaders beyond standing still), each neighbour committing any of the
  47 orders with equal chance (declarations bind nobody and are not read), grouped by
  its card toward us and its card away; an attacker may be joined by the leader beyond.
  An outcome is worth our beans, our warriors kept and the beans rivals lose (counted by
  their wealth); in the final round, mostly whether we end first;
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

from collections import Counter
from functools import lru_cache

import numpy as np

from envs.otontin.actions import (
    ATTACK_CARD,
    COMMIT,
    DECLARE,
    DEFENCE_CARD,
    PRIORITY,
    ROLL,
    STOP,
    steal_cards,
)
from envs.otontin.campaign import (
    CHOOSE_PRIORITY,
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECLARE_ORDER,
)
from envs.otontin.data import (
    ATTACK_VALUE,
    BEAN,
    BUST_SABOTEURS,
    DEFENCE_VALUE,
    DICE_PER_ROLL,
    HAND,
    JOIN_ATTACK,
    NO_OFFER,
    OFFER_PAYMENT,
    RESTING_VALUE,
    SABOTEUR,
    SHIELD,
    SPEAR,
    TRUCE,
    WARRIOR,
)
from envs.otontin.observe import COUNT_SCALE, LAYOUT
from envs.otontin.orders import LEFT, ORDERS, RIGHT, SIDE_STEP
from envs.otontin.war import fight, share_losses

from ..base import Agent

# ------------------------------------------------------------------ value weights
BEAN_VALUE = 1.0  # a bean in hand (the score)
WARRIOR_VALUE = 0.35  # a warrior kept: future attacks, defence and the tie-break
FINAL_WARRIOR_VALUE = 0.05  # in the final round a warrior only breaks ties
RIVAL_WEIGHT = 1.0  # a bean the richest rival loses, against one we gain (poorer: less)
KILL_VALUE = 0.05  # a neighbour's warrior killed (a weaker threat next round)
WIN_VALUE = 10.0  # final round: ending with the most beans
THEFT_GAIN_VALUE = 0.1  # a warrior a saboteur hands a neighbour (a stronger threat)
JOIN_MARGIN = 1e-6  # a join offer must beat the plain truce by more than rounding
TIE_TOLERANCE = 1e-9  # values this close are tied (as in Agent.choose_best)
CACHE_SIZE = 512  # war evaluations kept between decisions (cleared when full)
ROLL_CACHE_SIZE = 4096  # roll distributions kept (one per bag content)

# ------------------------------------------------------------------ the local ring
NEAR_SEATS = 5  # us, both neighbours and both far neighbours (fewer at 3-4 players)
SIDES = (LEFT, RIGHT)
NO_CARDS = None  # a busted leader lays no cards
PASSIVE_CARDS = (HAND, HAND)  # the leaders beyond our neighbours: no Spear, no Shield

LEFT_LOCAL = 1  # our left neighbour on the local ring (the right one is the last seat)
NEIGHBOURS_ONLY = 3  # a local ring of us and our two neighbours (3 players)
NO_PLAN = -1  # the key of the busted war (we lay no order)


def _candidate_orders() -> tuple[list[int], dict[int, tuple[int, list[int]]]]:
    """Our orders: every card pair with truce Hands, and, without a Spear, the same with
    join_attack on one or both Hands (order -> (its truce order, join sides))."""
    truce = [
        i for i, (_, lo, _, ro) in enumerate(ORDERS)
        if lo in (NO_OFFER, TRUCE) and ro in (NO_OFFER, TRUCE)
    ]
    joins = {}
    for i, (lc, lo, rc, ro) in enumerate(ORDERS):
        offers = (lo, ro)
        if SPEAR in (lc, rc) or JOIN_ATTACK not in offers:
            continue
        if any(o not in (NO_OFFER, TRUCE, JOIN_ATTACK) for o in offers):
            continue
        plain = [TRUCE if o == JOIN_ATTACK else o for o in offers]
        base = ORDERS.index((lc, plain[0], rc, plain[1]))
        joins[i] = (base, [side for side in SIDES if offers[side] == JOIN_ATTACK])
    return truce, joins


TRUCE_ORDERS, JOIN_ORDERS = _candidate_orders()


def _neighbour_classes(facing_side: int) -> list[tuple[int, int, float]]:
    """(card toward us, card away, chance) of a neighbour under the uniform prior.

    ``facing_side`` is the neighbour's side that faces us (RIGHT for our left one).
    """
    counts = Counter((order[2 * facing_side], order[2 * (1 - facing_side)]) for order in ORDERS)
    total = len(ORDERS)
    return [(toward, away, c / total) for (toward, away), c in sorted(counts.items())]


def _expected_pay_per_hand() -> dict[int, float]:
    """Chance that a neighbour's Hand carries each pay offer (uniform prior)."""
    offers = Counter(lo for _, lo, _, _ in ORDERS if lo != NO_OFFER)  # the table is symmetric
    hands = sum(offers.values())
    return {offer: offers[offer] / hands for offer in OFFER_PAYMENT}


CLASSES = {side: _neighbour_classes(side) for side in SIDES}
PAY_SHARE = _expected_pay_per_hand()
# A leader beyond our neighbour joins its attack through a pact: a Hand toward it with
# join_attack and no Spear of its own (uniform prior), or, when the leader beyond is our
# other neighbour (its cards known in the scenario), join_attack on that Hand.
FAR_JOIN_CHANCE = sum(
    1 for lc, _, rc, ro in ORDERS if rc == HAND and ro == JOIN_ATTACK and lc != SPEAR
) / len(ORDERS)
JOIN_PER_HAND = sum(1 for _, lo, _, _ in ORDERS if lo == JOIN_ATTACK) / sum(
    1 for _, lo, _, _ in ORDERS if lo != NO_OFFER
)


# -------------------------------------------------------------------- the war
def local_war(cards, atk, dfn, beans, near, helpers=(), split_spoils=False):
    """Play a war on a small ring: spears, shields, resting warriors, theft.

    ``cards[s]`` is ``(left card, right card)`` or None (busted); ``near[s]`` orders
    ties from the Starting Leader. Hands only matter through ``helpers``: each
    ``(seat, leader)`` sends that seat's Attack warriors to join the leader's attack
    (the caller checks the pact and the offer). Pay offers are counted apart. Returns
    the new (atk, dfn, beans).
    """
    m = len(cards)
    rest_a, rest_d, beans = list(atk), list(dfn), list(beans)
    attacks: dict[int, list] = {}  # leader -> [target, side, warriors per member, members]
    shields: dict[tuple[int, int], int] = {}  # (seat, side) -> warriors
    for s, pair in enumerate(cards):
        if pair is None:
            continue
        for side in SIDES:
            if pair[side] == SPEAR:
                attacks[s] = [(s + SIDE_STEP[side]) % m, side, [atk[s]], [s]]
                rest_a[s] = 0
            elif pair[side] == SHIELD:
                shields[(s, side)] = dfn[s]
                rest_d[s] = 0
    for seat, leader in helpers:
        if atk[seat] > 0 and leader in attacks:
            attacks[leader][2].append(atk[seat])
            attacks[leader][3].append(seat)
            rest_a[seat] = 0
    order = list(attacks)
    if len(order) > 1:
        order.sort(key=lambda s: (-(atk[s] + dfn[s]), -beans[s], near[s]))
    for s in order:
        group = attacks[s]
        target, side, counts = group[0], group[1], group[2]
        if not sum(counts):
            continue
        back = 1 - side
        counter = attacks.get(target)
        if counter is not None and counter[1] == back and sum(counter[2]):
            lost, won = fight(sum(counts), ATTACK_VALUE, sum(counter[2]), ATTACK_VALUE)
            _lose(counts, lost)
            _lose(counter[2], won)
        guard = shields.get((target, back), 0)
        if guard and sum(counts):
            lost, won = fight(sum(counts), ATTACK_VALUE, guard, DEFENCE_VALUE)
            _lose(counts, lost)
            shields[(target, back)] = guard - won
        if not sum(counts):
            continue
        resting = rest_a[target] + rest_d[target]
        if resting:
            lost, won = fight(sum(counts), ATTACK_VALUE, resting, RESTING_VALUE)
            _lose(counts, lost)
            a_lost, d_lost = share_losses([rest_a[target], rest_d[target]], won)
            rest_a[target] -= a_lost
            rest_d[target] -= d_lost
        if sum(counts) and rest_a[target] + rest_d[target] == 0:
            loot, beans[target] = beans[target], 0
            if split_spoils and len(counts) > 1:
                share = loot // len(counts)
                for helper in group[3][1:]:
                    beans[helper] += share
                loot -= share * (len(counts) - 1)
            beans[s] += loot
    for group in attacks.values():
        for seat, count in zip(group[3], group[2]):
            rest_a[seat] += count
    for (s, _), guard in shields.items():
        rest_d[s] += guard
    return rest_a, rest_d, beans


def _lose(counts: list[int], losses: int) -> None:
    """An attack group loses warriors, its members in proportion (the leader first)."""
    if len(counts) == 1:
        counts[0] -= min(losses, counts[0])
        return
    for i, lost in enumerate(share_losses(counts, losses)):
        counts[i] -= lost


class _Table:
    """What the seat sees, decoded once per decision (rows relative, row 0 = us)."""

    def __init__(self, v: dict[str, np.ndarray]):
        self.v = v
        self.n = int(v["seat_present"].sum())
        n = self.n

        def counts(name):
            return [int(round(x * COUNT_SCALE)) for x in v[name][:n]]

        self.atk = counts("attack")
        self.dfn = counts("defence")
        self.beans = counts("beans")
        self.busted = [bool(x) for x in v["busted"][:n]]
        self.start = int(np.argmax(v["starting_leader"]))
        self.final = bool(v["game"][1])
        self.split_spoils = bool(v["game"][3])
        self.pool_warriors, self.pool_beans = (int(round(x * COUNT_SCALE)) for x in v["pool"])
        self.decision = int(np.argmax(v["decision"]))

    def army(self, row: int) -> int:
        return self.atk[row] + self.dfn[row]


class _WarModel:
    """Expected worth of our orders in the coming war, from public counts."""

    def __init__(self, table: _Table, cache: dict):
        n = table.n
        self.n = n
        if n <= NEAR_SEATS - 1:
            self.rows = list(range(n))
        else:
            self.rows = [0, 1, 2, n - 2, n - 1]  # us, left, beyond it, beyond right, right
        self.m = len(self.rows)
        self.near = [(r - table.start) % n for r in self.rows]
        self.busted = [table.busted[r] for r in self.rows]
        self.final = table.final
        self.split_spoils = table.split_spoils
        self.others_far = [table.beans[r] for r in range(n) if r not in self.rows]
        self.context = (n, table.start, self.final, self.split_spoils, tuple(table.busted))
        self.cache = cache
        self.richest = 1
        self.before = (0, 0, 0.0, 0)

    def _neighbour_options(self, local: int, facing_side: int):
        if self.busted[local]:
            return [(NO_CARDS, 1.0)]
        out = []
        for toward, away, p in CLASSES[facing_side]:
            pair = [0, 0]
            pair[facing_side] = toward
            pair[1 - facing_side] = away
            out.append((tuple(pair), p))
        return out

    def values(self, atk, dfn, beans, busted_self: bool = False) -> dict[int, float]:
        """Order id -> expected worth of our candidate orders (key -1 when busted)."""
        key = (self.context, tuple(atk), tuple(dfn), tuple(beans), busted_self)
        if key in self.cache:
            return self.cache[key]
        if len(self.cache) > CACHE_SIZE:
            self.cache.clear()
        rows = self.rows
        counts = ([atk[r] for r in rows], [dfn[r] for r in rows], [beans[r] for r in rows])
        self._start_worth(*counts)
        lefts = self._neighbour_options(LEFT_LOCAL, RIGHT)
        rights = self._neighbour_options(self.m - 1, LEFT)
        scenarios = self._scenarios(lefts, rights, counts[0])
        cards = [NO_CARDS if self.busted[i] else PASSIVE_CARDS for i in range(self.m)]
        if busted_self:
            cards[0] = NO_CARDS
            out = {NO_PLAN: self._expected(cards, counts, scenarios)}
        else:
            out = {}
            base_worths = {}
            for order in TRUCE_ORDERS:
                cards[0] = (ORDERS[order][0], ORDERS[order][2])
                worths = [self._outcome(cards, counts, sc) for sc in scenarios]
                base_worths[order] = worths
                out[order] = sum(sc[2] * w for sc, w in zip(scenarios, worths))
                out[order] += self._pay_income(cards[0], counts[2], lefts, rights)
            for order, (base, join_sides) in JOIN_ORDERS.items():
                cards[0] = (ORDERS[base][0], ORDERS[base][2])
                total = out[base]
                for sc, base_worth in zip(scenarios, base_worths[base]):
                    helper = self._helper(join_sides, sc)
                    if helper is not None:
                        worth = self._outcome(cards, counts, sc, helper)
                        total += sc[2] * (worth - base_worth)
                if total > out[base] + JOIN_MARGIN:  # else the plain truce does as well
                    out[order] = total
        self.cache[key] = out
        return out

    def _scenarios(self, lefts, rights, atk) -> list[tuple]:
        """(left pair, right pair, chance, helpers): every pair of neighbour classes,
        split where a neighbour attacking us may be joined by the leader beyond it."""
        out = []
        for lpair, lp in lefts:
            for rpair, rp in rights:
                branches = [((), lp * rp)]
                for x, pair, other in ((LEFT_LOCAL, lpair, rpair), (self.m - 1, rpair, lpair)):
                    q = self._far_join_chance(x, pair, other, atk)
                    if q:
                        helper = (self._far_seat(x), x)
                        branches = [(h + (helper,), w * q) for h, w in branches] + [
                            (h, w * (1 - q)) for h, w in branches
                        ]
                out.extend((lpair, rpair, w, h) for h, w in branches)
        return out

    def _far_seat(self, x: int) -> int:
        """The leader beyond our neighbour ``x`` (local index)."""
        return LEFT_LOCAL + 1 if x == LEFT_LOCAL else self.m - 2

    def _far_join_chance(self, x: int, pair, other, atk) -> float:
        """Chance that the leader beyond neighbour ``x`` joins x's attack on us."""
        toward_us = RIGHT if x == LEFT_LOCAL else LEFT  # x's side that faces us
        if pair is NO_CARDS or pair[toward_us] != SPEAR or pair[1 - toward_us] != HAND:
            return 0.0
        far = self._far_seat(x)
        if self.busted[far] or atk[far] == 0:
            return 0.0
        if self.m == NEIGHBOURS_ONLY:  # the leader beyond is our other neighbour
            ready = other is not NO_CARDS and other[toward_us] == HAND and SPEAR not in other
            return JOIN_PER_HAND if ready else 0.0
        return FAR_JOIN_CHANCE

    def _helper(self, join_sides, scenario) -> tuple[int, int] | None:
        """Where our join offer sends our Attack warriors in this scenario, if anywhere."""
        for side in join_sides:  # the left path is tried first
            local = LEFT_LOCAL if side == LEFT else self.m - 1
            pair = scenario[0] if side == LEFT else scenario[1]
            if pair is not NO_CARDS and pair[1 - side] == HAND and pair[side] == SPEAR:
                return (0, local)
        return None

    def _outcome(self, cards, counts, scenario, helper=None) -> float:
        cards[LEFT_LOCAL], cards[self.m - 1] = scenario[0], scenario[1]
        helpers = scenario[3] if helper is None else scenario[3] + (helper,)
        la, ld, lb = counts
        na, nd, nb = local_war(cards, la, ld, lb, self.near, helpers, self.split_spoils)
        return self._worth(na, nd, nb)

    def _expected(self, cards, counts, scenarios) -> float:
        return sum(sc[2] * self._outcome(cards, counts, sc) for sc in scenarios)

    def best(self, atk, dfn, beans) -> float:
        return max(self.values(atk, dfn, beans).values())

    def _pay_income(self, pair, lb, lefts, rights) -> float:
        """Beans the neighbours' pay offers are expected to send through our Hands."""
        income = 0.0
        for side, local, options in ((LEFT, LEFT_LOCAL, lefts), (RIGHT, self.m - 1, rights)):
            if pair[side] != HAND:
                continue
            facing = 1 - side
            hand = sum(p for c, p in options if c is not NO_CARDS and c[facing] == HAND)
            pay = sum(
                PAY_SHARE[offer] * min(amount, lb[local]) for offer, amount in OFFER_PAYMENT.items()
            )
            rival_share = min(lb[local], self.richest) / self.richest
            income += hand * pay * (BEAN_VALUE + RIVAL_WEIGHT * rival_share)
        return income

    def _start_worth(self, la, ld, lb) -> None:
        """Fix the terms every outcome of this evaluation is compared with."""
        self.richest = max([1, *lb[1:], *self.others_far])
        self.before = (lb[0], la[0] + ld[0], self._rivals_worth(lb), sum(la[1:]) + sum(ld[1:]))

    def _rivals_worth(self, beans) -> float:
        """What the local rivals' beans count against us: a bean counts in proportion to
        its holder's wealth up to the richest rival's (then fully), so a bean matters
        more in rich hands and a poor rival's big gain is charged as it grows."""
        richest = self.richest
        total = 0.0
        for b in beans[1:]:
            total += b * b / (2 * richest) if b <= richest else b - richest / 2
        return RIVAL_WEIGHT * total

    def _worth(self, na, nd, nb) -> float:
        beans, army, rivals, rival_army = self.before
        if self.final:
            return self._final_worth(na, nd, nb)
        return (
            BEAN_VALUE * (nb[0] - beans)
            + WARRIOR_VALUE * (na[0] + nd[0] - army)
            - (self._rivals_worth(nb) - rivals)
            - KILL_VALUE * (sum(na[1:]) + sum(nd[1:]) - rival_army)
        )

    def _final_worth(self, na, nd, nb) -> float:
        """Final round: our bean change, plus the win if we end with the most beans."""
        beans, army, _, _ = self.before
        worth = BEAN_VALUE * (nb[0] - beans) + FINAL_WARRIOR_VALUE * (na[0] + nd[0] - army)
        if nb[0] > max(nb[1:] + self.others_far):
            worth += WIN_VALUE
        return worth


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


class GreedyOtontin(Agent):
    """The Otontin heuristic (see the module docstring)."""

    spec = "greedy"

    def __init__(self) -> None:
        super().__init__()
        self._war_cache: dict[tuple, dict[int, float]] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._war_cache = {}

    def act(self, observation: dict[str, np.ndarray]) -> int:
        v = LAYOUT.views(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        table = _Table(v)
        model = _WarModel(table, self._war_cache)
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
        return self.choose_best(values)

    # ------------------------------------------------------------- strategy
    def _commit_values(self, table: _Table, model: _WarModel) -> dict[int, float]:
        worth = model.values(table.atk, table.dfn, table.beans)
        return {COMMIT[order]: value for order, value in worth.items()}

    def _declare_values(self, table: _Table, model: _WarModel) -> dict[int, float]:
        worth = model.values(table.atk, table.dfn, table.beans)
        best = max(worth.values())
        plans = [order for order, value in worth.items() if value >= best - TIE_TOLERANCE]
        return {DECLARE[_masked(order)]: 0.0 for order in plans}

    # ------------------------------------------------------------- campaign
    def _campaign_values(self, table: _Table, model: _WarModel, legal) -> dict[int, float]:
        v = table.v
        rolled = [int(round(x * COUNT_SCALE)) for x in v["rolled"]]
        paid_w, paid_b = (int(round(x * COUNT_SCALE)) for x in v["payable"])
        warrior_value = FINAL_WARRIOR_VALUE if table.final else WARRIOR_VALUE
        values: dict[int, float] = {}
        for card in (ATTACK_CARD, DEFENCE_CARD):
            if STOP[card] in legal:
                atk, dfn = list(table.atk), list(table.dfn)
                (atk if card == ATTACK_CARD else dfn)[0] += paid_w
                values[STOP[card]] = (
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
        v = table.v
        bag = [int(round(x * COUNT_SCALE)) for x in v["bag"]]
        if not any(bag):
            bag = [int(round(x * COUNT_SCALE)) for x in v["priests_aside"]]
        shares = tuple(tuple(float(x) for x in row) for row in v["dice_faces"])
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

    def _theft_costs(self, table: _Table, model: _WarModel) -> dict[int, float]:
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
    def _steal_values(self, table: _Table, model: _WarModel, legal) -> dict[int, float]:
        v = table.v
        k = int(round(float(v["theft"][0]) * COUNT_SCALE))
        payer = int(np.argmax(v["campaign_leader"]))
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

    def _priority_values(self, table: _Table, model: _WarModel) -> dict[int, float]:
        v = table.v
        k = int(round(float(v["theft"][0]) * COUNT_SCALE))
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
            values[PRIORITY[side]] = model.best(atk, dfn, table.beans)
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
