"""Otontin rules: the config and the game state (no gym, no numpy spaces).

A round is Campaign (turn by turn, :mod:`.campaign`), Strategy (talk: public
declarations in turn order; commit: secret binding orders) and War (resolved at once
when the last order is in, :mod:`.war`). The rules in words: ``RULES.md`` beside it.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from otrio.envs.core import TERMINAL, GameConfig, StrictModel
from otrio.envs.core.schema import BOOL, INT, TEXT, ListOf, SavedState, StateSchema

from .actions import COMMIT, DECLARE, DECLARE_NOTHING, committed_order, declared_order
from .campaign import (
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECLARE_ORDER,
    NO_DECISION,
    Campaign,
)
from .data import (
    DEFAULT_BEAN_TARGET,
    DEFAULT_PLAYERS,
    DEFAULT_ROUND_CAP,
    DICE,
    FACE_NAMES,
    MAX_DIE_KINDS,
    MAX_PLAYERS,
    MAX_ROUND_CAP,
    MIN_PLAYERS,
    NUM_FACES,
    POOL_BY_PLAYERS,
)
from .orders import NO_ORDER
from .war import resolve_war

FaceName = Literal[FACE_NAMES]  # the names in data.FACE_NAMES
UNSAID = -2  # declaration slot of a leader who has not spoken yet (NO_ORDER: said nothing)

# Phases of a round.
CAMPAIGN, TALK, COMMIT_PHASE, GAME_OVER = range(4)
PHASE_NAMES = ("campaign", "talk", "commit", "over")


class DieKind(StrictModel):
    """One colour of campaign die: how many, and the faces of one die."""

    colour: str
    count: int = Field(ge=1)
    faces: tuple[FaceName, ...] = Field(min_length=1)


class Config(GameConfig):
    """Otontin's config keys (all optional)."""

    num_players: int = Field(DEFAULT_PLAYERS, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    bean_target: int = Field(DEFAULT_BEAN_TARGET, ge=1)  # 10 quick, 15 intermediate, 20 long
    round_cap: int = Field(DEFAULT_ROUND_CAP, ge=1, le=MAX_ROUND_CAP)
    split_spoils: bool = False  # split stolen beans with the helpers (else the leader keeps)
    dice: tuple[DieKind, ...] | None = Field(None, min_length=1, max_length=MAX_DIE_KINDS)
    pool_warriors: int | None = Field(None, ge=1)  # default: rulebook table
    pool_beans: int | None = Field(None, ge=1)


def game_warriors(config: Config) -> int:
    """The warriors of the game: all in the pool at the start (config or rulebook table)."""
    return config.pool_warriors or POOL_BY_PLAYERS[config.num_players]


def game_beans(config: Config) -> int:
    """The cocoa beans of the game: all in the pool at the start."""
    return config.pool_beans or POOL_BY_PLAYERS[config.num_players]


def dice_table(config: Config) -> list[tuple[str, int, tuple[int, ...]]]:
    """``(colour, count, face indices)`` per die kind, from config or ``data.DICE``."""
    if config.dice is not None:
        rows = [(d.colour, d.count, d.faces) for d in config.dice]
    else:
        rows = list(DICE)
    return [(c, k, tuple(FACE_NAMES.index(f) for f in faces)) for c, k, faces in rows]


_INTS, _FLAGS = ListOf(INT), ListOf(BOOL)  # one a seat (or a die kind, a face)
# What a State holds, saved and cloned from this one declaration (otrio.envs.core.schema).
SCHEMA = StateSchema(
    "Otontin", Config,
    shared=("config", "n", "num_players", "colours", "kind_counts", "kinds"),  # from the config
    fields={
        "round": INT, "start": INT, "final_round": BOOL, "run_out": BOOL, "capped": BOOL,
        "phase": INT, "decision": INT,
        "attack": _INTS, "defence": _INTS, "beans": _INTS, "busted": _FLAGS, "done": _FLAGS,
        "pool_warriors": INT, "pool_beans": INT,
        "turn": INT, "active": INT, "bag": _INTS, "aside": _INTS, "rolled": _INTS,
        "last_roll": ListOf(ListOf(INT)),  # [kind, face] of each die
        "takers": _INTS, "theft": INT, "taker": INT,
        "actives": _INTS, "cursor": INT, "declared": _INTS, "committed": _INTS,
        "revealed": _INTS, "revealed_round": INT, "war_log": ListOf(TEXT),
    },
)

_DECLARE_ACTIONS = [DECLARE_NOTHING, *DECLARE]
_COMMIT_ACTIONS = list(COMMIT)


class State(Campaign, SavedState):
    """The whole game: public table, dice, secret orders and the generator."""

    schema = SCHEMA  # to_dict, from_dict and clone

    def __init__(self, config: Config, rng: np.random.Generator, begin: bool = True,
                 setup: bool = True):
        """Set up a game. With ``begin=False`` the first campaign turn is not started
        (tests set a position, then call :meth:`begin_turn`); with ``setup=False`` only
        what the config gives is set (the schema's shared part), for ``from_dict``."""
        self.config = config
        self.rng = rng
        n = self.n = self.num_players = config.num_players
        table = dice_table(config)
        self.colours = tuple(c for c, _, _ in table)
        self.kind_counts = tuple(k for _, k, _ in table)
        self.kinds = tuple(faces for _, _, faces in table)
        if not setup:
            return
        self.round, self.start = 1, 0
        self.final_round = self.run_out = self.capped = False
        self.phase, self.decision = CAMPAIGN, NO_DECISION
        self.attack, self.defence, self.beans = [0] * n, [0] * n, [0] * n
        self.busted, self.done = [False] * n, [False] * n
        self.pool_warriors = game_warriors(config)
        self.pool_beans = game_beans(config)
        self.turn = self.active = 0
        self.bag = list(self.kind_counts)
        self.aside = [0] * len(self.kinds)
        self.rolled = [0] * NUM_FACES
        self.last_roll: list[list[int]] = []
        self.takers: list[int] = []
        self.theft = self.taker = 0
        self.actives: list[int] = []
        self.cursor = 0
        self.declared = [UNSAID] * n
        self.committed = [NO_ORDER] * n
        self.revealed = [NO_ORDER] * n
        self.revealed_round = 0
        self.war_log: list[str] = []
        if begin:
            self.begin_turn()

    # ------------------------------------------------------------- contract
    def current_player(self) -> int:
        """The seat that takes the pending decision, or ``TERMINAL``."""
        d = self.decision
        if d == NO_DECISION:
            return TERMINAL
        if d == CHOOSE_STEAL:
            return self.takers[self.taker]
        if d in (DECLARE_ORDER, COMMIT_ORDER):
            return self.actives[self.cursor]
        return self.active

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the pending decision."""
        d = self.decision
        if d == DECLARE_ORDER:
            return list(_DECLARE_ACTIONS)
        if d == COMMIT_ORDER:
            return list(_COMMIT_ACTIONS)
        if d == NO_DECISION:
            return []
        return self._campaign_legal()

    def apply_action(self, action: int) -> None:
        """Play a legal action."""
        d = self.decision
        if d == DECLARE_ORDER:
            seat = self.actives[self.cursor]
            self.declared[seat] = declared_order(action)
            self._advance_strategy()
        elif d == COMMIT_ORDER:
            self.committed[self.actives[self.cursor]] = committed_order(action)
            self._advance_strategy()
        else:
            self._campaign_apply(action)

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase == GAME_OVER

    def scores(self) -> list[int]:
        """Beans of each leader (the score the winner rule reads first)."""
        return list(self.beans)

    def winners(self) -> list[int]:
        """Most beans; tie: most warriors; still tied: all of them share."""
        key = [(self.beans[s], self.attack[s] + self.defence[s]) for s in range(self.n)]
        best = max(key)
        return [s for s in range(self.n) if key[s] == best]

    # ------------------------------------------------------------- strategy
    def begin_strategy(self) -> None:
        """Strategy phase: active (not busted) leaders in turn order declare, then commit."""
        n = self.n
        self.actives = [
            (self.start + i) % n for i in range(n) if not self.busted[(self.start + i) % n]
        ]
        self.phase, self.cursor = TALK, 0
        self.decision = DECLARE_ORDER
        if not self.actives:
            self._war()

    def _advance_strategy(self) -> None:
        self.cursor += 1
        if self.cursor < len(self.actives):
            return
        self.cursor = 0
        if self.phase == TALK:
            self.phase, self.decision = COMMIT_PHASE, COMMIT_ORDER
        else:
            self._war()

    # ------------------------------------------------------------------ war
    def _war(self) -> None:
        """Reveal the orders, resolve the war, end the round."""
        orders = list(self.committed)
        result = resolve_war(
            self.n, self.start, orders, self.attack, self.defence, self.beans, self.config.split_spoils
        )
        self.pool_warriors += result.dead
        self.revealed, self.revealed_round = orders, self.round
        self.war_log = result.log
        self.committed = [NO_ORDER] * self.n
        self._end_round()

    def _end_round(self) -> None:
        """Check the end; otherwise pass the Starting Leader left and campaign again."""
        if self.final_round or self.round >= self.config.round_cap:
            self.capped = not self.final_round
            self.phase, self.decision = GAME_OVER, NO_DECISION
            return
        if max(self.beans) >= self.config.bean_target:
            self.final_round = True  # the next round is the final one
        self.round += 1
        self.start = (self.round - 1) % self.n
        self.busted = [False] * self.n
        self.done = [False] * self.n
        self.declared = [UNSAID] * self.n
        self.actives, self.cursor, self.turn = [], 0, 0
        self.phase = CAMPAIGN
        self.begin_turn()
