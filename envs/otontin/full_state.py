"""Otontin's full-information state (``env.state()``): every seat's observation, which
between them hold every secret order laid this round (each in its own seat's
``own_order``). Nothing else is hidden from every seat: the bag's dice are counted in
the observation and only the generator (future rolls) is left out. The layout table is
in the README."""

from __future__ import annotations

from otrio.envs.core.full_state import FullState
from otrio.envs.core.spec import GameInfo

from .observe import LAYOUT


def state_layout(info: GameInfo) -> FullState:
    """Otontin's full-state layout for its ``GameInfo`` (no pieces beyond the seats')."""
    return FullState(info, observation=LAYOUT)
