"""Diver, sponsor and reward-token effects of Otys (a mixin of ``rules.State``), and
the facts they rest on as pure functions of plain values.

The pure functions (:func:`diver_cost`, :func:`buy_price`, :func:`sale_payout`,
:func:`expert_bonus_ok`, :func:`diver_options` on a :class:`Site`, :func:`sponsor_ok`,
:func:`move_options`, :func:`free_space`, :func:`neighbour_seats`, :func:`moved`) are
the one definition of what a diver or sponsor may do and what it costs: the engine
calls them on the state's values (a diver's :class:`Site` read lazily from the state:
:class:`StateSite`), the checker on a loaded state's, greedy on a seat view's
(``otrio.envs.otys.view``, ``SeatView.site``), each with its own hypotheticals (another
budget, column or side).

Every mixin method reads and writes the plain fields of :class:`otrio.envs.otys.rules.State`;
the turn's player is ``self.seat`` and the key's level index ``self.level``. Effects
that need a sub-choice set ``self.phase`` to a sub-decision; :meth:`_back` returns
to ``self.resume_phase`` (the step menu) once it is resolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

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
LAST_LEVEL_SLOT = data.level_slot(data.NUM_LEVELS - 1)
NC = data.NUM_COLOURS
_SPONSOR1_FREE = frozenset(data.SPONSOR1_FREE)


# ------------------------------------------------------------ the facts, as pure functions
def free_space(capacity: int, counts: Sequence[int]) -> int:
    """Free resource spaces of a level of ``capacity`` holding ``counts`` (per colour)."""
    return capacity - counts[0] - counts[1] - counts[2] - counts[3]


def neighbour_seats(n: int, seat: int) -> tuple[int, ...]:
    """The seats next to ``seat`` at a table of ``n``: (left, right); one with two players."""
    return ((seat + 1) % n,) if n == 2 else ((seat + 1) % n, (seat - 1) % n)


def moved(column: Sequence[int], source: int, target: int) -> list[int]:
    """A diver column after the diver in slot ``source`` moves to slot ``target``, the
    others shifting (a propeller; to slot 0: resurfacing)."""
    new = list(column)
    new.insert(target, new.pop(source))
    return new


def diver_cost(dtype: int, upgraded: int, depth: int, free_costs: int) -> int:
    """Credits to use a diver's effect: its side's cost, none for an own diver (depth 0)
    while Sponsor #1 advanced is in force (``free_costs``)."""
    if depth == 0 and free_costs and dtype in _SPONSOR1_FREE:
        return 0
    return data.DIVER_COST[dtype][upgraded]


def buy_price(store_credits: Sequence[int], filled: int, upgraded: int, depth: int,
              free_costs: int) -> int:
    """Credits a Trader pays for the lowest resource of a store column holding ``filled``
    (the row's price; the upgraded side 1 less; free for an own Trader under Sponsor #1
    advanced)."""
    if depth == 0 and free_costs:
        return 0
    cost = store_credits[filled - 1]
    if upgraded:
        cost -= data.TRADER_UPGRADE_DISCOUNT
    return max(cost, 0)


def sale_payout(payouts: Sequence[int], filled: int, upgraded: int) -> int:
    """What a Trader's sale into a store column holding ``filled`` pays, from the
    store's row payouts (``store_credits`` or ``store_pp``): the row's, the upgraded
    side 1 more."""
    return payouts[filled] + (data.TRADER_UPGRADE_BONUS if upgraded else 0)


def expert_bonus_ok(colour: int, neutral_supply: int, own_key_on_track: bool) -> bool:
    """Whether an upgraded Expert's bonus can be gained: a neutral X key left (Metal), an
    own key on the Hacker track to return (Tech); the credit and battery always."""
    if colour == data.METAL:
        return neutral_supply > 0
    if colour == data.TECH:
        return own_key_on_track
    return True


class Site(NamedTuple):
    """What a diver used at one level of the turn's player's board can act on."""

    space: int  # free resource spaces at the level
    counts: tuple[int, ...]  # the level's resources per colour
    store: tuple[int, ...]  # resources in each store column
    store_credits: tuple[int, ...]  # the store rows' credits (a sale's payout, a purchase's price)
    store_pp: tuple[int, ...]  # the store rows' PP for a sale
    neutral_supply: int  # neutral X keys in the supply
    own_key_on_track: bool  # an own key lies on the player's Hacker track
    can_draw: bool  # the deck is not empty and the hand below its limit
    neighbours: tuple[tuple[int, int], ...]  # (diver, upgraded) at the level: left, then right
    mechanic_room: bool  # the Mechanic can still be improved
    hacker_room: bool  # the Hacker can still be improved
    tokens: tuple[bool, ...]  # the display's token spaces of the level that hold a token


_TECH_EXPERT, _TRADER, _SPY, _ENGINEER, _STORE_ROWS = (data.TECH_EXPERT, data.TRADER, data.SPY,
                                                    data.ENGINEER, data.STORE_ROWS)
_RESOURCE, _BONUS, _BOTH = actions.EXPERT_RESOURCE, actions.EXPERT_BONUS, actions.EXPERT_BOTH
_SELLS = tuple((actions.sell_id(c, 0), actions.sell_id(c, 1)) for c in range(NC))  # credits, PP
_BUYS = tuple(actions.BUY.start + c for c in range(NC))
_COPIES = (actions.SPY_LEFT, actions.SPY_RIGHT)
_EXPLORES = tuple(actions.EXPLORE)


def diver_options(dtype: int, upgraded: int, depth: int, budget: int, free_costs: int,
                  site: Site) -> list[int]:
    """The effect actions of a diver (``depth`` 0: the player's own; 1-2: copied by a
    Spy) used at ``site`` by a player holding ``budget`` credits."""
    out: list[int] = []
    if dtype <= _TECH_EXPERT:
        room = site.space > 0
        if room:
            out.append(_RESOURCE)
        if upgraded and expert_bonus_ok(dtype, site.neutral_supply, site.own_key_on_track):
            out.append(_BONUS)
            if room:
                out.append(_BOTH)
    elif dtype == _TRADER:
        store, counts = site.store, site.counts
        for c in range(NC):
            if counts[c] and store[c] < _STORE_ROWS:
                for_credits, for_pp = _SELLS[c]
                out.append(for_credits)
                if sale_payout(site.store_pp, store[c], upgraded) > 0:
                    out.append(for_pp)
        if site.space > 0:
            for c in range(NC):
                if store[c] and buy_price(site.store_credits, store[c], upgraded, depth,
                                          free_costs) <= budget:
                    out.append(_BUYS[c])
    elif dtype == _SPY:
        cost = diver_cost(dtype, upgraded, depth, free_costs)
        if cost > budget:
            return out
        if site.can_draw:
            out.append(actions.SPY_DRAW)
        for action, (other, other_upgraded) in zip(_COPIES, site.neighbours):
            if other == _SPY and depth > 0:
                continue  # no Spy chains
            if diver_options(other, other_upgraded, depth + 1, budget - cost, free_costs, site):
                out.append(action)
    elif dtype == _ENGINEER:
        if diver_cost(dtype, upgraded, depth, free_costs) <= budget:
            if site.mechanic_room:
                out.append(actions.ENGINEER_MECHANIC)
            if site.hacker_room:
                out.append(actions.ENGINEER_HACKER)
    elif diver_cost(dtype, upgraded, depth, free_costs) <= budget:  # the Explorer
        for action, shown in zip(_EXPLORES, site.tokens):
            if shown:
                out.append(action)
    return out


def sponsor_ok(tile: int, advanced: int, credits: int, column: Sequence[int],
               upgraded: Sequence[int], level: int, tokens_shown: bool,
               own_key_on_track: bool) -> bool:
    """Whether sponsor ``tile`` (its side ``advanced``) can be used at ``level`` by a
    player with ``credits``, diver ``column`` and ``upgraded`` flags (per diver type);
    ``tokens_shown``: the level's display holds a token."""
    if tile == SPONSOR_DOUBLE_TILE and advanced:
        return tokens_shown
    if tile == SPONSOR_KEY_TILE and not advanced:
        return own_key_on_track
    if tile == SPONSOR_FLIP_TILE:
        if credits < data.SPONSOR_UPGRADE_COST:
            return False
        if advanced:
            return any(not upgraded[column[s]] for s in range(data.SURFACE_SLOTS))
        return not upgraded[column[data.level_slot(level)]]
    return True


def move_options(level: int, counts: Sequence[Sequence[int]], spaces: Sequence[int],
                 batteries: int) -> list[int]:
    """Sponsor #5 advanced's resource moves (a battery each) out of or into ``level``,
    from each level's ``counts`` (per colour) and free ``spaces``."""
    out: list[int] = []
    if not batteries:
        return out
    here = counts[level]
    space_here = spaces[level] > 0
    for c in range(NC):
        for other in range(data.NUM_LEVELS):
            if other == level:
                continue
            if here[c] and spaces[other] > 0:
                out.append(actions.move_id(c, 0, other))
            if space_here and counts[other][c]:
                out.append(actions.move_id(c, 1, other))
    return out


class StateSite:
    """The :class:`Site` of a state's key level (its turn player's), each fact read from
    the state when :func:`diver_options` asks for it (it reads few: the engine's way to
    a diver's options; ``Site(*StateSite(state))`` is the plain one)."""

    __slots__ = ("_s",)

    def __init__(self, state):
        self._s = state

    def __iter__(self):
        return (getattr(self, name) for name in Site._fields)

    @property
    def space(self) -> int:
        s = self._s
        return s._space(s.seat, s.level)

    @property
    def counts(self) -> tuple[int, ...]:
        s, b = self._s, self._s.level * NC
        return tuple(s.resources[s.seat][b : b + NC])

    @property
    def store(self) -> tuple[int, ...]:
        return tuple(self._s.store)

    @property
    def store_credits(self) -> tuple[int, ...]:
        return self._s.tables.store_credits

    @property
    def store_pp(self) -> tuple[int, ...]:
        return self._s.tables.store_pp

    @property
    def neutral_supply(self) -> int:
        return self._s.neutral_supply

    @property
    def own_key_on_track(self) -> bool:
        return self._s._own_key_on_track(self._s.seat)

    @property
    def can_draw(self) -> bool:
        s = self._s
        return bool(s.deck) and len(s.hands[s.seat]) < s.tables.hand_limit

    @property
    def neighbours(self) -> tuple[tuple[int, int], ...]:
        s = self._s
        slot = data.level_slot(s.level)
        return tuple([(s.divers[q][slot], s.upgraded[q][s.divers[q][slot]]) for q in s._neighbours()])

    @property
    def mechanic_room(self) -> bool:
        s = self._s
        return s.mechanic[s.seat] < len(s.tables.moves) - 1

    @property
    def hacker_room(self) -> bool:
        s = self._s
        return s.hacker[s.seat] < len(s.tables.hacker_capacity) - 1

    @property
    def tokens(self) -> tuple[bool, ...]:
        s, at = self._s, self._s.level * data.DISPLAY_TOKENS
        return tuple([token >= 0 for token in s.display[at : at + data.DISPLAY_TOKENS]])


class EffectsMixin:
    """Divers (own and copied by a Spy), sponsors and reward tokens."""

    # ------------------------------------------------------------ small helpers
    def _space(self, p: int, level: int) -> int:
        """Free resource spaces on level ``level`` of seat ``p``."""
        b = level * NC
        return free_space(self.tables.capacity[level], self.resources[p][b : b + NC])

    def _neighbours(self) -> tuple[int, ...]:
        """(left, right) neighbours of the turn's player; one entry with two players."""
        return neighbour_seats(self.n, self.seat)

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

    def _own_key_on_track(self, p: int) -> bool:
        """Whether an own key (not a neutral one) lies on seat ``p``'s Hacker track."""
        track = self.hacker_track[p]
        return len(track) > track.count(data.NEUTRAL_X)

    # ------------------------------------------------------------ diver options
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
            cost = diver_cost(dtype, upg, depth, self.free_costs)
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
            self.credits[p] -= diver_cost(dtype, upg, depth, self.free_costs)
            if action == actions.ENGINEER_MECHANIC:
                self.mechanic[p] += 1
            else:
                self.hacker[p] += 1
        else:  # Explorer: take a token, refill its space at once, resolve, place it
            self.credits[p] -= diver_cost(dtype, upg, depth, self.free_costs)
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
        p, base, tables = self.seat, self.level * NC, self.tables
        if action >= actions.BUY.start:
            c = action - actions.BUY.start
            self.credits[p] -= buy_price(tables.store_credits, self.store[c], upg, depth, self.free_costs)
            self.store[c] -= 1
            self.resources[p][base + c] += 1
            return
        c, payout = actions.sell_of(action)
        row = self.store[c]
        self.resources[p][base + c] -= 1
        self.store[c] += 1
        if payout:
            self.pp[p] += sale_payout(tables.store_pp, row, upg)
        else:
            self.credits[p] += sale_payout(tables.store_credits, row, upg)

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
        """Whether the sponsor of the key's level can be used now (:func:`sponsor_ok`)."""
        p, level = self.seat, self.level
        tile = self.sponsors[level]
        at = level * data.DISPLAY_TOKENS
        return sponsor_ok(tile, self.advanced[tile], self.credits[p], self.divers[p], self.upgraded[p],
                          level, self.display[at] >= 0 or self.display[at + 1] >= 0,
                          self._own_key_on_track(p))

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
                self.divers[p] = moved(self.divers[p], LAST_LEVEL_SLOT, 0)
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
        """Sponsor #5 advanced resource moves (a battery each): :func:`move_options`."""
        p, r, capacity = self.seat, self.resources[self.seat], self.tables.capacity
        counts = [r[b : b + NC] for b in range(0, data.NUM_LEVELS * NC, NC)]
        spaces = [free_space(capacity[level], counts[level]) for level in range(data.NUM_LEVELS)]
        out.extend(move_options(self.level, counts, spaces, self.batteries[p]))

    def _move(self, action: int) -> None:
        """Spend a battery to move a resource out of / into the key's level."""
        p, level = self.seat, self.level
        c, direction, other = actions.move_of(action)
        src, dst = (level, other) if direction == 0 else (other, level)
        self.batteries[p] -= 1
        self.resources[p][src * data.NUM_COLOURS + c] -= 1
        self.resources[p][dst * data.NUM_COLOURS + c] += 1
