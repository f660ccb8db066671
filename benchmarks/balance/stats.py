"""Statistics for balance sweeps, in plain numpy and the standard library.

- :func:`win_shares`: a game's outcome as each seat's share of the victory, the
  quantity the tests below count (1/k to each of k winners).
- :func:`seat_uniformity`: chi-square goodness of fit of wins by seat against the
  uniform share. A game with k winners gives each of them 1/k of a win, so a seat's
  wins count the games it won; ties only shrink the variance, which keeps the test
  conservative.
- :func:`holm`: Holm's step-down adjustment of a family of p-values (valid under
  any dependence between the tests).
- :func:`ols_hc3`: least squares with HC3 heteroskedasticity-robust standard errors;
  columns that are linear combinations of earlier ones are dropped and reported, so
  a design with aliased features (e.g. the levels of all five tiles of an order, which
  always sum to 15) still fits.
- Power: :func:`uniformity_power` (noncentral chi-square), :func:`games_for_power`,
  :func:`detectable_advantage`, :func:`regression_detectable_effects`.

The chi-square distribution comes from the regularized incomplete gamma function
(Numerical Recipes, ch. 6.2), the normal from :class:`statistics.NormalDist`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

import numpy as np

STANDARD_NORMAL = NormalDist()
GAMMA_EPS = 1e-14  # relative accuracy of the incomplete gamma series / fraction
GAMMA_MAX_ITER = 10_000
TINY = 1e-300  # Lentz's guard against division by zero
POISSON_TAIL_SD = 8  # terms of the noncentral mixture kept: mean ± this many sd (+ as many)
BISECTION_STEPS = 60  # halvings: far below any precision a report shows
RANK_TOL = 1e-9  # relative singular-value tolerance for aliased columns


# ---------------------------------------------------------------- outcomes
def win_shares(record: dict) -> list[float] | None:
    """Each seat's share of the victory, or None for a game without a winner."""
    winners = record["winners"]
    if record.get("truncated") or not winners:
        return None
    share = 1 / len(winners)
    return [share if seat in winners else 0.0 for seat in range(len(record["scores"]))]


# ---------------------------------------------------------------- distributions
def _gamma_p_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(GAMMA_MAX_ITER):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * GAMMA_EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction."""
    b = x + 1 - a
    c = 1 / TINY
    d = 1 / b
    h = d
    for i in range(1, GAMMA_MAX_ITER):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = TINY if abs(d) < TINY else d
        c = b + an / c
        c = TINY if abs(c) < TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < GAMMA_EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    if x <= 0:
        return 1.0
    if x < a + 1:
        return 1.0 - _gamma_p_series(a, x)
    return _gamma_q_fraction(a, x)


def chi2_sf(x: float, df: int) -> float:
    """Survival function P(X > x) of a chi-square variable with ``df`` degrees of freedom."""
    return gamma_q(df / 2, x / 2)


@lru_cache(maxsize=256)
def chi2_isf(p: float, df: int) -> float:
    """The x with P(X > x) = p (the test's critical value), by bisection."""
    low, high = 0.0, max(1.0, float(df))
    while chi2_sf(high, df) > p:
        high *= 2
    for _ in range(BISECTION_STEPS):
        mid = (low + high) / 2
        if chi2_sf(mid, df) > p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def ncx2_cdf(x: float, df: int, noncentrality: float) -> float:
    """P(X <= x) for a noncentral chi-square: a Poisson(λ/2) mixture of central ones.

    The central terms P(df/2 + j, x/2) follow P(a + 1, y) = P(a, y) - y^a e^-y / Γ(a + 1).
    """
    if noncentrality <= 0:
        return 1.0 - chi2_sf(x, df)
    if x <= 0:
        return 0.0
    mean, half = noncentrality / 2, x / 2
    spread = POISSON_TAIL_SD * (math.sqrt(mean) + 1)
    first = max(0, int(mean - spread))
    a = df / 2 + first
    central = 1.0 - gamma_q(a, half)
    total = 0.0
    for j in range(first, int(mean + spread) + 1):
        total += math.exp(-mean + j * math.log(mean) - math.lgamma(j + 1)) * central
        central = max(0.0, central - math.exp(a * math.log(half) - half - math.lgamma(a + 1)))
        a += 1
    return min(1.0, total)


def z_quantile(p: float) -> float:
    """The standard normal quantile."""
    return STANDARD_NORMAL.inv_cdf(p)


def normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


# ---------------------------------------------------------------- tests
@dataclass(frozen=True)
class Uniformity:
    """Chi-square test of equal win shares across seats."""

    chi2: float
    df: int
    p: float
    games: int  # games with a winner that entered the test


def seat_uniformity(shares: np.ndarray) -> Uniformity:
    """Test ``shares`` (games × seats, each row summing to 1) against 1/seats each."""
    shares = np.asarray(shares, dtype=float)
    games, seats = shares.shape
    if games == 0 or seats < 2:
        return Uniformity(float("nan"), seats - 1, float("nan"), games)
    observed = shares.sum(axis=0)
    expected = games / seats
    chi2 = float(((observed - expected) ** 2).sum() / expected)
    return Uniformity(chi2, seats - 1, chi2_sf(chi2, seats - 1), games)


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values (same order as given); NaN stays NaN and is not counted."""
    indexed = sorted((p, i) for i, p in enumerate(pvalues) if not math.isnan(p))
    m = len(indexed)
    adjusted = [float("nan")] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


# ---------------------------------------------------------------- regression
@dataclass(frozen=True)
class Fit:
    """An OLS fit: estimates and HC3 standard errors of the kept columns."""

    names: list[str]  # kept columns (the first is the intercept)
    coef: np.ndarray
    se: np.ndarray
    dropped: list[str]  # aliased columns, not estimable in this design
    n: int

    def interval(self, j: int, z: float = z_quantile(0.975)) -> tuple[float, float]:
        """Normal 95% interval of coefficient ``j``."""
        return (self.coef[j] - z * self.se[j], self.coef[j] + z * self.se[j])

    def p_value(self, j: int) -> float:
        """Two-sided p-value of coefficient ``j`` being zero."""
        return normal_two_sided_p(self.coef[j] / self.se[j]) if self.se[j] > 0 else float("nan")


def estimable_columns(design: np.ndarray) -> list[int]:
    """Indices of columns kept in order, each one not a combination of those before it."""
    kept: list[int] = []
    for j in range(design.shape[1]):
        trial = design[:, kept + [j]]
        if trial.shape[0] < trial.shape[1]:
            break  # fewer distinct rows than columns: nothing more is estimable
        singular = np.linalg.svd(trial, compute_uv=False)
        if singular[-1] > RANK_TOL * max(1.0, singular[0]):
            kept.append(j)
    return kept


def ols_hc3(design: np.ndarray, y: np.ndarray, names: list[str]) -> Fit:
    """OLS of ``y`` on ``design`` (intercept column included by the caller), HC3 errors."""
    design = np.asarray(design, dtype=float)
    y = np.asarray(y, dtype=float)
    unique_rows = np.unique(design, axis=0)  # aliasing is a property of the setups
    kept = estimable_columns(unique_rows)
    x = design[:, kept]
    xtx_inv = np.linalg.inv(x.T @ x)
    coef = xtx_inv @ (x.T @ y)
    resid = y - x @ coef
    leverage = np.einsum("ij,jk,ik->i", x, xtx_inv, x)
    weight = (resid / np.clip(1 - leverage, 1e-12, None)) ** 2
    meat = (x * weight[:, None]).T @ x
    cov = xtx_inv @ meat @ xtx_inv
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    dropped = [names[j] for j in range(len(names)) if j not in kept]
    return Fit([names[j] for j in kept], coef, se, dropped, len(y))


# ---------------------------------------------------------------- power
def advantage_shares(seats: int, advantage: float) -> np.ndarray:
    """Win shares when seat 0 is ``advantage`` above 1/seats and the others share the loss."""
    fair = 1 / seats
    shares = np.full(seats, fair - advantage / (seats - 1))
    shares[0] = fair + advantage
    return shares


def uniformity_power(games: int, seats: int, advantage: float, alpha: float) -> float:
    """Power of :func:`seat_uniformity` at level ``alpha`` against :func:`advantage_shares`.

    The statistic is asymptotically noncentral chi-square with λ = games · Σ (p - 1/n)² / (1/n).
    """
    fair = 1 / seats
    noncentrality = games * float(((advantage_shares(seats, advantage) - fair) ** 2).sum() / fair)
    critical = chi2_isf(alpha, seats - 1)
    return 1.0 - ncx2_cdf(critical, seats - 1, noncentrality)


def games_for_power(seats: int, advantage: float, alpha: float, power: float) -> int:
    """Fewest games for :func:`uniformity_power` to reach ``power``."""
    low, high = 1, 2
    while uniformity_power(high, seats, advantage, alpha) < power:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        if uniformity_power(mid, seats, advantage, alpha) >= power:
            high = mid
        else:
            low = mid
    return high


def detectable_advantage(games: int, seats: int, alpha: float, power: float) -> float:
    """Smallest seat-0 advantage (share points) :func:`seat_uniformity` detects with ``power``."""
    low, high = 0.0, 1 - 1 / seats
    if games <= 0 or uniformity_power(games, seats, high, alpha) < power:
        return float("nan")
    for _ in range(BISECTION_STEPS // 2):
        mid = (low + high) / 2
        if uniformity_power(games, seats, mid, alpha) >= power:
            high = mid
        else:
            low = mid
    return high


def regression_detectable_effects(design: np.ndarray, names: list[str], games_per_row: int,
                                  seats: int, alpha: float, power: float) -> dict[str, float]:
    """Per feature: the effect on a seat's win share detectable with ``power``.

    ``design`` has one row per setup (intercept first); each row is played
    ``games_per_row`` times. The outcome variance is that of a fair seat's win,
    (1/n)(1 - 1/n); the effect is per unit of the feature.
    """
    kept = estimable_columns(design)
    x = design[:, kept]
    fair = 1 / seats
    variance = fair * (1 - fair)
    cov = variance * np.linalg.inv(x.T @ x * games_per_row)
    factor = z_quantile(1 - alpha / 2) + z_quantile(power)
    return {names[j]: factor * math.sqrt(cov[k, k]) for k, j in enumerate(kept) if j}


# ---------------------------------------------------------------- tier comparisons
@dataclass(frozen=True)
class Wald:
    """A Wald chi-square test of a vector of estimates being zero."""

    chi2: float
    df: int  # the rank of the estimates' covariance: 0 when it is all zero
    p: float


def wald(estimates: np.ndarray, cov: np.ndarray) -> Wald:
    """Wald test of ``estimates`` = 0 given their covariance (pseudo-inverse: a
    direction with no variance carries no information and no degree of freedom)."""
    estimates = np.atleast_1d(np.asarray(estimates, dtype=float))
    cov = np.atleast_2d(np.asarray(cov, dtype=float))
    scale = float(np.abs(cov).max()) if cov.size else 0.0
    if scale == 0.0:
        return Wald(float("nan"), 0, float("nan"))
    df = int(np.linalg.matrix_rank(cov, tol=RANK_TOL * scale * max(cov.shape)))
    chi2 = float(estimates @ np.linalg.pinv(cov, rcond=RANK_TOL) @ estimates)
    return Wald(chi2, df, chi2_sf(chi2, df) if df else float("nan"))


def gls_blocks(responses: list[np.ndarray], covs: list[np.ndarray], designs: list[np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Generalised least squares over independent blocks: block ``s`` observes
    ``responses[s]`` = ``designs[s]`` · β + error with known covariance ``covs[s]``.

    Returns ``(β, cov(β), residual chi-square, its degrees of freedom)``; the residual
    statistic Σ r_s' C_s⁻¹ r_s is the Wald test of the model against a saturated one.
    Pseudo-inverses throughout (a block without variance adds no information).
    """
    dim = designs[0].shape[1]
    information = np.zeros((dim, dim))
    score = np.zeros(dim)
    weights = []
    observed = 0
    for y, c, x in zip(responses, covs, designs):
        w = np.linalg.pinv(c, rcond=RANK_TOL) if np.abs(c).max() > 0 else np.zeros_like(c)
        weights.append(w)
        observed += int(np.linalg.matrix_rank(w)) if w.any() else 0
        information += x.T @ w @ x
        score += x.T @ w @ y
    cov = np.linalg.pinv(information, rcond=RANK_TOL)
    beta = cov @ score
    residual = sum(float((y - x @ beta) @ w @ (y - x @ beta))
                   for y, w, x in zip(responses, weights, designs))
    rank = int(np.linalg.matrix_rank(information)) if information.any() else 0
    return beta, cov, residual, max(0, observed - rank)


def homogeneity(successes: list[float], totals: list[int]) -> Wald:
    """Chi-square test that ``successes / totals`` is one rate across the groups
    (2 x k contingency table; fractional successes, such as shared victories, allowed)."""
    s = np.asarray(successes, dtype=float)
    t = np.asarray(totals, dtype=float)
    keep = t > 0
    s, t = s[keep], t[keep]
    if len(t) < 2:
        return Wald(float("nan"), 0, float("nan"))
    rate = s.sum() / t.sum()
    if rate <= 0 or rate >= 1:
        return Wald(0.0, len(t) - 1, 1.0)
    chi2 = float((((s - t * rate) ** 2) / (t * rate * (1 - rate))).sum())
    return Wald(chi2, len(t) - 1, chi2_sf(chi2, len(t) - 1))
