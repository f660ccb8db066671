"""Re-drawing what one seat cannot know (for the leak test and sampling agents)."""

from __future__ import annotations

import numpy as np

from envs.core.rng import make_rng

from .rules import State


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with everything hidden from ``seat`` re-drawn.

    Hidden from ``seat``: the order of every deck, the other players' hands and
    face-down kept cards, and the future of the generator (treasure draws, reshuffles).
    The cards ``seat`` handed on this turn stay where they are: it knows them. Sizes of
    hands and face-down piles are public and kept.
    """
    other = state.clone()
    known = set(other.passed[seat])
    slots: list[tuple[list[int], int]] = []
    pool: list[int] = []
    hidden_lists = [other.decks[other.round]]
    for s in range(other.num_players):
        if s != seat:
            hidden_lists += [other.hands[s], other.kept[s]]
    for cards in hidden_lists:
        for i, card in enumerate(cards):
            if card not in known:
                slots.append((cards, i))
                pool.append(card)
    order = rng.permutation(len(pool))
    for (cards, i), k in zip(slots, order):
        cards[i] = pool[k]
    for s in range(other.num_players):
        if s != seat:
            other.hands[s].sort()
    for r in range(other.round + 1, len(other.decks)):
        rng.shuffle(other.decks[r])
    other.rng = make_rng(int(rng.integers(2**63)))
    return other
