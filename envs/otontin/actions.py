"""The fixed action table of Otontin (id = index, built once at import).

| block | ids | meaning |
|---|---|---|
| ``roll`` | 1 | campaign: draw and roll again (returning the priests when the bag is empty) |
| ``stop`` | 2 | campaign: end the turn, new warriors to the ``attack`` / ``defence`` card |
| ``priority`` | 2 | saboteur payer: pay the ``left`` / ``right`` neighbour first |
| ``steal`` | 4 | saboteur taker: ``<payer's source card>><own destination card>`` |
| ``declare`` | 48 | talk: ``nothing`` or a public (non-binding) order, id = 1 + order id |
| ``commit`` | 47 | commit: the secret binding order, id = block start + order id |

Order ids are those of :mod:`envs.otontin.orders`.
"""

from __future__ import annotations

from envs.core import ActionTable

from .orders import ORDER_NAMES

ATTACK_CARD, DEFENCE_CARD = 0, 1  # warrior cards, by index
WARRIOR_CARDS = ("attack", "defence")

TABLE = ActionTable()
ROLL = TABLE.single("roll")
STOP = TABLE.block("stop", WARRIOR_CARDS)  # STOP[card]
PRIORITY = TABLE.block("priority", ("left_first", "right_first"))  # PRIORITY[side]
STEAL = TABLE.block(
    "steal", [f"{src}>{dst}" for src in WARRIOR_CARDS for dst in WARRIOR_CARDS]
)  # STEAL[2 * source + destination]
DECLARE_NOTHING = TABLE.single("declare_nothing")
DECLARE = TABLE.block("declare", ORDER_NAMES)  # DECLARE[order]
COMMIT = TABLE.block("commit", ORDER_NAMES)  # COMMIT[order]
NUM_ACTIONS = len(TABLE)


def steal_action(source: int, destination: int) -> int:
    """Id of the taker's choice: payer's ``source`` card, own ``destination`` card."""
    return STEAL[len(WARRIOR_CARDS) * source + destination]


def steal_cards(action: int) -> tuple[int, int]:
    """Inverse of :func:`steal_action`: ``(source, destination)``."""
    return divmod(action - STEAL.start, len(WARRIOR_CARDS))
