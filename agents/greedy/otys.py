"""Greedy Otys: value each legal action by its immediate worth to the seat, in PP.

The heuristic, read from the seat's observation alone (decoded once per decision):

* **Contract potential.** A level's resources are worth the best contract they build
  toward (public or own hand; plus a share of the second best): its PP, bonuses and the
  level's reward-token back, times ``DEFICIT_DECAY`` per resource still missing or to
  be cleared for room; public cards are discounted for the risk an opponent takes them.
  A resource is worth the change it makes to its level's potential, so Experts,
  purchases, sales, reward-token resources and Sponsor #5 moves go where they build
  contracts, and a kept contract is the one that suits the resources already placed.
* **Completing** scores the card's PP and bonuses plus what its level keeps; it is done
  within the turn unless those resources build something clearly better.
* **Everything in PP:** a credit is worth ``CREDIT`` (Sponsor #4 turns two into a PP and
  an upgrade), a battery ``BATTERY``, an upgrade by its diver (the Trader most), and
  all future value fades to nothing in the last round. So a sale takes PP or credits,
  whichever is worth more now, and Sponsor #4 and PP tokens are taken when they pay.
* **Tempo.** A key is worth the best turn it opens: the sponsor on its level (after an
  X key's rotation) and the diver there, or one a propeller brings for a battery; an X
  key costs the flexibility it spends. In a turn the sponsor, propellers and effects
  follow that plan; at its end the diver stays (oxygen) only if the column it would
  leave is worth more than the battery.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs.otys import actions as A
from envs.otys import data as D
from envs.otys.effects import (
    CONTRACT_COLOUR,
    COPY,
    KEEP,
    KEY,
    NUM_PHASES,
    RETURN_KEY,
    SPONSOR5,
    SPONSOR_CREDIT_TILE,
    SPONSOR_DOUBLE_TILE,
    SPONSOR_FLIP,
    SPONSOR_FLIP_TILE,
    SPONSOR_KEY_TILE,
    SPONSOR_TOKEN,
    STEP1,
    STEP2,
    TOKEN_FLIP,
    TOKEN_RESOURCE,
)
from envs.otys.observe import CONTRACT_FEATS, LAYOUT, TOKEN_FEATS

from ..base import Agent

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
ASSUMED_ROUND_CAP = 60  # the default round cap (not observed)
FADE_ROUNDS = 4  # future values fade over the last rounds before the cap

STORE_CREDITS = D.DEFAULT_COMPONENTS["store_credits"]
STORE_PP = D.DEFAULT_COMPONENTS["store_pp"]
HAND_LIMIT = D.DEFAULT_COMPONENTS["hand_limit"]
MAX_MECHANIC = len(D.DEFAULT_COMPONENTS["mechanic_moves"]) - 1  # Engineer improvements
MAX_HACKER = len(D.DEFAULT_COMPONENTS["hacker_capacity"]) - 1
NC, NL, NS = D.NUM_COLOURS, D.NUM_LEVELS, D.NUM_SLOTS
NUM_KINDS = len(D.TOKEN_KINDS)

_O = {name: LAYOUT.offsets[name][0] for name in LAYOUT.offsets}
SEAT_STRIDE = {  # per-seat block sizes of the pieces read for several seats
    "divers": NS * D.NUM_DIVERS,
    "upgraded": NS,
}


def _argmax(o: list, at: int, size: int) -> int:
    """Index of the largest entry of ``o[at:at+size]`` (one-hot decoding)."""
    part = o[at : at + size]
    return part.index(max(part))


def _contract(o: list, at: int) -> tuple | None:
    """(number card, needs, total, PP, bonus credits, bonus batteries) or None."""
    if not o[at]:
        return None
    number = o[at + 1] > 0
    if number:
        numbers = o[at + 2 + NC : at + 2 + NC + D.MAX_NUMBERS]
        needs = tuple(sorted((int(x) for x in numbers if x), reverse=True))
    else:
        needs = tuple(int(x) for x in o[at + 2 : at + 2 + NC])
    tail = at + 2 + NC + D.MAX_NUMBERS
    return number, needs, sum(needs), o[tail], o[tail + 1], o[tail + 2]


def _token(o: list, at: int) -> tuple | None:
    """(immediate effect kind, colours, back) of a reward token, or None."""
    if not o[at]:
        return None
    kind = _argmax(o, at + 1, NUM_KINDS)
    colours = tuple(c for c in range(NC) if o[at + 1 + NUM_KINDS + c])
    back = _argmax(o, at + 1 + NUM_KINDS + NC, len(D.TOKEN_BACKS))
    return kind, colours, back


def _column(o: list, block: int) -> tuple[list, list]:
    """Diver type per slot and upgraded flag per diver type of a relative seat."""
    base = _O["divers"] + block * SEAT_STRIDE["divers"]
    ub = _O["upgraded"] + block * SEAT_STRIDE["upgraded"]
    col, up = [], [0] * D.NUM_DIVERS
    for slot in range(NS):
        dtype = _argmax(o, base + slot * D.NUM_DIVERS, D.NUM_DIVERS)
        col.append(dtype)
        up[dtype] = int(o[ub + slot])
    return col, up


class GreedyOtys(Agent):
    """The Otys heuristic (see the module docstring)."""

    spec = "greedy"

    def __init__(self) -> None:
        super().__init__()
        self._potentials: dict = {}  # level potentials, kept while the contracts stay

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._potentials = {}

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        evaluator = _Evaluator(observation["observation"].tolist(), self._potentials)
        return self.choose_best(evaluator.values(legal))


class _Evaluator:
    """What the seat knows, decoded once, and the values of the pending decision."""

    def __init__(self, o: list, potentials: dict | None = None):
        """``potentials``: a store of level-potential caches shared between decisions,
        one per set of contracts and their worth (pure values of those, so reusable)."""
        self.o = o
        self.phase = _argmax(o, _O["phase"], NUM_PHASES)
        self.n = int(sum(o[_O["present"] : _O["present"] + D.MAX_PLAYERS]))
        self.col, self.up = _column(o, 0)
        rb = _O["resources"]
        self.res = [[int(x) for x in o[rb + li * NC : rb + li * NC + NC]] for li in range(NL)]
        fb = _O["free_space"]
        self.cap = [sum(self.res[li]) + int(o[fb + li]) for li in range(NL)]
        self.credits = int(o[_O["credits"]])
        self.batteries = int(o[_O["batteries"]])
        self.reach = int(o[_O["max_move"]])
        self.mech = int(o[_O["mechanic"]])
        self.hack = int(o[_O["hacker"]])
        self.track = o[_O["keys_track"] : _O["keys_track"] + D.NUM_OWN_KEYS]
        self.own_on_track = any(self.track)
        self.hand_size = int(o[_O["hand_size"]])
        self.deck = int(o[_O["deck_size"]])
        self.neutral_supply = int(o[_O["neutral_supply"]])
        bb = _O["reward_backs"]
        self.back = [  # permanent effect at each level: None, BACK_CREDITS or BACK_PP
            (D.BACK_CREDITS if o[bb + 2 * li] else D.BACK_PP if o[bb + 2 * li + 1] else None)
            for li in range(NL)
        ]
        sb = _O["store"]
        self.store = [int(sum(o[sb + c * D.STORE_ROWS : sb + (c + 1) * D.STORE_ROWS])) for c in range(NC)]
        tb, ab = _O["sponsor_tile"], _O["sponsor_advanced"]
        self.sponsors = [_argmax(o, tb + li * D.NUM_SPONSORS, D.NUM_SPONSORS) for li in range(NL)]
        self.adv = [0] * D.NUM_SPONSORS  # side per tile
        for li, tile in enumerate(self.sponsors):
            self.adv[tile] = int(o[ab + li])
        self.contracts = []  # (number card, needs, total, PP, bonus credits, bonus batteries, public)
        for src, base, count in ((True, _O["public"], D.MAX_PUBLIC), (False, _O["hand"], D.MAX_HAND)):
            for i in range(count):
                card = _contract(o, base + i * CONTRACT_FEATS)
                if card:
                    number, needs, total, pp, bc, bb_ = card
                    self.contracts.append((number, needs, total, pp, bc, bb_, src))
        rnd = o[_O["round"]]
        self.fut = 0.0 if o[_O["end_triggered"]] else min(1.0, (ASSUMED_ROUND_CAP + 1 - rnd) / FADE_ROUNDS)
        self.credit = CREDIT * self.fut
        self.battery = BATTERY * self.fut
        kb = _O["key_level"]
        self.li = _argmax(o, kb, NL) if any(o[kb : kb + NL]) else -1
        self.free = bool(o[_O["free_costs"]])
        self.uses = int(o[_O["uses_left"]])
        self._effect_cache: dict = {}
        self._worth = [self._contract_worth(li) for li in range(NL)]
        context = (tuple(self.contracts), tuple(map(tuple, self._worth)), tuple(self.cap), self.fut)
        if potentials is None:
            potentials = {}
        elif len(potentials) > POTENTIAL_CACHES:
            potentials.clear()
        self._level_cache = potentials.setdefault(context, {})

    # ------------------------------------------------------------ contract potential
    def _contract_worth(self, li: int) -> list[float]:
        """Each contract's worth if completed at level ``li`` (PP, bonuses, token back)."""
        extra = self._back_worth(li)
        return [pp + bc * self.credit + bb * self.battery + extra for _, _, _, pp, bc, bb, _ in self.contracts]

    def _back_worth(self, li: int) -> float:
        """What the reward token on level ``li`` adds to a contract completed there."""
        back = self.back[li]
        if back == D.BACK_PP:
            return float(D.PERMANENT_PP)
        if back == D.BACK_CREDITS:
            return D.PERMANENT_CREDITS * self.credit
        return 0.0

    def level_value(self, li: int, counts: tuple, skip: int = -1) -> float:
        """Potential of ``counts`` on level ``li``: the best contracts they build toward
        (contract ``skip`` left out), scaled by how much of the future is left."""
        key = (li, counts, skip)
        cached = self._level_cache.get(key)
        if cached is None:
            best, second = self._best_two(li, counts, skip)
            cached = self._potential(best, second, counts)
            self._level_cache[key] = cached
        return cached

    def _potential(self, best: float, second: float, counts: tuple) -> float:
        return (best + SECOND_CONTRACT * second) * self.fut + RESOURCE_TIE * sum(counts)

    def _best_two(self, li: int, counts: tuple, skip: int = -1) -> tuple[float, float]:
        """The two best contract values of ``counts`` on level ``li``."""
        best = second = 0.0
        desc = sorted(counts, reverse=True)
        total = sum(counts)
        cap = self.cap[li]
        worth = self._worth[li]
        for k, card in enumerate(self.contracts):
            if k != skip:
                v = _card_value(card, worth[k], cap, counts, desc, total)
                if v > best:
                    best, second = v, best
                elif v > second:
                    second = v
        return best, second

    def change_value(self, li: int, colour: int, delta: int) -> float:
        """Potential gained by adding ``delta`` (negative: removing) of ``colour`` at ``li``."""
        counts = self.res[li]
        new = list(counts)
        new[colour] += delta
        return self.level_value(li, tuple(new)) - self.level_value(li, tuple(counts))

    def room(self, li: int) -> int:
        return self.cap[li] - sum(self.res[li])

    def tokens(self, li: int) -> list:
        """The two reward tokens on level ``li`` of the Colony display (None: empty)."""
        key = ("display", li)
        if key not in self._effect_cache:
            at = _O["display"] + li * D.DISPLAY_TOKENS * TOKEN_FEATS
            self._effect_cache[key] = [_token(self.o, at + i * TOKEN_FEATS) for i in range(D.DISPLAY_TOKENS)]
        return self._effect_cache[key]

    # ------------------------------------------------------------ small values
    def upgrade_value(self, dtype: int) -> float:
        return UPGRADE_VALUE[dtype] * self.fut

    def draw_value(self) -> float:
        if not self.deck or self.hand_size >= HAND_LIMIT:
            return 0.0
        scale = 1.0 if self.hand_size < DRAW_FULL_HAND else 0.5
        return DRAW_VALUE * scale * self.fut

    def token_now(self, token: tuple, li: int) -> float:
        """A reward token's immediate effect, used at level ``li``."""
        kind, colours, _ = token
        if kind == D.RESOURCE:
            if self.room(li) <= 0:
                return 0.0
            return max(0.0, max(self.change_value(li, c, 1) for c in colours))
        if kind == D.BATTERY:
            return self.battery
        if kind == D.DRAW:
            return self.draw_value()
        if kind == D.UPGRADE:
            return max((self.upgrade_value(t) for t in range(D.NUM_DIVERS) if not self.up[t]), default=0.0)
        return float(D.TOKEN_PP)

    def back_value(self, back: int | None) -> float:
        """A reward token's permanent effect on the board, over the rest of the game."""
        if back is None:
            return 0.0
        per_use = D.PERMANENT_PP * self.fut if back == D.BACK_PP else D.PERMANENT_CREDITS * self.credit
        return PERMANENT_USES * per_use

    # ------------------------------------------------------------ diver effects
    def effects(self, dtype: int, upg: int, li: int, depth: int, free: bool, budget: int) -> dict[int, float]:
        """Value of each effect action of a diver used at level ``li`` (own: depth 0)."""
        out: dict[int, float] = {}
        free = free and depth == 0
        if dtype <= D.TECH_EXPERT:
            room = self.room(li) > 0
            res = self.change_value(li, dtype, 1) if room else 0.0
            bonus = self._expert_bonus(dtype) if upg else None
            if room:
                out[A.EXPERT_RESOURCE] = res
            if bonus is not None:
                out[A.EXPERT_BONUS] = bonus
                if room:
                    out[A.EXPERT_BOTH] = res + bonus
        elif dtype == D.TRADER:
            bonus = D.TRADER_UPGRADE_BONUS if upg else 0
            counts = self.res[li]
            for c in range(NC):
                row = self.store[c]
                if counts[c] and row < D.STORE_ROWS:
                    loss = self.change_value(li, c, -1)
                    out[A.sell_id(c, 0)] = (STORE_CREDITS[row] + bonus) * self.credit + loss
                    if STORE_PP[row] + bonus > 0:
                        out[A.sell_id(c, 1)] = STORE_PP[row] + bonus + loss
            if self.room(li) > 0:
                for c in range(NC):
                    if self.store[c]:
                        cost = 0 if free else max(STORE_CREDITS[self.store[c] - 1] - bonus, 0)
                        if cost <= budget:
                            out[A.BUY.start + c] = self.change_value(li, c, 1) - cost * self.credit
        elif dtype == D.SPY:
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                paid = cost * self.credit
                if self.deck and self.hand_size < HAND_LIMIT:
                    out[A.SPY_DRAW] = self.draw_value() - paid
                for action, block in self._neighbours():
                    ncol, nup = self.neighbour(block)
                    other = ncol[D.level_slot(li)]
                    if other == D.SPY and depth > 0:
                        continue
                    options = self.effects(other, nup[other], li, depth + 1, False, budget - cost)
                    if options:
                        out[action] = max(0.0, max(options.values())) - paid
        elif dtype == D.ENGINEER:
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                paid = cost * self.credit
                if self.mech < MAX_MECHANIC:
                    out[A.ENGINEER_MECHANIC] = MECHANIC_VALUE * self.fut - paid
                if self.hack < MAX_HACKER:
                    out[A.ENGINEER_HACKER] = HACKER_VALUE * self.fut - paid
        else:  # Explorer
            cost = 0 if free else D.DIVER_COST[dtype][upg]
            if cost <= budget:
                replaced = self.back_value(self.back[li])  # a copied Explorer places on our board too
                for i, token in enumerate(self.tokens(li)):
                    if token:
                        out[A.EXPLORE.start + i] = (
                            self.token_now(token, li) + self.back_value(token[2]) - replaced - cost * self.credit
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
        key = ("column", block)
        if key not in self._effect_cache:
            self._effect_cache[key] = _column(self.o, block)
        return self._effect_cache[key]

    def best_effect(self, dtype: int, upg: int, li: int, free: bool, budget: int) -> float:
        """The best own effect of a diver at level ``li`` (0 when none pays)."""
        key = (dtype, upg, li, free, budget)
        value = self._effect_cache.get(key)
        if value is None:
            options = self.effects(dtype, upg, li, 0, free, budget)
            value = max(0.0, max(options.values())) if options else 0.0
            self._effect_cache[key] = value
        return value

    def double_effect(self, dtype: int, upg: int, li: int, credits: int) -> float:
        """Sponsor #2 basic: a diver's effect twice (an Expert's resources valued
        together, as far as the level has room; other divers: the second use discounted)."""
        if dtype > D.TECH_EXPERT:
            return (1 + SECOND_USE) * self.best_effect(dtype, upg, li, False, credits)
        bonus = (self._expert_bonus(dtype) or 0.0) if upg else 0.0
        counts = self.res[li]
        gains = [0.0]
        for extra in range(1, min(self.room(li), DOUBLE_USES) + 1):
            new = list(counts)
            new[dtype] += extra
            gains.append(self.level_value(li, tuple(new)) - self.level_value(li, tuple(counts)))
        return max(gains) + DOUBLE_USES * bonus

    # ------------------------------------------------------------ sponsors and turn plans
    def sponsor_plan(self, li: int, tile: int, col: list, credits: int) -> float | None:
        """Sponsor ``tile`` at level ``li`` then the best diver effect, or None if unusable."""
        adv = self.adv[tile]
        active = col[D.level_slot(li)]
        upg = self.up[active]
        if tile == SPONSOR_CREDIT_TILE:
            if adv:
                return self.best_effect(active, upg, li, True, credits)
            return self.credit + self.best_effect(active, upg, li, False, credits + D.SPONSOR_CREDIT)
        if tile == SPONSOR_DOUBLE_TILE:
            if adv:
                tokens = [t for t in self.tokens(li) if t]
                if not tokens:
                    return None
                gain = max(self.token_now(t, li) for t in tokens)
                return gain + self.best_effect(active, upg, li, False, credits)
            return self.double_effect(active, upg, li, credits)
        if tile == SPONSOR_KEY_TILE:
            if adv:
                new = [col[-1]] + col[:-1]
                moved = new[D.level_slot(li)]
                return self.best_effect(moved, self.up[moved], li, False, credits)
            if not self.own_on_track:
                return None
            return KEY_RETURN * self.fut + self.best_effect(active, upg, li, False, credits)
        if tile == SPONSOR_FLIP_TILE:
            if credits < D.SPONSOR_UPGRADE_COST:
                return None
            left = credits - D.SPONSOR_UPGRADE_COST
            paid = D.SPONSOR_UPGRADE_PP - D.SPONSOR_UPGRADE_COST * self.credit
            if adv:
                flips = [self.upgrade_value(col[s]) for s in range(D.SURFACE_SLOTS) if not self.up[col[s]]]
                if not flips:
                    return None
                return paid + max(flips) + self.best_effect(active, upg, li, False, left)
            if upg:
                return None
            return paid + self.upgrade_value(active) + self.best_effect(active, 1, li, False, left)
        # Sponsor #5: a battery; advanced, or a battery's resource move
        base = self.battery
        if adv:
            base = max(base, self.best_move(li) - self.battery)
        return base + self.best_effect(active, upg, li, False, credits)

    def best_move(self, li: int) -> float:
        """Sponsor #5 advanced: the best resource move into or out of level ``li``."""
        if not self.batteries:
            return 0.0
        best = 0.0
        for other in range(NL):
            if other != li:
                best = max(best, self._move_gain(li, other), self._move_gain(other, li))
        return best

    def _move_gain(self, src: int, dst: int) -> float:
        if self.room(dst) <= 0:
            return 0.0
        best = 0.0
        for c in range(NC):
            if self.res[src][c]:
                best = max(best, self.change_value(src, c, -1) + self.change_value(dst, c, 1))
        return best

    def plan(self, li: int, tile: int | None, col: list) -> float:
        """Best of the diver alone and the sponsor then the diver (``tile`` None: used)."""
        active = col[D.level_slot(li)]
        best = self.best_effect(active, self.up[active], li, self.free, self.credits)
        if tile is not None:
            with_sponsor = self.sponsor_plan(li, tile, col, self.credits)
            if with_sponsor is not None and with_sponsor > best:
                best = with_sponsor
        return best

    def turn_value(self, li: int, tile: int | None, col: list, propellers: bool) -> float:
        """The best turn at level ``li``, a propeller (one battery) bringing a diver."""
        best = self.plan(li, tile, col)
        if propellers and self.batteries:
            target = D.level_slot(li)
            for s in range(max(0, target - self.reach), min(NS - 1, target + self.reach) + 1):
                if s != target:
                    best = max(best, self.plan(li, tile, _moved(col, s, target)) - self.battery - FUSS)
        return best

    def column_value(self, col: list) -> float:
        """The divers' options on levels 1-5 for the next turns."""
        return sum(
            self.best_effect(col[D.level_slot(li)], self.up[col[D.level_slot(li)]], li, False, self.credits)
            for li in range(NL)
        )

    # ------------------------------------------------------------ contracts
    def complete_value(self, action: int) -> float:
        """PP and bonuses of a completion, plus the potential its level keeps, against
        the level's potential now. (Other levels that build toward the same card lose
        nothing real: a card completes only once.)"""
        src, li = divmod(action - A.COMPLETE.start, NL)
        k = self._contract_index(src)
        number, needs, _, _, _, _, _ = self.contracts[k]
        counts = tuple(self.res[li])
        if number:
            remainders = _number_remainders(needs, counts, frozenset())
            left = max((self.level_value(li, rest, k) for rest in remainders), default=0.0)
        else:
            left = self.level_value(li, tuple(x - y for x, y in zip(counts, needs)), k)
        return self._worth[li][k] + left - self.level_value(li, counts) + COMPLETE_PRIORITY

    def _contract_index(self, src: int) -> int:
        """Index in ``self.contracts`` of a complete action's source (public slot / hand slot)."""
        o = self.o
        if src < A.HAND_SOURCE0:
            return sum(1 for i in range(src) if o[_O["public"] + i * CONTRACT_FEATS])
        publics = sum(1 for i in range(D.MAX_PUBLIC) if o[_O["public"] + i * CONTRACT_FEATS])
        return publics + src - A.HAND_SOURCE0

    # ------------------------------------------------------------ the decision
    def values(self, legal: list[int]) -> dict[int, float]:
        phase = self.phase
        if phase == KEY:
            return self._key_values(legal)
        if phase in (STEP1, STEP2):
            return self._step_values(legal)
        if phase == COPY:
            return self._copy_values(legal)
        if phase == KEEP:
            return self._keep_values(legal)
        if phase == CONTRACT_COLOUR:
            return self._colour_values(legal)
        if phase == TOKEN_RESOURCE:
            return {a: 0.0 if a == A.DECLINE else self.change_value(self.li, a - A.COLOUR.start, 1) for a in legal}
        if phase == RETURN_KEY:
            return self._return_values(legal)
        if phase in (SPONSOR_FLIP, TOKEN_FLIP):
            return {a: 0.0 if a == A.DECLINE else self.upgrade_value(self.col[a - A.FLIP.start]) for a in legal}
        if phase == SPONSOR_TOKEN:
            return {a: self.token_now(self.tokens(self.li)[a - A.TOKEN.start], self.li) for a in legal}
        if phase == SPONSOR5:
            return self._sponsor5_values(legal)
        # the designer's variant: a copied diver's owner keeps it down only for free
        return {a: -self.battery if a == A.OXYGEN else 0.0 for a in legal}

    def _key_values(self, legal: list[int]) -> dict[int, float]:
        out = {}
        rotated = [self.sponsors[-1]] + self.sponsors[:-1]
        for a in legal:
            if A.COMPLETE.start <= a < A.COMPLETE.stop:
                # A number card's colour questions asked before a key is chosen come
                # without the card in the observation; complete it in step 1 instead.
                number = self.contracts[self._contract_index(_source(a))][0]
                out[a] = DEFERRED if number else self.complete_value(a)
                continue
            block, li = divmod(a - A.KEY.start, NL)
            if block == 0:
                out[a] = self.turn_value(li, self.sponsors[li], self.col, True)
            else:
                cost = OWN_X_USE * self.fut if block == 1 else NEUTRAL_KEY * self.fut
                out[a] = self.turn_value(li, rotated[li], self.col, False) - cost
        return out

    def _step_values(self, legal: list[int]) -> dict[int, float]:
        li, col = self.li, self.col
        slot = D.level_slot(li)
        active = col[slot]
        tile = None if self.o[_O["sponsor_used"]] else self.sponsors[li]
        end = {A.RESURFACE: COLUMN_WEIGHT * (self.column_value(_moved(col, slot, 0)) - self.column_value(col))}
        if A.OXYGEN in legal:
            end[A.OXYGEN] = -self.battery - FUSS
        follow = max(end.values())
        effects = None
        out = {}
        for a in legal:
            if a in end:
                out[a] = end[a]
            elif A.COMPLETE.start <= a < A.COMPLETE.stop:
                out[a] = self.complete_value(a) + follow
            elif A.PROP.start <= a < A.PROP.stop:
                s, t = A.PROP_PAIRS[a - A.PROP.start]
                out[a] = self.plan(li, tile, _moved(col, s, t)) - self.battery - FUSS + follow
            elif a == A.SPONSOR:
                value = self.sponsor_plan(li, self.sponsors[li], col, self.credits)
                out[a] = (value if value is not None else 0.0) + follow
            else:
                if effects is None:
                    effects = self.effects(active, self.up[active], li, 0, self.free, self.credits)
                out[a] = effects.get(a, 0.0) + follow
        return out

    def _copy_values(self, legal: list[int]) -> dict[int, float]:
        o = self.o
        dtype = _argmax(o, _O["copy_diver"], D.NUM_DIVERS)
        upg = int(o[_O["copy_upgraded"]])
        depth = int(o[_O["copy_depth"]])
        options = self.effects(dtype, upg, self.li, depth, False, self.credits)
        return {a: 0.0 if a == A.DECLINE else options.get(a, 0.0) for a in legal}

    def _keep_values(self, legal: list[int]) -> dict[int, float]:
        """A kept card is worth what it adds to the potential of the level it suits best
        (and its PP, a little)."""
        levels = []
        for li in range(NL):
            counts = tuple(self.res[li])
            best, second = self._best_two(li, counts)
            levels.append((counts, best, second, self._potential(best, second, counts)))
        out = {}
        for a in legal:
            if a == A.DECLINE:
                out[a] = 0.0
                continue
            number, needs, total, pp, bc, bb = _contract(self.o, _O["drawn"] + (a - A.KEEP.start) * CONTRACT_FEATS)
            card = (number, needs, total, pp, bc, bb, False)
            gain = 0.0
            for li, (counts, best, second, before) in enumerate(levels):
                worth = pp + bc * self.credit + bb * self.battery + self._back_worth(li)
                v = _card_value(card, worth, self.cap[li], counts, sorted(counts, reverse=True), sum(counts))
                if v > best:
                    best, second = v, best
                elif v > second:
                    second = v
                gain = max(gain, self._potential(best, second, counts) - before)
            out[a] = gain + KEEP_PP_SHARE * pp
        return out

    def _colour_values(self, legal: list[int]) -> dict[int, float]:
        """A specific-number card's next colour: the one that leaves the best potential
        once the card's remaining numbers are paid too."""
        o = self.o
        card = _contract(o, _O["contract"])
        if card is None:  # not observed (see _key_values): no preference
            return dict.fromkeys(legal, 0.0)
        li = _argmax(o, _O["contract_level"], NL)
        at = _O["contract_picks"]
        picked = [_argmax(o, at + i * NC, NC) for i in range(D.MAX_NUMBERS) if any(o[at + i * NC : at + (i + 1) * NC])]
        needs = card[1]
        need, later = needs[len(picked)], needs[len(picked) + 1 :]
        skip = next((k for k, c in enumerate(self.contracts) if c[:6] == card), -1)
        out = {}
        for a in legal:
            c = a - A.COLOUR.start
            rest = list(self.res[li])
            rest[c] -= need
            used = frozenset(picked + [c])
            out[a] = max(
                (self.level_value(li, left, skip) for left in _number_remainders(later, tuple(rest), used)),
                default=0.0,
            )
        return out

    def _return_values(self, legal: list[int]) -> dict[int, float]:
        out = {}
        for a in legal:
            code = a - A.RETURN_KEY.start
            if code == D.OWN_X:
                out[a] = max(self.plan(li, None, self.col) for li in range(NL)) + OWN_X_USE
            else:
                out[a] = self.plan(code, None, self.col)
        return out

    def _sponsor5_values(self, legal: list[int]) -> dict[int, float]:
        li = self.li
        out = {}
        for a in legal:
            if a == A.BATTERY:
                out[a] = self.battery
                continue
            rest, other = divmod(a - A.MOVE.start, NL)
            c, direction = divmod(rest, 2)
            src, dst = (li, other) if direction == 0 else (other, li)
            out[a] = self.change_value(src, c, -1) + self.change_value(dst, c, 1) - self.battery
        return out


def _card_value(card: tuple, worth: float, cap: int, counts, desc: list, total: int) -> float:
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


def _source(action: int) -> int:
    """The contract source (public slot 0-2, hand slots from 3) of a complete action."""
    return (action - A.COMPLETE.start) // NL


def _moved(col: list, src: int, dst: int) -> list:
    """The column after the diver in slot ``src`` moves to slot ``dst`` (others shift)."""
    new = list(col)
    new.insert(dst, new.pop(src))
    return new


@lru_cache(maxsize=4096)
def _number_remainders(needs: tuple, counts: tuple, used: frozenset) -> tuple[tuple, ...]:
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
