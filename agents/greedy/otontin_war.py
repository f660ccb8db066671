"""The war model of greedy Otontin: the coming war on the local ring, in expectation.

The local ring is us (local seat 0), our left neighbour (1), our right neighbour (the
last local seat) and, from five players on, the leader beyond each of them. The
leaders beyond stand still (no Spear, no Shield); each neighbour commits any of the 47
orders with equal chance, grouped by its card toward us and its card away; an attacker
may be joined by the leader beyond it. An outcome is worth our beans, our warriors kept
and the beans rivals lose (counted by their wealth); in the final round, mostly whether
we end first.

Everything that does not depend on the warrior and bean counts (the scenarios, their
chances, who attacks and shields whom in each, where a join offer sends our warriors)
is built once per ring shape and cached. Which seats have Attack and Defence warriors
then says which Spears, Shields and helpers can matter at all; the wars that agree on
the rest end alike, so an evaluation plays each distinct one once (a *plan*, cached
per count pattern) and sums the scenarios' worths exactly as if it played them all.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from operator import mul

from envs.otontin.data import (
    HAND,
    JOIN_ATTACK,
    NO_OFFER,
    OFFER_PAYMENT,
    SPEAR,
    TRUCE,
)
from envs.otontin.orders import LEFT, ORDERS, RIGHT
from envs.otontin.war import SIDES, battle_ranks, deployment, resolve_battles

# ------------------------------------------------------------------ value weights
BEAN_VALUE = 1.0  # a bean in hand (the score)
WARRIOR_VALUE = 0.35  # a warrior kept: future attacks, defence and the tie-break
FINAL_WARRIOR_VALUE = 0.05  # in the final round a warrior only breaks ties
RIVAL_WEIGHT = 1.0  # a bean the richest rival loses, against one we gain (poorer: less)
KILL_VALUE = 0.05  # a neighbour's warrior killed (a weaker threat next round)
WIN_VALUE = 10.0  # final round: ending with the most beans
JOIN_MARGIN = 1e-6  # a join offer must beat the plain truce by more than rounding
CACHE_SIZE = 512  # war evaluations kept between decisions (cleared when full)
PLAN_CACHE_SIZE = 2048  # war plans kept (about 9 kB each), by ring shape and count pattern

# ------------------------------------------------------------------ the local ring
NEAR_SEATS = 5  # us, both neighbours and both far neighbours (fewer at 3-4 players)
NO_CARDS = None  # a busted leader lays no cards
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
    """Play a war on a small ring with the rules' battles (:func:`resolve_battles`).

    ``cards[s]`` is ``(left card, right card)`` or None (busted); ``near[s]`` orders
    ties from the Starting Leader. Hands only matter through ``helpers``: each
    ``(seat, leader)`` sends that seat's Attack warriors to join the leader's attack
    (the caller checks the pact and the offer). Pay offers are counted apart. Returns
    the new (atk, dfn, beans).
    """
    spears, shields = [], []
    for s, pair in enumerate(cards):
        sp, sh = deployment(s, pair, len(cards))
        spears += sp
        shields += sh
    rank = battle_ranks(atk, dfn, beans, near)
    na, nd, nb = resolve_battles(spears, shields, helpers, atk, dfn, beans, rank, split_spoils)
    return list(na), list(nd), list(nb)


# --------------------------------------------------------- scenarios (count-free)
class _Scenarios:
    """The neighbours' card scenarios of one ring shape, and our orders' wars in each.

    ``chances[i]`` is scenario i's chance; ``truce`` lists ``(order, our pair)`` and
    ``truce_wars`` the order's ``(spears, shields, helpers)`` war in each scenario (see
    :func:`resolve_battles`); ``join_wars`` are the distinct wars our join offers add, and
    ``joins`` lists ``(order, base, [(scenario, join war index)])`` for the scenarios
    where the offer sends our warriors somewhere. ``without_us`` holds each scenario's
    war when we sit out (busted), and ``hands[side]`` the chance that the neighbour on
    our ``side`` shows us a Hand.
    """

    def __init__(self, m: int, busted: tuple[bool, ...], far_ready: tuple[bool, bool]):
        self.m = m
        self.shape = (m, busted, far_ready)
        right = m - 1
        lefts = self._options(busted[LEFT_LOCAL], RIGHT)
        rights = self._options(busted[right], LEFT)
        scenarios = []  # (left pair, right pair, chance, helpers)
        for lpair, lp in lefts:
            for rpair, rp in rights:
                branches = [((), lp * rp)]
                for x, pair, other in ((LEFT_LOCAL, lpair, rpair), (right, rpair, lpair)):
                    q = self._far_join_chance(x, pair, other, far_ready[x != LEFT_LOCAL])
                    if q:
                        helper = (self._far_seat(x), x)
                        branches = [(h + (helper,), w * q) for h, w in branches] + [
                            (h, w * (1 - q)) for h, w in branches
                        ]
                scenarios.extend((lpair, rpair, w, h) for h, w in branches)
        self.chances = [sc[2] for sc in scenarios]
        theirs = []  # the neighbours' Spears and Shields in each scenario
        for lpair, rpair, _, _ in scenarios:
            lsp, lsh = deployment(LEFT_LOCAL, lpair, m)
            rsp, rsh = deployment(right, rpair, m)
            theirs.append((lsp + rsp, lsh + rsh))
        self.without_us = [(tsp, tsh, sc[3]) for (tsp, tsh), sc in zip(theirs, scenarios)]
        self.truce = []
        self.truce_wars = []
        ours = {}
        for order in TRUCE_ORDERS:
            pair = (ORDERS[order][0], ORDERS[order][2])
            sp, sh = ours[order] = deployment(0, pair, m)
            self.truce.append((order, pair))
            self.truce_wars.append(
                [(sp + tsp, sh + tsh, sc[3]) for (tsp, tsh), sc in zip(theirs, scenarios)]
            )
        self.join_wars: list[tuple] = []
        index: dict[tuple, int] = {}
        self.joins = []
        for order, (base, join_sides) in JOIN_ORDERS.items():
            sp, sh = ours[base]
            entries = []
            for i, sc in enumerate(scenarios):
                helper = self._helper(join_sides, sc)
                if helper is None:
                    continue
                key = (base, i, helper)
                if key not in index:
                    index[key] = len(self.join_wars)
                    tsp, tsh = theirs[i]
                    self.join_wars.append((sp + tsp, sh + tsh, sc[3] + (helper,)))
                entries.append((i, index[key]))
            self.joins.append((order, base, entries))
        self.hands = {}
        for side, options in ((LEFT, lefts), (RIGHT, rights)):
            facing = 1 - side
            self.hands[side] = sum(
                p for c, p in options if c is not NO_CARDS and c[facing] == HAND
            )

    def plan(self, armed: tuple[bool, ...], guarded: tuple[bool, ...], busted_self: bool):
        """The distinct wars of an evaluation where local seat s has Attack warriors
        when ``armed[s]`` and Defence warriors when ``guarded[s]`` (we sit out when
        ``busted_self``): blocks are the truce orders' wars and the join wars, or the
        wars without us."""
        key = (self.shape, armed, guarded, busted_self)
        plan = _PLANS.get(key)
        if plan is None:
            if len(_PLANS) >= PLAN_CACHE_SIZE:
                _PLANS.clear()
            blocks = [self.without_us] if busted_self else [*self.truce_wars, self.join_wars]
            plan = _PLANS[key] = _Plan(blocks, armed, guarded)
        return plan

    @staticmethod
    def _options(busted: bool, facing_side: int):
        """A neighbour's (pair, chance) options; ``facing_side`` is its side toward us."""
        if busted:
            return [(NO_CARDS, 1.0)]
        out = []
        for toward, away, p in CLASSES[facing_side]:
            pair = [0, 0]
            pair[facing_side] = toward
            pair[1 - facing_side] = away
            out.append((tuple(pair), p))
        return out

    def _far_seat(self, x: int) -> int:
        """The leader beyond our neighbour ``x`` (local index)."""
        return LEFT_LOCAL + 1 if x == LEFT_LOCAL else self.m - 2

    def _far_join_chance(self, x: int, pair, other, ready: bool) -> float:
        """Chance that the leader beyond neighbour ``x`` joins x's attack on us
        (``ready``: that leader is not busted and has Attack warriors)."""
        toward_us = RIGHT if x == LEFT_LOCAL else LEFT  # x's side that faces us
        if pair is NO_CARDS or pair[toward_us] != SPEAR or pair[1 - toward_us] != HAND:
            return 0.0
        if not ready:
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


class _Plan:
    """The distinct wars of some blocks of wars, once the counts say which Spears,
    Shields and helpers can matter (:func:`effective_war`): ``wars`` lists each distinct
    effective war once, ``blocks[k][j]`` the index in ``wars`` of block k's j-th war."""

    def __init__(self, blocks: list[list[tuple]], armed, guarded):
        index: dict[tuple, int] = {}
        self.wars: list[tuple] = []
        self.blocks: list[list[int]] = []
        for block in blocks:
            ids = []
            for war in block:
                key = effective_war(war, armed, guarded)
                i = index.get(key)
                if i is None:
                    i = index[key] = len(self.wars)
                    self.wars.append(key)
                ids.append(i)
            self.blocks.append(ids)


def effective_war(war: tuple, armed, guarded) -> tuple:
    """The war without the pieces that cannot change its outcome, given which seats
    have Attack (``armed``) and Defence (``guarded``) warriors; wars alike in the
    rest end alike (:func:`resolve_battles`):

    * a helper without Attack warriors stays home, as does one whose leader lays no Spear;
    * a Spear with no warriors behind it (none of its own, no helper) never fights, and
      as a counter-attack it is skipped;
    * a Shield without Defence warriors never fights, and one of a seat nobody attacks
      only keeps its warriors from a city no battle reaches.
    """
    spears, shields, helpers = war
    leaders = {s for s, _, _ in spears}
    helpers = tuple(h for h in helpers if armed[h[0]] and h[1] in leaders)
    joined = {leader for _, leader in helpers}
    spears = tuple(sp for sp in spears if armed[sp[0]] or sp[0] in joined)
    targets = {target for _, target, _ in spears}
    shields = tuple(sh for sh in shields if guarded[sh[0]] and sh[0] in targets)
    return spears, shields, helpers


_PLANS: dict[tuple, _Plan] = {}  # (ring shape, armed, guarded, busted_self) -> plan


@cache
def scenarios_for(m: int, busted: tuple[bool, ...], far_ready: tuple[bool, bool]) -> _Scenarios:
    """The (cached) scenarios of a ring of ``m`` local seats."""
    return _Scenarios(m, busted, far_ready)


# ------------------------------------------------------------------ the worth
class _Worth:
    """The worth of war outcomes against the counts before the war (one evaluation)."""

    def __init__(self, la, ld, lb, near, split_spoils: bool, final: bool, others_far: list):
        self.la, self.ld, self.lb = la, ld, lb
        self.rank = battle_ranks(la, ld, lb, near)
        self.split_spoils = split_spoils
        self.final = final
        self.others_far = others_far
        self.richest = max([1, *lb[1:], *others_far])
        self.beans = lb[0]
        self.army = la[0] + ld[0]
        self.rivals = self._rivals_worth(lb)
        self.rival_army = sum(la[1:]) + sum(ld[1:])

    def _rivals_worth(self, beans) -> float:
        """What the local rivals' beans count against us: a bean counts in proportion to
        its holder's wealth up to the richest rival's (then fully), so a bean matters
        more in rich hands and a poor rival's big gain is charged as it grows."""
        richest = self.richest
        total = 0.0
        for b in beans[1:]:
            total += b * b / (2 * richest) if b <= richest else b - richest / 2
        return RIVAL_WEIGHT * total

    def of_war(self, spears, shields, helpers) -> float:
        """The worth of one war's outcome."""
        lb = self.lb
        na, nd, nb = resolve_battles(
            spears, shields, helpers, self.la, self.ld, lb, self.rank, self.split_spoils
        )
        if self.final:
            worth = BEAN_VALUE * (nb[0] - self.beans) + FINAL_WARRIOR_VALUE * (
                na[0] + nd[0] - self.army
            )
            if nb[0] > max(nb[1:] + self.others_far):
                worth += WIN_VALUE
            return worth
        # unchanged beans count exactly as before: no need to weigh them again
        rivals = 0.0 if nb is lb else self._rivals_worth(nb) - self.rivals
        return (
            BEAN_VALUE * (nb[0] - self.beans)
            + WARRIOR_VALUE * (na[0] + nd[0] - self.army)
            - rivals
            - KILL_VALUE * (sum(na[1:]) + sum(nd[1:]) - self.rival_army)
        )

    def pay_income(self, side: int, hand: float) -> float:
        """Beans the neighbour on ``side`` is expected to pay through our Hand there."""
        local = LEFT_LOCAL if side == LEFT else len(self.lb) - 1
        lb = self.lb
        pay = sum(PAY_SHARE[offer] * min(amount, lb[local]) for offer, amount in OFFER_PAYMENT.items())
        rival_share = min(lb[local], self.richest) / self.richest
        return hand * pay * (BEAN_VALUE + RIVAL_WEIGHT * rival_share)


# -------------------------------------------------------------------- the model
class WarModel:
    """Expected worth of our orders in the coming war, from public counts.

    ``n`` seats (row 0 = us), ``start`` the Starting Leader's row, ``busted`` per row,
    ``beans`` per row (for the leaders beyond the local ring); ``cache`` is shared
    between decisions (a pure function of its keys).
    """

    def __init__(self, n, start, final, split_spoils, busted, beans, cache: dict):
        self.n = n
        if n <= NEAR_SEATS - 1:
            self.rows = list(range(n))
        else:
            self.rows = [0, 1, 2, n - 2, n - 1]  # us, left, beyond it, beyond right, right
        self.m = len(self.rows)
        self.near = [(r - start) % n for r in self.rows]
        self.busted = tuple(busted[r] for r in self.rows)
        self.final = final
        self.split_spoils = split_spoils
        self.others_far = [beans[r] for r in range(n) if r not in self.rows]
        self.context = (n, start, final, split_spoils, tuple(busted))
        self.cache = cache

    def values(self, atk, dfn, beans, busted_self: bool = False) -> dict[int, float]:
        """Order id -> expected worth of our candidate orders (key -1 when busted)."""
        key = (self.context, tuple(atk), tuple(dfn), tuple(beans), busted_self)
        out = self.cache.get(key)
        if out is not None:
            return out
        if len(self.cache) > CACHE_SIZE:
            self.cache.clear()
        rows = self.rows
        la, ld, lb = [atk[r] for r in rows], [dfn[r] for r in rows], [beans[r] for r in rows]
        far_ready = tuple(
            not self.busted[far] and la[far] != 0 for far in (LEFT_LOCAL + 1, self.m - 2)
        )
        table = scenarios_for(self.m, self.busted, far_ready)
        plan = table.plan(tuple(a > 0 for a in la), tuple(d > 0 for d in ld), busted_self)
        worth = _Worth(la, ld, lb, self.near, self.split_spoils, self.final, self.others_far)
        of_war = worth.of_war
        played = [of_war(*war) for war in plan.wars]
        chances = table.chances
        if busted_self:  # the war we sit out (no cards of ours)
            out = {NO_PLAN: sum(map(mul, chances, map(played.__getitem__, plan.blocks[0])))}
        else:
            out = {}
            base_worths = {}
            income = {side: worth.pay_income(side, table.hands[side]) for side in SIDES}
            for (order, pair), ids in zip(table.truce, plan.blocks):
                worths = list(map(played.__getitem__, ids))
                base_worths[order] = worths
                out[order] = sum(map(mul, chances, worths))  # the expected worth
                pay = 0.0
                for side in SIDES:
                    if pair[side] == HAND:
                        pay += income[side]
                out[order] += pay
            join_ids = plan.blocks[-1]
            for order, base, entries in table.joins:
                total = out[base]
                base_worth = base_worths[base]
                for i, war in entries:
                    total += chances[i] * (played[join_ids[war]] - base_worth[i])
                if total > out[base] + JOIN_MARGIN:  # else the plain truce does as well
                    out[order] = total
        self.cache[key] = out
        return out

    def best(self, atk, dfn, beans) -> float:
        """The worth of our best order."""
        return max(self.values(atk, dfn, beans).values())
