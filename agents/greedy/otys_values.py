"""The valuation core of greedy Otys, in PP: contract potential, diver effects,
sponsors and turn plans (the heuristic is described in :mod:`otrio.agents.greedy.otys`).

A :class:`Valuer` is built per decision from the seat's view (``otrio.envs.otys.view``). What
a diver or sponsor may do, what it costs and what the store pays are the rules'
functions (``otrio.envs.otys.effects``), asked on the view's values and the config's tables,
with greedy's own hypotheticals (another column, budget or side). Values that are pure
functions of some part of the view are kept between decisions: the level potentials
per set of contracts and their worth, the effect and plan values per *scene* (every
field that :meth:`Valuer.effects` and what it calls read).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from otrio.envs.otys import actions as A
from otrio.envs.otys import data as D
from otrio.envs.otys.effects import (
    SPONSOR_CREDIT_TILE,
    SPONSOR_DOUBLE_TILE,
    SPONSOR_FLIP_TILE,
    SPONSOR_KEY_TILE,
    Site,
    buy_price,
    diver_cost,
    diver_options,
    expert_bonus_ok,
    free_space,
    move_options,
    moved,
    sale_payout,
    sponsor_ok,
)
from otrio.envs.otys.view import NO_TOKEN, SeatView

NUM_COLOURS, NUM_LEVELS, NUM_SLOTS = D.NUM_COLOURS, D.NUM_LEVELS, D.NUM_SLOTS
LEVEL_SLOTS = tuple(D.level_slot(level) for level in range(NUM_LEVELS))  # column slot of each level


@dataclass(frozen=True)
class Weights:
    """Greedy's tunable numbers, in PP (vary one with ``dataclasses.replace``)."""

    credit: float = 0.35  # a credit: two buy Sponsor #4's PP and an upgrade, or pay a diver
    battery: float = 0.3  # a battery: a propeller move or an oxygen reserve
    neutral_key: float = 0.25  # a neutral X key held: one turn on any level
    own_x_use: float = 0.1  # spending the own X key instead of a numbered one
    key_return: float = 0.15  # an own key back from the Hacker track
    deficit_decay: float = 0.7  # a contract's worth per resource still missing
    public_risk: float = 0.85  # a public contract not yet completable may be taken first
    second_contract: float = 0.3  # share of a level's second-best contract in its potential
    resource_tie: float = 0.01  # a resource on the board (the end-of-game tie-break)
    complete_priority: float = 0.3  # completing now rather than later (free action)
    draw_value: float = 0.6  # drawing 4 contracts and keeping 1
    draw_full_hand: int = 4  # hand size from which a draw is worth half as much
    keep_pp_share: float = 0.05  # a kept card's PP, beyond what it adds now (tie-break)
    permanent_uses: float = 0.5  # contracts expected at a reward token's level
    second_use: float = 0.8  # Sponsor #2 basic: another diver's second use, against the first
    hacker_value: float = 0.35  # an Engineer improvement of the Hacker (keys come back sooner)
    mechanic_value: float = 0.1  # of the Mechanic (longer propeller moves)
    column_weight: float = 0.3  # the next turns' diver options, against this turn's
    upgrade_value: tuple[float, ...] = (  # per diver type: MPFT Experts, Trader, Spy, Engineer, Explorer
        0.3, 0.5, 0.4, 0.3, 1.0, 0.3, 0.2, 0.4,
    )  # fmt: skip
    fade_rounds: int = 4  # future values fade over the last rounds before the round cap


DEFERRED = -1e9  # an action left for a later decision of the same turn
FUSS = 1e-3  # a propeller or oxygen must gain something even when batteries no longer count
POTENTIAL_CACHES = 64  # level-potential caches kept between decisions
SCENE_CACHES = 64  # scenes whose effect values are kept between decisions


def _bounded_lookup(cache: dict, key, limit: int, build):
    """``cache[key]``, built by ``build()`` when missing; the cache is emptied past ``limit``."""
    entry = cache.get(key)
    if entry is None:
        if len(cache) > limit:
            cache.clear()
        entry = cache[key] = build()
    return entry


class Valuer:
    """What the seat knows (a :class:`SeatView`, read into the shapes the values use)
    and what it is worth, in PP."""

    def __init__(self, view: SeatView, weights: Weights, potentials: dict | None = None,
                 scenes: dict | None = None):
        """``potentials``: a store of level-potential caches shared between decisions,
        one per set of contracts and their worth (pure values of those, so reusable);
        ``scenes``: likewise for the diver effects' values, one per scene (all that
        ``effects`` reads)."""
        self.view, self.w = view, weights
        self.tables = t = view.tables
        me = view.players[0]
        self.phase = view.phase
        self.n = view.num_players
        self.divers, self.upgraded = list(me.divers), list(me.upgraded)
        self.resources = me.resources  # per level, per colour
        self.cap = t.capacity
        self.spaces = [free_space(cap, counts) for cap, counts in zip(t.capacity, me.resources)]
        self.credits, self.batteries = me.credits, me.batteries
        self.reach = view.reach(0)
        self.mechanic, self.hacker = me.mechanic, me.hacker
        self.own_on_track = any(me.keys_track)
        self.hand_size = me.hand_size
        # permanent effect at each level: None, BACK_CREDITS or BACK_PP
        self.back = [None if back == NO_TOKEN else back for back in me.backs]
        self.store = view.store
        self.sponsors, self.advanced = list(view.sponsors), view.advanced
        self.level = view.level
        self.free_costs = view.free_costs
        w = weights
        self.fut = 0.0 if view.end_triggered else min(1.0, (t.round_cap + 1 - view.round) / w.fade_rounds)
        self.credit = w.credit * self.fut
        self.battery = w.battery * self.fut
        # the contracts, their worth and the level potentials follow from these alone
        context = (t, view.public, view.hand, tuple(self.back), self.fut)
        self.public_slots, self.contracts, self._worth, self._level_cache = _bounded_lookup(
            {} if potentials is None else potentials, context, POTENTIAL_CACHES, self._contract_values)
        # and the effects' values from these (the fields that ``effects`` and what it
        # calls read)
        others = tuple((p.divers, p.upgraded) for p in view.players[1:])
        scene = (
            context, self.resources, me.upgraded, self.store, self.own_on_track, view.neutral_supply,
            view.deck_size, self.hand_size, self.mechanic, self.hacker, others, view.display,
        )  # fmt: skip
        caches = _bounded_lookup({} if scenes is None else scenes, scene, SCENE_CACHES,
                                 lambda: ({}, {}, {}, {}, {}))
        # best effects, resource changes, column values (by column and credits), turn
        # plans (by what else they read) and the diver sites of each level
        self._effect_cache, self._changes, self._columns, self._plans, self._sites = caches

    # ------------------------------------------------------------ contract potential
    def _contract_values(self) -> tuple:
        """Which public slots hold a card; the cards ``(number card, needs, total, PP,
        bonus credits, bonus batteries, public)``, the public ones then the hand's; each
        card's worth per level; an empty cache of level potentials."""
        view = self.view
        self.contracts = tuple(
            [(c.number, c.needs, sum(c.needs), c.pp, c.credits, c.batteries, True) for c in view.public if c]
            + [(c.number, c.needs, sum(c.needs), c.pp, c.credits, c.batteries, False) for c in view.hand])
        worth = [self._contract_worth(level) for level in range(NUM_LEVELS)]
        return tuple(card is not None for card in view.public), self.contracts, worth, {}

    def _contract_worth(self, level: int) -> list[float]:
        """Each contract's worth if completed at level ``level`` (PP, bonuses, token back)."""
        extra = self._back_worth(level)
        return [pp + bc * self.credit + bb * self.battery + extra for _, _, _, pp, bc, bb, _ in self.contracts]

    def _back_worth(self, level: int) -> float:
        """What the reward token on level ``level`` adds to a contract completed there."""
        back = self.back[level]
        if back == D.BACK_PP:
            return float(D.PERMANENT_PP)
        if back == D.BACK_CREDITS:
            return D.PERMANENT_CREDITS * self.credit
        return 0.0

    def level_value(self, level: int, counts: tuple, skip: int = -1) -> float:
        """Potential of ``counts`` on level ``level``: the best contracts they build toward
        (contract ``skip`` left out), scaled by how much of the future is left."""
        key = (level, counts, skip)
        cached = self._level_cache.get(key)
        if cached is None:
            best, second = self._best_two(level, counts, skip)
            cached = self._potential(best, second, counts)
            self._level_cache[key] = cached
        return cached

    def _potential(self, best: float, second: float, counts: tuple) -> float:
        return (best + self.w.second_contract * second) * self.fut + self.w.resource_tie * sum(counts)

    def _best_two(self, level: int, counts: tuple, skip: int = -1) -> tuple[float, float]:
        """The two best contract values of ``counts`` on level ``level``."""
        best = second = 0.0
        desc = sorted(counts, reverse=True)
        total = sum(counts)
        cap = self.cap[level]
        worth = self._worth[level]
        decay, risk = self.w.deficit_decay, self.w.public_risk
        for k, card in enumerate(self.contracts):
            if k != skip:
                v = card_value(card, worth[k], cap, counts, desc, total, decay, risk)
                if v > best:
                    best, second = v, best
                elif v > second:
                    second = v
        return best, second

    def change_value(self, level: int, colour: int, delta: int) -> float:
        """Potential gained by adding ``delta`` (negative: removing) of ``colour`` at ``level``."""
        key = (level, colour, delta)
        value = self._changes.get(key)
        if value is None:
            counts = self.resources[level]
            new = list(counts)
            new[colour] += delta
            value = self.level_value(level, tuple(new)) - self.level_value(level, counts)
            self._changes[key] = value
        return value

    def room(self, level: int) -> int:
        return self.spaces[level]

    def tokens(self, level: int) -> tuple:
        """The reward tokens on level ``level`` of the Colony display (None: empty)."""
        at = level * D.DISPLAY_TOKENS
        return self.view.display[at : at + D.DISPLAY_TOKENS]

    # ------------------------------------------------------------ small values
    def upgrade_value(self, dtype: int) -> float:
        return self.w.upgrade_value[dtype] * self.fut

    def draw_value(self) -> float:
        if not self.view.deck_size or self.hand_size >= self.tables.hand_limit:
            return 0.0
        scale = 1.0 if self.hand_size < self.w.draw_full_hand else 0.5
        return self.w.draw_value * scale * self.fut

    def token_now(self, token: tuple, level: int) -> float:
        """A reward token's immediate effect, used at level ``level``."""
        kind, colours, _ = token
        if kind == D.RESOURCE:
            if self.room(level) <= 0:
                return 0.0
            return max(0.0, max(self.change_value(level, c, 1) for c in colours))
        if kind == D.BATTERY:
            return self.battery
        if kind == D.DRAW:
            return self.draw_value()
        if kind == D.UPGRADE:
            return max((self.upgrade_value(t) for t in range(D.NUM_DIVERS) if not self.upgraded[t]), default=0.0)
        return float(D.TOKEN_PP)

    def back_value(self, back: int | None) -> float:
        """A reward token's permanent effect on the board, over the rest of the game."""
        if back is None:
            return 0.0
        per_use = D.PERMANENT_PP * self.fut if back == D.BACK_PP else D.PERMANENT_CREDITS * self.credit
        return self.w.permanent_uses * per_use

    # ------------------------------------------------------------ diver effects
    def site(self, level: int) -> Site:
        """What an own diver used at level ``level`` can act on (the view's, kept per scene)."""
        site = self._sites[level] = self.view.site(level)
        return site

    def effects(self, dtype: int, upg: int, level: int, depth: int, free: bool, budget: int) -> dict[int, float]:
        """Value of each effect action (the rules' :func:`diver_options`) of a diver used
        at level ``level`` (own: depth 0) with ``budget`` credits."""
        site = self._sites.get(level) or self.site(level)
        options = diver_options(dtype, upg, depth, budget, free, site)
        out: dict[int, float] = {}
        if not options:
            return out
        if dtype <= D.TECH_EXPERT:
            res = self.change_value(level, dtype, 1) if site.space > 0 else 0.0
            bonus = self._expert_bonus(dtype) if upg else None
            for a in options:
                out[a] = res if a == A.EXPERT_RESOURCE else bonus if a == A.EXPERT_BONUS else res + bonus
        elif dtype == D.TRADER:
            t = self.tables
            for a in options:
                if a in A.BUY:
                    c = a - A.BUY.start
                    cost = buy_price(t.store_credits, self.store[c], upg, depth, free)
                    out[a] = self.change_value(level, c, 1) - cost * self.credit
                    continue
                c, payout = A.sell_of(a)
                loss = self.change_value(level, c, -1)
                if payout:
                    out[a] = sale_payout(t.store_pp, self.store[c], upg) + loss
                else:
                    out[a] = sale_payout(t.store_credits, self.store[c], upg) * self.credit + loss
        else:
            cost = diver_cost(dtype, upg, depth, free)
            paid = cost * self.credit
            if dtype == D.SPY:
                for a in options:
                    if a == A.SPY_DRAW:
                        out[a] = self.draw_value() - paid
                        continue
                    other, other_upg = site.neighbours[a - A.SPY_LEFT]
                    copied = self.effects(other, other_upg, level, depth + 1, False, budget - cost)
                    out[a] = max(0.0, max(copied.values())) - paid
            elif dtype == D.ENGINEER:
                for a in options:
                    value = self.w.mechanic_value if a == A.ENGINEER_MECHANIC else self.w.hacker_value
                    out[a] = value * self.fut - paid
            else:  # Explorer
                replaced = self.back_value(self.back[level])  # a copied Explorer places on our board too
                tokens = self.tokens(level)
                for a in options:
                    token = tokens[a - A.EXPLORE.start]
                    out[a] = self.token_now(token, level) + self.back_value(token.back) - replaced - paid
        return out

    def _expert_bonus(self, colour: int) -> float | None:
        """An upgraded Expert's bonus, or None when it cannot be gained now."""
        if not expert_bonus_ok(colour, self.view.neutral_supply, self.own_on_track):
            return None
        if colour == D.METAL:
            return self.w.neutral_key * self.fut
        if colour == D.PLANT:
            return D.EXPERT_CREDIT * self.credit
        if colour == D.FUEL:
            return D.EXPERT_BATTERY * self.battery
        return self.w.key_return * self.fut

    def best_effect(self, dtype: int, upg: int, level: int, free: bool, budget: int) -> float:
        """The best own effect of a diver at level ``level`` (0 when none pays)."""
        key = (dtype, upg, level, free, budget)
        value = self._effect_cache.get(key)
        if value is None:
            options = self.effects(dtype, upg, level, 0, free, budget)
            value = max(0.0, max(options.values())) if options else 0.0
            self._effect_cache[key] = value
        return value

    def double_effect(self, dtype: int, upg: int, level: int, credits: int) -> float:
        """Sponsor #2 basic: a diver's effect twice (an Expert's resources valued
        together, as far as the level has room; other divers: the second use discounted)."""
        if dtype > D.TECH_EXPERT:
            return (1 + self.w.second_use) * self.best_effect(dtype, upg, level, False, credits)
        bonus = (self._expert_bonus(dtype) or 0.0) if upg else 0.0
        counts = self.resources[level]
        gains = [0.0]
        for extra in range(1, min(self.room(level), D.DOUBLE_USES) + 1):
            new = list(counts)
            new[dtype] += extra
            gains.append(self.level_value(level, tuple(new)) - self.level_value(level, counts))
        return max(gains) + D.DOUBLE_USES * bonus

    # ------------------------------------------------------------ sponsors and turn plans
    def sponsor_plan(self, level: int, tile: int, col: list, credits: int) -> float | None:
        """Sponsor ``tile`` at level ``level`` then the best diver effect, or None if
        unusable (the rules' :func:`sponsor_ok`), with column ``col`` and ``credits``."""
        adv = self.advanced[tile]
        site = self._sites.get(level) or self.site(level)
        if not sponsor_ok(tile, adv, credits, col, self.upgraded, level, any(site.tokens), self.own_on_track):
            return None
        active = col[LEVEL_SLOTS[level]]
        upg = self.upgraded[active]
        if tile == SPONSOR_CREDIT_TILE:
            if adv:
                return self.best_effect(active, upg, level, True, credits)
            return self.credit + self.best_effect(active, upg, level, False, credits + D.SPONSOR_CREDIT)
        if tile == SPONSOR_DOUBLE_TILE:
            if adv:
                gain = max(self.token_now(t, level) for t in self.tokens(level) if t)
                return gain + self.best_effect(active, upg, level, False, credits)
            return self.double_effect(active, upg, level, credits)
        if tile == SPONSOR_KEY_TILE:
            if adv:  # the diver on level 5 resurfaces, the others shift down
                moved_in = moved(col, NUM_SLOTS - 1, 0)[LEVEL_SLOTS[level]]
                return self.best_effect(moved_in, self.upgraded[moved_in], level, False, credits)
            return self.w.key_return * self.fut + self.best_effect(active, upg, level, False, credits)
        if tile == SPONSOR_FLIP_TILE:
            left = credits - D.SPONSOR_UPGRADE_COST
            paid = D.SPONSOR_UPGRADE_PP - D.SPONSOR_UPGRADE_COST * self.credit
            if adv:
                flips = [self.upgrade_value(col[s]) for s in range(D.SURFACE_SLOTS) if not self.upgraded[col[s]]]
                return paid + max(flips) + self.best_effect(active, upg, level, False, left)
            return paid + self.upgrade_value(active) + self.best_effect(active, 1, level, False, left)
        # Sponsor #5: a battery; advanced, or a battery's resource move
        base = self.battery
        if adv:
            base = max(base, self.best_move(level) - self.battery)
        return base + self.best_effect(active, upg, level, False, credits)

    def best_move(self, level: int) -> float:
        """Sponsor #5 advanced: the best resource move (the rules' :func:`move_options`)
        into or out of level ``level``."""
        best = 0.0
        for a in move_options(level, self.resources, self.spaces, self.batteries):
            c, direction, other = A.move_of(a)
            src, dst = (level, other) if direction == 0 else (other, level)
            best = max(best, self.change_value(src, c, -1) + self.change_value(dst, c, 1))
        return best

    def plan(self, level: int, tile: int | None, col: list) -> float:
        """Best of the diver alone and the sponsor then the diver (``tile`` None: used)."""
        key = (level, tile, tuple(col), self.free_costs, self.credits, self.batteries, self.advanced)
        best = self._plans.get(key)
        if best is None:
            active = col[LEVEL_SLOTS[level]]
            best = self.best_effect(active, self.upgraded[active], level, self.free_costs, self.credits)
            if tile is not None:
                with_sponsor = self.sponsor_plan(level, tile, col, self.credits)
                if with_sponsor is not None and with_sponsor > best:
                    best = with_sponsor
            self._plans[key] = best
        return best

    def turn_value(self, level: int, tile: int | None, col: list, propellers: bool) -> float:
        """The best turn at level ``level``, a propeller (one battery) bringing a diver."""
        best = self.plan(level, tile, col)
        if propellers and self.batteries:
            target = LEVEL_SLOTS[level]
            for s in range(max(0, target - self.reach), min(NUM_SLOTS - 1, target + self.reach) + 1):
                if s != target:
                    best = max(best, self.plan(level, tile, moved(col, s, target)) - self.battery - FUSS)
        return best

    def column_value(self, col: list) -> float:
        """The divers' options on levels 1-5 for the next turns."""
        key = (tuple(col), self.credits)
        value = self._columns.get(key)
        if value is None:
            value = self._columns[key] = sum(
                self.best_effect(col[slot], self.upgraded[col[slot]], level, False, self.credits)
                for level, slot in enumerate(LEVEL_SLOTS)
            )
        return value

    # ------------------------------------------------------------ contracts
    def complete_value(self, action: int) -> float:
        """PP and bonuses of a completion, plus the potential its level keeps, against
        the level's potential now. (Other levels that build toward the same card lose
        nothing real: a card completes only once.)"""
        src, level = A.complete_of(action)
        k = self._contract_index(src)
        number, needs, _, _, _, _, _ = self.contracts[k]
        counts = self.resources[level]
        if number:
            remainders = number_remainders(needs, counts, frozenset())
            left = max((self.level_value(level, rest, k) for rest in remainders), default=0.0)
        else:
            left = self.level_value(level, tuple(x - y for x, y in zip(counts, needs)), k)
        return self._worth[level][k] + left - self.level_value(level, counts) + self.w.complete_priority

    def _contract_index(self, src: int) -> int:
        """Index in ``self.contracts`` of a complete action's source (public slot / hand slot)."""
        if src < A.HAND_SOURCE0:
            return sum(self.public_slots[:src])
        return sum(self.public_slots) + src - A.HAND_SOURCE0


def card_value(card: tuple, worth: float, cap: int, counts, desc: list, total: int, decay: float,
               risk: float) -> float:
    """A contract's value on one level: ``worth`` times ``decay`` per resource still
    missing or to be cleared for room; 0 if the level is too small; public cards at
    ``risk``."""
    number, needs, need, _, _, _, public = card
    if need > cap:
        return 0.0
    matched = 0
    for x, y in zip(needs, desc if number else counts):
        matched += x if x < y else y
    missing = need - matched + max(0, need + total - matched - cap)
    value = worth * decay**missing
    if missing and public:
        value *= risk
    return value


def contract_source(action: int) -> int:
    """The contract source (public slot 0-2, hand slots from 3) of a complete action."""
    return A.complete_of(action)[0]


@lru_cache(maxsize=4096)
def number_remainders(needs: tuple, counts: tuple, used: frozenset) -> tuple[tuple, ...]:
    """Every way a specific-number card's ``needs`` can be paid from ``counts`` with
    distinct colours not in ``used``, as the counts left behind."""
    out = set()

    def assign(i: int, rest: list, taken: set) -> None:
        if i == len(needs):
            out.add(tuple(rest))
            return
        for c in range(NUM_COLOURS):
            if c not in taken and rest[c] >= needs[i]:
                rest[c] -= needs[i]
                taken.add(c)
                assign(i + 1, rest, taken)
                taken.discard(c)
                rest[c] += needs[i]

    assign(0, list(counts), set(used))
    return tuple(sorted(out))
