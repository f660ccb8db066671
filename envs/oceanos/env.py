"""Oceanos as a PettingZoo AEC environment: ``env(num_players=4, ...)``."""

from __future__ import annotations

import numpy as np

from otrio.envs.core.aec import BoardGameEnv
from otrio.envs.core.game import Game
from otrio.envs.core.spec import GameInfo

from . import scoring
from .actions import NUM_ACTIONS, TABLE
from .config import Config
from .data import MAX_PLAYERS, MIN_PLAYERS, NUM_ROUNDS, decision_cap
from .full_state import state_layout
from .hidden import resample_future, resample_hidden
from .invariants import check_invariants
from .observe import LAYOUT, OBSERVATION_SIZE, decode
from .observe_cache import write_observation
from .render import render_text
from .rules import POINT_KINDS, State
from .view import SeatView, view

INFO = GameInfo(
    name="oceanos",
    version=0,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=4,
    num_actions=NUM_ACTIONS,
    observation_size=OBSERVATION_SIZE,
    max_decisions=decision_cap(MAX_PLAYERS),
    score_scale=10.0,
)


class OceanosGame(Game):
    """The Oceanos rules bound to the shared adapter."""

    info = INFO
    config_model = Config
    actions = TABLE
    layout = LAYOUT
    state_class = State
    check_invariants = staticmethod(check_invariants)
    write_observation = staticmethod(write_observation)
    render_text = staticmethod(render_text)  # a viewer sees only its own hand
    resample_hidden = staticmethod(resample_hidden)
    resample_future = staticmethod(resample_future)
    full_state = state_layout(INFO)

    def decision_cap(self, config: Config) -> int:
        """The most decisions a game of ``config`` can take (``data.decision_cap``)."""
        return decision_cap(config.num_players)

    def view(self, state: State, seat: int) -> SeatView:
        """What ``seat`` may know of ``state`` (``view.view``)."""
        return view(state, seat)

    def decode_view(self, observation: np.ndarray, config: Config) -> SeatView:
        """The seat view an observation encodes (``observe.decode``, the exact inverse of
        the observation's encoding); ``config`` is the game's."""
        return decode(observation, config)

    def simultaneous_step(self, state: State) -> tuple | None:
        """Keep choices: made one seat after another, revealed together."""
        return ("keep", state.round, state.turn, state.pc) if state.choosing() else None

    def game_summary(self, state: State) -> dict:
        """Per-game facts for tournament and balance records (JSON-able)."""
        return {
            "kraken": list(state.kraken),
            "points": {kind: [p[i] for p in state.points] for i, kind in enumerate(POINT_KINDS)},
            "eyes_per_round": [
                [scoring.row_eyes(state.rows[s][r], state.table) for r in range(NUM_ROUNDS)]
                for s in range(state.num_players)
            ],
            "part_levels": [list(levels) for levels in state.levels],
        }


GAME = OceanosGame()


class raw_env(BoardGameEnv):
    """Oceanos AEC environment (2–5 players). See ``envs/oceanos/README.md``."""

    game = GAME


def env(**config) -> raw_env:
    """The Oceanos environment; the core adapter already checks order, bounds and legality."""
    return raw_env(**config)
