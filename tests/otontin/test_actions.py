"""Otontin action encoders and decoders: each kind's ``..._id`` and its inverse agree
on every id, and the id carries the name the table gives it."""

from __future__ import annotations

from itertools import product

import pytest

from otrio.envs.otontin.actions import (
    COMMIT,
    DECLARE,
    DECLARE_NOTHING,
    NUM_ACTIONS,
    PRIORITY,
    STEAL,
    STOP,
    TABLE,
    WARRIOR_CARDS,
    commit_id,
    committed_order,
    declare_id,
    declared_order,
    priority_id,
    priority_side,
    steal_cards,
    steal_id,
    stop_card,
    stop_id,
)
from otrio.envs.otontin.orders import LEFT, NO_ORDER, NUM_ORDERS, ORDER_NAMES, RIGHT

CARDS = range(len(WARRIOR_CARDS))
KINDS = [
    # (ids of the kind, encoder, decoder, arguments, name of an argument)
    (list(STOP), stop_id, stop_card, list(CARDS), lambda c: f"stop:{WARRIOR_CARDS[c]}"),
    (
        list(PRIORITY), priority_id, priority_side, [LEFT, RIGHT],
        lambda s: ("priority:left_first", "priority:right_first")[s],
    ),
    (
        list(STEAL), lambda sd: steal_id(*sd), steal_cards, list(product(CARDS, CARDS)),
        lambda sd: f"steal:{WARRIOR_CARDS[sd[0]]}>{WARRIOR_CARDS[sd[1]]}",
    ),
    (
        [DECLARE_NOTHING, *DECLARE], declare_id, declared_order,
        [NO_ORDER, *range(NUM_ORDERS)],
        lambda o: "declare_nothing" if o == NO_ORDER else f"declare:{ORDER_NAMES[o]}",
    ),
    (
        list(COMMIT), commit_id, committed_order, list(range(NUM_ORDERS)),
        lambda o: f"commit:{ORDER_NAMES[o]}",
    ),
]


@pytest.mark.parametrize(
    "ids, encode, decode, args, name", KINDS,
    ids=["stop", "priority", "steal", "declare", "commit"],
)
def test_round_trip(ids, encode, decode, args, name):
    """decode(encode(x)) == x for every argument, the ids are exactly the kind's, and
    each id is named as the argument says."""
    encoded = [encode(x) for x in args]
    assert encoded == ids
    for x, action in zip(args, encoded):
        assert decode(action) == x
        assert encode(decode(action)) == action
        assert TABLE.name(action) == name(x)


def test_blocks_cover_the_table_once():
    """Every id belongs to exactly one block of the table."""
    seen = sorted(a for ids in TABLE.blocks.values() for a in ids)
    assert seen == list(range(NUM_ACTIONS))
