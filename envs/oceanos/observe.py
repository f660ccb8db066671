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
P = {name: i for i, name in enumerate(PLAYER_FEATURES)}

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


def write_observation(state: State, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s view of ``state`` into the zeroed vector ``out``."""
    v = LAYOUT.views(out)
    n = state.num_players
    features = state.table.features
    order = [(seat + k) % n for k in range(n)]
    relative = {s: k for k, s in enumerate(order)}
    if not state.over:
        v["decision"][state.decision] = 1.0
        v["actor"][relative[state.actor]] = 1.0
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
        # a token is turned over at the end of its round
        if fixed or size < state.round or state.over:
            v["kraken"][size, 0] = 1.0
            v["kraken"][size, 1] = state.kraken[size] / 4
    v["deck"][0] = len(state.decks[state.round]) / DECK_SCALE
    v["deck"][1] = len(state.discards[state.round]) / DECK_SCALE
    v["bag"][0] = len(state.bag) / len(TREASURE_TOKENS)
    levels, player, tableau = v["levels"], v["player"], v["tableau"]
    table = state.table
    for k, s in enumerate(order):
        for part, level in enumerate(state.levels[s]):
            levels[k, part, level - 1] = 1.0
        row = player[k]
        row[P["present"]] = 1.0
        row[P["captain"]] = s == state.captain and state.captain_mode
        row[P["fuel_ready"]] = state.fuel_ready[s] / _MAX_FUEL
        row[P["fuel_fresh"]] = state.fuel_fresh[s] / _MAX_FUEL
        row[P["fuel_used"]] = state.fuel_used[s] / _MAX_FUEL
        row[P["divers_ready"]] = state.divers_ready[s] / _MAX_DIVERS
        row[P["divers_placed"]] = len(state.divers[s]) / _MAX_DIVERS
        row[P["green"]] = state.green[s] / 4
        row[P["yellow"]] = state.yellow[s] / 4
        row[P["score"]] = state.score[s] / SCORE_SCALE
        row[P["hand_size"]] = len(state.hands[s]) / MAX_HAND
        row[P["kept_face_down"]] = len(state.kept[s]) / MAX_KEPT
        row[P["eyes_this_round"]] = state.row_eyes(s) / 10
        kinds = {table.animal[c] for r in state.rows[s] for c in r if table.animal[c] >= 0}
        row[P["animal_kinds"]] = len(kinds) / len(ANIMALS)
        for r, cards in enumerate(state.rows[s]):
            if cards:
                tableau[k, r, : len(cards), :CARD_FEATURES] = features[cards]
        for r, c in state.divers[s]:
            tableau[k, r, c, CARD_FEATURES] = 1.0


def _cards(view: np.ndarray, cards: list[int], features: np.ndarray) -> None:
    if cards:
        view[: len(cards)] = features[cards]
