"""Scoring rules with hand-computed expectations (rulebook + rulings)."""

import pytest

from otrio.envs.oceanos import scoring
from otrio.envs.oceanos.cards_table import CardTable

from .helpers import DECK, cid

TABLE = CardTable((DECK, DECK, DECK))


def ids(*names):
    """Distinct card ids for the names (copies are used for repeats)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        copy = seen.get(name, 0)
        seen[name] = copy + 1
        out.append(cid(name, copy=copy))
    return out


@pytest.mark.parametrize(
    "rows, aquarium, expected",
    [
        ([ids("crab", "crab", "turtle"), [], []], 1, 4),  # 2 kinds (duplicate counts once)
        ([ids("crab", "turtle", "seahorse", "goldfish", "shark"), [], []], 1, 6),  # cap 3
        ([ids("crab", "turtle", "seahorse", "goldfish", "shark"), [], []], 2, 10),  # cap 5
        ([ids("crab", "turtle", "seahorse", "goldfish", "shark", "whale"), [], []], 2, 10),
        ([ids("crab", "turtle", "seahorse", "goldfish"), ids("shark", "whale", "dolphin", "octopus"), []], 3, 16),
        ([ids("crab"), [cid("turtle", 1)], [cid("crab", 2)]], 1, 4),  # all rows so far, crab once
        ([ids("coral", "eye"), [], []], 1, 0),  # no animals
    ],
)
def test_animal_stars(rows, aquarium, expected):
    assert scoring.animal_stars(rows, aquarium, TABLE) == expected


@pytest.mark.parametrize("level, stars", [(1, 0), (2, 2), (3, 5)])
def test_propeller(level, stars):
    assert scoring.propeller_stars(level) == stars


@pytest.mark.parametrize(
    "eyes, losers",
    [
        ([0, 0, 0], []),  # no kraken loss when nobody has an eye
        ([1, 0, 0], [0]),
        ([2, 3, 1], [1]),
        ([2, 2, 1], [0, 1]),  # tie: both lose
        ([1, 1, 1, 1], [0, 1, 2, 3]),
    ],
)
def test_kraken_losers(eyes, losers):
    assert scoring.kraken_losers(eyes) == losers


def test_row_eyes_counts_double_eyes():
    assert scoring.row_eyes(ids("eye", "eye2", "crab"), TABLE) == 3


def _rows(layout):
    counts: dict[str, int] = {}
    rows = []
    for row in layout:
        out = []
        for name in row:
            k = counts.get(name, 0)
            out.append(cid(name, copy=k % 3, round_=k // 3))
            counts[name] = k + 1
        rows.append(out)
    return rows


@pytest.mark.parametrize(
    "layout, expected",
    [
        # a horizontal run of three 1-coral cards
        ([["coral", "coral", "coral"], [], []], 3),
        # 2-coral cards count their corals
        ([["coral2", "coral", "crab", "coral2"], [], []], 3),
        # vertical adjacency joins rows: (0,0)-(1,0)-(1,1) = 1+2+1
        ([["coral", "crab"], ["coral2", "coral"], []], 4),
        # diagonal does not connect: (0,0) and (1,1) are separate groups of 2
        ([["coral2", "crab"], ["crab", "coral2"], []], 2),
        # rows of unequal length: (1,3) has no card above it (row 0 has 2 cards);
        # groups {(0,0),(0,1)} = 2 and {(1,3),(2,3)} = 1 + 2 = 3
        ([["coral", "coral"], ["crab", "crab", "crab", "coral"], ["crab", "crab", "crab", "coral2"]], 3),
        # the last card of a row does not touch the first card of the next one:
        # groups {(0,1)} = 1 and {(1,0)} = 2, not 3
        ([["crab", "coral"], ["coral2", "crab"], []], 2),
        # a column joins across all three rows
        ([["coral"], ["coral"], ["coral2", "coral2"]], 6),
        ([["crab"], [], []], 0),
    ],
)
def test_biggest_reef(layout, expected):
    assert scoring.biggest_reef(_rows(layout), TABLE) == expected


@pytest.mark.parametrize(
    "layout, divers, expected",
    [
        # a diver in round 3 under two chests in its column collects all three
        ([["crab", "chest"], ["crab", "chest"], ["crab", "chest"]], [(2, 1)], 3),
        # a diver collects only its column, and nothing below it
        ([["chest", "crab"], ["chest", "chest"], ["chest", "crab"]], [(1, 1)], 1),
        # two divers sharing a chest: the chest at (0,0) counts once
        ([["chest"], ["chest"], ["chest"]], [(1, 0), (2, 0)], 3),
        # a row too short to reach the column is passed on the way up
        ([["crab", "crab", "chest"], ["crab"], ["crab", "crab", "coralchest"]], [(2, 2)], 2),
        ([["chest"], [], []], [], 0),
    ],
)
def test_chests_collected(layout, divers, expected):
    assert scoring.chests_collected(_rows(layout), divers, TABLE) == expected
