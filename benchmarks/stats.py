"""Statistics for tournaments and balance studies: intervals, ranks, ratings."""

from __future__ import annotations

import math
from collections import defaultdict

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


def openskill_ratings(games: list[dict]) -> dict[str, tuple[float, float]]:
    """OpenSkill (Plackett-Luce) mu and sigma per agent, games taken in id order.

    Each seat is a team of one. An agent that holds several seats of one game is
    updated with the mean of its seats' new ratings.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, object] = {}
    for game in sorted(games, key=lambda g: g["game"]):
        seating = game["seating"]
        teams = []
        for name in seating:
            if name not in ratings:
                ratings[name] = model.rating(name=name)
            r = ratings[name]
            teams.append([model.rating(mu=r.mu, sigma=r.sigma, name=name)])
        new = model.rate(teams, ranks=game["ranks"])
        sums: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for name, team in zip(seating, new):
            sums[name].append((team[0].mu, team[0].sigma))
        for name, values in sums.items():
            mu = sum(v[0] for v in values) / len(values)
            sigma = sum(v[1] for v in values) / len(values)
            ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)
    return {name: (r.mu, r.sigma) for name, r in ratings.items()}
