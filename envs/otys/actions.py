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

from otrio.envs.core import ActionTable

from . import data as D

LEVELS = [f"L{i + 1}" for i in range(D.NUM_LEVELS)]
SOURCES = [f"pub{i}" for i in range(D.MAX_PUBLIC)] + [f"hand{i}" for i in range(D.MAX_HAND)]
HAND_SOURCE0 = D.MAX_PUBLIC  # source index of hand slot 0
PROP_PAIRS = [(s, t) for s in range(D.NUM_SLOTS) for t in range(D.NUM_SLOTS) if s != t]
PAYOUTS = ("credits", "pp")
DIRECTIONS = ("out", "in")

TABLE = ActionTable()
_COLOURS = "M metal, P plant, F fuel, T tech"
KEY = TABLE.block("key", LEVELS, pattern="key:L<n>",
                  explain="play your own numbered key n on level n (while it is home on your "
                          "board); the diver on level n acts this turn")
XOWN = TABLE.block("xown", LEVELS, pattern="xown:L<n>",
                   explain="play your own X key on level n (any of 1-5); the sponsor tiles "
                           "rotate first (level 5's to level 1, the others one level down)")
XNEUTRAL = TABLE.block("xneutral", LEVELS, pattern="xneutral:L<n>",
                       explain="play a neutral X key you hold on level n; the sponsor tiles "
                               "rotate first, as for your own X key")
PROP = TABLE.block("prop", [f"{s}>{t}" for s, t in PROP_PAIRS], pattern="prop:<s>><t>",
                   explain="propeller (numbered key only): pay 1 battery to move the diver in "
                           "slot s to slot t (0-2 surface, 3-7 levels 1-5); the divers in "
                           "between shift one slot the other way")
SPONSOR = TABLE.single("sponsor", "use the sponsor tile on your key's level (once a turn, "
                                  "before your diver acts)")
COMPLETE = TABLE.block("complete", [f"{src}:{lv}" for src in SOURCES for lv in LEVELS],
                       pattern="complete:<source>:L<n>",
                       explain="complete a contract with the resources on your level n; "
                               "source pub0-pub2 is a public contract, hand0-hand5 one in "
                               "your hand")
EXPERT = TABLE.block("expert", ["resource", "bonus", "both"], pattern="expert:resource|bonus|both",
                     explain="your Expert diver: one resource of its colour onto your key's "
                             "level, the upgraded side's bonus, or both")
SELL = TABLE.block("sell", [f"{c}:{p}" for c in D.COLOUR_LETTERS for p in PAYOUTS],
                   pattern="sell:<colour>:credits|pp",
                   explain=f"Trader: sell one resource of that colour ({_COLOURS}) from your "
                           "key's level to the store, paid in credits or PP")
BUY = TABLE.block("buy", list(D.COLOUR_LETTERS), pattern="buy:<colour>",
                  explain="Trader: buy the store's cheapest resource of that colour onto your "
                          "key's level")
SPY = TABLE.block("spy", ["draw", "left", "right"], pattern="spy:draw|left|right",
                  explain="Spy: draw 4 contracts and keep 1, or use your left or right "
                          "neighbour's diver on your key's level")
ENGINEER = TABLE.block("engineer", ["mechanic", "hacker"], pattern="engineer:mechanic|hacker",
                       explain="Engineer: improve the Mechanic (longer propeller moves) or the "
                               "Hacker (a shorter Hacker track: keys come home sooner)")
EXPLORE = TABLE.block("explore", ["0", "1"], pattern="explore:0|1",
                      explain="Explorer: take reward token 0 or 1 of the Colony level of your "
                              "key, use its front, then keep it on your board")
RESURFACE = TABLE.single("resurface", "end the turn: the diver on your key's level "
                                      "resurfaces to slot 0 (the top)")
OXYGEN = TABLE.single("oxygen", "end the turn paying 1 battery: your divers stay where they are")
TOKEN = TABLE.block("token", ["0", "1"], pattern="token:0|1",
                    explain="Sponsor #2 advanced: use the front of reward token 0 or 1 of this "
                            "Colony level")
RETURN_KEY = TABLE.block("return_key", list(D.KEY_NAMES[: D.NUM_OWN_KEYS]),
                         pattern="return_key:<key>",
                         explain="bring your own key 1-5 or X back home from your Hacker track")
FLIP = TABLE.block("flip", [f"slot{s}" for s in range(D.NUM_SLOTS)], pattern="flip:slot<s>",
                   explain="turn the diver in slot s to its upgraded side (Sponsor #4 "
                           "advanced, an upgrade token)")
BATTERY = TABLE.single("battery", "Sponsor #5 advanced: gain 1 battery")
MOVE = TABLE.block(
    "move", [f"{c}:{d}:{lv}" for c in D.COLOUR_LETTERS for d in DIRECTIONS for lv in LEVELS],
    pattern="move:<colour>:out|in:L<n>",
    explain="Sponsor #5 advanced: pay 1 battery to move one resource of that colour out of "
            "your key's level to level n, or in from level n"
)
KEEP = TABLE.block("keep", [str(i) for i in range(D.DRAW_COUNT)], pattern="keep:<i>",
                   explain="keep drawn contract i (the others go under the deck)")
COLOUR = TABLE.block("colour", list(D.COLOUR_LETTERS), pattern="colour:<colour>",
                     explain=f"choose a colour ({_COLOURS}): a reward token's resource, or "
                             "the colour that pays a number contract's next number")
DECLINE = TABLE.single("decline", "say no to the choice offered (a token's resource or "
                                  "upgrade, a copied diver's effect)")

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
