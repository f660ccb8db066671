"""Re-drawing what one seat cannot know (for the leak test and searching agents).

The re-drawn world depends only on what the seat may know and on the generator: two
states that differ only in what is hidden from the seat give the same world for the
same generator state (hidden cards are pooled in sorted order before they are dealt
at random), so an agent that searches re-drawn worlds cannot learn the hidden part.

**Present and future** (the clairvoyant reference, :func:`resample_future`). The
*present* is what some seat knows: every hand, every face-down kept card (the secret
keeps of the step in progress), everything placed or face up. The *future* is what no
seat knows: the order of the current deck, the later rounds' decks and the generator
(treasure draws, reshuffles). Both functions re-draw the future with the same code.
"""

from __future__ import annotations

import numpy as np

from otrio.envs.core.rng import make_rng

from .rules import State, counts_before_keeps


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with everything hidden from ``seat`` re-drawn.

    Hidden from ``seat``: the order of every deck, the other players' hands, their
    face-down kept cards and, while keeps are being chosen, how many cards each of
    them kept (and so the fuel they spent), and the future of the generator (treasure
    draws, reshuffles). Public, and kept as it is: every hand size as it stood when
    the keeps began, deck and discard sizes, the face-up discards, everything placed.
    The cards ``seat`` handed on this turn are known to it: they stay among the
    places they can be (which of them went where, e.g. the one a Troubled Waters
    Captain took, is re-drawn).

    The other players' secret keeps of the step in progress are taken back and made
    again at random: a player that has finished choosing keeps one card plus a
    uniformly drawn number of extra cards (each paid with a Fuel token it had); the
    player choosing now keeps one (it is still choosing, so it kept at least one).
    """
    other = state.clone()
    others = [s for s in range(other.num_players) if s != seat]
    rekeep: list[tuple[int, int | None]] = []  # (seat, cards to keep; None: drawn)
    if other.choosing():
        for s in others:
            kept = other.kept[s]
            if kept:
                _, _, other.fuel_ready[s], other.fuel_used[s] = counts_before_keeps(
                    len(other.hands[s]), len(kept), other.fuel_ready[s], other.fuel_used[s])
                other.hands[s] += kept
                other.kept[s] = []
                rekeep.append((s, 1 if s == other.actor else None))
    known = set(other.passed[seat])
    # every hidden place in a canonical order (the deck's positions, then each other
    # hand, its known cards first), split by whether the card there is known to seat
    places: tuple[list, list] = ([], [])  # (unknown, known) places as (list, index)
    cards: tuple[list, list] = ([], [])
    deck = other.decks[other.round]
    for i, card in enumerate(deck):
        is_known = card in known
        places[is_known].append((deck, i))
        cards[is_known].append(card)
    for s in others:
        hand = other.hands[s]
        mine = [c for c in hand if c in known]
        hand[:] = mine + [c for c in hand if c not in known]
        for i, card in enumerate(hand):
            places[i < len(mine)].append((hand, i))
            cards[i < len(mine)].append(card)
    for spots, pool in zip(places, cards):
        _deal(spots, pool, rng)
    for s in others:
        other.hands[s].sort()
    for s, count in rekeep:
        hand = other.hands[s]
        if count is None:
            count = 1 + int(rng.integers(min(other.fuel_ready[s], len(hand) - 1) + 1))
        other.kept[s] = [hand[i] for i in rng.choice(len(hand), size=count, replace=False)]
        for card in other.kept[s]:
            hand.remove(card)
        other.fuel_ready[s] -= count - 1
        other.fuel_used[s] += count - 1
    _redraw_later(other, rng)
    return other


def resample_future(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with the future re-drawn and the present kept (the
    clairvoyant reference: see the module docstring): the current deck's cards are
    dealt back to its places in a new order, then the later decks and the generator
    are re-drawn as :func:`resample_hidden` re-draws them. ``seat`` is unused: the
    present is what any seat knows."""
    other = state.clone()
    deck = other.decks[other.round]
    _deal([(deck, i) for i in range(len(deck))], list(deck), rng)
    _redraw_later(other, rng)
    return other


def _deal(spots: list[tuple[list, int]], pool: list[int], rng: np.random.Generator) -> None:
    """Put the cards of ``pool`` at ``spots`` (``(list, index)`` places) at random,
    sorted first so that the order they came in never shows."""
    pool.sort()
    for (cards_list, i), k in zip(spots, rng.permutation(len(pool))):
        cards_list[i] = pool[k]


def _redraw_later(other: State, rng: np.random.Generator) -> None:
    """Re-draw what no seat knows beyond this round: the later rounds' decks and the
    generator."""
    for r in range(other.round + 1, len(other.decks)):
        other.decks[r].sort()
        rng.shuffle(other.decks[r])
    other.rng = make_rng(int(rng.integers(2**63)))
