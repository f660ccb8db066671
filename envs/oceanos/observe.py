"""The Oceanos observation of one seat: a fixed float32 vector with a layout table.

Seats are relative: index 0 is the observing seat, then the others in turn order
(to its left). Everything here is public or the seat's own; the deck order, other
hands, other players' face-down cards and the bag order never appear.
"""

from __future__ import annotations

import numpy as np

from envs.core.observer import ObservationLayout

from .actions import MAX_HAND
from .cards_table import CARD_FEATURES
from .data import (
    AIRLOCK_DIVERS,
    ANIMALS,
    KRAKEN_SIZES,
    MAX_LEVEL,
    MOTOR_FUEL,
    NUM_ROUNDS,
    PARTS,
    TREASURE_TOKENS,
    TURNS_PER_ROUND,
)
from .rules import Decision, State

MAX_PLAYERS = 5
MIN_PLAYERS = 2
MAX_KEPT = 1 + max(MOTOR_FUEL)  # one card plus one per Fuel token
MAX_ROW = TURNS_PER_ROUND + max(MOTOR_FUEL)  # cards in one round's row
TABLEAU_FEATURES = CARD_FEATURES + 1  # plus "a scuba diver is on this card"
SCORE_SCALE = 50.0
DECK_SCALE = 50.0
PLAYER_FEATURES = (
    "present", "captain", "fuel_ready", "fuel_fresh", "fuel_used", "divers_ready",
    "divers_placed", "green", "yellow", "score", "hand_size", "kept_face_down",
    "eyes_this_round", "animal_kinds",
)

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
    ("levels", (MAX_PLAYERS, len(PARTS), MAX_LEVEL), "submarine part levels (one-hot)"),
    ("player", (MAX_PLAYERS, len(PLAYER_FEATURES)), "per seat: " + ", ".join(PLAYER_FEATURES)),
    ("tableau", (MAX_PLAYERS, NUM_ROUNDS, MAX_ROW, TABLEAU_FEATURES),
     "every seat's rows of cards (card features + diver)"),
])
OBSERVATION_SIZE = LAYOUT.size
_MAX_DIVERS = max(AIRLOCK_DIVERS)
_MAX_FUEL = max(MOTOR_FUEL)


class _TableauCache:
    """The observation's tableau in absolute seat order, updated only where it grew.

    Rows only grow and divers are never removed, so each observation copies in the new
    cards alone. The cache hangs on the state object; a loaded or cloned state starts
    without one and rebuilds it from its rows.
    """

    __slots__ = ("lengths", "divers", "tab", "eyes", "animals")

    def __init__(self, n: int):
        self.lengths = [[0] * NUM_ROUNDS for _ in range(n)]
        self.divers = [0] * n
        self.tab = np.zeros((n, NUM_ROUNDS, MAX_ROW, TABLEAU_FEATURES), dtype=np.float32)
        self.eyes = [[0] * NUM_ROUNDS for _ in range(n)]  # eyes per row
        self.animals = [0] * n  # bit set of the animal kinds collected


def _tableau(state: State) -> _TableauCache:
    cache = getattr(state, "_obs_cache", None)
    if cache is None:
        cache = state._obs_cache = _TableauCache(state.num_players)
    table = state.table
    for p in range(state.num_players):
        rows, lengths = state.rows[p], cache.lengths[p]
        for r in range(NUM_ROUNDS):
            row = rows[r]
            have = lengths[r]
            if len(row) > have:
                new = row[have:]
                cache.tab[p, r, have : len(row), :CARD_FEATURES] = table.features[new]
                lengths[r] = len(row)
                for card in new:
                    cache.eyes[p][r] += table.eyes[card]
                    if table.animal[card] >= 0:
                        cache.animals[p] |= 1 << table.animal[card]
        divers = state.divers[p]
        for r, c in divers[cache.divers[p]:]:
            cache.tab[p, r, c, CARD_FEATURES] = 1.0
        cache.divers[p] = len(divers)
    return cache


_views_cache: list = [None, None]  # (buffer, its named views): the adapter reuses one buffer


def _views(out: np.ndarray) -> dict[str, np.ndarray]:
    if _views_cache[0] is not out:
        _views_cache[0], _views_cache[1] = out, LAYOUT.views(out)
    return _views_cache[1]


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the zeroed vector ``out``."""
    v = _views(out)
    n = state.num_players
    features = state.table.features
    order = [(seat + k) % n for k in range(n)]
    if not state.over:
        v["decision"][state.decision] = 1.0
        v["actor"][(state.actor - seat) % n] = 1.0
        if state.placing and state.decision in (Decision.DIVER, Decision.UPGRADE):
            v["placing"][:] = features[state.placing[0][1]]
    _cards(v["hand"], state.hands[seat], features)
    _cards(v["kept"], state.kept[seat], features)
    _cards(v["passed"], state.passed[seat], features)
    v["round"][state.round] = 1.0
    v["turn"][min(state.turn, TURNS_PER_ROUND - 1)] = 1.0
    v["players"][n - MIN_PLAYERS] = 1.0
    v["variants"][0] = not state.captain_mode
    v["variants"][1] = state.config.troubled_waters
    fixed = state.config.kraken.mode == "fixed"
    for size in range(len(KRAKEN_SIZES)):
        # a token is turned over when its round is scored
        if fixed or size < state.round or state.over:
            v["kraken"][size, 0] = 1.0
            v["kraken"][size, 1] = state.kraken[size] / 4
    v["deck"][0] = len(state.decks[state.round]) / DECK_SCALE
    v["deck"][1] = len(state.discards[state.round]) / DECK_SCALE
    v["bag"][0] = len(state.bag) / len(TREASURE_TOKENS)
    cache = _tableau(state)
    v["tableau"][:n] = cache.tab[order]
    level_ids = []
    players = []
    for k, s in enumerate(order):
        level_ids += [(k * len(PARTS) + part) * MAX_LEVEL + level - 1
                      for part, level in enumerate(state.levels[s])]
        players.append((
            1.0,
            s == state.captain and state.captain_mode,
            state.fuel_ready[s] / _MAX_FUEL,
            state.fuel_fresh[s] / _MAX_FUEL,
            state.fuel_used[s] / _MAX_FUEL,
            state.divers_ready[s] / _MAX_DIVERS,
            len(state.divers[s]) / _MAX_DIVERS,
            state.green[s] / 4,
            state.yellow[s] / 4,
            state.score[s] / SCORE_SCALE,
            len(state.hands[s]) / MAX_HAND,
            len(state.kept[s]) / MAX_KEPT,
            cache.eyes[s][state.round] / 10,
            cache.animals[s].bit_count() / len(ANIMALS),
        ))
    v["levels"].reshape(-1)[level_ids] = 1.0
    v["player"][:n] = players


def _cards(view: np.ndarray, cards: list[int], features: np.ndarray) -> None:
    if cards:
        view[: len(cards)] = features[cards]
