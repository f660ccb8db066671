"""The Oceanos observation of one seat: a fixed float32 vector with a layout table.

Seats are relative: index 0 is the observing seat, then the others in turn order
(to its left). Everything here is public or the seat's own; the deck order, other
hands, other players' face-down cards and the bag order never appear.

The per-seat pieces (``levels``, ``player``, ``tableau``) are kept in absolute seat
order by an :class:`~.observe_cache.ObsCache` on the state, updated only where the
state changed; the writer copies them in rotated and fills in the rest.
"""

from __future__ import annotations

from array import array

import numpy as np

from envs.core.observer import ObservationLayout, owned_cache

from .actions import MAX_HAND
from .cards_table import CARD_FEATURES
from .data import KRAKEN_SIZES, MAX_LEVEL, NUM_ROUNDS, PARTS, TREASURE_TOKENS, TURNS_PER_ROUND
from .observe_cache import (
    COLUMN,
    FLOAT_BYTES,
    KRAKEN_SCALE,
    LEVEL_WIDTH,
    MAX_FUEL,
    MAX_KEPT,
    MAX_PLAYERS,
    MAX_ROW,
    MIN_PLAYERS,
    PLAYER_FEATURES,
    PLAYER_WIDTH,
    TABLEAU_FEATURES,
    TABLEAU_WIDTH,
    ObsCache,
)
from .rules import Decision, State

DECK_SCALE = 50.0
DISCARD_SCALE = 10.0

LAYOUT = ObservationLayout([
    ("decision", (len(Decision),), "pending decision kind (one-hot)"),
    ("actor", (MAX_PLAYERS,), "relative seat of the deciding player (one-hot)"),
    ("hand", (MAX_HAND, CARD_FEATURES), "own hand, slot k = action keep:slotK / discard:slotK"),
    ("kept", (MAX_KEPT, CARD_FEATURES), "own face-down kept cards this turn, in order"),
    ("passed", (MAX_HAND, CARD_FEATURES), "cards this seat handed on this turn"),
    ("placing", (CARD_FEATURES,), "the card being placed (diver / upgrade decisions)"),
    ("round", (NUM_ROUNDS,), "round (one-hot)"),
    ("turn", (TURNS_PER_ROUND,), "turn in the round (one-hot)"),
    ("players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "player count 2..5 (one-hot)"),
    ("variants", (2,), "two-player turn in use, Troubled Waters"),
    ("kraken", (len(KRAKEN_SIZES), 2), "per size: value known, value / 4"),
    ("deck", (2,), "cards left in this round's deck, in its discard pile (/50)"),
    ("bag", (1,), "treasure tokens left in the bag / 30"),
    ("discards", (CARD_FEATURES,), "this round's face-up discard pile: its cards' features summed / 10"),
    ("levels", (MAX_PLAYERS, len(PARTS), MAX_LEVEL), "submarine part levels (one-hot)"),
    ("player", (MAX_PLAYERS, len(PLAYER_FEATURES)), "per seat: " + ", ".join(PLAYER_FEATURES)),
    ("tableau", (MAX_PLAYERS, NUM_ROUNDS, MAX_ROW, TABLEAU_FEATURES),
     "every seat's rows of cards (card features + diver)"),
])
OBSERVATION_SIZE = LAYOUT.size

# flat offsets of the pieces
_AT = {name: a for name, (a, _, _) in LAYOUT.offsets.items()}
_LEVELS, _PLAYER, _TABLEAU = _AT["levels"], _AT["player"], _AT["tableau"]
# the header: the observer-independent pieces from round to bag, offsets within it
_HEADER = _AT["round"]
_ROUND, _TURN, _PLAYERS, _VARIANTS, _KRAKEN, _DECK, _BAG, _DISCARDS = (
    _AT[name] - _HEADER for name in ("round", "turn", "players", "variants", "kraken", "deck",
                                     "bag", "discards"))
_HEADER_SIZE = _LEVELS - _HEADER
_CARD_BYTES = CARD_FEATURES * FLOAT_BYTES
_PLACED = (Decision.DIVER, Decision.UPGRADE)  # decisions about the card being placed
_KEEP, _KEEP_MORE = Decision.KEEP, Decision.KEEP_MORE
# the observer's own counts in its player row (the first row)
_OWN_HAND, _OWN_KEPT, _OWN_FUEL_READY, _OWN_FUEL_USED = (
    _PLAYER + COLUMN[name] for name in ("hand_size", "kept_face_down", "fuel_ready", "fuel_used"))


def _one_hots(decision: int | None, actor: int | None) -> bytes:
    """The ``decision`` and ``actor`` pieces as float32 bytes (None: all zero)."""
    row = array("f", bytes((len(Decision) + MAX_PLAYERS) * FLOAT_BYTES))
    if decision is not None:
        row[decision] = row[len(Decision) + actor] = 1.0
    return row.tobytes()


# the pieces before the hand, by pending decision and relative actor; after the game
_PENDING = [[_one_hots(d, a) for a in range(MAX_PLAYERS)] for d in range(len(Decision))]
_NOTHING_PENDING = _one_hots(None, None)
# zero float32 bytes: an empty card slot, and the free slots of a hand / of the kept cards
_NO_CARD = bytes(_CARD_BYTES)
_FREE_HAND = [bytes((MAX_HAND - k) * _CARD_BYTES) for k in range(MAX_HAND + 1)]
_FREE_KEPT = [bytes((MAX_KEPT - k) * _CARD_BYTES) for k in range(MAX_KEPT + 1)]
_PREFIX_BYTES = _LEVELS * FLOAT_BYTES  # the pieces before the seat rows
# (byte offset, zeros) of the rows of the seats not in play, by player count
_ABSENT = {
    n: [((at + n * width) * FLOAT_BYTES, bytes((MAX_PLAYERS - n) * width * FLOAT_BYTES))
        for at, width in ((_LEVELS, LEVEL_WIDTH), (_PLAYER, PLAYER_WIDTH),
                          (_TABLEAU, TABLEAU_WIDTH))
        if n < MAX_PLAYERS]
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}
# (buffer, its float view, its byte view) of the last buffer written: the adapter
# reuses one; replaced as a whole, so a reader always gets one buffer's views
_memory = [(None, None, None)]
# write_observation joins the pieces before the seat rows in this (layout) order
assert [name for name, _, _ in LAYOUT.pieces[:7]] == [
    "decision", "actor", "hand", "kept", "passed", "placing", "round"]


def _new_cache(state: State) -> ObsCache:
    """A fresh observation cache for ``state``, brought in step with it."""
    cache = state._obs_cache = ObsCache(state)
    cache.update(state)
    return cache


def _header(state: State, cache: ObsCache) -> bytes:
    """The header pieces (round to bag) as float32 bytes, kept on the cache until they
    change."""
    rnd = state.round
    discards = state.discards[rnd]
    key = (rnd, state.turn, state.over, len(state.decks[rnd]), tuple(discards),
           len(state.bag), *state.kraken)
    if key != cache.header_key:
        h = array("f", bytes(_HEADER_SIZE * FLOAT_BYTES))
        h[_ROUND + rnd] = 1.0
        h[_TURN + min(state.turn, TURNS_PER_ROUND - 1)] = 1.0
        h[_PLAYERS + state.num_players - MIN_PLAYERS] = 1.0
        h[_VARIANTS] = not state.captain_mode
        h[_VARIANTS + 1] = state.config.troubled_waters
        known = state.over or state.config.kraken.mode == "fixed"
        for size, value in enumerate(state.kraken):
            # a token is turned over when its round is scored
            if known or size < rnd:
                h[_KRAKEN + 2 * size] = 1.0
                h[_KRAKEN + 2 * size + 1] = value / KRAKEN_SCALE
        h[_DECK] = len(state.decks[rnd]) / DECK_SCALE
        h[_DECK + 1] = len(discards) / DECK_SCALE
        h[_BAG] = len(state.bag) / len(TREASURE_TOKENS)
        if discards:
            pile = state.table.features[discards].sum(axis=0) / DISCARD_SCALE
            h[_DISCARDS : _DISCARDS + CARD_FEATURES] = array("f", pile.astype(np.float32).tobytes())
        cache.header, cache.header_key = h.tobytes(), key
    return cache.header


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into ``out`` (every value of it).

    Everything before the seat rows is joined as one byte string (the pending
    decision, the own cards padded to their slots, the card being placed, the header);
    the seat rows are copied from the cache, the observer's first, then zeros for the
    seats not in play.
    """
    held, f, b = _memory[0]
    if held is not out:
        if out.dtype != np.float32 or not out.flags.c_contiguous or out.size != LAYOUT.size:
            raise ValueError("the observation buffer must be a contiguous float32 vector")
        f = memoryview(out)
        b = f.cast("B")
        _memory[0] = out, f, b
    n = state.num_players
    cache = owned_cache(state)
    if cache is None or not cache.update(state):
        cache = _new_cache(state)
    card = cache.cards.features.__getitem__
    hand, kept, passed = state.hands[seat], state.kept[seat], state.passed[seat]
    choosing = False
    if state.over:
        pending, placing = _NOTHING_PENDING, _NO_CARD
    else:
        decision, actor = state.decision, state.actor
        choosing = decision == _KEEP or decision == _KEEP_MORE
        if decision == _KEEP_MORE and actor != seat:
            decision = _KEEP  # how many cards another player keeps is secret
        pending = _PENDING[decision][(actor - seat) % n]
        placed = state.placing and state.decision in _PLACED
        placing = card(state.placing[0][1]) if placed else _NO_CARD
    b[:_PREFIX_BYTES] = b"".join([
        pending, *map(card, hand), _FREE_HAND[len(hand)], *map(card, kept),
        _FREE_KEPT[len(kept)], *map(card, passed), _FREE_HAND[len(passed)], placing,
        _header(state, cache),
    ])  # fmt: skip
    f[_LEVELS : _LEVELS + n * LEVEL_WIDTH] = cache.levels.runs[seat]
    split, first, second = cache.player.pieces[seat]
    f[_PLAYER : _PLAYER + split] = first
    f[_PLAYER + split : _PLAYER + n * PLAYER_WIDTH] = second
    f[_TABLEAU : _TABLEAU + n * TABLEAU_WIDTH] = cache.tableau.runs[seat]
    if choosing and kept:  # the cache holds what the others see; the seat knows its keeps
        for column, value, scale in (
            (_OWN_HAND, len(hand), MAX_HAND), (_OWN_KEPT, len(kept), MAX_KEPT),
            (_OWN_FUEL_READY, state.fuel_ready[seat], MAX_FUEL),
            (_OWN_FUEL_USED, state.fuel_used[seat], MAX_FUEL),
        ):
            f[column] = value / scale
    if n < MAX_PLAYERS:
        for at, zeros in _ABSENT[n]:
            b[at : at + len(zeros)] = zeros
