"""Otys as a PettingZoo AEC environment: ``env(num_players=3, ...)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from otrio.envs.core import BoardGameEnv, Game, GameInfo

from . import data as D
from .actions import NUM_ACTIONS, TABLE
from .config import Config, tables_for
from .full_state import state_layout
from .hidden import resample_future, resample_hidden
from .invariants import check_invariants
from .observe import LAYOUT, OBS_SIZE, decode
from .observe_cache import write_observation
from .records import NUM_YIELDS, PP_SOURCES, YIELD_KINDS
from .render import render_text
from .rules import State
from .view import SeatView, view

# the ceiling of every config's truncation guard (data.decision_cap)
MAX_DECISIONS = D.MAX_DECISIONS
SCORE_SCALE = 18.0  # the end threshold: dense rewards are PP / 18
SIDES = ("basic", "advanced")  # a sponsor tile's side, by its ``State.advanced`` flag


class OtysGame(Game):
    """Otys' fixed facts and the functions the adapter calls."""

    info = GameInfo(
        name="otys",
        version=0,
        min_players=2,
        max_players=D.MAX_PLAYERS,
        default_players=3,
        num_actions=NUM_ACTIONS,
        observation_size=OBS_SIZE,
        max_decisions=MAX_DECISIONS,
        score_scale=SCORE_SCALE,
    )
    config_model = Config
    actions = TABLE
    layout = LAYOUT
    state_class = State
    check_invariants = staticmethod(check_invariants)
    write_observation = staticmethod(write_observation)
    render_text = staticmethod(render_text)  # a viewer sees only its own private contracts
    resample_hidden = staticmethod(resample_hidden)
    resample_future = staticmethod(resample_future)
    full_state = state_layout(info)

    def decision_cap(self, config: Config) -> int:
        """The most decisions a game of ``config`` can take (``data.decision_cap``)."""
        tables = tables_for(config)
        return D.decision_cap(config.round_cap, config.num_players, tables.start_batteries,
                              sum(tables.capacity), max(tables.contract_batteries))

    def view(self, state: State, seat: int) -> SeatView:
        """What ``seat`` may know of ``state`` (``view.view``)."""
        return view(state, seat)

    def decode_view(self, observation: np.ndarray, config: Config) -> SeatView:
        """The seat view an observation was written from (``observe.decode``, its exact
        inverse)."""
        return decode(observation, config)

    def game_summary(self, state: State) -> dict[str, Any]:
        """Per-game facts for balance studies (JSON-able; lists are per seat).

        ``sponsor_order``: the tile number on levels 1-5 at setup (X keys rotate it
        during play); ``sponsor_sides``: the side of tiles #1-#5; ``sponsor_uses``:
        per seat, the times each tile #1-#5 was used; ``sponsor_yield``: per yield kind,
        per seat, per tile, what the uses gave (the change of the seat's PP, credits,
        batteries, resources on the board, private contracts, upgraded divers and own
        keys on the board from the use until the step menu came back; Sponsor #2 basic
        counts its second diver use, Sponsor #1 advanced the credits it saved);
        ``pp_by_source``: per source, per seat; ``capped``: stopped at the round cap.
        """
        n = state.n
        yields = {
            kind: [
                [state.sponsor_yield[p][tile * NUM_YIELDS + k] for tile in range(D.NUM_SPONSORS)]
                for p in range(n)
            ]
            for k, kind in enumerate(YIELD_KINDS)
        }
        return {
            "sponsor_order": [tile + 1 for tile in state.sponsor_setup],
            "sponsor_sides": [SIDES[side] for side in state.advanced],
            "sponsor_uses": [list(row) for row in state.sponsor_uses],
            "sponsor_yield": yields,
            "pp_by_source": {
                source: [state.pp_by_source[p][k] for p in range(n)] for k, source in enumerate(PP_SOURCES)
            },
            "pp": list(state.pp),
            "rounds": state.round,
            "capped": bool(state.capped),
        }


GAME = OtysGame()


class raw_env(BoardGameEnv):
    """The Otys AEC environment."""

    game = GAME


def env(**config: Any) -> raw_env:
    """Build the Otys environment (``render_mode`` and config keys as keywords)."""
    return raw_env(**config)
