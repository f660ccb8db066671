"""Otontin as a PettingZoo AEC environment: the ``Game`` object and the thin adapter."""

from __future__ import annotations

from typing import Any

import numpy as np

from otrio.envs.core import BoardGameEnv, Game, GameInfo

from . import data
from .actions import NUM_ACTIONS, TABLE
from .data import COUNT_SCALE, DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS
from .full_state import state_layout
from .hidden import resample_future, resample_hidden
from .invariants import check_invariants
from .observe import LAYOUT, decode
from .observe_cache import new_observation, write_observation
from .render import render_text
from .rules import COMMIT_PHASE, Config, State, dice_table
from .view import SeatView, view

# the ceiling of every config's truncation guard (data.decision_cap)
MAX_DECISIONS = data.MAX_DECISIONS


class OtontinGame(Game):
    """Otontin's fixed facts and the functions the adapter calls."""

    info = GameInfo(
        name="otontin",
        version=0,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        default_players=DEFAULT_PLAYERS,
        num_actions=NUM_ACTIONS,
        observation_size=LAYOUT.size,
        max_decisions=MAX_DECISIONS,
        score_scale=COUNT_SCALE,
    )
    config_model = Config
    actions = TABLE
    layout = LAYOUT
    state_class = State
    check_invariants = staticmethod(check_invariants)
    write_observation = staticmethod(write_observation)
    render_text = staticmethod(render_text)  # a viewer sees its own secret order, if laid
    resample_hidden = staticmethod(resample_hidden)
    resample_future = staticmethod(resample_future)
    full_state = state_layout(info)

    def decision_cap(self, config: Config) -> int:
        """The most decisions a game of ``config`` can take (``data.decision_cap``)."""
        dice = sum(count for _, count, _ in dice_table(config))
        return data.decision_cap(config.round_cap, config.num_players, dice)

    def observation(self, state: State, seat: int, scratch: np.ndarray) -> np.ndarray:
        """The view as a new array, gathered at once (``scratch`` is not needed)."""
        return new_observation(state, seat)

    def view(self, state: State, seat: int) -> SeatView:
        """What ``seat`` may know of ``state`` (``view.view``)."""
        return view(state, seat)

    def decode_view(self, observation: np.ndarray, config: Config) -> SeatView:
        """The view an observation vector was written from (``observe.decode``)."""
        return decode(observation, config)

    def simultaneous_step(self, state: State) -> tuple | None:
        """The secret orders of a round are laid "at the same time"."""
        return ("commit", state.round) if state.phase == COMMIT_PHASE else None

    def game_summary(self, state: State) -> dict[str, Any]:
        """Per-game facts for tournament and balance records (JSON-able)."""
        return {
            "rounds": state.round,
            "capped": state.capped,
            "pool_run_out": state.run_out,
            "attack": list(state.attack),
            "defence": list(state.defence),
            "pool": [state.pool_warriors, state.pool_beans],
        }


GAME = OtontinGame()


class raw_env(BoardGameEnv):
    """Otontin AEC env; config keys: see ``otrio.envs.otontin.rules.Config``."""

    game = GAME


def env(**config: Any) -> raw_env:
    """The Otontin env (the core adapter already checks order, bounds and legality)."""
    return raw_env(**config)
