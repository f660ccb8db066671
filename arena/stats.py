"""General statistics of played games: win-rate intervals, mean intervals, ranks.

Shared by training's evaluation, the benchmarks and the tools (ratings, which only
the benchmarks use, are :mod:`otrio.benchmarks.ratings`).
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # the interval holds p; rounding can put an end a hair past it at p = 0 or 1
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs (games won by one side of a
    paired comparison only) as a fair coin's flips."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def ranks(scores: list[float], winners: list[int]) -> list[int]:
    """Competition ranks (1 = best): winners first, then by score; equal scores share."""
    win = set(winners)
    keys = [(s in win, scores[s]) for s in range(len(scores))]
    return [1 + sum(1 for other in keys if other > keys[s]) for s in range(len(scores))]


def mean_and_ci(values: list[float], z: float = Z95) -> tuple[float, float]:
    """Mean and the half-width of its normal-approximation 95% interval."""
    n = len(values)
    if n == 0:
        return (float("nan"), float("nan"))
    mean = sum(values) / n
    if n == 1:
        return (mean, float("nan"))
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, z * math.sqrt(var / n))


__all__ = ["Z95", "mcnemar_exact", "mean_and_ci", "ranks", "wilson"]
