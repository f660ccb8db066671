"""Skill tiers in a balance sweep: how seat balance and setup effects change with the
players' skill, and how much skill a setup rewards (its skill depth).

A sweep with ``tiers`` (weakest first) plays every setup with each tier in every seat
and with the ``matchups`` among them (one seat of a tier among another tier), all on
the same seeds and seat rotations (:func:`otrio.benchmarks.balance.sweep.build_tasks`). Each
lineup gets the per-setup analysis of :mod:`otrio.benchmarks.balance.summary` (seat
uniformity, Holm over the setups, HC3 regressions, power); this module adds, per sweep
and player count:

- **tier table**: each tier's pooled seat shares, seat 0's share and the number of its
  setups with a Holm-significant seat imbalance;
- **does the seat balance change with skill?** For each seat, the paired differences
  of its win share between each tier and the weakest, game by game on a common seed
  (``D_sj``, one entry per tier but the first). Averaged over the setups they give
  the tier effect and its Wald test (``main``); their per-setup means ``d_s`` (with the
  covariance of the paired differences, ``C_s``) give a GLS fit of the setup features
  with a tier x feature interaction per feature column, each a Wald test with one
  degree of freedom per tier but the first (``interactions``), and a tier x setup
  omnibus test (``d_s`` the same in every setup; ``omnibus``). The pairing makes the
  tests exact about the common seeds (a test that took the tiers as independent would
  overstate the variance of a difference). Holm runs over the seats (main, omnibus)
  and over seats x features (interactions); at two players seat 1 mirrors seat 0 and
  is not tested again;
- **skill depth**: the matchup matrix (each tier's win share as the lone seat among
  each other tier, seats rotated) per setup and pooled, with Wilson intervals; the
  *edge* of a cell, ``(share - 1/n) / (1 - 1/n)``: 0 when the lone tier wins its fair
  share, 1 when it always wins, comparable across player counts; a setup's **depth**
  is the edge of the strongest tier alone among the weakest (two-sided test against
  0, Holm over the setups), with a chi-square test of one depth across the setups; the
  *inversions* of a setup are the pairs where the stronger tier, alone among a weaker
  one, wins less than its fair share;
- **luck per setup**: the luck share of the swap from the weakest tier to the strongest
  in one seat (the lone-seat lineup against the weakest everywhere, game by game on the
  same seeds; :func:`otrio.benchmarks.balance.luck.swap_changes`), per setup and pooled:
  the share of games whose winner the seed fixed whatever the swap.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from otrio.arena.stats import wilson

from .luck import RESAMPLES, swap_changes
from .stats import (
    chi2_sf,
    estimable_columns,
    gls_blocks,
    holm,
    homogeneity,
    normal_two_sided_p,
    wald,
    win_shares,
    z_quantile,
)

AMONG = " among "  # "B among A": one seat of tier B, every other seat tier A


def matchup_name(lone: str, others: str) -> str:
    """The lineup with one seat of ``lone`` and every other seat ``others``."""
    return f"{lone}{AMONG}{others}"


# ---------------------------------------------------------------- matchups
def lone_shares(records: list[dict], lone: str) -> list[float]:
    """Per decided game, the win share of the seat(s) ``lone`` holds (per seat)."""
    out = []
    for record in records:
        shares = win_shares(record)
        if shares is None:
            continue
        seats = [s for s, name in enumerate(record["seating"]) if name == lone]
        if seats:
            out.append(sum(shares[s] for s in seats) / len(seats))
    return out


def cell(values: list[float], players: int, z: float) -> dict[str, Any]:
    """A matchup cell from the lone tier's per-game shares: share, Wilson interval, edge
    (with the interval's), and the two-sided p of the share being the fair 1/n."""
    fair = 1 / players
    n = len(values)
    if n == 0:
        nan = float("nan")
        return {"share": nan, "low": nan, "high": nan, "n": 0, "edge": nan,
                "edge_low": nan, "edge_high": nan, "p": nan}
    total = float(sum(values))
    share = total / n
    low, high = wilson(total, n, z)
    scale = 1 - fair
    z_stat = (share - fair) / math.sqrt(fair * (1 - fair) / n)
    return {"share": share, "low": low, "high": high, "n": n,
            "edge": (share - fair) / scale, "edge_low": (low - fair) / scale,
            "edge_high": (high - fair) / scale, "p": normal_two_sided_p(z_stat)}


def _cell_source(lineups: dict[str, Any], lone: str, others: str, players: int):
    """The lineup whose games give the cell (lone among others), or None."""
    name = matchup_name(lone, others)
    if name in lineups:
        return name
    reverse = matchup_name(others, lone)
    if players == 2 and reverse in lineups:  # the same games, read from the other seat
        return reverse
    return None


def matchup_cells(records_of: dict[str, list[dict]], tiers: list[str], players: int,
                  z: float) -> list[dict[str, Any]]:
    """Every off-diagonal cell the lineups give, row tier alone among the column tier."""
    cells = []
    for lone in tiers:
        for others in tiers:
            if lone == others:
                continue
            source = _cell_source(records_of, lone, others, players)
            if source is None:
                continue
            cells.append({"lone": lone, "others": others, "lineup": source,
                          **cell(lone_shares(records_of[source], lone), players, z)})
    return cells


def setup_luck(records_of: dict[str, list[dict]], tiers: list[str],
               resamples: int = RESAMPLES) -> dict[str, Any] | None:
    """The luck share of swapping one seat from the weakest tier to the strongest: the
    lone-seat lineup against the weakest everywhere on their common seeds (None where
    either lineup has no games, or there is one tier)."""
    if len(tiers) < 2:
        return None
    base, swapped = tiers[0], matchup_name(tiers[-1], tiers[0])
    if not records_of.get(base) or not records_of.get(swapped):
        return None
    swap = swap_changes(records_of, base, swapped, resamples)
    return swap if swap["pairs"] else None


def _find(cells: list[dict], lone: str, others: str) -> dict | None:
    return next((c for c in cells if c["lone"] == lone and c["others"] == others), None)


# ---------------------------------------------------------------- paired tier differences
def paired_differences(records_of: dict[str, list[dict]], tiers: list[str], seat: int
                       ) -> np.ndarray:
    """Games x (tiers - 1): seat ``seat``'s win share in each tier minus the first tier's,
    over the seeds every tier decided (common random numbers pair the games)."""
    by_seed = []
    for tier in tiers:
        shares = {}
        for record in records_of.get(tier, []):
            s = win_shares(record)
            if s is not None:
                shares[record["seed"]] = s[seat]
        by_seed.append(shares)
    common = sorted(set.intersection(*(set(s) for s in by_seed)))
    base = np.array([by_seed[0][k] for k in common])
    return np.array([[by_seed[t][k] for t in range(1, len(tiers))] for k in common]
                    ).reshape(len(common), len(tiers) - 1) - base[:, None]


def _mean_cov(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean of the rows and its covariance (the rows' covariance over their number)."""
    n, k = diffs.shape
    if n < 2:
        return np.full(k, np.nan), np.full((k, k), np.nan)
    return diffs.mean(axis=0), np.atleast_2d(np.cov(diffs, rowvar=False, ddof=1)) / n


def seat_tests(per_setup: list[dict[str, list[dict]]], setups: list, tiers: list[str],
               players: int, alpha: float, power: float) -> dict[str, Any]:
    """Tier effects on each seat's win share: averaged over setups, against a tier x
    setup interaction, and tier x feature interactions (see the module docstring)."""
    z = z_quantile(1 - alpha / 2)
    k = len(tiers) - 1
    names: list[str] = []
    for s in setups:
        names += [f for f in s.features if f not in names]
    raw = np.array([[s.features.get(f, 0.0) for f in names] for s in setups]).reshape(
        len(setups), len(names))
    centred = raw - raw.mean(axis=0) if names else raw
    design = np.hstack([np.ones((len(setups), 1)), centred])
    kept = estimable_columns(design)  # aliased features dropped, as in the regressions
    dropped = [names[j - 1] for j in range(1, design.shape[1]) if j not in kept]
    seats_tested = range(players - 1 if players == 2 else players)
    mains, omnibus, interactions = [], [], []
    for seat in seats_tested:
        means, covs = [], []
        for records_of in per_setup:
            m, c = _mean_cov(paired_differences(records_of, tiers, seat))
            means.append(m)
            covs.append(c)
        usable = [i for i, m in enumerate(means) if np.isfinite(m).all()]
        if not usable:
            continue
        mean = np.mean([means[i] for i in usable], axis=0)
        cov = sum(covs[i] for i in usable) / len(usable) ** 2
        test = wald(mean, cov)
        detect = (z + z_quantile(power)) * math.sqrt(max(float(np.diag(cov).max()), 0.0))
        mains.append({"seat": seat, "chi2": test.chi2, "df": test.df, "p": test.p,
                      "detectable": detect, "estimates": [
                          {"tier": tiers[t + 1], "diff": float(mean[t]),
                           "low": float(mean[t] - z * math.sqrt(max(cov[t, t], 0.0))),
                           "high": float(mean[t] + z * math.sqrt(max(cov[t, t], 0.0)))}
                          for t in range(k)]})
        if len(usable) < 2:
            continue
        ys = [means[i] for i in usable]
        cs = [covs[i] for i in usable]
        _, _, chi2, df = gls_blocks(ys, cs, [np.eye(k)] * len(usable))
        omnibus.append({"seat": seat, "chi2": chi2, "df": df,
                        "p": _chi2_p(chi2, df)})
        columns = [j for j in kept if j > 0]
        if not columns:
            continue
        xs = [np.kron(design[i, kept][None, :], np.eye(k)) for i in usable]
        beta, beta_cov, _, _ = gls_blocks(ys, cs, xs)
        for position, j in enumerate(kept):
            if j == 0:
                continue
            block = slice(position * k, (position + 1) * k)
            test = wald(beta[block], beta_cov[block, block])
            se = np.sqrt(np.clip(np.diag(beta_cov[block, block]), 0, None))
            interactions.append({
                "seat": seat, "feature": names[j - 1], "chi2": test.chi2, "df": test.df,
                "p": test.p, "estimates": [
                    {"tier": tiers[t + 1], "estimate": float(beta[block][t]),
                     "low": float(beta[block][t] - z * se[t]),
                     "high": float(beta[block][t] + z * se[t])} for t in range(k)]})
    for family in (mains, omnibus, interactions):
        for row, p in zip(family, holm([r["p"] for r in family])):
            row["p_holm"] = p
    return {"main": mains, "omnibus": omnibus, "interactions": interactions,
            "dropped": dropped, "features": names}


def _chi2_p(chi2: float, df: int) -> float:
    return chi2_sf(chi2, df) if df > 0 else float("nan")


# ---------------------------------------------------------------- per group
def _tier_table(analysis: dict, sweep: str, players: int, tiers: list[str],
                alpha: float) -> list[dict[str, Any]]:
    out = []
    for tier in tiers:
        group = next((g for g in analysis["groups"] if g["sweep"] == sweep and
                      g["players"] == players and g.get("lineup_name") == tier), None)
        if group is None:
            continue
        rows = [s for s in analysis["setups"] if s["sweep"] == sweep and
                s["players"] == players and s.get("lineup_name") == tier]
        pooled = group["pooled"]
        out.append({
            "tier": tier, "decided": pooled["decided"], "seats": pooled["seats"],
            "uniformity_p": pooled["uniformity"]["p"], "deviation": pooled["deviation"],
            "setups": len(rows),
            "unfair_setups": sum(r["uniformity"].get("p_holm", 1) < alpha for r in rows),
            "worst_setup": max(rows, key=lambda r: abs(r["deviation"]["value"]))["label"]
            if rows else None,
        })
    return out


def analyze_skill(by_key: dict[tuple[int, str], list[dict]], setups: list,
                  analysis: dict[str, Any], cfg) -> list[dict[str, Any]]:
    """The tier analysis of every sweep and player count that has tiers (JSON-able)."""
    z = z_quantile(1 - cfg.alpha / 2)
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for k, setup in enumerate(setups):
        if setup.tiers:
            groups[(setup.sweep, setup.players)].append(k)
    out = []
    for (sweep, players), ks in groups.items():
        tiers = list(setups[ks[0]].tiers)
        per_setup = [{name: by_key.get((k, name), []) for name, _ in setups[k].lineups}
                     for k in ks]
        group_setups = [setups[k] for k in ks]
        entry: dict[str, Any] = {
            "sweep": sweep, "env": setups[ks[0]].env_id, "players": players, "tiers": tiers,
            "setups": [s.label for s in group_setups],
            "tier_table": _tier_table(analysis, sweep, players, tiers, cfg.alpha),
        }
        if len(tiers) >= 2:
            entry["seat_tests"] = seat_tests(per_setup, group_setups, tiers, players,
                                             cfg.alpha, cfg.power)
        rows = []
        for setup, records_of in zip(group_setups, per_setup):
            cells = matchup_cells(records_of, tiers, players, z)
            strong, weak = tiers[-1], tiers[0]
            depth = _find(cells, strong, weak) if len(tiers) >= 2 else None
            inversions = sum(1 for j, a in enumerate(tiers) for b in tiers[:j]
                             if (c := _find(cells, a, b)) and c["share"] < 1 / players)
            rows.append({"label": setup.label, "cells": cells, "depth": depth,
                         "inversions": inversions, "luck": setup_luck(records_of, tiers),
                         "pairs": sum(1 for j, a in enumerate(tiers) for b in tiers[:j]
                                      if _find(cells, a, b))})
        if any(r["cells"] for r in rows):
            depths = [r["depth"] for r in rows]
            for d, p in zip(depths, holm([d["p"] if d else float("nan") for d in depths])):
                if d:
                    d["p_holm"] = p
            pooled_records = defaultdict(list)
            for records_of in per_setup:
                for name, records in records_of.items():
                    pooled_records[name] += records
            matrix = matchup_cells(pooled_records, tiers, players, z)
            test = homogeneity([d["share"] * d["n"] for d in depths if d],
                               [d["n"] for d in depths if d])
            entry["matchups"] = {
                "strong": tiers[-1], "weak": tiers[0], "matrix": matrix, "per_setup": rows,
                "depth": _find(matrix, tiers[-1], tiers[0]),
                "luck": setup_luck(pooled_records, tiers),
                "homogeneity": {"chi2": test.chi2, "df": test.df, "p": test.p},
            }
        out.append(entry)
    return out


# ---------------------------------------------------------------- tidy tables
MATCHUP_COLUMNS = ["sweep", "setup", "env", "players", "lone", "others", "lineup", "share",
                   "low", "high", "n", "edge", "edge_low", "edge_high", "p"]
LUCK_COLUMNS = ["sweep", "setup", "env", "players", "base", "swapped", "pairs", "changed",
                "independent", "luck_share", "luck_low", "luck_high", "gained", "lost"]


def _tidy_rows(skill: list[dict[str, Any]], columns: list[str], blocks) -> list[dict[str, Any]]:
    """One row per item of ``blocks(matchups)``, ``(setup label, items)`` for each group
    with matchups: the group's sweep, env and player count, then ``columns[4:]`` of the
    item."""
    out = []
    for g in skill:
        m = g.get("matchups")
        if not m:
            continue
        for label, items in blocks(m):
            for item in items:
                out.append({"sweep": g["sweep"], "setup": label, "env": g["env"],
                            "players": g["players"], **{k: item[k] for k in columns[4:]}})
    return out


def matchup_rows(skill: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (setup or pooled, matchup cell): the matchup matrix as a table."""
    return _tidy_rows(skill, MATCHUP_COLUMNS, lambda m: [
        (r["label"], r["cells"]) for r in m["per_setup"]] + [("all setups", m["matrix"])])


def luck_rows(skill: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per setup (and ``all setups``) with a luck share: the luck table."""
    def present(luck):
        return [luck] if luck else []

    return _tidy_rows(skill, LUCK_COLUMNS, lambda m: [
        (r["label"], present(r.get("luck"))) for r in m["per_setup"]] + [
        ("all setups", present(m.get("luck")))])
