"""Oceanos components as plain tables (rulebook + ``oceanos-rulings.md``).

Every table here can be overridden by the game config (``Config``), so a user
with the publisher's real component list can drop it in without touching rule code.
Values marked *designed* come from the rulings, not from the publisher.
"""

from __future__ import annotations

MIN_PLAYERS, MAX_PLAYERS = 2, 5
NUM_ROUNDS = 3
TURNS_PER_ROUND = 5

# ------------------------------------------------------------------ submarine
PARTS = ("propeller", "motor", "cockpit", "aquarium", "airlock")
PROPELLER, MOTOR, COCKPIT, AQUARIUM, AIRLOCK = range(len(PARTS))
MIN_LEVEL, MAX_LEVEL = 1, 3
# value of each part at level 1, 2, 3 (index level - 1)
PROPELLER_STARS = (0, 2, 5)  # stars at the end of each round
MOTOR_FUEL = (1, 2, 3)  # fuel tokens usable per round
COCKPIT_PERISCOPES = (1, 2, 3)  # cards dealt = periscopes + 1
AQUARIUM_CAPACITY = (3, 5, 8)  # different animals that score
AIRLOCK_DIVERS = (1, 2, 3)  # scuba diver tokens held
STARS_PER_ANIMAL = 2
MAX_CORALS_PER_CARD = MAX_EYES_PER_CARD = 2  # a card shows 0-2 corals and 0-2 eyes

# ------------------------------------------------------------------ symbols
SMALL_ANIMALS = ("crab", "turtle", "seahorse", "goldfish")
BIG_ANIMALS = ("shark", "whale", "dolphin", "octopus")
ANIMALS = SMALL_ANIMALS + BIG_ANIMALS
CRYSTAL_COLOURS = ("green", "yellow")
GREEN, YELLOW = 1, 2  # crystal field of a card: 0 none, 1 green, 2 yellow

# Designed composition per round deck (rulings table): symbol -> count per round.
DECK_SIZES = (40, 45, 50)
DECK_COMPOSITION = {
    "small_animal": (20, 20, 20),
    "big_animal": (4, 8, 12),
    "coral_1": (16, 16, 16),
    "coral_2": (4, 6, 8),
    "chest": (6, 9, 12),
    "eye_1": (10, 12, 14),
    "eye_2": (2, 4, 6),
    "green_crystal": (6, 6, 5),
    "yellow_crystal": (6, 6, 5),
    "base": (8, 8, 6),
}

# ------------------------------------------------------------------ tokens
KRAKEN_SIZES = ("small", "medium", "big")
# Designed split: three tokens per size; setup draws one of each size.
KRAKEN_TOKENS = {
    "small": (0, -1, -2),
    "medium": (-1, -2, -3),
    "big": (-2, -3, -4),
}
# Designed split: twelve 2s, ten 3s, eight 4s.
TREASURE_TOKENS = (2,) * 12 + (3,) * 10 + (4,) * 8

FUEL_TOKENS_PER_PLAYER = 3
DIVER_TOKENS_PER_PLAYER = 3

# ------------------------------------------------------------------ bounds the rules set
MAX_FUEL = max(MOTOR_FUEL)  # Fuel tokens a seat can use in a round
MAX_DIVERS = max(AIRLOCK_DIVERS)  # Scuba Divers a seat holds
MAX_KEPT = 1 + MAX_FUEL  # cards kept in a turn: one, plus one per Fuel token
MAX_ROW = TURNS_PER_ROUND + MAX_FUEL  # cards in one round's row
MAX_CELLS = NUM_ROUNDS * MAX_ROW  # cards a seat's rows hold
MAX_DEALT = COCKPIT_PERISCOPES[-1] + 1  # the largest hand a deal gives (periscopes + 1)
MAX_PASSED = COCKPIT_PERISCOPES[-1]  # cards a seat hands on in a turn (it keeps one)
MAX_HAND = (MAX_PLAYERS - 1) * MAX_PASSED  # a Captain receives every other seat's rest

# The longest game (``decision_cap``, read by the env and by OpenSpiel's max_game_length):
# a seat's turn takes at most MAX_KEPT keeps and a stop, two placement decisions a kept
# card and a discard; a seat upgrades with the Player Aid once a round.
TURN_DECISIONS = MAX_KEPT + 1 + 2 * MAX_KEPT + 1
AID_DECISIONS = 1


def decision_cap(players: int) -> int:
    """The most decisions a game of ``players`` can take."""
    return players * NUM_ROUNDS * (TURNS_PER_ROUND * TURN_DECISIONS + AID_DECISIONS)
