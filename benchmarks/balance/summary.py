"""From balance-sweep records to per-setup tables, tests, regressions and tidy rows.

Outcomes of a game (truncated games and games without a winner count only toward
length and the truncation tally):

- **win share** of a seat (:func:`otrio.benchmarks.balance.stats.win_shares`): 1 if it
  won alone, 1/k if k seats shared the victory, else 0. Shares sum to 1 per game, so
  the fair share at n players is exactly 1/n.
- **score** of a seat; the **winning margin**: best winner's score minus the best
  other seat's (games where everyone won have none); **length** in decisions.
- game-specific per-seat metrics from the record's ``summary`` (:data:`GAME_METRICS`).

Holm's correction runs over the setups of a sweep. Regressions (linear probability
model of a seat's win share, and of its score, on the setup's features; OLS with HC3
errors) pool the setups of a sweep that have the same player count.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from otrio.arena.stats import wilson

from .skill import analyze_skill
from .stats import (
    detectable_advantage,
    games_for_power,
    holm,
    ols_hc3,
    regression_detectable_effects,
    seat_uniformity,
    win_shares,
    z_quantile,
)

LINEUP = "lineup"  # the name of a config's single lineup (otrio.benchmarks.balance.sweep.LINEUP)
TABLE = "all"  # the "seat" of an outcome that concerns the whole table
POOLED_LABEL = "all setups"  # the label of a group's pooled summary


# ---------------------------------------------------------------- per-game outcomes
def winning_margin(record: dict) -> float | None:
    """Best winner's score minus the best non-winner's (None if all won or none did)."""
    winners = set(record["winners"])
    scores = record["scores"]
    others = [scores[s] for s in range(len(scores)) if s not in winners]
    if not winners or not others:
        return None
    return max(scores[s] for s in winners) - max(others)


def oceanos_metrics(summary: dict) -> dict[str, list[float]]:
    """Kraken points lost and the share of rounds with no eyes, per seat."""
    eyes = summary["eyes_per_round"]
    return {
        "kraken_loss": [float(-v) for v in summary["points"]["kraken"]],
        "eyes_avoided": [sum(e == 0 for e in rounds) / len(rounds) for rounds in eyes],
    }


def otys_metrics(summary: dict) -> dict[str, list[float]]:
    """Sponsor tile use and yield per seat, from Otys' ``game_summary``.

    Reads ``sponsor_uses`` (per seat, the times each tile #1-#5 was used),
    ``sponsor_yield`` (per yield kind, per seat, per tile, what the uses gave; a plain
    per-seat-per-tile table counts as kind ``value``) and ``sponsor_sides`` (the side
    of each tile, optional). Gives ``sponsorK_uses`` and, per tile and side,
    ``sponsorK_SIDE_uses`` and ``sponsorK_SIDE_yield_KIND``. No keys, no metrics.
    """
    out: dict[str, list[float]] = {}
    uses = summary.get("sponsor_uses")
    if uses is None:
        return out
    tiles = len(uses[0])
    sides = summary.get("sponsor_sides") or ["any"] * tiles
    yields = summary.get("sponsor_yield")
    tables = yields if isinstance(yields, dict) else {"value": yields} if yields else {}
    for tile in range(tiles):
        tag = f"sponsor{tile + 1}"
        out[f"{tag}_uses"] = [float(row[tile]) for row in uses]
        out[f"{tag}_{sides[tile]}_uses"] = out[f"{tag}_uses"]
        for kind, table in tables.items():
            out[f"{tag}_{sides[tile]}_yield_{kind}"] = [float(row[tile]) for row in table]
    return out


GAME_METRICS = {"oceanos": oceanos_metrics, "otys": otys_metrics}
EXPECTED_SUMMARY = {  # the game_summary keys each extractor reads
    "oceanos": "points.kraken and eyes_per_round",
    "otys": "sponsor_uses and sponsor_yield",
}
METRIC_TEXT = {
    "kraken_loss": "kraken points lost",
    "eyes_avoided": "share of rounds with no eyes",
}


def game_metrics(record: dict) -> dict[str, list[float]]:
    """The game-specific per-seat metrics of one record ({} when the game has none)."""
    extract = GAME_METRICS.get(record["env"].rsplit("_v", 1)[0])
    summary = record.get("summary")
    return extract(summary) if extract and summary else {}


# ---------------------------------------------------------------- per setup
def _mean_ci(values: list[float], z: float) -> dict[str, float]:
    n = len(values)
    if n == 0:
        return {"mean": float("nan"), "ci": float("nan"), "sd": float("nan"), "n": 0}
    arr = np.asarray(values, dtype=float)
    sd = float(arr.std(ddof=1)) if n > 1 else float("nan")
    return {"mean": float(arr.mean()), "ci": z * sd / math.sqrt(n) if n > 1 else float("nan"),
            "sd": sd, "n": n}


def summarize_setup(setup, records: list[dict], alpha: float) -> dict[str, Any]:
    """Seat shares, uniformity test, scores, margin, length, agents and metrics of a setup."""
    z = z_quantile(1 - alpha / 2)
    n = setup.players
    fair = 1 / n
    decided = [(r, win_shares(r)) for r in records]
    decided = [(r, s) for r, s in decided if s is not None]
    shares = np.array([s for _, s in decided], dtype=float).reshape(-1, n)
    games = len(decided)
    seats = []
    for seat in range(n):
        column = shares[:, seat]
        low, high = wilson(float(column.sum()), games, z)
        score = _mean_ci([r["scores"][seat] for r, _ in decided], z)
        seats.append({"seat": seat, "share": float(column.mean()) if games else float("nan"),
                      "ci": _mean_ci(list(column), z)["ci"], "low": low, "high": high,
                      "score": score["mean"], "score_ci": score["ci"]})
    test = seat_uniformity(shares)
    worst = max(range(n), key=lambda s: abs(seats[s]["share"] - fair)) if games else 0
    agent_shares: dict[str, list[float]] = defaultdict(list)
    for record, share in decided:
        for seat, name in enumerate(record["seating"]):
            agent_shares[name].append(share[seat])
    agents = []
    for name, values in sorted(agent_shares.items()):
        low, high = wilson(sum(values), len(values), z)
        agents.append({"agent": name, "entries": len(values), "share": sum(values) / len(values),
                       "low": low, "high": high})
    metric_values: dict[str, list[list[float]]] = defaultdict(list)
    for record in records:
        for metric, per_seat in game_metrics(record).items():
            metric_values[metric].append(per_seat)
    metrics = {m: [float(x) for x in np.asarray(v, dtype=float).mean(axis=0)]
               for m, v in metric_values.items()}
    return {
        "sweep": setup.sweep, "label": setup.label, "env": setup.env_id, "players": n,
        "features": setup.features, "lineup": list(setup.lineup),
        "games": len(records), "decided": games, "planned": setup.games,
        "truncated": sum(bool(r.get("truncated")) for r in records),
        "seats": seats,
        "uniformity": {"chi2": test.chi2, "df": test.df, "p": test.p},
        "deviation": {"seat": worst, "value": seats[worst]["share"] - fair if games else
                      float("nan"), "ci": seats[worst]["ci"]},
        "score": _mean_ci([x for r, _ in decided for x in r["scores"]], z),
        "margin": _mean_ci([m for r, _ in decided if (m := winning_margin(r)) is not None], z),
        "length": _mean_ci([r["decisions"] for r in records], z),
        "agents": agents,
        "metrics": metrics,
    }


# ---------------------------------------------------------------- pooled per group
def _feature_names(setups) -> list[str]:
    names: list[str] = []
    for setup in setups:
        names += [f for f in setup.features if f not in names]
    return names


def _regressions(setups, records_of: list[list[dict]], z: float) -> dict:
    """Regressions of a group: ``records_of[k]`` are the records of ``setups[k]``."""
    names = _feature_names(setups)
    rows, shares, scores = [], [], []
    for setup, records in zip(setups, records_of):
        vector = [1.0] + [setup.features.get(f, 0.0) for f in names]
        for record in records:
            share = win_shares(record)
            if share is None:
                continue
            rows.append(vector)
            shares.append(share)
            scores.append(record["scores"])
    if not rows or not names:
        return {"effects": [], "dropped": [], "features": names}
    design = np.array(rows)
    shares_arr, scores_arr = np.array(shares), np.array(scores, dtype=float)
    columns = ["intercept"] + names
    outcomes = [("win_share", seat, shares_arr[:, seat]) for seat in range(shares_arr.shape[1])]
    outcomes += [("score", seat, scores_arr[:, seat]) for seat in range(scores_arr.shape[1])]
    outcomes.append(("score", TABLE, scores_arr.mean(axis=1)))
    effects, dropped = [], []
    for outcome, seat, y in outcomes:
        fit = ols_hc3(design, y, columns)
        dropped = fit.dropped
        for j, name in enumerate(fit.names[1:], start=1):
            low, high = fit.interval(j, z)
            effects.append({"outcome": outcome, "seat": seat, "feature": name,
                            "estimate": float(fit.coef[j]), "se": float(fit.se[j]),
                            "low": float(low), "high": float(high), "p": fit.p_value(j),
                            "n": fit.n})
    return {"effects": effects, "dropped": dropped, "features": names}


def _power(cfg, setups, sweep_size: int, games_total: int) -> dict[str, Any]:
    n = setups[0].players
    per_setup = min(s.games for s in setups)
    family = cfg.alpha / sweep_size  # Bonferroni: Holm's first step, its most demanding
    names = _feature_names(setups)
    design = np.array([[1.0] + [s.features.get(f, 0.0) for f in names] for s in setups])
    return {
        "seats": n, "games_per_setup": per_setup, "setups": len(setups),
        "family": sweep_size, "alpha_per_setup": family,
        "detectable_per_setup": detectable_advantage(per_setup, n, family, cfg.power),
        "detectable_per_setup_unadjusted": detectable_advantage(per_setup, n, cfg.alpha, cfg.power),
        "games_needed_per_setup": games_for_power(n, cfg.target_advantage, family, cfg.power),
        "detectable_pooled": detectable_advantage(games_total, n, cfg.alpha, cfg.power),
        "detectable_per_feature": regression_detectable_effects(
            design, ["intercept"] + names, per_setup, n, cfg.alpha, cfg.power)
        if names and len(setups) > 1 and per_setup > 0 else {},
    }


def records_by_lineup(records: list[dict]) -> dict[tuple[int, str], list[dict]]:
    """Records by (setup index, lineup name); a record without a lineup tag belongs to
    the config's single lineup."""
    out: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for record in records:
        out[(record["setup_index"], record.get("lineup", LINEUP))].append(record)
    return out


def analyze(records: list[dict], setups: list, cfg) -> dict[str, Any]:
    """Everything the report shows, as JSON-able data.

    Each (setup, lineup) is summarised on its own; Holm's correction runs over the
    setups of a sweep within one lineup, and a group (pooled summary, regressions,
    power) is one sweep, player count and lineup. With tiers, ``skill`` holds the
    tier analysis (:func:`otrio.benchmarks.balance.skill.analyze_skill`).
    """
    z = z_quantile(1 - cfg.alpha / 2)
    by_key = records_by_lineup(records)
    views = [(k, view) for k, setup in enumerate(setups) for view in setup.views()]
    rows = []
    for k, view in views:
        row = summarize_setup(view, by_key[(k, view.lineup_name)], cfg.alpha)
        if view.tagged:
            row["lineup_name"] = view.lineup_name
        rows.append(row)
    families: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r, (_, view) in enumerate(views):
        families[(view.sweep, view.lineup_name)].append(r)
    for members in families.values():
        adjusted = holm([rows[r]["uniformity"]["p"] for r in members])
        for r, p in zip(members, adjusted):
            rows[r]["uniformity"]["p_holm"] = p
    groups = []
    for (sweep, name), members in families.items():
        by_players: dict[int, list[int]] = defaultdict(list)
        for r in members:
            by_players[views[r][1].players].append(r)
        for players, rs in sorted(by_players.items()):
            group_setups = [views[r][1] for r in rs]
            records_of = [by_key[(views[r][0], name)] for r in rs]
            group_records = [rec for recs in records_of for rec in recs]
            pooled = summarize_setup(group_setups[0], group_records, cfg.alpha)
            pooled["label"] = POOLED_LABEL
            group = {
                "sweep": sweep, "env": group_setups[0].env_id, "players": players,
                "setups": [s.label for s in group_setups], "pooled": pooled,
                "regression": _regressions(group_setups, records_of, z),
                "power": _power(cfg, group_setups, len(members), len(group_records)),
            }
            if group_setups[0].tagged:
                group["lineup_name"] = pooled["lineup_name"] = name
            groups.append(group)
    analysis = {"alpha": cfg.alpha, "power": cfg.power, "target": cfg.target_advantage,
                "setups": rows, "groups": groups}
    if any(setup.tiers for setup in setups):
        analysis["skill"] = analyze_skill(by_key, setups, analysis, cfg)
    return analysis


# ---------------------------------------------------------------- tidy tables
RESULT_COLUMNS = ["sweep", "setup", "env", "players", "measure", "seat", "agent",
                  "value", "low", "high", "n"]
EFFECT_COLUMNS = ["sweep", "env", "players", "outcome", "seat", "feature", "estimate", "se",
                  "low", "high", "p", "n"]


def tidy_rows(analysis: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (setup, measure, seat or agent): the long-format results table."""
    out = []
    for s in analysis["setups"]:
        base = {"sweep": s["sweep"], "setup": s["label"], "env": s["env"],
                "players": s["players"], "seat": "", "agent": "", "low": "", "high": ""}
        if "lineup_name" in s:
            base["lineup"] = s["lineup_name"]

        def row(measure, value, n, base=base, **extra):
            out.append({**base, "measure": measure, "value": value, "n": n, **extra})

        for seat in s["seats"]:
            row("win_share", seat["share"], s["decided"], seat=seat["seat"], low=seat["low"],
                high=seat["high"])
            row("score_mean", seat["score"], s["decided"], seat=seat["seat"],
                low=seat["score"] - seat["score_ci"], high=seat["score"] + seat["score_ci"])
        for agent in s["agents"]:
            row("agent_win_share", agent["share"], agent["entries"], agent=agent["agent"],
                low=agent["low"], high=agent["high"])
        for name in ("score", "margin", "length"):
            d = s[name]
            row(f"{name}_mean", d["mean"], d["n"], seat=TABLE, low=d["mean"] - d["ci"],
                high=d["mean"] + d["ci"])
        row("score_sd", s["score"]["sd"], s["score"]["n"], seat=TABLE)
        for key in ("chi2", "p", "p_holm"):
            row(f"uniformity_{key}", s["uniformity"][key], s["decided"])
        dev = s["deviation"]
        row("max_seat_deviation", dev["value"], s["decided"], seat=dev["seat"],
            low=dev["value"] - dev["ci"], high=dev["value"] + dev["ci"])
        row("truncated", s["truncated"], s["games"])
        for metric, per_seat in s["metrics"].items():
            for seat, value in enumerate(per_seat):
                row(f"metric:{metric}", value, s["games"], seat=seat)
    return out


def effect_rows(analysis: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (group, outcome, seat, feature): the regression effects table."""
    return [{"sweep": g["sweep"], "env": g["env"], "players": g["players"], **effect,
             **({"lineup": g["lineup_name"]} if "lineup_name" in g else {})}
            for g in analysis["groups"] for effect in g["regression"]["effects"]]
