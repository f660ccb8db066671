"""Optimisers for the setup search (``otrio.benchmarks.balance.search``): each proposes
points of a discrete space (one level index per factor), is told their noisy
objective values (lower is better), and ranks what it has seen.

- ``ntbea``: the N-Tuple Bandit Evolutionary Algorithm (Lucas, Liu and Perez-Liebana,
  2018; TAG tunes game parameters with it). It keeps the mean value and count of every
  1-tuple, every 2-tuple and the full tuple of the factors it has evaluated, scores a
  point by the mean of its tuples' means minus an exploration bonus (UCB:
  ``k · spread · mean over tuples of sqrt(log(1 + N) / (n_tuple + 0.5))``, the spread
  being the standard deviation of the values so far, so ``k`` is scale-free), and
  proposes the best-scored of ``neighbours`` mutations of its current point (each
  factor mutated with probability 1/d, at least one). It ranks the evaluated points by
  their tuples' means without the bonus, which pools evidence across setups that share
  levels.
- ``tpe``: Optuna's Tree-structured Parzen Estimator (multivariate, seeded; with
  ``constant_liar`` when it proposes several points at once), ranking the evaluated
  points by their mean value. Needs ``pip install optuna`` (in ``otrio[search]``).
- ``random``: uniform random points, the baseline, ranked by mean value.

Every optimiser is deterministic given its seed and the values it is told, so a run
is rebuilt exactly by proposing again and telling the recorded values (a resume), and
the proposals never depend on how many workers played the games.

:func:`search_loop` and :func:`pick` are the search's two steps, shared by the real
search (which plays games) and by tests on planted landscapes (which do not).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Point = tuple[int, ...]
UNEXPLORED_EPS = 0.5  # added to a tuple's count in the exploration bonus (TAG's NTBEA)
MAX_TRIES = 1000  # draws to find a point not proposed yet before allowing a repeat


@dataclass(frozen=True)
class Trial:
    """One evaluation: its number, the point and the objective value."""

    number: int
    point: Point
    value: float


class Optimiser:
    """The interface: ``ask(k)`` proposes k points, ``tell(points, values)`` reports
    them, ``ranking(trials)`` orders the distinct evaluated points, best first."""

    def __init__(self, levels: Sequence[int], seed: int):
        if not levels or any(n < 1 for n in levels):
            raise ValueError(f"every factor needs a level: {list(levels)}")
        self.levels = tuple(int(n) for n in levels)
        self.rng = random.Random(seed)  # only .random() is used: the same stream everywhere

    def _index(self, n: int) -> int:
        return min(n - 1, int(self.rng.random() * n))

    def random_point(self) -> Point:
        """A uniformly drawn point."""
        return tuple(self._index(n) for n in self.levels)

    def ask(self, k: int) -> list[Point]:
        raise NotImplementedError

    def tell(self, points: list[Point], values: list[float]) -> None:
        raise NotImplementedError

    def ranking(self, trials: list[Trial]) -> list[Point]:
        """Distinct evaluated points by mean value, ties by the point."""
        return mean_ranking(trials)


def mean_ranking(trials: list[Trial]) -> list[Point]:
    """Distinct points of ``trials`` by their mean value (ties: the smaller point)."""
    values: dict[Point, list[float]] = defaultdict(list)
    for t in trials:
        values[t.point].append(t.value)
    return sorted(values, key=lambda p: (statistics.fmean(values[p]), p))


class RandomSearch(Optimiser):
    """Uniform random points (distinct while the space allows)."""

    def __init__(self, levels, seed):
        super().__init__(levels, seed)
        self.seen: set[Point] = set()

    def ask(self, k):
        out = []
        for _ in range(k):
            point = self.random_point()
            for _ in range(MAX_TRIES):
                if point not in self.seen:
                    break
                point = self.random_point()
            self.seen.add(point)
            out.append(point)
        return out

    def tell(self, points, values):
        pass


class NTBEA(Optimiser):
    """The N-Tuple Bandit Evolutionary Algorithm (see the module docstring)."""

    def __init__(self, levels, seed, exploration: float = 1.0, neighbours: int = 50):
        super().__init__(levels, seed)
        self.k = exploration
        self.neighbours = neighbours
        d = len(self.levels)
        tuples: list[tuple[int, ...]] = [(i,) for i in range(d)]
        if d > 2:
            tuples += list(itertools.combinations(range(d), 2))
        if d > 1:
            tuples.append(tuple(range(d)))
        self.tuples = tuples
        self.stats: dict[tuple[int, ...], dict[Point, list[float]]] = {t: {} for t in tuples}
        self.values: list[float] = []
        self.current: Point | None = None
        self.mutable = [i for i, n in enumerate(self.levels) if n > 1]

    def _cells(self, point: Point):
        for t in self.tuples:
            yield self.stats[t].get(tuple(point[i] for i in t))

    def value(self, point: Point) -> float:
        """The mean of the means of the point's tuples that have been seen (NaN: none)."""
        means = [s / c for cell in self._cells(point) if cell for c, s in [cell]]
        return statistics.fmean(means) if means else float("nan")

    def ucb(self, point: Point) -> float:
        """The value less the exploration bonus (lower is more promising)."""
        n = len(self.values)
        spread = statistics.pstdev(self.values) if n > 1 else 1.0
        spread = spread if spread > 0 else 1.0
        bonus = statistics.fmean(
            math.sqrt(math.log(1 + n) / ((cell[0] if cell else 0) + UNEXPLORED_EPS))
            for cell in self._cells(point))
        value = self.value(point)
        return (0.0 if math.isnan(value) else value) - self.k * spread * bonus

    def _mutate(self, point: Point) -> Point:
        if not self.mutable:
            return point
        out = list(point)
        p = 1 / len(self.mutable)
        changed = False
        for i in self.mutable:
            if self.rng.random() < p:
                out[i] = self._other(i, point[i])
                changed = True
        if not changed:
            i = self.mutable[self._index(len(self.mutable))]
            out[i] = self._other(i, point[i])
        return tuple(out)

    def _other(self, i: int, level: int) -> int:
        pick = self._index(self.levels[i] - 1)
        return pick + (pick >= level)

    def ask(self, k):
        if self.current is None:
            self.current = self.random_point()
            out = [self.current]
            while len(out) < k:
                out.append(self.random_point())
            return out
        candidates = sorted({self._mutate(self.current) for _ in range(self.neighbours)})
        ranked = sorted(candidates, key=lambda p: (self.ucb(p), p))
        out = ranked[:k]
        while len(out) < k:
            out.append(self.random_point())
        return out

    def tell(self, points, values):
        for point, value in zip(points, values):
            self.values.append(value)
            for t in self.tuples:
                key = tuple(point[i] for i in t)
                count, total = self.stats[t].get(key, (0, 0.0))
                self.stats[t][key] = (count + 1, total + value)
        if points:
            self.current = points[0]

    def ranking(self, trials):
        seen = {t.point for t in trials}
        return sorted(seen, key=lambda p: (self.value(p), p))


class TPE(Optimiser):
    """Optuna's TPE sampler through its ask-and-tell interface."""

    def __init__(self, levels, seed, startup: int = 8, batch: int = 1):
        super().__init__(levels, seed)
        try:
            import optuna  # optional: the [search] extra
        except ImportError:
            raise ImportError("optimizer 'tpe' needs Optuna: pip install 'otrio[search]' "
                              "(or use optimizer: ntbea)") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # multivariate and constant_liar are experimental
            sampler = optuna.samplers.TPESampler(
                seed=seed % (2**32), n_startup_trials=startup, multivariate=True,
                constant_liar=batch > 1)
        self.study = optuna.create_study(sampler=sampler, direction="minimize")
        self.pending: list = []

    def ask(self, k):
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(k):
                trial = self.study.ask()
                point = tuple(trial.suggest_categorical(f"x{i}", list(range(n)))
                              for i, n in enumerate(self.levels))
                self.pending.append((trial, point))
                out.append(point)
        return out

    def tell(self, points, values):
        for point, value in zip(points, values):
            trial, asked = self.pending.pop(0)
            assert asked == point, (asked, point)
            self.study.tell(trial, value)


OPTIMISERS = ("ntbea", "tpe", "random")


def make_optimiser(name: str, levels: Sequence[int], seed: int, *, exploration: float = 1.0,
                   neighbours: int = 50, startup: int = 8, batch: int = 1) -> Optimiser:
    """An optimiser by name (see the module docstring)."""
    if name == "ntbea":
        return NTBEA(levels, seed, exploration, neighbours)
    if name == "tpe":
        return TPE(levels, seed, startup, batch)
    if name == "random":
        return RandomSearch(levels, seed)
    raise ValueError(f"unknown optimizer {name!r} (use {', '.join(OPTIMISERS)})")


Evaluate = Callable[[list[int], list[Point]], list[float]]


def search_loop(optimiser: Optimiser, trials: int, batch: int, evaluate: Evaluate,
                on_batch: Callable[[list[Trial]], None] | None = None) -> list[Trial]:
    """Propose ``batch`` points at a time until ``trials`` are evaluated;
    ``evaluate(numbers, points)`` gives their values (in order)."""
    out: list[Trial] = []
    for start in range(0, trials, batch):
        numbers = list(range(start, min(start + batch, trials)))
        points = optimiser.ask(len(numbers))
        values = [float(v) for v in evaluate(numbers, points)]
        optimiser.tell(points, values)
        done = [Trial(n, p, v) for n, p, v in zip(numbers, points, values)]
        out += done
        if on_batch:
            on_batch(done)
    return out


def pick(optimiser: Optimiser, trials: list[Trial], finalists: int,
         evaluate_final: Evaluate) -> tuple[Point, list[Point], list[float]]:
    """The winner: the best of the ``finalists`` best-ranked points, re-evaluated on
    fresh games (``evaluate_final``; ties go to the better-ranked), or the best-ranked
    point when there are no finalists. Returns ``(winner, finalists, their values)``."""
    ranked = optimiser.ranking(trials)
    chosen = ranked[:finalists]
    if not chosen:
        return ranked[0], [], []
    values = [float(v) for v in evaluate_final(list(range(len(chosen))), chosen)]
    best = min(range(len(chosen)), key=lambda i: (values[i], i))
    return chosen[best], chosen, values
