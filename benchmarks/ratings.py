"""Ratings of agents from tournament games (OpenSkill); the general statistics
(intervals, ranks) are :mod:`otrio.arena.stats`."""

from __future__ import annotations

from collections import defaultdict

from openskill.models import PlackettLuce


def openskill_ratings(games: list[dict]) -> dict[str, tuple[float, float]]:
    """OpenSkill (Plackett-Luce) mu and sigma per agent, games taken in id order.

    Each seat is a team of one. An agent that holds several seats of one game is
    updated with the mean of its seats' new ratings.
    """

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
