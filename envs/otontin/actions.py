"""The fixed action table of Otontin (id = index, built once at import).

| block | ids | meaning |
|---|---|---|
| ``roll`` | 1 | campaign: draw and roll again (returning the priests when the bag is empty) |
| ``stop`` | 2 | campaign: end the turn, new warriors to the ``attack`` / ``defence`` card |
| ``priority`` | 2 | saboteur payer: pay the ``left`` / ``right`` neighbour first |
| ``steal`` | 4 | saboteur taker: ``<payer's source card>><own destination card>`` |
| ``declare`` | 48 | talk: ``nothing`` or a public (non-binding) order, id = 1 + order id |
| ``commit`` | 47 | commit: the secret binding order, id = block start + order id |

Order ids are those of :mod:`otrio.envs.otontin.orders`. Each kind has its encoder
(``stop_id(card)``) and its decoder beside it (``stop_card(action)``); the rules and
agents use them instead of id arithmetic.
"""

from __future__ import annotations

from otrio.envs.core import ActionTable

from .orders import NO_ORDER, ORDER_NAMES

ATTACK_CARD, DEFENCE_CARD = 0, 1  # warrior cards, by index
WARRIOR_CARDS = ("attack", "defence")

TABLE = ActionTable()
_ORDER = ("L=<card>/R=<card>: the tactic card laid towards your left and your right "
          "neighbour, spear (attack them), shield (defend on that side) or hand(<offer>) "
          "(a pact: truce, join_attack, join_defence, or pay1/pay2: pay 1 or 2 beans)")
ROLL = TABLE.single("roll", "campaign: draw and roll three more dice (from an empty bag, "
                            "the set-aside priests go back in first)")
STOP = TABLE.block("stop", WARRIOR_CARDS, pattern="stop:attack|defence",
                   explain="campaign: end your turn and collect its haul; its new warriors go "
                           "on your Attack or your Defence card")  # STOP[card]
PRIORITY = TABLE.block("priority", ("left_first", "right_first"),
                       pattern="priority:left_first|right_first",
                       explain="saboteurs: both neighbours take warriors from you; choose "
                               "which one is served first")  # PRIORITY[side]
STEAL = TABLE.block(
    "steal", [f"{src}>{dst}" for src in WARRIOR_CARDS for dst in WARRIOR_CARDS],
    pattern="steal:<from>><to>",
    explain="saboteurs, as a taker: take the warriors from the roller's <from> card "
            "(attack or defence) onto your own <to> card",
)  # STEAL[2 * source + destination]
DECLARE_NOTHING = TABLE.single("declare_nothing", "talk: announce no order")
DECLARE = TABLE.block("declare", ORDER_NAMES, pattern="declare:L=<card>/R=<card>",
                      explain="talk: announce an order publicly; it binds nobody. "
                              + _ORDER)  # DECLARE[order]
COMMIT = TABLE.block("commit", ORDER_NAMES, pattern="commit:L=<card>/R=<card>",
                     explain="commit your real order, in secret (any order, whatever you "
                             "announced). " + _ORDER)  # COMMIT[order]
NUM_ACTIONS = len(TABLE)


def stop_id(card: int) -> int:
    """Id of ``stop:<card>``: end the turn, new warriors to that warrior card."""
    return STOP[card]


def stop_card(action: int) -> int:
    """Inverse of :func:`stop_id`: the warrior card a ``stop`` action fills."""
    return action - STOP.start


def priority_id(side: int) -> int:
    """Id of the saboteur payer's choice: pay the neighbour on ``side`` first."""
    return PRIORITY[side]


def priority_side(action: int) -> int:
    """Inverse of :func:`priority_id`: the side paid first."""
    return action - PRIORITY.start


def steal_id(source: int, destination: int) -> int:
    """Id of the taker's choice: payer's ``source`` card, own ``destination`` card."""
    return STEAL[len(WARRIOR_CARDS) * source + destination]


def steal_cards(action: int) -> tuple[int, int]:
    """Inverse of :func:`steal_id`: ``(source, destination)``."""
    return divmod(action - STEAL.start, len(WARRIOR_CARDS))


def declare_id(order: int) -> int:
    """Id of a public declaration: ``order``, or ``declare_nothing`` for ``NO_ORDER``."""
    return DECLARE_NOTHING if order == NO_ORDER else DECLARE[order]


def declared_order(action: int) -> int:
    """Inverse of :func:`declare_id`: the declared order (``NO_ORDER`` for nothing)."""
    return NO_ORDER if action == DECLARE_NOTHING else action - DECLARE.start


def commit_id(order: int) -> int:
    """Id of the secret binding ``order``."""
    return COMMIT[order]


def committed_order(action: int) -> int:
    """Inverse of :func:`commit_id`: the order committed."""
    return action - COMMIT.start
