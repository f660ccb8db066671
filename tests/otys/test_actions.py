"""The action encoders and decoders of ``otrio.envs.otys.actions``: every id of each structured
block decodes to the parts its table name spells, and encodes back to itself."""

from __future__ import annotations

from otrio.envs.otys import actions as A
from otrio.envs.otys import data as D

LEVELS = range(D.NUM_LEVELS)
KEY_BLOCKS = ("key", "xown", "xneutral")  # by key kind


def _label(action: int) -> list[str]:
    """The parts of an action's table name after its kind."""
    return A.TABLE.name(action).split(":")[1:]


def test_keys_round_trip():
    ids = [A.key_id(kind, level) for kind in range(len(KEY_BLOCKS)) for level in LEVELS]
    assert ids == [*A.KEY, *A.XOWN, *A.XNEUTRAL]
    for action in ids:
        kind, level = A.key_of(action)
        assert A.TABLE.name(action) == f"{KEY_BLOCKS[kind]}:L{level + 1}"
        assert A.key_id(kind, level) == action
    assert A.key_of(A.XOWN.start)[0] == A.KEY_OWN_X
    assert A.key_of(A.XNEUTRAL.start)[0] == A.KEY_NEUTRAL_X


def test_propellers_round_trip():
    seen = set()
    for action in A.PROP:
        source, target = A.prop_of(action)
        assert source != target and _label(action) == [f"{source}>{target}"]
        assert A.prop_id(source, target) == action
        seen.add((source, target))
    slots = range(D.NUM_SLOTS)
    assert seen == {(s, t) for s in slots for t in slots if s != t}


def test_completions_round_trip():
    for action in A.COMPLETE:
        source, level = A.complete_of(action)
        assert _label(action) == [A.SOURCES[source], f"L{level + 1}"]
        assert A.complete_id(source, level) == action
    assert A.complete_of(A.complete_id(A.HAND_SOURCE0, 0)) == (A.HAND_SOURCE0, 0)


def test_sales_round_trip():
    for action in A.SELL:
        colour, payout = A.sell_of(action)
        assert _label(action) == [D.COLOUR_LETTERS[colour], A.PAYOUTS[payout]]
        assert A.sell_id(colour, payout) == action


def test_moves_round_trip():
    for action in A.MOVE:
        colour, direction, level = A.move_of(action)
        assert _label(action) == [D.COLOUR_LETTERS[colour], A.DIRECTIONS[direction],
                                  f"L{level + 1}"]
        assert A.move_id(colour, direction, level) == action
