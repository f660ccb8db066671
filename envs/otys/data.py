"""Otys components as plain tables (rulebook + ``otys-rulings.md``).

Everything a config may override lives in :data:`DEFAULT_COMPONENTS` (see
``otrio.envs.otys.config.Components``); the rest are fixed facts of the board that the
action table and the observation layout are built on.

Tables marked *designed* are the project's, not the publisher's (rulings).
"""

from __future__ import annotations

# ----------------------------------------------------------------- colours
METAL, PLANT, FUEL, TECH = range(4)
NUM_COLOURS = 4
COLOUR_LETTERS = "MPFT"
COLOUR_NAMES = ("metal", "plant", "fuel", "tech")

# ----------------------------------------------------------------- divers
# An Expert's type equals its colour, so ``EXPERT_OF_COLOUR[c] == c``.
METAL_EXPERT, PLANT_EXPERT, FUEL_EXPERT, TECH_EXPERT, TRADER, SPY, ENGINEER, EXPLORER = range(8)
NUM_DIVERS = 8
EXPERTS = (METAL_EXPERT, PLANT_EXPERT, FUEL_EXPERT, TECH_EXPERT)
DIVER_NAMES = (
    "MetalExpert",
    "PlantExpert",
    "FuelExpert",
    "TechExpert",
    "Trader",
    "Spy",
    "Engineer",
    "Explorer",
)
DIVER_SHORT = ("Mx", "Px", "Fx", "Tx", "Tr", "Sp", "En", "Ex")
# credits spent to use a diver's effect: (basic side, upgraded side)
DIVER_COST = ((0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (1, 0), (1, 0), (2, 1))
# divers whose cost Sponsor #1 advanced waives (the Trader: its purchases)
SPONSOR1_FREE = (TRADER, SPY, ENGINEER, EXPLORER)

# ----------------------------------------------------------------- board geometry
NUM_SLOTS = 8  # diver column: slots 0-2 surface, 3-7 levels 1-5
SURFACE_SLOTS = 3
NUM_LEVELS = 5


def level_slot(level_index: int) -> int:
    """Diver slot of a level index (0 = level 1): a key at level L touches slot L+2."""
    return SURFACE_SLOTS + level_index


# ----------------------------------------------------------------- keys
NUM_OWN_KEYS = 6  # 5 numbered keys (levels 1-5) + the own X key
OWN_X = 5  # key code of the own X key; 0-4 are the numbered keys of levels 1-5
NEUTRAL_X = 6  # key code of a neutral X key
KEY_NAMES = ("1", "2", "3", "4", "5", "X", "nX")

# ----------------------------------------------------------------- sponsors
NUM_SPONSORS = 5  # tiles #1-#5, index 0-4
SPONSOR_UPGRADE_COST = 2  # Sponsor #4: credits spent to flip a diver
SPONSOR_UPGRADE_PP = 1  # Sponsor #4: PP gained with the flip
SPONSOR_CREDIT = 1  # Sponsor #1 basic
SPONSOR_BATTERY = 1  # Sponsor #5 (both sides)
DOUBLE_USES = 2  # Sponsor #2 basic: the diver's effect twice

# ----------------------------------------------------------------- fixed amounts
EXPERT_CREDIT = 1  # upgraded Plant Expert
EXPERT_BATTERY = 1  # upgraded Fuel Expert
EXPERT_NEUTRAL_KEYS = 1  # upgraded Metal Expert
TOKEN_BATTERY = 1  # reward token immediate "gain 1 battery"
TOKEN_PP = 1  # reward token immediate "gain 1 PP"
PERMANENT_CREDITS = 2  # reward token back, orange
PERMANENT_PP = 1  # reward token back, green
DRAW_COUNT = 4  # Spy / reward token: draw 4, keep 1
KEEP_COUNT = 1
TRADER_UPGRADE_BONUS = 1  # upgraded Trader: +1 credit or +1 PP on a sale
TRADER_UPGRADE_DISCOUNT = 1  # upgraded Trader: 1 credit less on a purchase
DISPLAY_TOKENS = 2  # reward tokens per level of the Colony display
STORE_ROWS = 3
STORE_SETUP = (2, 1, 1, 0)  # store setup counts, dealt to a random order of colours
START_RESOURCE_LEVELS = (1, 2, 3, 4)  # level indices (levels 2-5) that get one colour each
MAX_HAND = 6  # encoding cap on a private hand (rulings: a known deviation)
MAX_PUBLIC = 3
MAX_PLAYERS = 4
MAX_NUMBERS = 4  # at most four numbers on a specific-number card (one per colour)
MAX_ROUND_CAP = 200

# Truncation guard: the most decisions a game can take (``decision_cap``, read by the
# env and by OpenSpiel's max_game_length). A game has T = round_cap x players seat-turns.
# A turn takes at most TURN_DECISIONS outside propellers and completions (key, sponsor
# and its sub-choice, two diver uses each with a Spy copy, a nested copy, a token and its
# sub-choice, the end, the variant answers). A propeller is one decision and spends a
# battery: a seat starts with the components' start_batteries and gains at most
# BATTERIES_PER_TURN a turn plus a completed contract's bonus. A completion takes at most
# COMPLETION_DECISIONS (the card, a colour per number) and spends a resource at least: a
# board holds at most its capacity and gains at most RESOURCES_PER_TURN a turn. With the
# default components that is 53 T + 127 a seat; a game past it is truncated.
TURN_DECISIONS = 20
BATTERIES_PER_TURN = 3
RESOURCES_PER_TURN = 5
COMPLETION_DECISIONS = 1 + MAX_NUMBERS
# The ceiling of every config's cap (the observation's open counts are sized from it):
# 128 decisions a seat-turn at the largest round cap and table, over twice 53.
DECISIONS_PER_TURN = 128
MAX_DECISIONS = MAX_ROUND_CAP * MAX_PLAYERS * DECISIONS_PER_TURN


def decision_cap(round_cap: int, players: int, start_batteries: int, capacity: int,
                 contract_batteries: int) -> int:
    """The most decisions a game can take (see the truncation guard above): ``capacity``
    is a board's resource spaces, ``contract_batteries`` the most a contract pays."""
    turns, completion = round_cap * players, COMPLETION_DECISIONS + contract_batteries
    bound = (turns * (TURN_DECISIONS + BATTERIES_PER_TURN + RESOURCES_PER_TURN * completion)
             + players * (start_batteries + capacity * completion))
    return min(bound, MAX_DECISIONS)


# A loaded state's credits, batteries and PP, which no rule bounds, stay below this
# (invariants); play may pass it, by at most what MAX_DECISIONS decisions add
LOADED_COUNT_MAX = 10**6
MAX_COPY_DEPTH = 2  # a Spy may copy a neighbour's Spy, which may copy a non-Spy

# ----------------------------------------------------------------- contracts (designed, 32)
COMBINATION = "combination"
NUMBER = "number"
# (kind, needs, PP, bonus credits, bonus batteries); needs: colour letters for a
# specific combination, the numbers for a specific number card.
CONTRACTS = (
    (COMBINATION, "MM", 1, 1, 0),
    (COMBINATION, "PP", 1, 0, 1),
    (COMBINATION, "FF", 1, 1, 0),
    (COMBINATION, "TT", 1, 0, 1),
    (COMBINATION, "MPF", 2, 0, 0),
    (COMBINATION, "PFT", 2, 0, 0),
    (COMBINATION, "FTM", 2, 0, 0),
    (COMBINATION, "TMP", 2, 0, 0),
    (COMBINATION, "MMPP", 3, 0, 0),
    (COMBINATION, "FFTT", 3, 0, 0),
    (COMBINATION, "MMFT", 3, 1, 0),
    (COMBINATION, "PPTM", 3, 0, 1),
    (COMBINATION, "MMMPF", 4, 0, 0),
    (COMBINATION, "PPPFT", 4, 0, 0),
    (COMBINATION, "FFFTM", 4, 0, 0),
    (COMBINATION, "TTTMP", 4, 0, 0),
    (COMBINATION, "MMPPFF", 5, 0, 0),
    (COMBINATION, "FFTTMM", 5, 0, 0),
    (COMBINATION, "MPFTTT", 5, 0, 0),
    (COMBINATION, "PPMFTT", 5, 0, 0),
    (NUMBER, (2, 1), 2, 0, 0),
    (NUMBER, (2, 1), 2, 1, 0),
    (NUMBER, (1, 1, 1), 2, 0, 0),
    (NUMBER, (2, 2), 3, 0, 0),
    (NUMBER, (3, 1), 3, 0, 0),
    (NUMBER, (1, 1, 1, 1), 3, 0, 1),
    (NUMBER, (2, 1, 1), 3, 0, 0),
    (NUMBER, (3, 2), 4, 0, 0),
    (NUMBER, (2, 2, 1), 4, 0, 0),
    (NUMBER, (3, 3), 5, 0, 0),
    (NUMBER, (2, 2, 2), 5, 0, 0),
    (NUMBER, (3, 2, 1), 5, 1, 1),
)

# ----------------------------------------------------------------- reward tokens (designed, 32)
RESOURCE, BATTERY, DRAW, UPGRADE, PRESTIGE = range(5)
TOKEN_KINDS = ("resource", "battery", "draw", "upgrade", "pp")
BACK_CREDITS, BACK_PP = range(2)
TOKEN_BACKS = ("credits", "pp")
_PAIRS = ("MP", "MF", "MT", "PF", "PT", "FT")
# (immediate effect, the two colours of a resource token or "", permanent back)
REWARD_TOKENS = (
    tuple(("resource", pair, back) for pair in _PAIRS for back in TOKEN_BACKS)
    + (("battery", "", "credits"),) * 3
    + (("battery", "", "pp"),) * 2
    + (("draw", "", "credits"),) * 2
    + (("draw", "", "pp"),) * 3
    + (("upgrade", "", "credits"),) * 3
    + (("upgrade", "", "pp"),) * 2
    + (("pp", "", "credits"),) * 2
    + (("pp", "", "pp"),) * 3
)

# ----------------------------------------------------------------- overridable defaults
DEFAULT_COMPONENTS = {
    "contracts": CONTRACTS,
    "reward_tokens": REWARD_TOKENS,
    "level_capacity": (3, 3, 4, 5, 6),
    # store (designed): payout of a sale landing on row r / cost of buying from row r
    "store_credits": (3, 2, 1),
    "store_pp": (1, 0, 0),
    "mechanic_moves": (1, 2, 3, 4),  # designed: max propeller move per improvement
    "hacker_capacity": (5, 4, 3, 2),  # keys the track holds per improvement
    "start_credits": 3,
    "start_batteries": 1,
    "neutral_x_keys": 12,
    "end_pp": 18,
    "public_contracts": (2, 3, 3),  # for 2, 3, 4 players
    "hand_limit": MAX_HAND,
}
