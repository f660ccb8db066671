"""Re-drawing what one seat cannot know (for the leak test and searching agents).

The re-drawn world depends only on what the seat may know and on the generator: the
hidden contracts are pooled in sorted order before they are dealt at random, and the
bag is sorted before it is reshuffled, so two states that differ only in what is hidden
from the seat give the same world for the same generator state.

**Present and future** (the clairvoyant reference, :func:`resample_future`). The
*present* is what some seat knows: every hand of contracts, the cards being drawn,
the deck positions some seat has seen (put at its bottom), everything face up. The
*future* is what no seat knows: the order of the rest of the deck, the order of the
bag and the generator. Both functions re-draw the future with the same code.
"""

from __future__ import annotations

import numpy as np

from otrio.envs.core.rng import make_rng

from . import actions
from .phases import CONTRACT_COLOUR
from .rules import State, shuffled


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with everything hidden from ``seat`` re-drawn.

    Hidden from ``seat``: the other seats' private contracts, the deck (except the
    positions ``seat`` put at its bottom itself, which it has seen), another seat's drawn
    cards, the order of the bag, and the future of the generator. A hand card being
    completed is revealed: it stays where it is. Sizes stay as they are.
    """
    other = state.clone()
    bit = 1 << seat
    revealed = (state.seat, state.contract_source - actions.HAND_SOURCE0)
    if state.phase != CONTRACT_COLOUR or state.contract_source < actions.HAND_SOURCE0:
        revealed = (-1, -1)
    hidden = [
        (q, j)
        for q in range(state.n)
        if q != seat
        for j in range(len(state.hands[q]))
        if (q, j) != revealed
    ]
    unknown = [i for i, m in enumerate(other.deck_seen) if not m & bit]
    _deal(other, hidden, unknown, bool(state.drawn) and state.actor != seat, rng)
    _redraw_bag_and_dice(other, rng)
    return other


def resample_future(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with the future re-drawn and the present kept (the
    clairvoyant reference: see the module docstring): the cards of the deck positions
    no seat has seen are dealt back to them in a new order, then the bag and the
    generator are re-drawn as :func:`resample_hidden` re-draws them. ``seat`` is
    unused: the present is what any seat knows."""
    other = state.clone()
    _deal(other, [], [i for i, m in enumerate(other.deck_seen) if not m], False, rng)
    _redraw_bag_and_dice(other, rng)
    return other


def _deal(other: State, hidden: list[tuple[int, int]], unknown: list[int], drawn: bool,
          rng: np.random.Generator) -> None:
    """Pool the cards at the ``hidden`` hand places ``(seat, slot)``, the ``unknown``
    deck positions and (``drawn``) the cards being drawn, and deal them back at random,
    sorted first so that the order they came in never shows."""
    pool = [other.hands[q][j] for q, j in hidden] + [other.deck[i] for i in unknown]
    if drawn:
        pool.extend(other.drawn)
    pool = shuffled(rng, sorted(pool))
    for q, j in hidden:
        other.hands[q][j] = pool.pop()
    for i in unknown:
        other.deck[i] = pool.pop()
    if drawn:
        other.drawn = pool


def _redraw_bag_and_dice(other: State, rng: np.random.Generator) -> None:
    """Re-draw what no seat knows of the tokens and the luck: the bag's order and the
    generator."""
    other.bag = shuffled(rng, sorted(other.bag))
    other.rng = make_rng(int(rng.integers(2**63)))
