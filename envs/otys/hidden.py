"""Re-drawing what one seat cannot know (for the leak test and searching agents).

The re-drawn world depends only on what the seat may know and on the generator: the
hidden contracts are pooled in sorted order before they are dealt at random, and the
bag is sorted before it is reshuffled, so two states that differ only in what is hidden
from the seat give the same world for the same generator state.
"""

from __future__ import annotations

import numpy as np

from envs.core.rng import make_rng

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
    pool = [state.hands[q][j] for q, j in hidden] + [state.deck[i] for i in unknown]
    foreign_draw = bool(state.drawn) and state.actor != seat
    if foreign_draw:
        pool.extend(state.drawn)
    pool = shuffled(rng, sorted(pool))  # sorted first: the hidden order never shows
    for q, j in hidden:
        other.hands[q][j] = pool.pop()
    for i in unknown:
        other.deck[i] = pool.pop()
    if foreign_draw:
        other.drawn = pool
    other.bag = shuffled(rng, sorted(other.bag))
    other.rng = make_rng(int(rng.integers(2**63)))
    return other
