"""Oceanos scoring as pure functions of a player's rows (lists of card ids).

Each function takes the card table (:class:`~envs.oceanos.cards_table.CardTable`) so
that the rules and the tests share one arithmetic.
"""

from __future__ import annotations

from .data import AQUARIUM_CAPACITY, PROPELLER_STARS, STARS_PER_ANIMAL


def animal_stars(rows: list[list[int]], aquarium_level: int, table) -> int:
    """2 stars per different animal among all cards so far, up to the aquarium capacity."""
    kinds = {table.animal[c] for row in rows for c in row if table.animal[c] >= 0}
    return STARS_PER_ANIMAL * min(len(kinds), AQUARIUM_CAPACITY[aquarium_level - 1])


def propeller_stars(propeller_level: int) -> int:
    """0, 2 or 5 stars for a propeller at level 1, 2 or 3."""
    return PROPELLER_STARS[propeller_level - 1]


def row_eyes(row: list[int], table) -> int:
    """Kraken eyes on one row of cards."""
    return sum(table.eyes[c] for c in row)


def kraken_losers(eyes: list[int]) -> list[int]:
    """Seats with the most eyes this round, if that most is at least 1 (ties all lose)."""
    most = max(eyes)
    if most < 1:
        return []
    return [seat for seat, e in enumerate(eyes) if e == most]


def biggest_reef(rows: list[list[int]], table) -> int:
    """Corals in the biggest orthogonally connected group of coral cards.

    Rows are rounds (top to bottom), columns are positions from the left; rows may
    have different lengths, so a card is adjacent to the one above only if that row
    reaches its column.
    """
    cells = {
        (r, c): table.corals[card]
        for r, row in enumerate(rows)
        for c, card in enumerate(row)
        if table.corals[card] > 0
    }
    best = 0
    seen: set[tuple[int, int]] = set()
    for start in cells:
        if start in seen:
            continue
        seen.add(start)
        stack, total = [start], 0
        while stack:
            r, c = stack.pop()
            total += cells[(r, c)]
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        best = max(best, total)
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
