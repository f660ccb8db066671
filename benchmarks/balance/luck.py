"""How much of a game's outcome is luck and how much is skill, from paired-seed records.

The records are games of several *lineups* on common seeds: game ``j`` of every lineup
has the same seed and seat rotation (a balance sweep's lineups,
:func:`otrio.benchmarks.balance.sweep.build_tasks`), so two lineups that differ in one seat play
the same luck. A record's *focal seat* is the seat its lineup's first entry holds,
``(n - rotation) % n`` (``build_tasks`` seats ``lineup[r:] + lineup[:r]``): the skill
ceiling's lineups put the agent under test first, among the baseline (greedy).

Three measures, each with a known answer at the extremes (pure luck: the outcome is a
function of the seed alone; pure skill: a function of the agents alone):

- **swap** (:func:`swap_changes`): swap the focal seat's agent (baseline <-> another)
  on the same seed and count how often the winner changes (the total-variation distance
  of the two games' win shares: 1 when the winners differ wholly), against the rate if
  the swapped game had been dealt fresh luck (every base game against every swapped
  game of the same seating: ``independent``). The *luck share*
  ``1 - changed / independent`` is the share of games whose winner the seed fixed
  whatever the swap: 1 for pure luck (no winner changes), about 0 where the pairing
  holds nothing (pure skill: every swap changes the winner, as independent games
  would), below 0 where the seed that favoured a seat under one agent disfavours it
  under the other;
- **variance parts** (:func:`variance_parts`): the focal seat's outcome (win share or
  score) in a seeds x lineups table, split two-way into seed (luck), lineup (skill) and
  the rest (their interaction and noise), as sums of squares and as variance
  components;
- **rating spread** (:func:`rating_spread`): the agents' OpenSkill ratings over all the
  games and how far apart they spread (their standard deviation, as Duersch, Lambrecht
  and Oechssler, "Measuring skill and chance in games", 2020, do with Elo): a game of
  chance keeps every player near the same rating.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from ..ratings import openskill_ratings
from .stats import win_shares

RESAMPLES = 1000  # bootstrap resamples of every interval
LEVEL = 0.95  # the intervals' coverage


def focal_seat(record: dict) -> int:
    """The seat of the lineup's first entry in this game (see the module docstring)."""
    n = len(record["seating"])
    return (n - record["rotation"]) % n


def _key(record: dict) -> tuple:
    """What pairs the games of two lineups: the setup and the seed (with its rotation)."""
    return record.get("setup_index"), record["seed"], record["rotation"]


def paired(records_of: dict[str, list[dict]], names: list[str]) -> list[list[dict]]:
    """Per common key (setup, seed, rotation) that every lineup in ``names`` decided, the
    lineups' records in the order of ``names``; sorted by key."""
    maps = []
    for name in names:
        maps.append({_key(r): r for r in records_of.get(name, []) if win_shares(r) is not None})
    common = sorted(set.intersection(*(set(m) for m in maps)), key=repr) if maps else []
    return [[m[k] for m in maps] for k in common]


def _interval(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = (1 - LEVEL) / 2 * 100
    return float(np.percentile(finite, tail)), float(np.percentile(finite, 100 - tail))


def _mean_min(a: np.ndarray, b: np.ndarray) -> float:
    """The mean of ``min(x, y)`` over every pair of ``x`` in ``a`` and ``y`` in ``b``
    (both non-negative), exactly, from the two distributions' upper tails."""
    levels = np.unique(np.concatenate([a, b, [0.0]]))
    upper_a = 1 - np.searchsorted(np.sort(a), levels, side="left") / len(a)
    upper_b = 1 - np.searchsorted(np.sort(b), levels, side="left") / len(b)
    return float(np.sum(np.diff(levels) * upper_a[1:] * upper_b[1:]))


def _swap_numbers(a: np.ndarray, b: np.ndarray, seating: np.ndarray) -> tuple[float, float]:
    """(changed, independent) of games x seats win shares ``a`` (base) and ``b``, the
    swapped agent's seat in each pair ``seating``: fresh luck pairs a base game with
    swapped games of the same seating only (pooling seatings compared the swapped agent
    in one seat with base games judged in another, which hid its skill from the baseline
    and read luck shares below zero)."""
    changed = float(np.mean(1 - np.minimum(a, b).sum(axis=1)))
    independent = 0.0
    for seat in np.unique(seating):
        at = seating == seat
        independent += at.mean() * (1 - sum(_mean_min(a[at, s], b[at, s])
                                            for s in range(a.shape[1])))
    return changed, float(independent)


def _share(changed: float, independent: float) -> float:
    return 1 - changed / independent if independent > 1e-12 else float("nan")


def swap_changes(records_of: dict[str, list[dict]], base: str, swapped: str,
                 resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """How often swapping the focal seat from ``base``'s agent to ``swapped``'s changes
    the winner on the same seed, against fresh luck; the luck share with a bootstrap
    interval over the pairs (see the module docstring). ``gained``/``lost``: the mean
    win share the focal seat gains / loses by the swap (an equal agent: about equal)."""
    pairs = paired(records_of, [base, swapped])
    nan = float("nan")
    if not pairs:
        return {"base": base, "swapped": swapped, "pairs": 0, "changed": nan,
                "independent": nan, "luck_share": nan, "luck_low": nan, "luck_high": nan,
                "gained": nan, "lost": nan}
    for one, two in pairs:
        diff = [s for s, (x, y) in enumerate(zip(one["seating"], two["seating"])) if x != y]
        if len(diff) > 1:
            raise ValueError(f"games of {base!r} and {swapped!r} on seed {one['seed']} differ "
                             f"in seats {diff}, not one")
    a = np.array([win_shares(one) for one, _ in pairs])
    b = np.array([win_shares(two) for _, two in pairs])
    focal = np.array([focal_seat(one) for one, _ in pairs])
    rows = np.arange(len(pairs))
    edge = b[rows, focal] - a[rows, focal]
    changed, independent = _swap_numbers(a, b, focal)
    rng = np.random.default_rng(seed)
    shares = np.array([_share(*_swap_numbers(a[k], b[k], focal[k]))
                       for k in (rng.integers(len(pairs), size=len(pairs))
                                 for _ in range(resamples))])
    low, high = _interval(shares)
    return {"base": base, "swapped": swapped, "pairs": len(pairs), "changed": changed,
            "independent": independent, "luck_share": _share(changed, independent),
            "luck_low": low, "luck_high": high,
            "gained": float(np.clip(edge, 0, None).mean()),
            "lost": float(np.clip(-edge, 0, None).mean())}


def _outcome(record: dict, outcome: str) -> float:
    seat = focal_seat(record)
    if outcome == "win":
        return win_shares(record)[seat]
    return float(record["scores"][seat])


def _parts(table: np.ndarray) -> dict[str, float]:
    """Two-way sums of squares and variance components of a seeds x lineups table."""
    s, k = table.shape
    grand = table.mean()
    ss_seed = k * float(np.sum((table.mean(axis=1) - grand) ** 2))
    ss_lineup = s * float(np.sum((table.mean(axis=0) - grand) ** 2))
    ss_total = float(np.sum((table - grand) ** 2))
    ss_rest = max(ss_total - ss_seed - ss_lineup, 0.0)
    ms_rest = ss_rest / max((s - 1) * (k - 1), 1)
    seed_var = max((ss_seed / max(s - 1, 1) - ms_rest) / k, 0.0)
    lineup_var = max((ss_lineup / max(k - 1, 1) - ms_rest) / s, 0.0)
    var_total = seed_var + lineup_var + ms_rest
    nan = float("nan")
    return {"ss_luck": ss_seed / ss_total if ss_total else nan,
            "ss_skill": ss_lineup / ss_total if ss_total else nan,
            "ss_rest": ss_rest / ss_total if ss_total else nan,
            "luck": seed_var / var_total if var_total else nan,
            "skill": lineup_var / var_total if var_total else nan,
            "rest": ms_rest / var_total if var_total else nan}


def variance_parts(records_of: dict[str, list[dict]], names: list[str],
                   outcome: str = "win", resamples: int = RESAMPLES,
                   seed: int = 0) -> dict[str, Any]:
    """The focal seat's ``outcome`` (``win``: its win share; ``score``) over the seeds
    every lineup of ``names`` decided, split into seed (luck), lineup (skill) and rest:
    shares of the sum of squares (``ss_*``) and of the variance components (``luck``,
    ``skill``, ``rest``), with bootstrap intervals over the seeds for the latter."""
    if outcome not in ("win", "score"):
        raise ValueError(f"outcome must be win or score, got {outcome!r}")
    rows = paired(records_of, names)
    out: dict[str, Any] = {"lineups": list(names), "outcome": outcome, "seeds": len(rows)}
    if len(rows) < 2 or len(names) < 2:
        nan = float("nan")
        return {**out, **{k: nan for k in ("ss_luck", "ss_skill", "ss_rest", "luck", "skill",
                                           "rest")}}
    table = np.array([[_outcome(r, outcome) for r in row] for row in rows])
    out.update(_parts(table))
    rng = np.random.default_rng(seed)
    boots = [_parts(table[rng.integers(len(rows), size=len(rows))]) for _ in range(resamples)]
    for part in ("luck", "skill"):
        out[f"{part}_low"], out[f"{part}_high"] = _interval(np.array([b[part] for b in boots]))
    return out


def rating_spread(records: list[dict]) -> dict[str, Any]:
    """Every agent's OpenSkill rating over ``records`` (mu, sigma) and the spread of the
    mus: their standard deviation (Duersch et al.'s measure) and range."""
    ratings = openskill_ratings(records) if records else {}
    mus = np.array([mu for mu, _ in ratings.values()])
    return {"ratings": {name: {"mu": mu, "sigma": sigma}
                        for name, (mu, sigma) in sorted(ratings.items())},
            "sd": float(mus.std()) if mus.size else float("nan"),
            "range": float(mus.max() - mus.min()) if mus.size else float("nan")}


def luck_report(records: list[dict], base: str, lineups: list[str],
                resamples: int = RESAMPLES) -> dict[str, Any]:
    """The three measures for records tagged with their ``lineup``: each lineup of
    ``lineups`` swapped against ``base``, the variance parts of the win and the score
    over ``base`` and ``lineups``, and the rating spread of all the agents."""
    records_of: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        records_of[record["lineup"]].append(record)
    names = [base] + [name for name in lineups if name != base]
    return {"base": base,
            "swaps": [swap_changes(records_of, base, name, resamples) for name in names[1:]],
            "variance": {o: variance_parts(records_of, names, o, resamples)
                         for o in ("win", "score")},
            "ratings": rating_spread([r for name in names for r in records_of[name]])}
