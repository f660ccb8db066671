"""The catalogue of orders: a tactic card facing left, one facing right, an offer per Hand.

From Spear, Shield, Hand, Hand a leader can lay 7 (left, right) card pairs; each Hand
carries one of 5 offers, so there are 2 + 4*5 + 5*5 = 47 orders. ``ORDERS[i]`` is the
order with id ``i``: ``(left_card, left_offer, right_card, right_offer)``, the offer
being ``NO_OFFER`` on a Spear or Shield.
"""

from __future__ import annotations

from itertools import product

from .data import (
    CARD_NAMES,
    HAND,
    NO_OFFER,
    NUM_OFFERS,
    OFFER_NAMES,
    SHIELD,
    SPEAR,
    TACTIC_HAND,
)

LEFT, RIGHT = 0, 1  # sides of a city; left is seat+1, right is seat-1
SIDE_STEP = (1, -1)  # seat offset of the neighbour on each side


def _card_pairs() -> list[tuple[int, int]]:
    """The distinct (left, right) pairs that two of the four tactic cards can make."""
    pairs = set()
    cards = list(TACTIC_HAND)
    for i, j in product(range(len(cards)), repeat=2):
        if i != j:
            pairs.add((cards[i], cards[j]))
    return sorted(pairs)


def _orders() -> list[tuple[int, int, int, int]]:
    """All orders in a fixed order (by card pair, then offers)."""
    out = []
    for left, right in _card_pairs():
        left_offers = range(NUM_OFFERS) if left == HAND else (NO_OFFER,)
        right_offers = range(NUM_OFFERS) if right == HAND else (NO_OFFER,)
        for left_offer, right_offer in product(left_offers, right_offers):
            out.append((left, left_offer, right, right_offer))
    return out


CARD_PAIRS: list[tuple[int, int]] = _card_pairs()
ORDERS: list[tuple[int, int, int, int]] = _orders()
NUM_ORDERS = len(ORDERS)
NO_ORDER = -1  # no order (not yet chosen, nothing declared, or a busted leader)


def order_cards(order: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """``((left_card, left_offer), (right_card, right_offer))`` of an order id."""
    left_card, left_offer, right_card, right_offer = ORDERS[order]
    return (left_card, left_offer), (right_card, right_offer)


def _side_name(card: int, offer: int) -> str:
    if card == HAND:
        return f"hand({OFFER_NAMES[offer]})"
    return CARD_NAMES[card]


def order_name(order: int) -> str:
    """Readable name, e.g. ``L=spear/R=hand(pay1)``."""
    left_card, left_offer, right_card, right_offer = ORDERS[order]
    return f"L={_side_name(left_card, left_offer)}/R={_side_name(right_card, right_offer)}"


def has_card(order: int, card: int) -> bool:
    """Whether the order lays ``card`` on either side."""
    left_card, _, right_card, _ = ORDERS[order]
    return card in (left_card, right_card)


ORDER_NAMES: list[str] = [order_name(i) for i in range(NUM_ORDERS)]

__all__ = [
    "CARD_PAIRS",
    "HAND",
    "LEFT",
    "NO_ORDER",
    "NUM_ORDERS",
    "ORDERS",
    "ORDER_NAMES",
    "RIGHT",
    "SHIELD",
    "SIDE_STEP",
    "SPEAR",
    "has_card",
    "order_cards",
    "order_name",
]
