"""Oceanos scoring as pure functions of a player's rows (lists of card ids).

Each function takes the card table (:class:`~otrio.envs.oceanos.cards_table.CardTable`) so
that the rules and the tests share one arithmetic.
"""

from __future__ import annotations

from itertools import chain

from .cards_table import NO_ANIMAL
from .data import (
    AQUARIUM_CAPACITY,
    MOTOR_FUEL,
    PROPELLER_STARS,
    STARS_PER_ANIMAL,
    TURNS_PER_ROUND,
)


def animals_collected(rows: list[list[int]], table) -> set[int]:
    """The different animals (indices into ``ANIMALS``) among a player's cards so far."""
    kinds = set(map(table.animal.__getitem__, chain.from_iterable(rows)))
    kinds.discard(NO_ANIMAL)
    return kinds


def animal_stars(rows: list[list[int]], aquarium_level: int, table) -> int:
    """2 stars per different animal among all cards so far, up to the aquarium capacity."""
    kinds = len(animals_collected(rows, table))
    return STARS_PER_ANIMAL * min(kinds, AQUARIUM_CAPACITY[aquarium_level - 1])


def propeller_stars(propeller_level: int) -> int:
    """0, 2 or 5 stars for a propeller at level 1, 2 or 3."""
    return PROPELLER_STARS[propeller_level - 1]


def row_eyes(row: list[int], table) -> int:
    """Kraken eyes on one row of cards."""
    return sum(map(table.eyes.__getitem__, row))


def kraken_losers(eyes: list[int]) -> list[int]:
    """Seats with the most eyes this round, if that most is at least 1 (ties all lose)."""
    most = max(eyes)
    if most < 1:
        return []
    return [seat for seat, e in enumerate(eyes) if e == most]


_ROW_STRIDE = 64  # cell id = row * stride + column; more than a row's length, so that
# the cell ids one column off either end of a row are never cells
assert _ROW_STRIDE > TURNS_PER_ROUND + max(MOTOR_FUEL)  # a round's row at its longest


def biggest_reef(rows: list[list[int]], table) -> int:
    """Corals in the biggest orthogonally connected group of coral cards.

    Rows are rounds (top to bottom), columns are positions from the left; rows may
    have different lengths, so a card is adjacent to the one above only if that row
    reaches its column.
    """
    corals = table.corals
    left = {}  # coral cells not yet in a group: cell id -> corals
    for r, row in enumerate(rows):
        base = r * _ROW_STRIDE
        for c, card in enumerate(row):
            if corals[card] > 0:
                left[base + c] = corals[card]
    best = 0
    while left:
        cell, total = left.popitem()
        stack = [cell]
        while stack:
            cell = stack.pop()
            for nb in (cell - _ROW_STRIDE, cell + _ROW_STRIDE, cell - 1, cell + 1):
                value = left.pop(nb, 0)
                if value:
                    total += value
                    stack.append(nb)
        if total > best:
            best = total
    return best


def chests_collected(rows: list[list[int]], divers: list[tuple[int, int]], table) -> int:
    """Chests that the scuba divers collect on their way up.

    A diver at (row, col) collects the chest on its card and every chest above it in
    the same column; a chest counts once even if two divers pass it; a row too short
    to reach the column is simply passed.
    """
    collected: set[tuple[int, int]] = set()
    for r, c in divers:
        for up in range(r, -1, -1):
            row = rows[up]
            if c < len(row) and table.chest[row[c]]:
                collected.add((up, c))
    return len(collected)
