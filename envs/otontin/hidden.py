"""Re-drawing what one seat cannot know (for the leak test and searching agents).

Hidden in Otontin: the other leaders' secret orders laid this round and not yet
revealed, and the future dice (the generator). The re-drawn orders are drawn
uniformly, whatever the true ones were, so two states that differ only in what is
hidden from the seat give the same world for the same generator state.

**Present and future** (the clairvoyant reference, :func:`resample_future`). The
*present* is everything on the table and every laid order (each known to its
leader); the *future* is the dice, which only the generator holds.
"""

from __future__ import annotations

import numpy as np

from otrio.envs.core.rng import make_rng

from .orders import NO_ORDER, NUM_ORDERS
from .rules import State

SEED_BOUND = 2**63  # the re-drawn world's generator seed is drawn below this


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with everything hidden from ``seat`` re-drawn: every other
    seat's laid, unrevealed order uniformly from the 47 (in seat order), then a fresh
    generator for the future dice. Whether a seat has laid an order is public: it stays."""
    other = state.clone()
    for s in range(other.n):
        if s != seat and other.committed[s] != NO_ORDER:
            other.committed[s] = int(rng.integers(NUM_ORDERS))
    _redraw_dice(other, rng)
    return other


def resample_future(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with the true present (every laid order) and a fresh
    generator for the future dice (the clairvoyant reference). ``seat`` is unused: the
    present is what any seat knows."""
    other = state.clone()
    _redraw_dice(other, rng)
    return other


def _redraw_dice(other: State, rng: np.random.Generator) -> None:
    """Give ``other`` a fresh generator drawn from ``rng``: the future dice."""
    other.rng = make_rng(int(rng.integers(SEED_BOUND)))
