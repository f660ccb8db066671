"""The fixed Otys action table (id = index), built once at import.

Encodings (each block's id = block start + index):

* ``key`` / ``xown`` / ``xneutral``: ``start + level_index`` (levels 1-5).
* ``prop``: propeller moves ``s>t`` for every ordered pair of different slots, in
  ``PROP_PAIRS`` order; ``PROP_ID[s][t]`` is the id.
* ``complete``: ``start + source * 5 + level_index`` with source 0-2 the public
  contracts and 3-8 the hand slots 0-5.
* ``sell``: ``start + colour * 2 + payout`` (payout 0 credits, 1 PP).
* ``move`` (Sponsor #5 advanced): ``start + (colour * 2 + direction) * 5 + level_index``
  where direction 0 moves out of the key's level to ``level``, 1 moves in from it.
* the other blocks are small lists indexed as their names say.
"""

from __future__ import annotations

from functools import cache

from envs.core import ActionTable

from . import data as D

LEVELS = [f"L{i + 1}" for i in range(D.NUM_LEVELS)]
SOURCES = [f"pub{i}" for i in range(D.MAX_PUBLIC)] + [f"hand{i}" for i in range(D.MAX_HAND)]
HAND_SOURCE0 = D.MAX_PUBLIC  # source index of hand slot 0
PROP_PAIRS = [(s, t) for s in range(D.NUM_SLOTS) for t in range(D.NUM_SLOTS) if s != t]
PAYOUTS = ("credits", "pp")
DIRECTIONS = ("out", "in")

TABLE = ActionTable()
KEY = TABLE.block("key", LEVELS)
XOWN = TABLE.block("xown", LEVELS)
XNEUTRAL = TABLE.block("xneutral", LEVELS)
PROP = TABLE.block("prop", [f"{s}>{t}" for s, t in PROP_PAIRS])
SPONSOR = TABLE.single("sponsor")
COMPLETE = TABLE.block("complete", [f"{src}:{lv}" for src in SOURCES for lv in LEVELS])
EXPERT = TABLE.block("expert", ["resource", "bonus", "both"])
SELL = TABLE.block("sell", [f"{c}:{p}" for c in D.COLOUR_LETTERS for p in PAYOUTS])
BUY = TABLE.block("buy", list(D.COLOUR_LETTERS))
SPY = TABLE.block("spy", ["draw", "left", "right"])
ENGINEER = TABLE.block("engineer", ["mechanic", "hacker"])
EXPLORE = TABLE.block("explore", ["0", "1"])
RESURFACE = TABLE.single("resurface")
OXYGEN = TABLE.single("oxygen")
TOKEN = TABLE.block("token", ["0", "1"])
RETURN_KEY = TABLE.block("return_key", list(D.KEY_NAMES[: D.NUM_OWN_KEYS]))
FLIP = TABLE.block("flip", [f"slot{s}" for s in range(D.NUM_SLOTS)])
BATTERY = TABLE.single("battery")
MOVE = TABLE.block(
    "move", [f"{c}:{d}:{lv}" for c in D.COLOUR_LETTERS for d in DIRECTIONS for lv in LEVELS]
)
KEEP = TABLE.block("keep", [str(i) for i in range(D.DRAW_COUNT)])
COLOUR = TABLE.block("colour", list(D.COLOUR_LETTERS))
DECLINE = TABLE.single("decline")

NUM_ACTIONS = len(TABLE)

PROP_ID = [[-1] * D.NUM_SLOTS for _ in range(D.NUM_SLOTS)]
for _i, (_s, _t) in enumerate(PROP_PAIRS):
    PROP_ID[_s][_t] = PROP.start + _i

EXPERT_RESOURCE, EXPERT_BONUS, EXPERT_BOTH = EXPERT
SPY_DRAW, SPY_LEFT, SPY_RIGHT = SPY
ENGINEER_MECHANIC, ENGINEER_HACKER = ENGINEER


# ------------------------------------------------------------ encoders and decoders
# Each kind of structured action: its id from its parts, and its parts from its id.
KEY_NUMBERED, KEY_OWN_X, KEY_NEUTRAL_X = range(3)  # a turn's key kinds: blocks key/xown/xneutral
assert XOWN.start == KEY.stop and XNEUTRAL.start == XOWN.stop, "the key blocks are contiguous"


def key_id(kind: int, level_index: int) -> int:
    """Id of a key choice: ``kind`` ``KEY_NUMBERED`` / ``KEY_OWN_X`` / ``KEY_NEUTRAL_X``."""
    return KEY.start + kind * D.NUM_LEVELS + level_index


def key_of(action: int) -> tuple[int, int]:
    """(kind, level_index) of a key choice (inverse of :func:`key_id`)."""
    return divmod(action - KEY.start, D.NUM_LEVELS)


def prop_id(source: int, target: int) -> int:
    """Id of the propeller move ``prop:<source>><target>`` (slots, different)."""
    return PROP_ID[source][target]


def prop_of(action: int) -> tuple[int, int]:
    """(source, target) slots of a propeller move (inverse of :func:`prop_id`)."""
    return PROP_PAIRS[action - PROP.start]


def complete_id(source: int, level_index: int) -> int:
    """Id of ``complete:<source>:<level>`` (source 0-2 public, 3-8 hand slots)."""
    return COMPLETE.start + source * D.NUM_LEVELS + level_index


def complete_of(action: int) -> tuple[int, int]:
    """(source, level_index) of a completion (inverse of :func:`complete_id`)."""
    return divmod(action - COMPLETE.start, D.NUM_LEVELS)


def sell_id(colour: int, payout: int) -> int:
    """Id of ``sell:<colour>:<payout>`` (payout 0 credits, 1 PP)."""
    return SELL.start + colour * 2 + payout


def sell_of(action: int) -> tuple[int, int]:
    """(colour, payout) of a sale (inverse of :func:`sell_id`)."""
    return divmod(action - SELL.start, 2)


def move_id(colour: int, direction: int, level_index: int) -> int:
    """Id of a Sponsor #5 advanced resource move (direction 0 out, 1 in)."""
    return MOVE.start + (colour * 2 + direction) * D.NUM_LEVELS + level_index


def move_of(action: int) -> tuple[int, int, int]:
    """(colour, direction, level_index) of a resource move (inverse of :func:`move_id`)."""
    rest, level_index = divmod(action - MOVE.start, D.NUM_LEVELS)
    colour, direction = divmod(rest, 2)
    return colour, direction, level_index


@cache
def prop_options(reach: int) -> tuple[int, ...]:
    """Ids of every propeller move of at most ``reach`` slots."""
    slots = range(D.NUM_SLOTS)
    return tuple(PROP_ID[s][t] for s in slots for t in slots if t != s and abs(t - s) <= reach)
