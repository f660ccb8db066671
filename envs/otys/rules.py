"""Otys rules: the game state, its decisions, and how actions change it.

Read next to ``RULES.md`` in this folder (the rules as this code plays them). A turn is a
run of single decisions by the same seat (``self.phase`` names the pending one):

1. ``Phase.KEY``: a numbered key, or an X key (own / neutral) at any level; an X key
   rotates the sponsors at once.
2. ``Phase.STEP1``: propellers (numbered keys only), the sponsor of the key's level (once),
   contracts; choosing a diver effect starts step 2, ``resurface`` / ``oxygen``
   ends the turn without using the diver.
3. ``Phase.STEP2``: the diver's effect (twice with Sponsor #2 basic), contracts,
   ``resurface`` / ``oxygen`` (step 3) ends the turn.

Sub-decisions (token picks, colours, kept cards, Spy copies ...) return to the step
menu they came from. The effects live in :mod:`otrio.envs.otys.effects`.
"""

from __future__ import annotations

from itertools import compress

import numpy as np

from otrio.envs.core import TERMINAL, StateError
from otrio.envs.core.schema import INT, ListOf, SavedState, StateSchema

from . import actions, data, records
from .config import Config, tables_for
from .contracts import ContractsMixin
from .effects import EffectsMixin, StateSite, diver_options, moved
from .phases import (
    CONTRACT_COLOUR,
    COPY,
    KEEP,
    KEY,
    NO_PHASE,
    RETURN_KEY,
    SPONSOR5,
    SPONSOR_FLIP,
    SPONSOR_TOKEN,
    STEP1,
    STEP2,
    TOKEN_FLIP,
    TOKEN_RESOURCE,
    VARIANT,
)

NC = data.NUM_COLOURS

_INTS = ListOf(INT)
_ROWS = ListOf(_INTS)  # one list of ints a seat
# What a State holds, saved and cloned from this one declaration (otrio.envs.core.schema):
# plain ints (flags 0/1, -1 where nothing is set), lists of ints, a list a seat.
SCHEMA = StateSchema(
    "Otys", Config,
    shared=("config", "tables", "num_players", "n"),  # from the config
    fields={
        **dict.fromkeys((
            "seat", "actor", "round", "end_triggered", "over", "capped", "phase", "key",
            "level", "sponsor_used", "uses_left", "free_costs", "resume_phase", "token",
            "token_to_board", "token_slot", "copy_seat", "copy_depth", "contract",
            "contract_source", "contract_level", "neutral_supply", "yield_tile", "copy_gift",
            "copy_marked"), INT),
        **dict.fromkeys((
            "neutral_held", "mechanic", "hacker", "credits", "batteries", "pp", "sponsors",
            "advanced", "display", "bag", "token_discard", "store", "public", "deck",
            "deck_seen", "discard", "drawn", "colour_picks", "marks", "sponsor_setup",
            "yield_base"), _INTS),
        **dict.fromkeys((
            "divers", "upgraded", "resources", "keys_home", "hacker_track", "board_tokens",
            "hands", "sponsor_uses", "sponsor_yield", "pp_by_source"), _ROWS),
    },
)  # fmt: skip


def shuffled(rng: np.random.Generator, items: list) -> list:
    """A shuffled copy of ``items`` drawn from ``rng``."""
    return [items[i] for i in rng.permutation(len(items)).tolist()]


class State(ContractsMixin, EffectsMixin, SavedState):
    """One game of Otys. Seats 0..n-1; seat 0 holds the First Player marker."""

    schema = SCHEMA  # to_dict, from_dict and clone

    def __init__(self, config: Config, rng: np.random.Generator, setup: bool = True):
        """A game after setup; with ``setup=False`` only what the config gives (the
        schema's shared part), for ``from_dict`` to fill in."""
        self.config = config
        self.tables = tables_for(config)
        self.rng = rng
        self.num_players = self.n = config.num_players
        if setup:
            self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        """Deal the table (rulebook 'Setup'); every random choice comes from ``rng``."""
        tables, n, rng = self.tables, self.n, self.rng
        sp = self.config.sponsors
        order = sp.order
        self.sponsors = (
            [k - 1 for k in order] if order else rng.permutation(data.NUM_SPONSORS).tolist()
        )
        if sp.sides == "random":
            self.advanced = rng.integers(0, 2, data.NUM_SPONSORS).tolist()
        elif isinstance(sp.sides, str):
            self.advanced = [int(sp.sides == "advanced")] * data.NUM_SPONSORS
        else:
            self.advanced = [int(side == "advanced") for side in sp.sides]
        self.divers, self.upgraded, self.resources = [], [], []
        for _ in range(n):
            self.divers.append(rng.permutation(data.NUM_DIVERS).tolist())
            self.upgraded.append([0] * data.NUM_DIVERS)
            res = [0] * (data.NUM_LEVELS * NC)
            for level, c in zip(data.START_RESOURCE_LEVELS, rng.permutation(NC).tolist()):
                res[level * NC + c] += 1
            self.resources.append(res)
        self.keys_home = [[1] * data.NUM_OWN_KEYS for _ in range(n)]
        self.hacker_track = [[] for _ in range(n)]
        self.board_tokens = [[-1] * data.NUM_LEVELS for _ in range(n)]
        self.hands = [[] for _ in range(n)]
        self.neutral_held = [0] * n
        self.mechanic = [0] * n
        self.hacker = [0] * n
        self.credits = [tables.start_credits] * n
        self.batteries = [tables.start_batteries] * n
        self.pp = [0] * n
        self.neutral_supply = tables.neutral_x_keys
        self.bag = shuffled(rng, list(range(tables.num_tokens)))
        self.token_discard = []
        self.display = [self._draw_token() for _ in range(data.NUM_LEVELS * data.DISPLAY_TOKENS)]
        self.store = [0] * NC
        for c, count in zip(rng.permutation(NC).tolist(), data.STORE_SETUP):
            self.store[c] = count
        self.deck = shuffled(rng, list(range(tables.num_contracts)))
        self.deck_seen = [0] * len(self.deck)
        self.discard = []
        self.public = [self._draw_card() for _ in range(tables.public)]
        self.drawn, self.colour_picks, self.marks = [], [], []
        records.start(self)
        self.seat = 0
        self.round = 1
        self.end_triggered = self.over = self.capped = 0
        self._start_turn(0)

    def _start_turn(self, seat: int) -> None:
        """Reset the turn's bookkeeping for ``seat``."""
        self.seat = self.actor = seat
        self.phase = KEY
        self.key = self.level = -1
        self.sponsor_used = self.uses_left = self.free_costs = 0
        self.resume_phase = KEY
        self.token = self.token_slot = -1
        self.token_to_board = 0
        self.copy_seat = -1
        self.copy_depth = self.copy_gift = self.copy_marked = 0
        self.contract = self.contract_source = self.contract_level = -1
        self.marks = []

    # ------------------------------------------------------------------ contract
    def current_player(self) -> int:
        """The seat to decide, or TERMINAL once the game is over."""
        return TERMINAL if self.over else self.actor

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return bool(self.over)

    def scores(self) -> list[int]:
        """Prestige points of each seat."""
        return list(self.pp)

    def resource_total(self, p: int) -> int:
        """Resources in seat ``p``'s search zone (the first tie-break)."""
        return sum(self.resources[p])

    def winners(self) -> list[int]:
        """Most PP; tie: most resources in the search zone; still tied: shared."""
        best = max(self.pp)
        tied = [p for p in range(self.n) if self.pp[p] == best]
        most = max(self.resource_total(p) for p in tied)
        return [p for p in tied if self.resource_total(p) == most]

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Sorted ids of the legal actions of the pending decision."""
        if self.over:
            return []
        out: list[int] = []
        phase, p, level = self.phase, self.seat, self.level
        if phase == KEY:
            home = self.keys_home[p]
            out.extend(compress(actions.KEY, home))  # the numbered keys still at home
            if home[data.OWN_X]:
                out.extend(actions.XOWN)
            if self.neutral_held[p]:
                out.extend(actions.XNEUTRAL)
            self._contract_options(out)
        elif phase == STEP1 or phase == STEP2:
            if phase == STEP1:
                if self.key < data.OWN_X and self.batteries[p]:  # propellers, a battery each
                    out.extend(actions.prop_options(self.tables.moves[self.mechanic[p]]))
                if not self.sponsor_used and self._sponsor_ok():
                    out.append(actions.SPONSOR)
            self._contract_options(out)
            if self.uses_left:
                dtype = self.divers[p][data.level_slot(level)]
                out.extend(diver_options(dtype, self.upgraded[p][dtype], 0, self.credits[p],
                                         self.free_costs, StateSite(self)))
            out.append(actions.RESURFACE)
            if self.batteries[p]:
                out.append(actions.OXYGEN)
        elif phase == COPY:
            dtype, upg = self._copied()
            out.extend(diver_options(dtype, upg, self.copy_depth, self.credits[p], self.free_costs,
                                     StateSite(self)))
            out.append(actions.DECLINE)
        elif phase == KEEP:  # no decline: a draw starts only with room in the hand
            out.extend(actions.KEEP.start + i for i in range(len(self.drawn)))
        elif phase == CONTRACT_COLOUR:
            out.extend(actions.COLOUR.start + c for c in self._colour_options())
        elif phase == TOKEN_RESOURCE:
            out.extend(actions.COLOUR.start + c for c in self.tables.token_colours[self.token])
            out.append(actions.DECLINE)
        elif phase == RETURN_KEY:
            own = (k for k in self.hacker_track[p] if k != data.NEUTRAL_X)
            out.extend(actions.RETURN_KEY.start + k for k in own)
        elif phase == SPONSOR_FLIP or phase == TOKEN_FLIP:
            column, upgraded = self.divers[p], self.upgraded[p]
            slots = data.SURFACE_SLOTS if phase == SPONSOR_FLIP else data.NUM_SLOTS
            out.extend(actions.FLIP.start + s for s in range(slots) if not upgraded[column[s]])
            if phase == TOKEN_FLIP:
                out.append(actions.DECLINE)
        elif phase == SPONSOR_TOKEN:
            base = level * data.DISPLAY_TOKENS
            shown = (i for i in range(data.DISPLAY_TOKENS) if self.display[base + i] >= 0)
            out.extend(actions.TOKEN.start + i for i in shown)
        elif phase == SPONSOR5:
            out.append(actions.BATTERY)
            self._move_options(out)
        elif phase == VARIANT:
            out.extend((actions.RESURFACE, actions.OXYGEN))
        out.sort()
        return out

    # ------------------------------------------------------------------ apply
    def apply_action(self, action: int) -> None:
        """Play one legal action of the pending decision. The game record notes it
        before and after (:mod:`otrio.envs.otys.records`: it changes nothing in play)."""
        noted = records.before(self, action)
        phase, p = self.phase, self.seat
        if action in actions.COMPLETE:
            self._start_contract(action)
        elif phase == KEY:
            self._choose_key(action)
        elif phase == STEP1 or phase == STEP2:
            if action == actions.RESURFACE or action == actions.OXYGEN:
                self._end_turn(action == actions.OXYGEN)
            elif action in actions.PROP:
                source, target = actions.prop_of(action)
                self.batteries[p] -= 1
                self.divers[p] = moved(self.divers[p], source, target)
            elif action == actions.SPONSOR:
                self._use_sponsor()
            else:  # a diver effect: step 2 begins (or goes on)
                self.uses_left -= 1
                self.resume_phase = STEP2
                dtype = self.divers[p][data.level_slot(self.level)]
                self._use_diver(action, dtype, self.upgraded[p][dtype], 0)
        elif phase == COPY:
            if action == actions.DECLINE:
                if self.tables.spy_variant:
                    self._undo_copy()
                self._back()
            else:
                dtype, upg = self._copied()
                self._use_diver(action, dtype, upg, self.copy_depth)
        elif phase == KEEP:
            self._keep(action - actions.KEEP.start)
        elif phase == CONTRACT_COLOUR:
            self.colour_picks.append(action - actions.COLOUR.start)
            if len(self.colour_picks) == len(self.tables.contract_needs[self.contract]):
                self._finish_contract()
        elif phase == TOKEN_RESOURCE:
            if action != actions.DECLINE:
                self.resources[p][self.level * NC + action - actions.COLOUR.start] += 1
            self._back()
        elif phase == RETURN_KEY:
            code = action - actions.RETURN_KEY.start
            self.hacker_track[p].remove(code)
            self.keys_home[p][code] = 1
            self._back()
        elif phase == SPONSOR_FLIP or phase == TOKEN_FLIP:
            if action != actions.DECLINE:
                self._flip(action - actions.FLIP.start, paid=phase == SPONSOR_FLIP)
            self._back()
        elif phase == SPONSOR_TOKEN:
            slot = self.level * data.DISPLAY_TOKENS + action - actions.TOKEN.start
            self.token, self.token_slot, self.token_to_board = self.display[slot], slot, 0
            self.display[slot] = -1
            self._resolve_token()
        elif phase == SPONSOR5:
            if action == actions.BATTERY:
                self.batteries[p] += data.SPONSOR_BATTERY
            else:
                self._move(action)
            self._back()
        elif phase == VARIANT:
            self._variant(action == actions.OXYGEN)
        else:
            raise StateError(f"no decision is pending (phase {phase})")
        records.after(self, action, noted)

    def _choose_key(self, action: int) -> None:
        """Take a key (an X key rotates the sponsors before anything else)."""
        p = self.seat
        kind, level = actions.key_of(action)
        if kind == actions.KEY_NUMBERED:
            self.keys_home[p][level] = 0
            self.key = level
        else:
            if kind == actions.KEY_OWN_X:
                self.keys_home[p][data.OWN_X] = 0
                self.key = data.OWN_X
            else:
                self.neutral_held[p] -= 1
                self.key = data.NEUTRAL_X
            s = self.sponsors
            self.sponsors = [s[-1]] + s[:-1]
        self.level = level
        self.uses_left = 1
        self.phase = self.resume_phase = STEP1

    # ------------------------------------------------------------------ step 3
    def _end_turn(self, oxygen: bool) -> None:
        """Step 3: oxygen or resurface, then the key goes to the Hacker track."""
        p = self.seat
        if oxygen:
            self.batteries[p] -= 1
            self.marks = []  # the Spy stays down, so do the divers it used
        else:
            self.divers[p] = moved(self.divers[p], data.level_slot(self.level), 0)
        track = self.hacker_track[p]
        if len(track) >= self.tables.hacker_capacity[self.hacker[p]]:
            for code in track:
                self._return_key(p, code)
            self._return_key(p, self.key)
            track.clear()
        else:
            track.append(self.key)
        self.key = -1
        self._run_marks()

    def _run_marks(self) -> None:
        """Designer's Spy variant: each copied diver resurfaces unless its owner pays."""
        if not self.marks:
            self._next_turn()
        elif self.batteries[self.marks[0]]:
            self.actor = self.marks[0]
            self.phase = VARIANT
        else:
            self._variant(False)

    def _variant(self, oxygen: bool) -> None:
        """The owner of a copied diver chose: oxygen (a battery) or resurface."""
        target = self.marks.pop(0)
        if oxygen:
            self.batteries[target] -= 1
        else:
            self.divers[target] = moved(self.divers[target], data.level_slot(self.level), 0)
        self._run_marks()

    def _next_turn(self) -> None:
        """End checks (18 PP ends the game at the end of the round; the round cap)."""
        if max(self.pp) >= self.tables.end_pp:
            self.end_triggered = 1
        if self.seat == self.n - 1:
            if self.end_triggered or self.round >= self.tables.round_cap:
                self.over = 1
                self.capped = int(not self.end_triggered)
                self.phase = NO_PHASE
                self.actor = TERMINAL
                return
            self.round += 1
        self._start_turn((self.seat + 1) % self.n)
