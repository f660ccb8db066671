"""The war model of greedy Otontin: the coming war on the local ring, in expectation.

The local ring is us (local seat 0), our left neighbour (1), our right neighbour (the
last local seat) and, from five players on, the leader beyond each of them. The
leaders beyond stand still (no Spear, no Shield); each neighbour commits any of the 47
orders with equal chance, grouped by its card toward us and its card away; an attacker
may be joined by the leader beyond it. An outcome is worth our beans, our warriors kept
and the beans rivals lose (counted by their wealth); in the final round, mostly whether
we end first.

The rules of the war are the rules' own functions (``envs/otontin/war.py``): the pacts,
where a join offer sends its warriors, what a pay offer pays, the deployment, the battle
order and the battles. What is greedy's own is the model: the scenarios and their
chances, and the worth of an outcome (:class:`Weights`).

Everything that does not depend on the warrior and bean counts (the scenarios, their
chances, who attacks and shields whom in each, where a join offer sends our warriors)
is built once per ring shape and cached. Which seats have Attack and Defence warriors
then says which Spears, Shields and helpers can matter at all; the wars that agree on
the rest end alike, so an evaluation plays each distinct one once (a *plan*, cached
per count pattern) and sums the scenarios' worths exactly as if it played them all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from operator import mul

from otrio.envs.otontin.data import HAND, JOIN_ATTACK, NO_OFFER, OFFER_PAYMENT, SPEAR, TRUCE
from otrio.envs.otontin.orders import LEFT, ORDERS, RIGHT
from otrio.envs.otontin.war import (
    NO_CARDS,
    SIDES,
    battle_ranks,
    deployment,
    forms_pact,
    join,
    may_join,
    pacts_of,
    payment,
    resolve_battles,
)


# ------------------------------------------------------------------ value weights
@dataclass(frozen=True)
class Weights:
    """What greedy Otontin counts an outcome worth: its tunable numbers (vary them by
    ``GreedyOtontin(weights=Weights(warrior_value=0.5))``)."""

    bean_value: float = 1.0  # a bean in hand (the score)
    warrior_value: float = 0.35  # a warrior kept: future attacks, defence and the tie-break
    final_warrior_value: float = 0.05  # in the final round a warrior only breaks ties
    rival_weight: float = 1.0  # a bean the richest rival loses, against one we gain
    kill_value: float = 0.05  # a neighbour's warrior killed (a weaker threat next round)
    win_value: float = 10.0  # final round: ending with the most beans
    theft_gain_value: float = 0.1  # a warrior a saboteur hands a neighbour (a stronger threat)

    def warrior(self, final_round: bool) -> float:
        """A warrior kept, in this round."""
        return self.final_warrior_value if final_round else self.warrior_value


WEIGHTS = Weights()
JOIN_MARGIN = 1e-6  # a join offer must beat the plain truce by more than rounding
CACHE_SIZE = 512  # war evaluations kept between decisions (cleared when full)
PLAN_CACHE_SIZE = 2048  # war plans kept (about 9 kB each), by ring shape and count pattern

# ------------------------------------------------------------------ the local ring
NEAR_SEATS = 5  # us, both neighbours and both far neighbours (fewer at 3-4 players)
LEFT_LOCAL = 1  # our left neighbour on the local ring (the right one is the last seat)
NEIGHBOURS_ONLY = 3  # a local ring of us and our two neighbours (3 players)
NO_PLAN = -1  # the key of the busted war (we lay no order)


def _candidate_orders() -> tuple[list[int], dict[int, int]]:
    """Our orders: every card pair with truce Hands, and, without a Spear, the same with
    join_attack on one or both Hands (order -> its truce order)."""
    truce = [
        i for i, (_, left_offer, _, right_offer) in enumerate(ORDERS)
        if left_offer in (NO_OFFER, TRUCE) and right_offer in (NO_OFFER, TRUCE)
    ]  # fmt: skip
    joins = {}
    for i, (left_card, left_offer, right_card, right_offer) in enumerate(ORDERS):
        offers = (left_offer, right_offer)
        if not may_join((left_card, right_card), SPEAR) or JOIN_ATTACK not in offers:
            continue
        if any(o not in (NO_OFFER, TRUCE, JOIN_ATTACK) for o in offers):
            continue
        plain = [TRUCE if o == JOIN_ATTACK else o for o in offers]
        joins[i] = ORDERS.index((left_card, plain[0], right_card, plain[1]))
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
    # the table is symmetric: the left Hands' offers are the right Hands'
    offers = Counter(left_offer for _, left_offer, _, _ in ORDERS if left_offer != NO_OFFER)
    hands = sum(offers.values())
    return {offer: offers[offer] / hands for offer in OFFER_PAYMENT}


CLASSES = {side: _neighbour_classes(side) for side in SIDES}
PAY_SHARE = _expected_pay_per_hand()
# The chance that a Hand of a leader we know only by its cards carries join_attack
# (uniform prior): the leader beyond our neighbour, when that is our other neighbour.
JOIN_PER_HAND = sum(1 for _, left_offer, _, _ in ORDERS if left_offer == JOIN_ATTACK) / sum(
    1 for _, left_offer, _, _ in ORDERS if left_offer != NO_OFFER
)


@cache
def far_join_chance(pair: tuple[int, int], toward_us: int) -> float:
    """The chance (uniform prior over its 47 orders) that the leader beyond our neighbour
    sends its Attack warriors to join that neighbour's attack on us, by the rules' join
    (:func:`otrio.envs.otontin.war.join`): the neighbour lays ``pair``, ``toward_us`` its side
    facing us; the leader beyond has it on one side and a leader who lays nothing on the
    other (from four players on)."""
    # a ring of four: us (0), the neighbour, the leader beyond it, a leader who lays nothing
    neighbour, beyond = (1, 2) if toward_us == RIGHT else (3, 2)
    joins = 0
    for left_card, left_offer, right_card, right_offer in ORDERS:
        cards = [NO_CARDS] * 4
        offers = [NO_CARDS] * 4
        cards[neighbour], offers[neighbour] = pair, (NO_OFFER, NO_OFFER)
        cards[beyond], offers[beyond] = (left_card, right_card), (left_offer, right_offer)
        found = join(cards, offers, pacts_of(cards), beyond, SPEAR, JOIN_ATTACK)
        joins += found is not None and found[0] == neighbour and found[1] == toward_us
    return joins / len(ORDERS)


# -------------------------------------------------------------------- the war
def local_war(cards, attack, defence, beans, near, helpers=(), split_spoils=False):
    """Play a war on a small ring with the rules' battles (:func:`resolve_battles`).

    ``cards[s]`` is ``(left card, right card)`` or None (busted); ``near[s]`` orders
    ties from the Starting Leader. Hands only matter through ``helpers``: each
    ``(seat, leader)`` sends that seat's Attack warriors to join the leader's attack
    (the caller checks the pact and the offer). Pay offers are counted apart. Returns
    the new (attack, defence, beans).
    """
    spears, shields = [], []
    for s, pair in enumerate(cards):
        seat_spears, seat_shields = deployment(s, pair, len(cards))
        spears += seat_spears
        shields += seat_shields
    rank = battle_ranks(attack, defence, beans, near)
    after = resolve_battles(spears, shields, helpers, attack, defence, beans, rank, split_spoils)
    return tuple(list(x) for x in after)


# --------------------------------------------------------- scenarios (count-free)
class _Scenarios:
    """The neighbours' card scenarios of one ring shape, and our orders' wars in each.

    ``chances[i]`` is scenario i's chance; ``truce`` lists ``(order, our pair)`` and
    ``truce_wars`` the order's ``(spears, shields, helpers)`` war in each scenario (see
    :func:`resolve_battles`); ``join_wars`` are the distinct wars our join offers add, and
    ``joins`` lists ``(order, base, [(scenario, join war index)])`` for the scenarios
    where the offer sends our warriors somewhere. ``without_us`` holds each scenario's
    war when we sit out (busted), and ``hands[side]`` the chance that the neighbour on
    our ``side`` makes a pact with a Hand of ours there.
    """

    def __init__(self, m: int, busted: tuple[bool, ...], far_ready: tuple[bool, bool]):
        self.m = m
        self.shape = (m, busted, far_ready)
        right = m - 1
        lefts = self._options(busted[LEFT_LOCAL], RIGHT)
        rights = self._options(busted[right], LEFT)
        scenarios = []  # (left pair, right pair, chance, helpers)
        for left_pair, left_chance in lefts:
            for right_pair, right_chance in rights:
                branches = [((), left_chance * right_chance)]
                for x, pair, other in ((LEFT_LOCAL, left_pair, right_pair),
                                       (right, right_pair, left_pair)):
                    q = self._far_join_chance(x, pair, other, far_ready[x != LEFT_LOCAL])
                    if q:
                        helper = (self._far_seat(x), x)
                        branches = [(h + (helper,), w * q) for h, w in branches] + [
                            (h, w * (1 - q)) for h, w in branches
                        ]
                scenarios.extend((left_pair, right_pair, w, h) for h, w in branches)
        self.chances = [scenario[2] for scenario in scenarios]
        theirs = []  # the neighbours' Spears and Shields in each scenario
        for left_pair, right_pair, _, _ in scenarios:
            left_spears, left_shields = deployment(LEFT_LOCAL, left_pair, m)
            right_spears, right_shields = deployment(right, right_pair, m)
            theirs.append((left_spears + right_spears, left_shields + right_shields))
        self.without_us = [(spears, shields, scenario[3])
                           for (spears, shields), scenario in zip(theirs, scenarios)]
        self.truce = []
        self.truce_wars = []
        ours = {}
        for order in TRUCE_ORDERS:
            pair = (ORDERS[order][0], ORDERS[order][2])
            our_spears, our_shields = ours[order] = deployment(0, pair, m)
            self.truce.append((order, pair))
            self.truce_wars.append(
                [(our_spears + spears, our_shields + shields, scenario[3])
                 for (spears, shields), scenario in zip(theirs, scenarios)]
            )
        self.join_wars: list[tuple] = []
        index: dict[tuple, int] = {}
        self.joins = []
        for order, base in JOIN_ORDERS.items():
            our_spears, our_shields = ours[base]
            entries = []
            for i, scenario in enumerate(scenarios):
                helper = self._helper(order, scenario)
                if helper is None:
                    continue
                key = (base, i, helper)
                if key not in index:
                    index[key] = len(self.join_wars)
                    their_spears, their_shields = theirs[i]
                    self.join_wars.append((our_spears + their_spears,
                                           our_shields + their_shields, scenario[3] + (helper,)))
                entries.append((i, index[key]))
            self.joins.append((order, base, entries))
        self.hands = {}
        for side, options in ((LEFT, lefts), (RIGHT, rights)):
            facing = 1 - side
            self.hands[side] = sum(
                p for c, p in options if c is not NO_CARDS and forms_pact(HAND, c[facing])
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
        if pair is NO_CARDS or pair[toward_us] != SPEAR or not ready:
            return 0.0
        if self.m == NEIGHBOURS_ONLY:  # the leader beyond is our other neighbour
            joins = may_join(other, SPEAR) and forms_pact(pair[1 - toward_us], other[toward_us])
            return JOIN_PER_HAND if joins else 0.0
        return far_join_chance(pair, toward_us)

    def _helper(self, order: int, scenario) -> tuple[int, int] | None:
        """Where our join offer (``order``) sends our Attack warriors in this scenario,
        if anywhere, by the rules' join on the local ring (the leaders beyond lay
        nothing; at three players they are our neighbours)."""
        left_card, left_offer, right_card, right_offer = ORDERS[order]
        cards = [NO_CARDS] * self.m
        cards[0], cards[LEFT_LOCAL], cards[self.m - 1] = (
            (left_card, right_card), scenario[0], scenario[1])
        offers = [(left_offer, right_offer)] + [NO_CARDS] * (self.m - 1)
        found = join(cards, offers, pacts_of(cards), 0, SPEAR, JOIN_ATTACK)
        return None if found is None else (0, found[0])


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
    """The worth of war outcomes against the counts before the war (one evaluation),
    on the local ring (``attack``, ``defence``, ``beans`` by local seat)."""

    def __init__(self, attack, defence, beans, near, split_spoils: bool, final: bool,
                 others_far: list, weights: Weights):
        self.attack, self.defence, self.beans = attack, defence, beans
        self.rank = battle_ranks(attack, defence, beans, near)
        self.split_spoils = split_spoils
        self.final = final
        self.others_far = others_far
        self.weights = weights
        self.richest = max([1, *beans[1:], *others_far])
        self.own_beans = beans[0]
        self.army = attack[0] + defence[0]
        self.rivals = self._rivals_worth(beans)
        self.rival_army = sum(attack[1:]) + sum(defence[1:])

    def _rivals_worth(self, beans) -> float:
        """What the local rivals' beans count against us: a bean counts in proportion to
        its holder's wealth up to the richest rival's (then fully), so a bean matters
        more in rich hands and a poor rival's big gain is charged as it grows."""
        richest = self.richest
        total = 0.0
        for b in beans[1:]:
            total += b * b / (2 * richest) if b <= richest else b - richest / 2
        return self.weights.rival_weight * total

    def of_war(self, spears, shields, helpers) -> float:
        """The worth of one war's outcome."""
        w = self.weights
        attack, defence, beans = resolve_battles(
            spears, shields, helpers, self.attack, self.defence, self.beans, self.rank,
            self.split_spoils,
        )
        if self.final:
            worth = w.bean_value * (beans[0] - self.own_beans) + w.final_warrior_value * (
                attack[0] + defence[0] - self.army
            )
            if beans[0] > max(beans[1:] + self.others_far):
                worth += w.win_value
            return worth
        # unchanged beans count exactly as before: no need to weigh them again
        rivals = 0.0 if beans is self.beans else self._rivals_worth(beans) - self.rivals
        return (
            w.bean_value * (beans[0] - self.own_beans)
            + w.warrior_value * (attack[0] + defence[0] - self.army)
            - rivals
            - w.kill_value * (sum(attack[1:]) + sum(defence[1:]) - self.rival_army)
        )

    def pay_income(self, side: int, hand: float) -> float:
        """Beans the neighbour on ``side`` is expected to pay through our Hand there
        (``hand``: the chance of the pact), each pay offer paying what the rules'
        :func:`~otrio.envs.otontin.war.payment` takes from its beans."""
        local = LEFT_LOCAL if side == LEFT else len(self.beans) - 1
        budget = self.beans[local]
        pay = sum(PAY_SHARE[offer] * payment(offer, budget) for offer in OFFER_PAYMENT)
        rival_share = min(budget, self.richest) / self.richest
        return hand * pay * (self.weights.bean_value + self.weights.rival_weight * rival_share)


# -------------------------------------------------------------------- the model
class WarModel:
    """Expected worth of our orders in the coming war, from public counts.

    ``n`` seats (row 0 = us), ``start`` the Starting Leader's row, ``busted`` per row,
    ``beans`` per row (for the leaders beyond the local ring); ``cache`` is shared
    between decisions (a pure function of its keys, for one set of ``weights``).
    """

    def __init__(self, n, start, final, split_spoils, busted, beans, cache: dict,
                 weights: Weights = WEIGHTS):
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
        self.weights = weights

    def values(self, attack, defence, beans, busted_self: bool = False) -> dict[int, float]:
        """Order id -> expected worth of our candidate orders (key -1 when busted)."""
        key = (self.context, tuple(attack), tuple(defence), tuple(beans), busted_self)
        out = self.cache.get(key)
        if out is not None:
            return out
        if len(self.cache) > CACHE_SIZE:
            self.cache.clear()
        rows = self.rows
        local_attack = [attack[r] for r in rows]
        local_defence = [defence[r] for r in rows]
        local_beans = [beans[r] for r in rows]
        far_ready = tuple(
            not self.busted[far] and local_attack[far] != 0 for far in (LEFT_LOCAL + 1, self.m - 2)
        )
        table = scenarios_for(self.m, self.busted, far_ready)
        plan = table.plan(tuple(a > 0 for a in local_attack), tuple(d > 0 for d in local_defence),
                          busted_self)
        worth = _Worth(local_attack, local_defence, local_beans, self.near, self.split_spoils,
                       self.final, self.others_far, self.weights)
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

    def best(self, attack, defence, beans) -> float:
        """The worth of our best order."""
        return max(self.values(attack, defence, beans).values())
