"""Oceanos action encoders and decoders: each block's ``..._id`` and its inverse agree
on every id, and the id carries the name the table gives it."""

from __future__ import annotations

import pytest

from otrio.envs.oceanos.actions import (
    DISCARD,
    KEEP,
    MAX_HAND,
    NUM_ACTIONS,
    TABLE,
    UPGRADE,
    discard_id,
    discard_slot,
    keep_id,
    keep_slot,
    upgrade_id,
    upgrade_part,
)
from otrio.envs.oceanos.data import PARTS

KINDS = [
    # (block, encoder, decoder, arguments, name of argument k)
    (KEEP, keep_id, keep_slot, range(MAX_HAND), lambda k: f"keep:slot{k}"),
    (DISCARD, discard_id, discard_slot, range(MAX_HAND), lambda k: f"discard:slot{k}"),
    (UPGRADE, upgrade_id, upgrade_part, range(len(PARTS)), lambda k: f"upgrade:{PARTS[k]}"),
]


@pytest.mark.parametrize("block, encode, decode, args, name", KINDS, ids=["keep", "discard", "upgrade"])
def test_round_trip(block, encode, decode, args, name):
    """decode(encode(k)) == k for every argument, the ids fill the block exactly, and
    each id is named as the argument says."""
    ids = [encode(k) for k in args]
    assert ids == list(block)
    for k, action in zip(args, ids):
        assert decode(action) == k
        assert encode(decode(action)) == action
        assert TABLE.name(action) == name(k)


def test_blocks_cover_the_table_once():
    """Every id belongs to exactly one block of the table."""
    seen = sorted(a for ids in TABLE.blocks.values() for a in ids)
    assert seen == list(range(NUM_ACTIONS))
