"""Otontin components as plain tables (``RULES.md``, "Components"). Config may override
the dice and the pool; the rules read these tables and never hard-code a count.
"""

from __future__ import annotations

# ----------------------------------------------------------------- players and pool
MIN_PLAYERS = 3
MAX_PLAYERS = 8
DEFAULT_PLAYERS = 5  # the middle of 3-8; the rulebook names no usual count

# Rulebook set-up table: tokens per game, warriors = beans.
POOL_BY_PLAYERS: dict[int, int] = {3: 45, 4: 50, 5: 55, 6: 60, 7: 65, 8: 70}
# Counts of warriors, beans and dice are divided by this in the observation, and bean
# changes in the dense reward (GameInfo.score_scale).
COUNT_SCALE = 10.0

# ----------------------------------------------------------------------- the dice
# Die faces, by index (the index is what the rules store).
WARRIOR, BEAN, PRIEST, SABOTEUR = range(4)
FACE_NAMES: tuple[str, ...] = ("warrior", "bean", "priest", "saboteur")
NUM_FACES = len(FACE_NAMES)

# Campaign dice (rulings, **designed**): (colour, how many, the faces of one die).
DICE: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("green", 6, ("warrior", "warrior", "bean", "bean", "priest", "saboteur")),
    ("yellow", 5, ("warrior", "bean", "priest", "priest", "saboteur", "saboteur")),
    ("red", 4, ("warrior", "bean", "priest", "saboteur", "saboteur", "saboteur")),
)
MAX_DIE_KINDS = 4  # the observation has room for this many colours (config may add one)

DICE_PER_ROLL = 3  # a roll draws this many dice from the bag (fewer if fewer remain)
BUST_SABOTEURS = 4  # this many saboteur faces in one campaign turn bust it

# -------------------------------------------------------------------- tactic cards
SPEAR, SHIELD, HAND = range(3)
CARD_NAMES: tuple[str, ...] = ("spear", "shield", "hand")
NUM_CARDS = len(CARD_NAMES)
TACTIC_HAND: tuple[int, ...] = (SPEAR, SHIELD, HAND, HAND)  # each leader's four cards

# Offers a Hand carries (rulings: the fixed Strategy protocol).
NO_OFFER = -1  # a Spear or Shield carries no offer
TRUCE, JOIN_ATTACK, JOIN_DEFENCE, PAY_1, PAY_2 = range(5)
OFFER_NAMES: tuple[str, ...] = ("truce", "join_attack", "join_defence", "pay1", "pay2")
NUM_OFFERS = len(OFFER_NAMES)
OFFER_PAYMENT: dict[int, int] = {PAY_1: 1, PAY_2: 2}  # beans the Hand's owner pays

# ------------------------------------------------------------------ military values
ATTACK_VALUE = 2  # an active Attack warrior
DEFENCE_VALUE = 4  # an active Defence warrior (outside its city behind a Shield)
RESTING_VALUE = 1  # any warrior left in its city (all of a busted leader's)

# ------------------------------------------------------------------------ the end
BEAN_TARGETS: dict[str, int] = {"quick": 10, "intermediate": 15, "long": 20}
DEFAULT_BEAN_TARGET = BEAN_TARGETS["intermediate"]  # the middle of the three modes
DEFAULT_ROUND_CAP = 40
MAX_ROUND_CAP = 200  # the config limit; the decision guard is sized from it

# Truncation guard: the most decisions a game can take (``decision_cap``, read by the
# env and by OpenSpiel's max_game_length), per seat and round. In a campaign turn a
# roll-or-stop decision follows each roll, and a roll spends one of the turn's dice
# unless every die shows a priest; a roll with saboteurs adds at most THEFT_DECISIONS
# (the payer's priority, a steal per neighbour) and the BUST_SABOTEURS-th saboteur
# busts the turn, so at most that many such rolls; a seat declares and commits once a
# round (STRATEGY_DECISIONS). Priests go back to the bag, so a turn may roll all
# priests for ever: the guard allows PRIEST_ROLLS_PER_TURN such rolls a turn on average
# over the game (an always-rolling policy averages 0.1) plus PRIEST_ROLLS_SPARE a game,
# and truncates a game past that.
THEFT_DECISIONS = 3
STRATEGY_DECISIONS = 2
PRIEST_ROLLS_PER_TURN = 2
PRIEST_ROLLS_SPARE = 64
# The ceiling of every config's cap (the observation's priest count is sized from it):
# 64 rolls of 4 decisions a turn at the largest round cap and table.
ROLLS_PER_TURN = 64
DECISIONS_PER_ROLL = 4
MAX_DECISIONS = MAX_ROUND_CAP * MAX_PLAYERS * (
    ROLLS_PER_TURN * DECISIONS_PER_ROLL + STRATEGY_DECISIONS
)


def decision_cap(round_cap: int, players: int, dice: int) -> int:
    """The most decisions a game with ``dice`` campaign dice can take (see the truncation
    guard above)."""
    turn = (dice + PRIEST_ROLLS_PER_TURN + THEFT_DECISIONS * BUST_SABOTEURS
            + STRATEGY_DECISIONS)
    return min(round_cap * players * turn + PRIEST_ROLLS_SPARE, MAX_DECISIONS)


# A loaded state's priests rolled in the turn, which no rule bounds (a turn may roll
# priests for ever), stay below this (invariants); play may pass it
LOADED_COUNT_MAX = 10**6
