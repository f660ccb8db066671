"""Otys' full-information state (``env.state()``): every seat's observation, which
between them hold every hand of contracts and the contracts drawn for a keep, then
what no seat sees: the contract deck, summed (its order aside, like the bag's and the
generator's). The layout table is in the README."""

from __future__ import annotations

import numpy as np

from otrio.envs.core.full_state import FullState
from otrio.envs.core.observer import Values
from otrio.envs.core.spec import GameInfo

from .config import tables_for
from .observe import CONTRACT_FEATS, CONTRACT_FEATURE_NAMES, LAYOUT, feature_rows
from .rules import State

DECK_SCALE = 20.0


def deck_high(config) -> np.ndarray:
    """Each contract feature summed over every contract of the config, / 20."""
    return feature_rows(tables_for(config))[1].sum(axis=0) / DECK_SCALE


HIDDEN = [
    ("deck_contents", (CONTRACT_FEATS,),
     "the contract deck: its contracts' features summed / 20 (its order aside)",
     Values(CONTRACT_FEATURE_NAMES, high=deck_high)),
]


def write_hidden(state: State, views: dict[str, np.ndarray]) -> None:
    """Fill the pieces that no seat sees."""
    if state.deck:
        contracts = feature_rows(state.tables)[1]
        views["deck_contents"][:] = contracts[state.deck].sum(axis=0) / DECK_SCALE


def state_layout(info: GameInfo) -> FullState:
    """Otys' full-state layout for its ``GameInfo``."""
    return FullState(info, HIDDEN, write_hidden, observation=LAYOUT)
