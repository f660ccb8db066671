"""Diver, sponsor and reward-token effects of Otys (a mixin of ``rules.State``).

Every method reads and writes the plain fields of :class:`envs.otys.rules.State`;
the turn's player is ``self.seat`` and the key's level index ``self.level``. Effects
that need a sub-choice set ``self.phase`` to a sub-decision; :meth:`_back` returns
to ``self.resume_phase`` (the step menu) once it is resolved.
"""

from __future__ import annotations

from . import actions, data
from .phases import (
    COPY,
    KEEP,
    RETURN_KEY,
    SPONSOR5,
    SPONSOR_FLIP,
    SPONSOR_TOKEN,
    STEP1,
    STEP2,
    TOKEN_FLIP,
    TOKEN_RESOURCE,
)

SPONSOR_CREDIT_TILE, SPONSOR_DOUBLE_TILE, SPONSOR_KEY_TILE, SPONSOR_FLIP_TILE, SPONSOR_BATTERY_TILE = (
    range(data.NUM_SPONSORS)
)
LAST_SLOT = data.NUM_SLOTS - 1
LAST_LEVEL_SLOT = data.level_slot(data.NUM_LEVELS - 1)


class EffectsMixin:
    """Divers (own and copied by a Spy), sponsors and reward tokens."""

    # ------------------------------------------------------------ small helpers
    def _space(self, p: int, level: int) -> int:
        """Free resource spaces on level ``level`` of seat ``p``."""
        r = self.resources[p]
        b = level * data.NUM_COLOURS
        return self.tables.capacity[level] - r[b] - r[b + 1] - r[b + 2] - r[b + 3]

    def _neighbours(self) -> tuple[int, ...]:
        """(left, right) neighbours of the turn's player; one entry with two players."""
        n, p = self.n, self.seat
        return ((p + 1) % n,) if n == 2 else ((p + 1) % n, (p - 1) % n)

    def _draw_token(self) -> int:
        """Draw a reward token from the bag (refilled from the discards), or -1."""
        if not self.bag and self.token_discard:
            pile = self.token_discard
            self.bag = [pile[i] for i in self.rng.permutation(len(pile)).tolist()]
            self.token_discard = []
        return self.bag.pop() if self.bag else -1

    def _draw_card(self) -> int:
        """Draw the top contract of the deck (-1 when empty)."""
        if not self.deck:
            return -1
        self.deck_seen.pop()
        return self.deck.pop()

    def _return_key(self, p: int, code: int) -> None:
        """Put key ``code`` back where it belongs (own keys home, neutral to supply)."""
        if code == data.NEUTRAL_X:
            self.neutral_supply += 1
        else:
            self.keys_home[p][code] = 1

    def _cost(self, dtype: int, upg: int, depth: int) -> int:
        """Credits to use a diver's effect (Sponsor #1 advanced frees own divers)."""
        if depth == 0 and self.free_costs and dtype in data.SPONSOR1_FREE:
            return 0
        return data.DIVER_COST[dtype][upg]

    def _buy_cost(self, c: int, upg: int, depth: int) -> int:
        """Credits to buy the lowest resource of colour ``c`` from the store."""
        if depth == 0 and self.free_costs:
            return 0
        cost = self.tables.store_credits[self.store[c] - 1]
        if upg:
            cost -= data.TRADER_UPGRADE_DISCOUNT
        return max(cost, 0)

    def _expert_bonus_ok(self, colour: int) -> bool:
        """Whether an upgraded Expert's bonus can be gained now."""
        if colour == data.METAL:
            return self.neutral_supply > 0
        if colour == data.TECH:
            return any(code != data.NEUTRAL_X for code in self.hacker_track[self.seat])
        return True

    # ------------------------------------------------------------ diver options
    def _diver_options(self, dtype: int, upg: int, depth: int, budget: int, out: list) -> None:
        """Append the legal effect actions of a diver used by the turn's player."""
        p, level = self.seat, self.level
        if dtype <= data.TECH_EXPERT:
            res_ok = self._space(p, level) > 0
            bonus_ok = upg and self._expert_bonus_ok(dtype)
            if res_ok:
                out.append(actions.EXPERT_RESOURCE)
            if bonus_ok:
                out.append(actions.EXPERT_BONUS)
                if res_ok:
                    out.append(actions.EXPERT_BOTH)
        elif dtype == data.TRADER:
            r = self.resources[p]
            b = level * data.NUM_COLOURS
            bonus = data.TRADER_UPGRADE_BONUS if upg else 0
            for c in range(data.NUM_COLOURS):
                row = self.store[c]
                if r[b + c] and row < data.STORE_ROWS:
                    out.append(actions.sell_id(c, 0))
                    if self.tables.store_pp[row] + bonus > 0:
                        out.append(actions.sell_id(c, 1))
            if self._space(p, level) > 0:
                for c in range(data.NUM_COLOURS):
                    if self.store[c] and self._buy_cost(c, upg, depth) <= budget:
                        out.append(actions.BUY.start + c)
        elif dtype == data.SPY:
            cost = self._cost(dtype, upg, depth)
            if cost > budget:
                return
            if self.deck and len(self.hands[p]) < self.tables.hand_limit:
                out.append(actions.SPY_DRAW)
            for action, target in zip((actions.SPY_LEFT, actions.SPY_RIGHT), self._neighbours()):
                if self._copy_ok(target, depth, budget - cost):
                    out.append(action)
        elif dtype == data.ENGINEER:
            if self._cost(dtype, upg, depth) <= budget:
                if self.mechanic[p] < len(self.tables.moves) - 1:
                    out.append(actions.ENGINEER_MECHANIC)
                if self.hacker[p] < len(self.tables.hacker_capacity) - 1:
                    out.append(actions.ENGINEER_HACKER)
        else:  # Explorer
            if self._cost(dtype, upg, depth) <= budget:
                base = level * data.DISPLAY_TOKENS
                for i in range(data.DISPLAY_TOKENS):
                    if self.display[base + i] >= 0:
                        out.append(actions.EXPLORE.start + i)

    def _copy_ok(self, target: int, depth: int, budget: int) -> bool:
        """Whether a Spy at ``depth`` may use ``target``'s diver at the key's level."""
        dtype = self.divers[target][data.level_slot(self.level)]
        if dtype == data.SPY and depth > 0:
            return False  # no Spy chains
        opts: list[int] = []
        self._diver_options(dtype, self.upgraded[target][dtype], depth + 1, budget, opts)
        return bool(opts)

    def _copied(self) -> tuple[int, int]:
        """(type, upgraded) of the diver the pending Spy copy uses."""
        target = self.copy_seat
        dtype = self.divers[target][data.level_slot(self.level)]
        return dtype, self.upgraded[target][dtype]

    # ------------------------------------------------------------ diver effects
    def _use_diver(self, action: int, dtype: int, upg: int, depth: int) -> None:
        """Resolve one diver effect action; may open a sub-decision."""
        p, level = self.seat, self.level
        self.phase = STEP2
        if dtype <= data.TECH_EXPERT:
            if action != actions.EXPERT_BONUS:
                self.resources[p][level * data.NUM_COLOURS + dtype] += 1
            if action != actions.EXPERT_RESOURCE:
                self._expert_bonus(dtype)
        elif dtype == data.TRADER:
            self._trade(action, upg, depth)
        elif dtype == data.SPY:
            cost = self._cost(dtype, upg, depth)
            self.credits[p] -= cost
            if action == actions.SPY_DRAW:
                self._start_draw()
            else:
                target = self._neighbours()[action - actions.SPY_LEFT]
                if self.tables.spy_variant:
                    self.credits[target] += cost  # given to the opponent, not spent
                    self.copy_gift = cost
                    self.copy_marked = int(target not in self.marks)
                    if self.copy_marked:
                        self.marks.append(target)
                self.copy_seat = target
                self.copy_depth = depth + 1
                self.phase = COPY
        elif dtype == data.ENGINEER:
            self.credits[p] -= self._cost(dtype, upg, depth)
            if action == actions.ENGINEER_MECHANIC:
                self.mechanic[p] += 1
            else:
                self.hacker[p] += 1
        else:  # Explorer: take a token, refill its space at once, resolve, place it
            self.credits[p] -= self._cost(dtype, upg, depth)
            slot = level * data.DISPLAY_TOKENS + action - actions.EXPLORE.start
            self.token = self.display[slot]
            self.token_to_board = 1
            self.display[slot] = self._draw_token()
            self._resolve_token()

    def _expert_bonus(self, colour: int) -> None:
        """An upgraded Expert's bonus (the Tech Expert's opens a sub-decision)."""
        p = self.seat
        if colour == data.METAL:
            self.neutral_supply -= data.EXPERT_NEUTRAL_KEYS
            self.neutral_held[p] += data.EXPERT_NEUTRAL_KEYS
        elif colour == data.PLANT:
            self.credits[p] += data.EXPERT_CREDIT
        elif colour == data.FUEL:
            self.batteries[p] += data.EXPERT_BATTERY
        else:
            self.phase = RETURN_KEY

    def _trade(self, action: int, upg: int, depth: int) -> None:
        """A Trader sale (credits or PP) or purchase at the key's level."""
        p, base = self.seat, self.level * data.NUM_COLOURS
        if action >= actions.BUY.start:
            c = action - actions.BUY.start
            self.credits[p] -= self._buy_cost(c, upg, depth)
            self.store[c] -= 1
            self.resources[p][base + c] += 1
            return
        c, payout = actions.sell_of(action)
        row = self.store[c]
        bonus = data.TRADER_UPGRADE_BONUS if upg else 0
        self.resources[p][base + c] -= 1
        self.store[c] += 1
        if payout:
            self.pp[p] += self.tables.store_pp[row] + bonus
        else:
            self.credits[p] += self.tables.store_credits[row] + bonus

    def _undo_copy(self) -> None:
        """Designer's variant: the pending copy is declined, so it activated nothing;
        its owner hands the Spy's credits back and its diver is unmarked (a mark made
        earlier in the turn stays). Only this copy: one through a copied Spy leaves
        the outer copy, whose Spy did act, as it was."""
        p, target, gift = self.seat, self.copy_seat, self.copy_gift
        self.credits[target] -= gift
        self.credits[p] += gift
        if self.copy_marked:
            self.marks.remove(target)

    def _start_draw(self) -> None:
        """Draw up to 4 contracts for the keep decision."""
        drawn = []
        while self.deck and len(drawn) < data.DRAW_COUNT:
            drawn.append(self._draw_card())
        self.drawn = drawn
        self.phase = KEEP

    def _keep(self, index: int) -> None:
        """Keep drawn card ``index``; the rest go to the deck's bottom."""
        p = self.seat
        rest = [c for i, c in enumerate(self.drawn) if i != index]
        self.hands[p].append(self.drawn[index])
        self.deck[0:0] = rest
        self.deck_seen[0:0] = [1 << p] * len(rest)
        self.drawn = []
        self._back()

    def _back(self) -> None:
        """A sub-decision is over: finish a reward token in play, return to the menu."""
        tid = self.token
        if tid >= 0:
            p, level = self.seat, self.level
            if self.token_to_board:  # Explorer: onto the board, replacing any token there
                old = self.board_tokens[p][level]
                if old >= 0:
                    self.token_discard.append(old)
                self.board_tokens[p][level] = tid
            else:  # Sponsor #2 advanced: discard, then refill the display space
                self.token_discard.append(tid)
                self.display[self.token_slot] = self._draw_token()
            self.token = -1
        self.phase = self.resume_phase

    # ------------------------------------------------------------ reward tokens
    def _resolve_token(self) -> None:
        """The immediate effect of the reward token ``self.token``."""
        p, tables = self.seat, self.tables
        kind = tables.token_kind[self.token]
        if kind == data.RESOURCE and self._space(p, self.level) > 0:
            self.phase = TOKEN_RESOURCE
        elif kind == data.BATTERY:
            self.batteries[p] += data.TOKEN_BATTERY
            self._back()
        elif kind == data.DRAW and self.deck and len(self.hands[p]) < tables.hand_limit:
            self._start_draw()
        elif kind == data.UPGRADE and not all(self.upgraded[p]):
            self.phase = TOKEN_FLIP
        elif kind == data.PRESTIGE:
            self.pp[p] += data.TOKEN_PP
            self._back()
        else:  # nothing the effect can do now
            self._back()

    # ------------------------------------------------------------ sponsors
    def _sponsor_ok(self) -> bool:
        """Whether the sponsor of the key's level can be used now."""
        p, level = self.seat, self.level
        tile = self.sponsors[level]
        adv = self.advanced[tile]
        if tile == SPONSOR_DOUBLE_TILE and adv:
            base = level * data.DISPLAY_TOKENS
            return self.display[base] >= 0 or self.display[base + 1] >= 0
        if tile == SPONSOR_KEY_TILE and not adv:
            return any(code != data.NEUTRAL_X for code in self.hacker_track[p])
        if tile == SPONSOR_FLIP_TILE:
            if self.credits[p] < data.SPONSOR_UPGRADE_COST:
                return False
            column, upgraded = self.divers[p], self.upgraded[p]
            if adv:
                return any(not upgraded[column[s]] for s in range(data.SURFACE_SLOTS))
            return not upgraded[column[data.level_slot(level)]]
        return True

    def _use_sponsor(self) -> None:
        """Use the sponsor of the key's level (may open a sub-decision)."""
        p, level = self.seat, self.level
        tile = self.sponsors[level]
        adv = self.advanced[tile]
        self.sponsor_used = 1
        self.resume_phase = STEP1
        if tile == SPONSOR_CREDIT_TILE:
            if adv:
                self.free_costs = 1
            else:
                self.credits[p] += data.SPONSOR_CREDIT
        elif tile == SPONSOR_DOUBLE_TILE:
            if adv:
                self.phase = SPONSOR_TOKEN
            else:
                self.uses_left = data.DOUBLE_USES
        elif tile == SPONSOR_KEY_TILE:
            if adv:  # resurface the diver on level 5
                column = self.divers[p]
                column.insert(0, column.pop(LAST_LEVEL_SLOT))
            else:
                self.phase = RETURN_KEY
        elif tile == SPONSOR_FLIP_TILE:
            if adv:
                self.phase = SPONSOR_FLIP
            else:
                self._flip(data.level_slot(level), paid=True)
        else:
            if adv:
                self.phase = SPONSOR5
            else:
                self.batteries[p] += data.SPONSOR_BATTERY

    def _flip(self, slot: int, paid: bool) -> None:
        """Flip the diver in ``slot`` to its upgraded side (Sponsor #4: pay, gain PP)."""
        p = self.seat
        self.upgraded[p][self.divers[p][slot]] = 1
        if paid:
            self.credits[p] -= data.SPONSOR_UPGRADE_COST
            self.pp[p] += data.SPONSOR_UPGRADE_PP

    def _move_options(self, out: list) -> None:
        """Sponsor #5 advanced resource moves (a battery each)."""
        p, level = self.seat, self.level
        if not self.batteries[p]:
            return
        r = self.resources[p]
        here = level * data.NUM_COLOURS
        space_here = self._space(p, level) > 0
        for c in range(data.NUM_COLOURS):
            for other in range(data.NUM_LEVELS):
                if other == level:
                    continue
                if r[here + c] and self._space(p, other) > 0:
                    out.append(actions.move_id(c, 0, other))
                if space_here and r[other * data.NUM_COLOURS + c]:
                    out.append(actions.move_id(c, 1, other))

    def _move(self, action: int) -> None:
        """Spend a battery to move a resource out of / into the key's level."""
        p, level = self.seat, self.level
        c, direction, other = actions.move_of(action)
        src, dst = (level, other) if direction == 0 else (other, level)
        self.batteries[p] -= 1
        self.resources[p][src * data.NUM_COLOURS + c] -= 1
        self.resources[p][dst * data.NUM_COLOURS + c] += 1
