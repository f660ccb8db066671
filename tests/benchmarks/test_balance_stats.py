"""Balance statistics: distributions, Holm, OLS, power, and the analysis of synthetic
records with a planted seat effect (found) and with none (false positives near the
nominal rate)."""

import itertools
import math

import numpy as np
import pytest

from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.balance.report import findings, write_balance_report
from otrio.benchmarks.balance.stats import (
    chi2_isf,
    chi2_sf,
    detectable_advantage,
    games_for_power,
    holm,
    ncx2_cdf,
    ols_hc3,
    regression_detectable_effects,
    seat_uniformity,
    uniformity_power,
    win_shares,
)
from otrio.benchmarks.balance.summary import analyze, otys_metrics, winning_margin
from otrio.benchmarks.balance.sweep import Setup

ALPHA = 0.05


# ---------------------------------------------------------------- distributions
@pytest.mark.parametrize("x, df, expected", [
    (3.841458820694124, 1, 0.05),  # textbook critical values
    (5.991464547107979, 2, 0.05),
    (7.814727903251178, 3, 0.05),
    (6.634896601021214, 1, 0.01),
    (2.0, 4, 0.7357588823428847),  # exp(-1) * (1 + 1)
    (0.0, 3, 1.0),
])
def test_chi2_survival_known_values(x, df, expected):
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_chi2_inverse_and_noncentral_against_sampling():
    assert chi2_isf(0.05, 3) == pytest.approx(7.814727903251178, rel=1e-9)
    rng = np.random.default_rng(0)
    draws = rng.noncentral_chisquare(3, 12.0, 400_000)
    for x in (5.0, 12.0, 25.0):
        assert ncx2_cdf(x, 3, 12.0) == pytest.approx((draws <= x).mean(), abs=0.004)
    assert ncx2_cdf(7.0, 2, 0.0) == pytest.approx(1 - chi2_sf(7.0, 2))


def test_holm_adjustment():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    adjusted = holm([0.2, float("nan"), 0.01])
    assert adjusted[0] == pytest.approx(0.2) and math.isnan(adjusted[1])
    assert adjusted[2] == pytest.approx(0.02)


def test_seat_uniformity_counts_shared_wins_fractionally():
    shares = np.array([[1, 0], [0, 1], [0.5, 0.5], [1, 0]])
    test = seat_uniformity(shares)
    assert test.df == 1 and test.games == 4
    assert test.chi2 == pytest.approx(((2.5 - 2) ** 2 + (1.5 - 2) ** 2) / 2)
    assert win_shares({"winners": [0, 2], "scores": [5, 1, 5], "truncated": False}) == [0.5, 0, 0.5]
    assert win_shares({"winners": [], "scores": [5, 1], "truncated": True}) is None
    assert winning_margin({"winners": [1], "scores": [40, 47, 45]}) == 2
    assert winning_margin({"winners": [0, 1], "scores": [3, 3]}) is None


def test_ols_recovers_coefficients_and_drops_aliased_columns():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 2))
    design = np.column_stack([np.ones(4000), x, x[:, 0] + x[:, 1]])  # last column aliased
    y = 1.0 + 2.0 * x[:, 0] - 0.5 * x[:, 1] + rng.normal(size=4000) * (1 + np.abs(x[:, 0]))
    fit = ols_hc3(design, y, ["one", "a", "b", "a+b"])
    assert fit.names == ["one", "a", "b"] and fit.dropped == ["a+b"]
    assert fit.coef == pytest.approx([1.0, 2.0, -0.5], abs=0.12)
    low, high = fit.interval(1)
    assert low < 2.0 < high and high - low < 0.3


def test_power_matches_the_textbook_formula_and_inverts():
    # two seats: testing p = 0.5 against 0.55 needs ((1.96*0.5 + 0.8416*0.4975)/0.05)^2 ~ 783
    assert games_for_power(2, 0.05, 0.05, 0.8) == pytest.approx(785, abs=5)
    games = games_for_power(4, 0.05, 0.05 / 27, 0.8)
    assert uniformity_power(games, 4, 0.05, 0.05 / 27) >= 0.8 > uniformity_power(games - 1, 4, 0.05, 0.05 / 27)
    assert detectable_advantage(games, 4, 0.05 / 27, 0.8) == pytest.approx(0.05, abs=2e-4)
    design = np.array([[1.0] + list(c) for c in itertools.product([0.0, 1.0], repeat=5)])
    effects = regression_detectable_effects(design, ["i"] + list("abcde"), 90, 3, 0.05, 0.8)
    # two arms of 16 setups x 90 games: (1.96 + 0.8416) * sqrt(2 * (2/9) / 1440) ~ 0.0492
    assert effects["a"] == pytest.approx(0.0492, abs=5e-4)


def test_the_power_calculation_holds_in_simulation():
    """At the computed game count the test rejects about 80% of planted 10-point advantages."""
    rng = np.random.default_rng(5)
    seats, advantage = 3, 0.10
    games = games_for_power(seats, advantage, ALPHA, 0.8)
    p = np.array([1 / 3 + advantage, 1 / 3 - advantage / 2, 1 / 3 - advantage / 2])
    rejected = 0
    trials = 400
    for _ in range(trials):
        wins = rng.multinomial(games, p)
        shares = np.zeros((games, seats))
        shares[np.arange(games), np.repeat(np.arange(seats), wins)] = 1
        rejected += seat_uniformity(shares).p < ALPHA
    assert 0.72 < rejected / trials < 0.88


# ---------------------------------------------------------------- synthetic records
def _config(**kw) -> BalanceConfig:
    """A config for synthetic records (its game is a real id, which the config requires;
    the records and setups below play nothing)."""
    base = dict(game="oceanos_v0", agents={"a": "random"}, lineup=["a"] * 3,
                sweeps=[{"name": "s", "setups": [{"label": "x"}]}])
    return BalanceConfig(**{**base, **kw})


def _setups(games: int, players: int = 3) -> list[Setup]:
    combos = list(itertools.product([0.0, 1.0], [0.0, 1.0]))
    return [Setup("s", k, f"x={x:.0f} y={y:.0f}", "synthetic_v0", {}, ("a",) * players,
                  {"x": x, "y": y}, games) for k, (x, y) in enumerate(combos)]


def _records(setups, seat0_effect: float, rng) -> list[dict]:
    """Games whose seat 0 wins 1/n + seat0_effect * x of the time (others share the rest)."""
    records = []
    for k, setup in enumerate(setups):
        n = setup.players
        lift = seat0_effect * setup.features["x"]
        p = np.full(n, 1 / n - lift / (n - 1))
        p[0] = 1 / n + lift
        for j in range(setup.games):
            winner = int(rng.choice(n, p=p))
            scores = [int(s) for s in rng.integers(20, 40, n)]
            scores[winner] = max(scores) + 1
            records.append({
                "game": len(records), "seed": j, "seating": list(setup.lineup), "scores": scores,
                "winners": [winner], "ranks": [], "decisions": 50, "truncated": False,
                "sweep": setup.sweep, "setup": setup.label, "setup_index": k,
                "env": setup.env_id, "players": n, "rotation": j % n, "features": setup.features,
            })
    return records


def test_a_planted_seat_effect_is_found():
    rng = np.random.default_rng(2)
    setups = _setups(600)
    analysis = analyze(_records(setups, 0.12, rng), setups, _config())
    by_label = {s["label"]: s for s in analysis["setups"]}
    for label, s in by_label.items():
        planted = label.startswith("x=1")
        assert (s["uniformity"]["p_holm"] < ALPHA) == planted, label
        if planted:
            assert s["deviation"]["seat"] == 0
            assert abs(s["deviation"]["value"] - 0.12) < 2 * s["deviation"]["ci"]
    (group,) = analysis["groups"]
    effects = {(e["feature"], e["seat"]): e for e in group["regression"]["effects"]
               if e["outcome"] == "win_share"}
    x0 = effects[("x", 0)]
    assert x0["low"] < 0.12 < x0["high"] and x0["low"] > 0
    assert effects[("y", 0)]["low"] < 0 < effects[("y", 0)]["high"]
    text = "\n".join(findings(analysis))
    assert "`x` +1 moves seat 0 (first player)'s win share by 1" in text
    assert "setup `x=1 y=0`" in text and "`y` +1 moves" not in text


def test_without_an_effect_false_positives_stay_near_the_nominal_rate():
    rng = np.random.default_rng(3)
    setups = _setups(90)
    sweeps, family, effect_hits, effects_total = 150, 0, 0, 0
    pvalues = []
    for _ in range(sweeps):
        analysis = analyze(_records(setups, 0.0, rng), setups, _config())
        pvalues += [s["uniformity"]["p"] for s in analysis["setups"]]
        family += any(s["uniformity"]["p_holm"] < ALPHA for s in analysis["setups"])
        for e in analysis["groups"][0]["regression"]["effects"]:
            if e["outcome"] == "win_share":
                effects_total += 1
                effect_hits += e["p"] < ALPHA
    rate = np.mean(np.array(pvalues) < ALPHA)
    assert 0.025 < rate < 0.08, rate  # 600 tests: 0.05 ± 2.5 standard errors
    assert family / sweeps < 0.10, family / sweeps  # Holm keeps the family-wise rate <= 0.05
    assert 0.025 < effect_hits / effects_total < 0.08, effect_hits / effects_total


def test_otys_sponsor_metrics_follow_the_summary_shape():
    summary = {"sponsor_uses": [[1, 0, 2, 0, 0], [0, 3, 0, 0, 1]],
               "sponsor_sides": ["basic", "advanced", "basic", "basic", "advanced"],
               "sponsor_yield": {"credits": [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
                                 "pp": [[0, 0, 2, 0, 0], [0, 0, 0, 0, 0]]}}
    metrics = otys_metrics(summary)
    assert metrics["sponsor3_uses"] == [2.0, 0.0] and metrics["sponsor2_uses"] == [0.0, 3.0]
    assert metrics["sponsor2_advanced_uses"] == [0.0, 3.0]
    assert metrics["sponsor1_basic_yield_credits"] == [1.0, 0.0]
    assert metrics["sponsor3_basic_yield_pp"] == [2.0, 0.0]
    plain = otys_metrics({"sponsor_uses": [[1] * 5], "sponsor_yield": [[4] * 5]})
    assert plain["sponsor5_any_yield_value"] == [4.0]
    assert otys_metrics({}) == {}


def test_report_tables_sponsor_use_and_yield_per_use(tmp_path):
    rng = np.random.default_rng(4)
    setups = [Setup(s.sweep, s.index, s.label, "otys_v0", {}, s.lineup, s.features, 30)
              for s in _setups(30)]
    records = _records(setups, 0.0, rng)
    for r in records:
        side = "advanced" if r["features"]["x"] else "basic"
        r["env"] = "otys_v0"
        r["summary"] = {"sponsor_uses": [[2, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]],
                        "sponsor_sides": [side, "basic", "basic", "basic", "basic"],
                        "sponsor_yield": {"credits": [[2 if side == "basic" else 6, 0, 0, 0, 0],
                                                      [0] * 5, [0] * 5],
                                          "pp": [[0, 0, 1, 0, 0], [0, 0, 3, 0, 0], [0] * 5],
                                          "keys": [[0] * 5] * 3}}
    analysis = analyze(records, setups, _config())
    write_balance_report(tmp_path, _config(), setups, analysis,
                         [{"games": 120, "seconds": 3.0, "workers": 1, "backend": "local"}])
    report = (tmp_path / "report.md").read_text()
    assert "Wall time: 120 games in 3 s (1 worker(s), local)." in report
    assert "| x=0 y=0 | 2.00 | 0.00 | 2.00 | 0.00 | 0.00 |" in report  # uses per game
    assert "| all setups | 2.00 | 0.00 | 2.00 | 0.00 | 0.00 |" in report
    assert "| tile | side | uses | credits per use | pp per use |" in report  # keys: all zero
    # tile 1: 2 uses a game, 60 games per side; basic gives 2 credits, advanced 6
    assert "| #1 | advanced | 120 | 3.00 | 0.00 |" in report
    assert "| #1 | basic | 120 | 1.00 | 0.00 |" in report
    assert "| #3 | basic | 240 | 0.00 | 2.00 |" in report  # 1 + 3 pp over two uses
    for name in ("heatmap_s.png", "effects_s_3p.png", "results.csv", "effects.csv"):
        assert (tmp_path / name).exists()


def test_wald_gls_and_homogeneity_match_hand_computations():
    from otrio.benchmarks.balance.stats import gls_blocks, homogeneity, wald

    test = wald(np.array([1.0, 2.0]), np.diag([1.0, 4.0]))
    assert (test.chi2, test.df) == (pytest.approx(2.0), 2)
    assert test.p == pytest.approx(math.exp(-1))  # chi-square, 2 df: P(X > 2) = e^-1
    empty = wald(np.zeros(2), np.zeros((2, 2)))  # identical games: nothing to test
    assert empty.df == 0 and math.isnan(empty.p)
    # two blocks observing one mean (1 and 3, variances 1 and 1): the GLS mean is 2 and
    # the residual chi-square (2 - 1)^2 + (3 - 2)^2 = 2 on one degree of freedom
    beta, cov, chi2, df = gls_blocks([np.array([1.0]), np.array([3.0])], [np.eye(1)] * 2,
                                     [np.ones((1, 1))] * 2)
    assert beta[0] == pytest.approx(2.0) and cov[0, 0] == pytest.approx(0.5)
    assert (chi2, df) == (pytest.approx(2.0), 1)
    # 2 x 2 table 10/50 against 20/50: Pearson's chi-square is 4.7619...
    h = homogeneity([10, 20], [50, 50])
    assert h.chi2 == pytest.approx(100 * (10 * 30 - 20 * 40) ** 2 / (50 * 50 * 30 * 70))
    assert h.df == 1 and homogeneity([5], [10]).df == 0
