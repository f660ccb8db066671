"""Oceanos' full-information state (``env.state()``): every seat's observation, then
what no seat sees: the face-down Kraken tokens, the treasure bag and what is left of
this round's deck (summed, its order aside). The layout table is in the README."""

from __future__ import annotations

import numpy as np

from otrio.envs.core.full_state import FullState
from otrio.envs.core.observer import Values
from otrio.envs.core.spec import GameInfo

from .cards_table import CARD_FEATURE_NAMES, CARD_FEATURES
from .data import KRAKEN_SIZES
from .observe import (
    BAG_SCALE,
    DECK_SCALE,
    KRAKEN_SCALE,
    LAYOUT,
    deck_features,
    kraken_least,
)
from .rules import State

BAG_VALUE_SCALE = 100.0

HIDDEN = [
    ("kraken_values", (len(KRAKEN_SIZES),), "each Kraken token's value / 4, face down or not",
     Values(KRAKEN_SIZES, high=0.0,
            low=lambda config: np.divide(kraken_least(config), KRAKEN_SCALE))),
    ("bag_contents", (2,), "treasure tokens in the bag / 30, their values summed / 100",
     Values(("tokens", "value"), high=lambda config: (
         len(config.treasure_tokens) / BAG_SCALE, sum(config.treasure_tokens) / BAG_VALUE_SCALE))),
    ("deck_contents", (CARD_FEATURES,),
     "this round's deck: its cards' features summed / 50 (its order aside)",
     Values(CARD_FEATURE_NAMES, high=lambda config: deck_features(config) / DECK_SCALE)),
]


def write_hidden(state: State, views: dict[str, np.ndarray]) -> None:
    """Fill the pieces that no seat sees."""
    views["kraken_values"][:] = np.asarray(state.kraken, np.float32) / KRAKEN_SCALE
    views["bag_contents"][:] = (len(state.bag) / BAG_SCALE, sum(state.bag) / BAG_VALUE_SCALE)
    deck = state.decks[state.round]
    if deck:
        views["deck_contents"][:] = state.table.features[deck].sum(axis=0) / DECK_SCALE


def state_layout(info: GameInfo) -> FullState:
    """Oceanos' full-state layout for its ``GameInfo``."""
    return FullState(info, HIDDEN, write_hidden, observation=LAYOUT)
