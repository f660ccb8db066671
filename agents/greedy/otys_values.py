"""The valuation core of greedy Otys, in PP: contract potential, diver effects,
sponsors and turn plans (the heuristic is described in :mod:`agents.greedy.otys`).

A :class:`Valuer` is built per decision from the seat's observation. Values that are
pure functions of some part of it are kept between decisions: the level potentials
per set of contracts and their worth, the effect and plan values per *scene* (every
field that :meth:`Valuer.effects` and what it calls read).
"""

from __future__ import annotations

from functools import lru_cache

from envs.otys import actions as A
from envs.otys import data as D
from envs.otys.effects import (
    SPONSOR_CREDIT_TILE,
    SPONSOR_DOUBLE_TILE,
    SPONSOR_FLIP_TILE,
    SPONSOR_KEY_TILE,
)

from .otys_view import LEVEL_SLOTS, NC, NL, NS, SeatView, column, display_tokens

# ------------------------------------------------------------------ value weights (PP)
CREDIT = 0.35  # a credit: two buy Sponsor #4's PP and an upgrade, or pay a diver
BATTERY = 0.3  # a battery: a propeller move or an oxygen reserve
NEUTRAL_KEY = 0.25  # a neutral X key held: one turn on any level
OWN_X_USE = 0.1  # spending the own X key instead of a numbered one
KEY_RETURN = 0.15  # an own key back from the Hacker track
DEFICIT_DECAY = 0.7  # a contract's worth per resource still missing
PUBLIC_RISK = 0.85  # a public contract not yet completable may be taken first
SECOND_CONTRACT = 0.3  # share of a level's second-best contract in its potential
RESOURCE_TIE = 0.01  # a resource on the board (the end-of-game tie-break)
COMPLETE_PRIORITY = 0.3  # completing now rather than later (free action)
DEFERRED = -1e9  # an action left for a later decision of the same turn
FUSS = 1e-3  # a propeller or oxygen must gain something even when batteries no longer count
DRAW_VALUE = 0.6  # drawing 4 contracts and keeping 1
DRAW_FULL_HAND = 4  # hand size from which a draw is worth half as much
KEEP_PP_SHARE = 0.05  # a kept card's PP, beyond what it adds now (tie-break)
PERMANENT_USES = 0.5  # contracts expected at a reward token's level
SECOND_USE = 0.8  # Sponsor #2 basic: another diver's second use, against the first
DOUBLE_USES = D.DOUBLE_USES  # Sponsor #2 basic: the diver's effect twice
HACKER_VALUE = 0.35  # an Engineer improvement of the Hacker (keys come back sooner)
MECHANIC_VALUE = 0.1  # of the Mechanic (longer propeller moves)
COLUMN_WEIGHT = 0.3  # the next turns' diver options, against this turn's
UPGRADE_VALUE = (  # per diver type, MPFT Experts, Trader, Spy, Engineer, Explorer
    0.3, 0.5, 0.4, 0.3, 1.0, 0.3, 0.2, 0.4,
)  # fmt: skip
POTENTIAL_CACHES = 64  # level-potential caches kept between decisions
SCENE_CACHES = 64  # scenes whose effect values are kept between decisions
ASSUMED_ROUND_CAP = 60  # the default round cap (not observed)
FADE_ROUNDS = 4  # future values fade over the last rounds before the cap

STORE_CREDITS = D.DEFAULT_COMPONENTS["store_credits"]
STORE_PP = D.DEFAULT_COMPONENTS["store_pp"]
HAND_LIMIT = D.DEFAULT_COMPONENTS["hand_limit"]
MAX_MECHANIC = len(D.DEFAULT_COMPONENTS["mechanic_moves"]) - 1  # Engineer improvements
MAX_HACKER = len(D.DEFAULT_COMPONENTS["hacker_capacity"]) - 1



def _bounded_lookup(cache: dict, key, limit: int, build):
    """``cache[key]``, built by ``build()`` when missing; the cache is emptied past ``limit``."""
    entry = cache.get(key)
    if entry is None:
        if len(cache) > limit:
            cache.clear()
        entry = cache[key] = build()
    return entry

class Valuer(SeatView):
    """What the seat knows (:class:`SeatView`) and what it is worth, in PP."""

    def __init__(self, o, potentials: dict | None = None, scenes: dict | None = None):
        """``potentials``: a store of level-potential caches shared between decisions,
        one per set of contracts and their worth (pure values of those, so reusable);
        ``scenes``: likewise for the diver effects' values, one per scene (all that
        ``effects`` reads)."""
        super().__init__(o)
        self.fut = 0.0 if self.ended else min(1.0, (ASSUMED_ROUND_CAP + 1 - self.round) / FADE_ROUNDS)
        self.credit = CREDIT * self.fut
        self.battery = BATTERY * self.fut
        # the contracts' worth and the level potentials follow from these alone
        context = (self.contracts_key, tuple(self.back), self.fut, tuple(self.cap))
        self._worth, self._level_cache = _bounded_lookup(
            {} if potentials is None else potentials, context, POTENTIAL_CACHES,
            lambda: ([self._contract_worth(level) for level in range(NL)], {}))
        # and the effects' values from these (the fields that ``effects`` and what it
        # calls read, the other seats' columns and the display as their bytes)
        scene = (
            context, tuple(map(tuple, self.resources)), tuple(self.upgraded), tuple(self.store),
            self.own_on_track, self.neutral_supply, self.deck, self.hand_size, self.n,
            self.mechanic, self.hacker, *self.surroundings(),
        )  # fmt: skip
        caches = _bounded_lookup({} if scenes is None else scenes, scene, SCENE_CACHES,
                                 lambda: ({}, {}, {}, {}))
        # best effects, resource changes, column values (by column and credits) and
        # turn plans (by what else they read)
        self._effect_cache, self._changes, self._columns, self._plans = caches

    # ------------------------------------------------------------ contract potential
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
        return (best + SECOND_CONTRACT * second) * self.fut + RESOURCE_TIE * sum(counts)

    def _best_two(self, level: int, counts: tuple, skip: int = -1) -> tuple[float, float]:
        """The two best contract values of ``counts`` on level ``level``."""
        best = second = 0.0
        desc = sorted(counts, reverse=True)
        total = sum(counts)
        cap = self.cap[level]
        worth = self._worth[level]
        for k, card in enumerate(self.contracts):
            if k != skip:
                v = card_value(card, worth[k], cap, counts, desc, total)
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
            value = self.level_value(level, tuple(new)) - self.level_value(level, tuple(counts))
            self._changes[key] = value
        return value

    def room(self, level: int) -> int:
        return self.spaces[level]

    def tokens(self, level: int) -> list:
        """The two reward tokens on level ``level`` of the Colony display (None: empty)."""
        return display_tokens(self.o, level)

    # ------------------------------------------------------------ small values
    def upgrade_value(self, dtype: int) -> float:
        return UPGRADE_VALUE[dtype] * self.fut

    def draw_value(self) -> float:
        if not self.deck or self.hand_size >= HAND_LIMIT:
            return 0.0
        scale = 1.0 if self.hand_size < DRAW_FULL_HAND else 0.5
        return DRAW_VALUE * scale * self.fut

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
        return PERMANENT_USES * per_use

    # ------------------------------------------------------------ diver effects
    def effects(self, dtype: int, upg: int, level: int, depth: int, free: bool, budget: int) -> dict[int, float]:
        """Value of each effect action of a diver used at level ``level`` (own: depth 0)."""
        out: dict[int, float] = {}
        free = free and depth == 0
        if dtype <= D.TECH_EXPERT:
            room = self.room(level) > 0
            res = self.change_value(level, dtype, 1) if room else 0.0
            bonus = self._expert_bonus(dtype) if upg else None
            if room:
                out[A.EXPERT_RESOURCE] = res
            if bonus is not None:
                out[A.EXPERT_BONUS] = bonus
                if room:
                    out[A.EXPERT_BOTH] = res + bonus
        elif dtype == D.TRADER:
            bonus = D.TRADER_UPGRADE_BONUS if upg else 0
            counts = self.resources[level]
            for c in range(NC):
                row = self.store[c]
                if counts[c] and row < D.STORE_ROWS:
                    loss = self.change_value(level, c, -1)
                    out[A.sell_id(c, 0)] = (STORE_CREDITS[row] + bonus) * self.credit + loss
                    if STORE_PP[row] + bonus > 0:
                        out[A.sell_id(c, 1)] = STORE_PP[row] + bonus + loss
            if self.room(level) > 0:
                for c in range(NC):
                    if self.store[c]:
                        cost = 0 if free else max(STORE_CREDITS[self.store[c] - 1] - bonus, 0)
                        if cost <= budget:
                            out[A.BUY.start + c] = self.change_value(level, c, 1) - cost * self.credit
        elif dtype == D.SPY:
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                paid = cost * self.credit
                if self.deck and self.hand_size < HAND_LIMIT:
                    out[A.SPY_DRAW] = self.draw_value() - paid
                for action, block in self._neighbours():
                    ncol, nup = self.neighbour(block)
                    other = ncol[LEVEL_SLOTS[level]]
                    if other == D.SPY and depth > 0:
                        continue
                    options = self.effects(other, nup[other], level, depth + 1, False, budget - cost)
                    if options:
                        out[action] = max(0.0, max(options.values())) - paid
        elif dtype == D.ENGINEER:
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                paid = cost * self.credit
                if self.mechanic < MAX_MECHANIC:
                    out[A.ENGINEER_MECHANIC] = MECHANIC_VALUE * self.fut - paid
                if self.hacker < MAX_HACKER:
                    out[A.ENGINEER_HACKER] = HACKER_VALUE * self.fut - paid
        else:  # Explorer
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                replaced = self.back_value(self.back[level])  # a copied Explorer places on our board too
                for i, token in enumerate(self.tokens(level)):
                    if token:
                        out[A.EXPLORE.start + i] = (
                            self.token_now(token, level) + self.back_value(token[2]) - replaced - cost * self.credit
                        )
        return out

    def _expert_bonus(self, colour: int) -> float | None:
        """An upgraded Expert's bonus, or None when it cannot be gained now."""
        if colour == D.METAL:
            return NEUTRAL_KEY * self.fut if self.neutral_supply else None
        if colour == D.PLANT:
            return D.EXPERT_CREDIT * self.credit
        if colour == D.FUEL:
            return D.EXPERT_BATTERY * self.battery
        return KEY_RETURN * self.fut if self.own_on_track else None

    def _neighbours(self) -> list[tuple[int, int]]:
        """(Spy action, relative seat block) of the left and right neighbours."""
        if self.n == 2:
            return [(A.SPY_LEFT, 1)]
        return [(A.SPY_LEFT, 1), (A.SPY_RIGHT, self.n - 1)]

    def neighbour(self, block: int) -> tuple[list, list]:
        return column(self.o, block)

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
            return (1 + SECOND_USE) * self.best_effect(dtype, upg, level, False, credits)
        bonus = (self._expert_bonus(dtype) or 0.0) if upg else 0.0
        counts = self.resources[level]
        gains = [0.0]
        for extra in range(1, min(self.room(level), DOUBLE_USES) + 1):
            new = list(counts)
            new[dtype] += extra
            gains.append(self.level_value(level, tuple(new)) - self.level_value(level, tuple(counts)))
        return max(gains) + DOUBLE_USES * bonus

    # ------------------------------------------------------------ sponsors and turn plans
    def sponsor_plan(self, level: int, tile: int, col: list, credits: int) -> float | None:
        """Sponsor ``tile`` at level ``level`` then the best diver effect, or None if unusable."""
        adv = self.advanced[tile]
        active = col[LEVEL_SLOTS[level]]
        upg = self.upgraded[active]
        if tile == SPONSOR_CREDIT_TILE:
            if adv:
                return self.best_effect(active, upg, level, True, credits)
            return self.credit + self.best_effect(active, upg, level, False, credits + D.SPONSOR_CREDIT)
        if tile == SPONSOR_DOUBLE_TILE:
            if adv:
                tokens = [t for t in self.tokens(level) if t]
                if not tokens:
                    return None
                gain = max(self.token_now(t, level) for t in tokens)
                return gain + self.best_effect(active, upg, level, False, credits)
            return self.double_effect(active, upg, level, credits)
        if tile == SPONSOR_KEY_TILE:
            if adv:
                new = [col[-1]] + col[:-1]
                moved = new[LEVEL_SLOTS[level]]
                return self.best_effect(moved, self.upgraded[moved], level, False, credits)
            if not self.own_on_track:
                return None
            return KEY_RETURN * self.fut + self.best_effect(active, upg, level, False, credits)
        if tile == SPONSOR_FLIP_TILE:
            if credits < D.SPONSOR_UPGRADE_COST:
                return None
            left = credits - D.SPONSOR_UPGRADE_COST
            paid = D.SPONSOR_UPGRADE_PP - D.SPONSOR_UPGRADE_COST * self.credit
            if adv:
                flips = [self.upgrade_value(col[s]) for s in range(D.SURFACE_SLOTS) if not self.upgraded[col[s]]]
                if not flips:
                    return None
                return paid + max(flips) + self.best_effect(active, upg, level, False, left)
            if upg:
                return None
            return paid + self.upgrade_value(active) + self.best_effect(active, 1, level, False, left)
        # Sponsor #5: a battery; advanced, or a battery's resource move
        base = self.battery
        if adv:
            base = max(base, self.best_move(level) - self.battery)
        return base + self.best_effect(active, upg, level, False, credits)

    def best_move(self, level: int) -> float:
        """Sponsor #5 advanced: the best resource move into or out of level ``level``."""
        if not self.batteries:
            return 0.0
        best = 0.0
        for other in range(NL):
            if other != level:
                best = max(best, self._move_gain(level, other), self._move_gain(other, level))
        return best

    def _move_gain(self, src: int, dst: int) -> float:
        if self.room(dst) <= 0:
            return 0.0
        best = 0.0
        for c in range(NC):
            if self.resources[src][c]:
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
            for s in range(max(0, target - self.reach), min(NS - 1, target + self.reach) + 1):
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
        counts = tuple(self.resources[level])
        if number:
            remainders = number_remainders(needs, counts, frozenset())
            left = max((self.level_value(level, rest, k) for rest in remainders), default=0.0)
        else:
            left = self.level_value(level, tuple(x - y for x, y in zip(counts, needs)), k)
        return self._worth[level][k] + left - self.level_value(level, counts) + COMPLETE_PRIORITY

    def _contract_index(self, src: int) -> int:
        """Index in ``self.contracts`` of a complete action's source (public slot / hand slot)."""
        if src < A.HAND_SOURCE0:
            return sum(self.public_slots[:src])
        return sum(self.public_slots) + src - A.HAND_SOURCE0


def card_value(card: tuple, worth: float, cap: int, counts, desc: list, total: int) -> float:
    """A contract's value on one level: ``worth`` decayed per resource still missing or
    to be cleared for room; 0 if the level is too small; public cards at risk."""
    number, needs, need, _, _, _, public = card
    if need > cap:
        return 0.0
    matched = 0
    for x, y in zip(needs, desc if number else counts):
        matched += x if x < y else y
    missing = need - matched + max(0, need + total - matched - cap)
    value = worth * DEFICIT_DECAY**missing
    if missing and public:
        value *= PUBLIC_RISK
    return value


def contract_source(action: int) -> int:
    """The contract source (public slot 0-2, hand slots from 3) of a complete action."""
    return A.complete_of(action)[0]


def moved(col: list, src: int, dst: int) -> list:
    """The column after the diver in slot ``src`` moves to slot ``dst`` (others shift)."""
    new = list(col)
    new.insert(dst, new.pop(src))
    return new


@lru_cache(maxsize=4096)
def number_remainders(needs: tuple, counts: tuple, used: frozenset) -> tuple[tuple, ...]:
    """Every way a specific-number card's ``needs`` can be paid from ``counts`` with
    distinct colours not in ``used``, as the counts left behind."""
    out = set()

    def assign(i: int, rest: list, taken: set) -> None:
        if i == len(needs):
            out.add(tuple(rest))
            return
        for c in range(NC):
            if c not in taken and rest[c] >= needs[i]:
                rest[c] -= needs[i]
                taken.add(c)
                assign(i + 1, rest, taken)
                taken.discard(c)
                rest[c] += needs[i]

    assign(0, list(counts), set(used))
    return tuple(sorted(out))
