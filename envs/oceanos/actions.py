"""The fixed Oceanos action table (34 ids).

| ids | action | encoding |
|---|---|---|
| 0–11 | `keep:slotK` keep hand card K (the first is free, each extra spends a Fuel token) | id = K |
| 12 | `stop` keep no more cards this turn | |
| 13, 14 | `diver:place`, `diver:skip` on the card being placed (it has a chest) | |
| 15–19 | `upgrade:PART` with the unspent crystals (base card or Player Aid) | id = 15 + part |
| 20 | `upgrade:skip` keep the crystals for a later base | |
| 21–32 | `discard:slotK` put hand card K under the deck (two-player turn) | id = 21 + K |
| 33 | `discard:none` | |

Each block has its encoder (``keep_id(slot)``) and its decoder beside it
(``keep_slot(action)``); the rules and agents use them instead of id arithmetic.
"""

from __future__ import annotations

from otrio.envs.core.actions import ActionTable

from .data import MAX_HAND, PARTS

TABLE = ActionTable()
KEEP = TABLE.block("keep", [f"slot{k}" for k in range(MAX_HAND)], pattern="keep:slot<K>",
                   explain="keep card K of your hand (counted from 0, the hand sorted by card "
                           "id); each keep after the turn's first spends a Fuel token")
STOP = TABLE.single("stop", "keep no more cards this turn")
DIVER_PLACE = TABLE.single("diver:place", "put a ready Scuba Diver on the card just laid "
                                          "(it shows a treasure chest)")
DIVER_SKIP = TABLE.single("diver:skip", "put no diver on the card just laid")
UPGRADE = TABLE.block("upgrade", PARTS, pattern="upgrade:<part>",
                      explain="upgrade this part of your submarine (propeller, motor, cockpit, "
                              "aquarium or airlock) one level, spending all your unspent "
                              "crystals")
UPGRADE_SKIP = TABLE.single("upgrade:skip", "no upgrade: the crystals wait for a later base")
DISCARD = TABLE.block("discard", [f"slot{k}" for k in range(MAX_HAND)],
                      pattern="discard:slot<K>",
                      explain="two-player turn: put card K of your hand face down under the deck")
DISCARD_NONE = TABLE.single("discard:none", "two-player turn: put no card under the deck")
NUM_ACTIONS = len(TABLE)


def keep_id(slot: int) -> int:
    """Id of ``keep:slotK``: keep hand card ``slot``."""
    return KEEP[slot]


def keep_slot(action: int) -> int:
    """Inverse of :func:`keep_id`: the hand slot a ``keep`` action keeps."""
    return action - KEEP.start


def upgrade_id(part: int) -> int:
    """Id of ``upgrade:PART`` (``part`` indexes ``PARTS``)."""
    return UPGRADE[part]


def upgrade_part(action: int) -> int:
    """Inverse of :func:`upgrade_id`: the part an ``upgrade`` action builds."""
    return action - UPGRADE.start


def discard_id(slot: int) -> int:
    """Id of ``discard:slotK``: put hand card ``slot`` under the deck."""
    return DISCARD[slot]


def discard_slot(action: int) -> int:
    """Inverse of :func:`discard_id`: the hand slot a ``discard`` action puts back."""
    return action - DISCARD.start
