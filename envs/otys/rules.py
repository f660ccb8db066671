"""Otys rules: the game state, its decisions, and how actions change it.

Read next to ``RULES.md`` in this folder (the rules as this code plays them). A turn is a
run of single decisions by the same seat (``self.phase`` names the pending one):

1. ``KEY``: a numbered key, or an X key (own / neutral) at any level; an X key
   rotates the sponsors at once.
2. ``STEP1``: propellers (numbered keys only), the sponsor of the key's level (once),
   contracts; choosing a diver effect starts step 2, ``resurface`` / ``oxygen``
   ends the turn without using the diver.
3. ``STEP2``: the diver's effect (twice with Sponsor #2 basic), contracts,
   ``resurface`` / ``oxygen`` (step 3) ends the turn.

Sub-decisions (token picks, colours, kept cards, Spy copies ...) return to the step
menu they came from. The effects live in :mod:`envs.otys.effects`.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

import numpy as np

from envs.core import TERMINAL, StateError, make_rng, rng_from_dict, rng_to_dict, validate
from envs.core.rng import clone_rng

from . import actions as A
from . import data as D
from .config import Config, tables_for
from .contracts import ContractsMixin
from .effects import (
    CONTRACT_COLOUR,
    COPY,
    KEEP,
    KEY,
    NO_PHASE,
    RETURN_KEY,
    SPONSOR5,
    SPONSOR_CREDIT_TILE,
    SPONSOR_DOUBLE_TILE,
    SPONSOR_FLIP,
    SPONSOR_TOKEN,
    STEP1,
    STEP2,
    TOKEN_FLIP,
    TOKEN_RESOURCE,
    VARIANT,
    EffectsMixin,
)

NC = D.NUM_COLOURS
MAIN_PHASES = (KEY, STEP1, STEP2)  # decision points where contracts may be completed

# fields saved by to_dict, by how deep their lists nest (0: plain value)
_FLAT = (
    "n", "seat", "actor", "round", "end_triggered", "over", "capped", "phase",
    "key", "lvl", "sponsor_used", "uses", "free", "resume", "tok", "tok_board",
    "tok_slot", "copy_seat", "copy_depth", "ctr", "ctr_src", "ctr_lvl", "neutral",
    "sp_tile", "copy_gift", "copy_marked",
)  # fmt: skip
_LISTS = (
    "nx", "mech", "hack", "credits", "batteries", "pp", "sponsors", "adv", "display",
    "bag", "tdiscard", "store", "public", "deck", "seen", "discard", "drawn", "picks",
    "marks", "sponsor_setup", "sp_base",
)  # fmt: skip
_NESTED = ("col", "up", "res", "home", "track", "rtok", "hands", "sp_uses", "sp_yield", "pp_src")

# ---------------------------------------------------------------- record counters
# Nothing below changes a game: these counters only feed ``OtysGame.game_summary``.
# What a sponsor tile yields to the seat that used it, measured as the change of
# these amounts from the use until the step menu is back (so sub-decisions count);
# Sponsor #2 basic: the second diver use; Sponsor #1 advanced: the credits it saved.
YIELD_KINDS = ("pp", "credits", "batteries", "resources", "contracts", "upgrades", "keys")
NUM_YIELDS = len(YIELD_KINDS)
YIELD_CREDITS = YIELD_KINDS.index("credits")
# Where PP came from: contracts, the reward token backs paid on completing them,
# store sales, sponsors (#4's flip, a PP token through #2 advanced), reward tokens'
# immediate PP through the Explorer.
PP_SOURCES = ("contracts", "reward_backs", "store", "sponsors", "reward_tokens")
PP_CONTRACTS, PP_BACKS, PP_STORE, PP_SPONSORS, PP_TOKENS = range(len(PP_SOURCES))
_COUNTER_DEFAULTS = {  # counters missing from a state saved before they existed
    "sp_tile": lambda s: -1,
    "sponsor_setup": lambda s: list(s.sponsors),
    "sp_base": lambda s: [0] * NUM_YIELDS,
    "sp_uses": lambda s: [[0] * D.NUM_SPONSORS for _ in range(s.n)],
    "sp_yield": lambda s: [[0] * (D.NUM_SPONSORS * NUM_YIELDS) for _ in range(s.n)],
    "pp_src": lambda s: [[0] * len(PP_SOURCES) for _ in range(s.n)],
}
# every field a save may lack: the counters, and what the pending Spy copy did in the
# designer's variant (a copy pending in such a save: declining it undoes nothing)
_DEFAULTS = {**_COUNTER_DEFAULTS, "copy_gift": lambda s: 0, "copy_marked": lambda s: 0}


def _shuffled(rng: np.random.Generator, items: list) -> list:
    """A shuffled copy of ``items`` drawn from ``rng``."""
    return [items[i] for i in rng.permutation(len(items)).tolist()]


class State(ContractsMixin, EffectsMixin):
    """One game of Otys. Seats 0..n-1; seat 0 holds the First Player marker."""

    def __init__(self, config: Config, rng: np.random.Generator, setup: bool = True):
        self.config = config
        self.t = tables_for(config)
        self.rng = rng
        self.num_players = self.n = config.num_players
        if setup:
            self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        """Deal the table (rulebook 'Setup'); every random choice comes from ``rng``."""
        t, n, rng = self.t, self.n, self.rng
        sp = self.config.sponsors
        order = sp.order
        self.sponsors = (
            [k - 1 for k in order] if order else rng.permutation(D.NUM_SPONSORS).tolist()
        )
        if sp.sides == "random":
            self.adv = rng.integers(0, 2, D.NUM_SPONSORS).tolist()
        elif isinstance(sp.sides, str):
            self.adv = [int(sp.sides == "advanced")] * D.NUM_SPONSORS
        else:
            self.adv = [int(side == "advanced") for side in sp.sides]
        self.col, self.up, self.res = [], [], []
        for _ in range(n):
            self.col.append(rng.permutation(D.NUM_DIVERS).tolist())
            self.up.append([0] * D.NUM_DIVERS)
            res = [0] * (D.NUM_LEVELS * NC)
            for li, c in zip(D.START_RESOURCE_LEVELS, rng.permutation(NC).tolist()):
                res[li * NC + c] += 1
            self.res.append(res)
        self.home = [[1] * D.NUM_OWN_KEYS for _ in range(n)]
        self.track = [[] for _ in range(n)]
        self.rtok = [[-1] * D.NUM_LEVELS for _ in range(n)]
        self.hands = [[] for _ in range(n)]
        self.nx = [0] * n
        self.mech = [0] * n
        self.hack = [0] * n
        self.credits = [t.start_credits] * n
        self.batteries = [t.start_batteries] * n
        self.pp = [0] * n
        self.neutral = t.neutral_x_keys
        self.bag = _shuffled(rng, list(range(t.num_tokens)))
        self.tdiscard = []
        self.display = [self._draw_token() for _ in range(D.NUM_LEVELS * D.DISPLAY_TOKENS)]
        self.store = [0] * NC
        for c, count in zip(rng.permutation(NC).tolist(), D.STORE_SETUP):
            self.store[c] = count
        self.deck = _shuffled(rng, list(range(t.num_contracts)))
        self.seen = [0] * len(self.deck)
        self.discard = []
        self.public = [self._draw_card() for _ in range(t.public)]
        self.drawn, self.picks, self.marks = [], [], []
        self.sponsor_setup = list(self.sponsors)
        self.sp_tile = -1
        self.sp_base = [0] * NUM_YIELDS
        self.sp_uses = [[0] * D.NUM_SPONSORS for _ in range(n)]
        self.sp_yield = [[0] * (D.NUM_SPONSORS * NUM_YIELDS) for _ in range(n)]
        self.pp_src = [[0] * len(PP_SOURCES) for _ in range(n)]
        self.seat = 0
        self.round = 1
        self.end_triggered = self.over = self.capped = 0
        self._start_turn(0)

    def _start_turn(self, seat: int) -> None:
        """Reset the turn's bookkeeping for ``seat``."""
        self.seat = self.actor = seat
        self.phase = KEY
        self.key = self.lvl = -1
        self.sponsor_used = self.uses = self.free = 0
        self.resume = KEY
        self.tok = self.tok_slot = -1
        self.tok_board = 0
        self.copy_seat = -1
        self.copy_depth = self.copy_gift = self.copy_marked = 0
        self.ctr = self.ctr_src = self.ctr_lvl = -1
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

    def resources(self, p: int) -> int:
        """Resources in seat ``p``'s search zone (the first tie-break)."""
        return sum(self.res[p])

    def winners(self) -> list[int]:
        """Most PP; tie: most resources in the search zone; still tied: shared."""
        best = max(self.pp)
        tied = [p for p in range(self.n) if self.pp[p] == best]
        most = max(self.resources(p) for p in tied)
        return [p for p in tied if self.resources(p) == most]

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Sorted ids of the legal actions of the pending decision."""
        if self.over:
            return []
        out: list[int] = []
        phase, p, li = self.phase, self.seat, self.lvl
        if phase == KEY:
            home = self.home[p]
            out.extend(compress(A.KEY, home))  # the numbered keys still at home
            if home[D.OWN_X]:
                out.extend(A.XOWN)
            if self.nx[p]:
                out.extend(A.XNEUTRAL)
            self._contract_options(out)
        elif phase == STEP1 or phase == STEP2:
            if phase == STEP1:
                if self.key < D.OWN_X and self.batteries[p]:  # propellers, a battery each
                    out.extend(A.prop_options(self.t.moves[self.mech[p]]))
                if not self.sponsor_used and self._sponsor_ok():
                    out.append(A.SPONSOR)
            self._contract_options(out)
            if self.uses:
                dtype = self.col[p][D.level_slot(li)]
                self._diver_options(dtype, self.up[p][dtype], 0, self.credits[p], out)
            out.append(A.RESURFACE)
            if self.batteries[p]:
                out.append(A.OXYGEN)
        elif phase == COPY:
            dtype, upg = self._copied()
            self._diver_options(dtype, upg, self.copy_depth, self.credits[p], out)
            out.append(A.DECLINE)
        elif phase == KEEP:  # no decline: a draw starts only with room in the hand
            out.extend(A.KEEP.start + i for i in range(len(self.drawn)))
        elif phase == CONTRACT_COLOUR:
            out.extend(A.COLOUR.start + c for c in self._colour_options())
        elif phase == TOKEN_RESOURCE:
            out.extend(A.COLOUR.start + c for c in self.t.token_colours[self.tok])
            out.append(A.DECLINE)
        elif phase == RETURN_KEY:
            out.extend(A.RETURN_KEY.start + k for k in self.track[p] if k != D.NEUTRAL_X)
        elif phase == SPONSOR_FLIP or phase == TOKEN_FLIP:
            col, up = self.col[p], self.up[p]
            slots = D.SURFACE_SLOTS if phase == SPONSOR_FLIP else D.NUM_SLOTS
            out.extend(A.FLIP.start + s for s in range(slots) if not up[col[s]])
            if phase == TOKEN_FLIP:
                out.append(A.DECLINE)
        elif phase == SPONSOR_TOKEN:
            base = li * D.DISPLAY_TOKENS
            out.extend(
                A.TOKEN.start + i for i in range(D.DISPLAY_TOKENS) if self.display[base + i] >= 0
            )
        elif phase == SPONSOR5:
            out.append(A.BATTERY)
            self._move_options(out)
        elif phase == VARIANT:
            out.extend((A.RESURFACE, A.OXYGEN))
        out.sort()
        return out

    # ------------------------------------------------------------------ apply
    def apply_action(self, action: int) -> None:
        """Play one legal action of the pending decision (and keep the record counters)."""
        phase, p, ctr_lvl = self.phase, self.seat, self.ctr_lvl
        pp = self.pp[p]
        if action in A.COMPLETE:
            self._start_contract(action)
        elif phase == KEY:
            self._choose_key(action)
        elif phase == STEP1 or phase == STEP2:
            if action == A.RESURFACE or action == A.OXYGEN:
                self._end_turn(action == A.OXYGEN)
            elif action in A.PROP:
                s, t = A.PROP_PAIRS[action - A.PROP.start]
                self.batteries[p] -= 1
                col = self.col[p]
                col.insert(t, col.pop(s))
            elif action == A.SPONSOR:
                tile = self.sponsors[self.lvl]
                self.sp_uses[p][tile] += 1
                self._open_sponsor(p, tile)
                self._use_sponsor()
            else:  # a diver effect: step 2 begins (or goes on)
                tile = self.sponsors[self.lvl]
                if self.uses == 1 and self.sponsor_used and tile == SPONSOR_DOUBLE_TILE and not self.adv[tile]:
                    self._open_sponsor(p, tile)  # Sponsor #2 basic: the second use
                self.uses -= 1
                self.resume = STEP2
                dtype = self.col[p][D.level_slot(self.lvl)]
                if self.free:
                    self._count_saving(p, action, dtype)
                self._use_diver(action, dtype, self.up[p][dtype], 0)
        elif phase == COPY:
            if action == A.DECLINE:
                if self.t.spy_variant:
                    self._undo_copy()
                self._back()
            else:
                dtype, upg = self._copied()
                self._use_diver(action, dtype, upg, self.copy_depth)
        elif phase == KEEP:
            self._keep(action - A.KEEP.start)
        elif phase == CONTRACT_COLOUR:
            self.picks.append(action - A.COLOUR.start)
            if len(self.picks) == len(self.t.contract_needs[self.ctr]):
                self._finish_contract()
        elif phase == TOKEN_RESOURCE:
            if action != A.DECLINE:
                self.res[p][self.lvl * NC + action - A.COLOUR.start] += 1
            self._back()
        elif phase == RETURN_KEY:
            code = action - A.RETURN_KEY.start
            self.track[p].remove(code)
            self.home[p][code] = 1
            self._back()
        elif phase == SPONSOR_FLIP or phase == TOKEN_FLIP:
            if action != A.DECLINE:
                self._flip(action - A.FLIP.start, paid=phase == SPONSOR_FLIP)
            self._back()
        elif phase == SPONSOR_TOKEN:
            slot = self.lvl * D.DISPLAY_TOKENS + action - A.TOKEN.start
            self.tok, self.tok_slot, self.tok_board = self.display[slot], slot, 0
            self.display[slot] = -1
            self._resolve_token()
        elif phase == SPONSOR5:
            if action == A.BATTERY:
                self.batteries[p] += D.SPONSOR_BATTERY
            else:
                self._move(action)
            self._back()
        elif phase == VARIANT:
            self._variant(action == A.OXYGEN)
        else:
            raise StateError(f"no decision is pending (phase {phase})")
        if self.pp[p] != pp:
            self._count_pp(action, phase, ctr_lvl, p, self.pp[p] - pp)
        if self.sp_tile >= 0 and (self.phase == STEP1 or self.phase == STEP2):
            self._close_sponsor(p)

    # ------------------------------------------------------------------ record counters
    def _stats(self, p: int) -> list[int]:
        """Seat ``p``'s amounts in ``YIELD_KINDS`` order."""
        return [
            self.pp[p], self.credits[p], self.batteries[p], sum(self.res[p]),
            len(self.hands[p]), sum(self.up[p]), sum(self.home[p]),
        ]  # fmt: skip

    def _open_sponsor(self, p: int, tile: int) -> None:
        """Start measuring what ``tile`` yields to the turn's player."""
        self.sp_tile = tile
        self.sp_base = self._stats(p)

    def _close_sponsor(self, p: int) -> None:
        """The step menu is back: add what the sponsor yielded since it was used."""
        row, at = self.sp_yield[p], self.sp_tile * NUM_YIELDS
        for k, (now, then) in enumerate(zip(self._stats(p), self.sp_base)):
            row[at + k] += now - then
        self.sp_tile = -1

    def _count_saving(self, p: int, action: int, dtype: int) -> None:
        """Sponsor #1 advanced: the credits an own diver's effect would have cost."""
        upg = self.up[p][dtype]
        if dtype == D.TRADER:
            if action < A.BUY.start or action >= A.BUY.stop:
                return
            cost = self.t.store_credits[self.store[action - A.BUY.start] - 1]
            saved = max(cost - (D.TRADER_UPGRADE_DISCOUNT if upg else 0), 0)
        elif dtype in D.SPONSOR1_FREE:
            saved = D.DIVER_COST[dtype][upg]
        else:
            return
        self.sp_yield[p][SPONSOR_CREDIT_TILE * NUM_YIELDS + YIELD_CREDITS] += saved

    def _count_pp(self, action: int, phase: int, ctr_lvl: int, p: int, gained: int) -> None:
        """Credit the PP one action gained to its source (``ctr_lvl``: the level of the
        number card whose colours were being chosen)."""
        row = self.pp_src[p]
        if phase == CONTRACT_COLOUR or action in A.COMPLETE:
            li = ctr_lvl if phase == CONTRACT_COLOUR else (action - A.COMPLETE.start) % D.NUM_LEVELS
            token = self.rtok[p][li]
            back = D.PERMANENT_PP if token >= 0 and self.t.token_back[token] == D.BACK_PP else 0
            row[PP_BACKS] += back
            row[PP_CONTRACTS] += gained - back
        elif action in A.SELL:
            row[PP_STORE] += gained
        elif action in A.EXPLORE:
            row[PP_TOKENS] += gained  # a PP token's immediate effect
        else:  # Sponsor #4's flip, or a PP token through Sponsor #2 advanced
            row[PP_SPONSORS] += gained

    def _choose_key(self, action: int) -> None:
        """Take a key (an X key rotates the sponsors before anything else)."""
        p = self.seat
        block, li = divmod(action - A.KEY.start, D.NUM_LEVELS)
        if block == 0:
            self.home[p][li] = 0
            self.key = li
        else:
            if block == 1:
                self.home[p][D.OWN_X] = 0
                self.key = D.OWN_X
            else:
                self.nx[p] -= 1
                self.key = D.NEUTRAL_X
            s = self.sponsors
            self.sponsors = [s[-1]] + s[:-1]
        self.lvl = li
        self.uses = 1
        self.phase = self.resume = STEP1

    # ------------------------------------------------------------------ step 3
    def _end_turn(self, oxygen: bool) -> None:
        """Step 3: oxygen or resurface, then the key goes to the Hacker track."""
        p = self.seat
        if oxygen:
            self.batteries[p] -= 1
            self.marks = []  # the Spy stays down, so do the divers it used
        else:
            col = self.col[p]
            col.insert(0, col.pop(D.level_slot(self.lvl)))
        track = self.track[p]
        if len(track) >= self.t.hacker_capacity[self.hack[p]]:
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
            col = self.col[target]
            col.insert(0, col.pop(D.level_slot(self.lvl)))
        self._run_marks()

    def _next_turn(self) -> None:
        """End checks (18 PP ends the game at the end of the round; the round cap)."""
        if max(self.pp) >= self.t.end_pp:
            self.end_triggered = 1
        if self.seat == self.n - 1:
            if self.end_triggered or self.round >= self.t.round_cap:
                self.over = 1
                self.capped = int(not self.end_triggered)
                self.phase = NO_PHASE
                self.actor = TERMINAL
                return
            self.round += 1
        self._start_turn((self.seat + 1) % self.n)

    # ------------------------------------------------------------------ copies
    def clone(self) -> State:
        """An independent copy, field by field: the config and tables are shared (never
        changed), the saved fields are copied to their depth, the generator is copied
        (``clone_rng``), and the caches stay behind (the observation's and
        ``_fitting``: the clone builds its own). Costs a few engine steps (``otrio bench``)."""
        other = State.__new__(State)
        mine = self.__dict__
        fields = {name: mine[name] for name in _FLAT}
        fields.update({name: mine[name][:] for name in _LISTS})
        fields.update({name: [x[:] for x in mine[name]] for name in _NESTED})
        fields["config"], fields["t"] = self.config, self.t
        fields["num_players"] = self.num_players
        fields["rng"] = clone_rng(self.rng)
        other.__dict__.update(fields)
        return other

    def to_dict(self) -> dict[str, Any]:
        """The full state, generator included, as a JSON-able dict."""
        out: dict[str, Any] = {
            "game": "otys",
            "config": self.config.model_dump(mode="json"),
            "rng": rng_to_dict(self.rng),
        }
        for name in _FLAT:
            out[name] = getattr(self, name)
        for name in _LISTS:
            out[name] = list(getattr(self, name))
        for name in _NESTED:
            out[name] = [list(x) for x in getattr(self, name)]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """Inverse of :meth:`to_dict`; raises StateError naming the field on bad data,
        including a state no game can reach (``invariants.check_invariants``)."""
        from .invariants import check_invariants

        if not isinstance(data, dict) or data.get("game") != "otys":
            raise StateError("not a saved Otys state")

        def whole(value, name: str) -> int:  # an integer as saved: no bool, float or text
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} holds {str(value)[:40]!r}, not an integer")
            return value

        try:
            config = validate(Config, data["config"])
            state = cls(config, rng_from_dict(data["rng"]), setup=False)
            missing = [name for name in _DEFAULTS if name not in data]
            for name in _FLAT:
                if name not in missing:
                    setattr(state, name, whole(data[name], name))
            for name in _LISTS:
                if name not in missing:
                    setattr(state, name, [whole(v, name) for v in data[name]])
            for name in _NESTED:
                if name not in missing:
                    setattr(state, name, [[whole(v, name) for v in x] for x in data[name]])
            for name in missing:  # saved before these fields existed
                setattr(state, name, _DEFAULTS[name](state))
        except StateError:  # the generator's, naming its field
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise StateError(f"corrupt Otys state: {err!r}") from None
        check_invariants(state, loaded=True)
        return state

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """A copy where what ``seat`` cannot know is re-drawn: others' hands, the deck
        (except cards ``seat`` put at its bottom), another seat's drawn cards, the bag
        order and the generator. A hand card being completed is revealed: it stays."""
        other = self.clone()
        bit = 1 << seat
        revealed = (self.seat, self.ctr_src - A.HAND_SOURCE0)
        if self.phase != CONTRACT_COLOUR or self.ctr_src < A.HAND_SOURCE0:
            revealed = (-1, -1)
        hidden = [
            (q, j)
            for q in range(self.n)
            if q != seat
            for j in range(len(self.hands[q]))
            if (q, j) != revealed
        ]
        unknown = [i for i, m in enumerate(other.seen) if not m & bit]
        pool = [self.hands[q][j] for q, j in hidden] + [self.deck[i] for i in unknown]
        foreign_draw = bool(self.drawn) and self.actor != seat
        if foreign_draw:
            pool.extend(self.drawn)
        pool = _shuffled(rng, sorted(pool))  # sorted first: the hidden order never shows
        for q, j in hidden:
            other.hands[q][j] = pool.pop()
        for i in unknown:
            other.deck[i] = pool.pop()
        if foreign_draw:
            other.drawn = pool
        other.bag = _shuffled(rng, sorted(other.bag))
        other.rng = make_rng(int(rng.integers(2**63)))
        return other
