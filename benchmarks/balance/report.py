"""The balance run folder's outputs: ``summary.json``, ``results.csv``, ``effects.csv``,
``report.md`` (tables and plain verdicts) and PNG plots (matplotlib, Agg backend)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from otrio.arena.games import verification_text
from otrio.arena.outputs import pyplot
from otrio.envs.core.files import save_figure, write_text_atomic

from .skill import LUCK_COLUMNS, MATCHUP_COLUMNS, luck_rows, matchup_rows
from .skill_report import group_tag, skill_plots, skill_sections
from .stats import holm
from .summary import (
    EFFECT_COLUMNS,
    EXPECTED_SUMMARY,
    METRIC_TEXT,
    POOLED_LABEL,
    RESULT_COLUMNS,
    TABLE,
    effect_rows,
    tidy_rows,
)

PCT = 100  # shares are shown in percentage points
RANKED_SETUPS = 10  # rows of the imbalance ranking
LISTED_VERDICTS = 12  # setup verdicts listed before "and K more"
PLOT_DPI = 100


def wall_time_text(games: int, timing: list[dict[str, Any]],
                   play_seconds: float | None = None) -> str:
    """The report's wall-time sentence of a run of ``games`` games: ``play_seconds``, the
    games' own wall times summed (every record keeps its own, so this counts every game,
    even those of a session that was killed; on several workers the clock ran shorter),
    and the clock time of each session that ran to its end (``timing``: one line each)."""
    sessions = "; ".join(f"{t['games']} games in {t['seconds']:.0f} s ({t['workers']} "
                         f"worker(s), {t['backend']})" for t in timing)
    timed = sum(t["games"] for t in timing)
    if play_seconds is None:
        return f"Wall time: {sessions or 'not recorded'}."
    shown = f"{play_seconds:.1f}" if play_seconds < 10 else f"{play_seconds:.0f}"
    text = (f"Time: {games} games took {shown} s of play (each game's own wall "
            "time, summed; on several workers the clock ran shorter)")
    if sessions:
        text += f"; clock time of the sessions that ran to their end: {sessions}"
    if timed < games:
        text += (f"; {games - timed} games were played by sessions stopped before they "
                 "timed themselves, so only their play time is known")
    return text + "."


def _pt(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x * PCT:.1f}"


def _num(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    if x is None or math.isnan(x):
        return "n/a"
    return f"{x:.2g}" if x >= 1e-4 else "<1e-4"


def _peq(x: float) -> str:
    text = _p(x)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def _seat(seat) -> str:
    return "the table" if seat == TABLE else f"seat {seat}" + (" (first player)" if seat == 0 else "")


def _lineup(item: dict[str, Any]) -> str:
    """", lineup `NAME`" for a setup or group of a named lineup (tiers), else nothing."""
    return f", lineup `{item['lineup_name']}`" if "lineup_name" in item else ""


def setup_verdict(s: dict[str, Any]) -> str:
    """One sentence on a setup's seat balance."""
    dev, fair = s["deviation"], 1 / s["players"]
    side = "advantage" if dev["value"] >= 0 else "disadvantage"
    head = (f"setup `{s['label']}` ({s['sweep']}, {s['players']} players{_lineup(s)}) gives "
            f"{_seat(dev['seat'])} a {_pt(dev['value'])} ± {_pt(dev['ci'])} point {side} "
            f"(win share {_pt(s['seats'][dev['seat']]['share'])}% vs fair {_pt(fair)}%")
    return head + f"; Holm-adjusted {_peq(s['uniformity']['p_holm'])})"


def _feature_text(name: str) -> str:
    if "=" in name:
        factor, level = name.split("=", 1)
        return f"`{factor}` = {level} (vs the first level)"
    if "[" in name:
        item = name.split("[", 1)[1].rstrip("]")
        return f"`{name}` +1 (item {item} one position later)"
    return f"`{name}` +1"


def group_verdicts(g: dict[str, Any], alpha: float) -> list[str]:
    """Pooled seat balance and the significant feature effects of one group."""
    pooled, n = g["pooled"], g["players"]
    dev = pooled["deviation"]
    k = len(g["setups"])
    scope = f"{k} setups, {pooled['decided']} decided games): pooled over setups, " if k > 1 \
        else f"{pooled['decided']} decided games): "
    lines = [
        f"**{g['sweep']}, {n} players{_lineup(g)}** ({scope}{_seat(dev['seat'])} is "
        f"{_pt(dev['value'])} ± "
        f"{_pt(dev['ci'])} points from the fair {_pt(1 / n)}% (uniformity test "
        f"{_peq(pooled['uniformity']['p'])})"
        + ("." if dev["seat"] == 0 else
           f"; seat 0 (first player): {_pt(pooled['seats'][0]['share'] - 1 / n)} ± "
           f"{_pt(pooled['seats'][0]['ci'])}.")
    ]
    effects = seat_effects(g["regression"]["effects"], n)
    adjusted = holm([e["p"] for e in effects])
    found = [(e, p) for e, p in zip(effects, adjusted) if p < alpha]
    for e, p in found:
        lines.append(f"{_feature_text(e['feature'])} moves {_seat(e['seat'])}'s win share by "
                     f"{_pt(e['estimate'])} ± {_pt(e['high'] - e['estimate'])} points "
                     f"(Holm-adjusted {_peq(p)}).")
    if effects and not found:
        biggest = max(effects, key=lambda e: abs(e["estimate"]))
        lines.append(f"No setup feature moves a seat's win share detectably (Holm over "
                     f"{len(effects)} effects); the largest estimate is {_pt(biggest['estimate'])}"
                     f" ± {_pt(biggest['high'] - biggest['estimate'])} points "
                     f"({biggest['feature']}, {_seat(biggest['seat'])}).")
    table = [e for e in g["regression"]["effects"] if e["outcome"] == "score" and e["seat"] == TABLE
             and e["p"] < alpha / max(1, len(g["regression"]["features"]))]
    for e in table:
        lines.append(f"{_feature_text(e['feature'])} changes the mean score by "
                     f"{_num(e['estimate'])} ± {_num(e['high'] - e['estimate'])} points "
                     "(Bonferroni over the features).")
    return lines


def seat_effects(effects: list[dict], players: int) -> list[dict]:
    """The setup effects on a seat's win share that one Holm family tests (at 2 players
    seat 1 mirrors seat 0, so it is left out)."""
    return [e for e in effects if e["outcome"] == "win_share"
            and not (players == 2 and int(e["seat"]) == players - 1)]


def findings(analysis: dict[str, Any]) -> list[str]:
    """The report's plain verdicts, as markdown bullets."""
    alpha = analysis["alpha"]
    lines = []
    for g in analysis["groups"]:
        lines += [f"- {text}" for text in group_verdicts(g, alpha)]
    unfair = sorted((s for s in analysis["setups"] if s["uniformity"].get("p_holm", 1) < alpha),
                    key=lambda s: -abs(s["deviation"]["value"]))
    for s in unfair[:LISTED_VERDICTS]:
        lines.append(f"- {setup_verdict(s)}.")
    if len(unfair) > LISTED_VERDICTS:
        lines.append(f"- … and {len(unfair) - LISTED_VERDICTS} more setups with a seat imbalance "
                     "(see the ranking).")
    if not unfair:
        lines.append(f"- No single setup departs from equal seat shares at the Holm-adjusted "
                     f"{alpha:g} level.")
    return lines


def glance_table(analysis: dict[str, Any]) -> list[str]:
    """Pooled win share of every seat, one row per sweep and player count."""
    width = max(g["players"] for g in analysis["groups"])
    lines = ["| sweep | players | decided games | " + " | ".join(
        f"seat {k} %" for k in range(width)) + " | uniformity p |", "|---" * (4 + width) + "|"]
    for g in analysis["groups"]:
        pooled = g["pooled"]
        cells = [f"{_pt(c['share'])} [{_pt(c['low'])}, {_pt(c['high'])}]" for c in pooled["seats"]]
        cells += [""] * (width - len(cells))
        lines.append(f"| {g['sweep'] + _lineup(g)} | {g['players']} | {pooled['decided']} | "
                     + " | ".join(cells) + f" | {_p(pooled['uniformity']['p'])} |")
    return lines + [""]


def _power_section(analysis: dict[str, Any]) -> list[str]:
    target, alpha, power = analysis["target"], analysis["alpha"], analysis["power"]
    lines = [
        "## Power",
        "",
        f"Target: a seat {_pt(target)} points above its fair share 1/n (the other seats "
        f"sharing the loss), two-sided level {alpha:g}, power {power:g}. The seat-uniformity "
        "chi-square statistic is then asymptotically noncentral chi-square with n - 1 degrees "
        "of freedom and noncentrality λ = G · n · Σ (p_s - 1/n)² for G games; the tables below "
        f"solve for G or for the advantage. Per setup, the level is {alpha:g} divided by the "
        "number of setups in the sweep (Bonferroni, the first and strictest step of Holm). "
        "Shared victories make the test conservative, so real power is a little lower. A "
        "feature's detectable effect is (z(1-α/2) + z(power)) · SE, with SE from the design "
        "(setups × games per setup) and a fair seat's win variance (1/n)(1 - 1/n).",
        "",
        "| sweep | players | setups | games/setup | level per setup | detectable per setup "
        "| games/setup for target | detectable pooled | detectable per feature (points) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for g in analysis["groups"]:
        pw = g["power"]
        feats = pw["detectable_per_feature"]
        feat_text = ", ".join(f"{k}: {_pt(v)}" for k, v in feats.items()) if feats else "n/a"
        lines.append(
            f"| {g['sweep'] + _lineup(g)} | {g['players']} | {pw['setups']} | {pw['games_per_setup']} | "
            f"{pw['alpha_per_setup']:.2g} | {_pt(pw['detectable_per_setup'])} "
            f"({_pt(pw['detectable_per_setup_unadjusted'])} unadjusted) | "
            f"{pw['games_needed_per_setup']} | {_pt(pw['detectable_pooled'])} | {feat_text} |")
    return lines + [""]


def _setup_table(rows: list[dict[str, Any]], n: int) -> list[str]:
    seats = " | ".join(f"seat {k} % [95% CI]" for k in range(n))
    lines = [f"| setup | games | {seats} | χ² p | Holm p | score mean (sd) | margin | length |",
             "|---" * (7 + n) + "|"]
    for s in rows:
        cells = " | ".join(f"{_pt(c['share'])} [{_pt(c['low'])}, {_pt(c['high'])}]"
                           for c in s["seats"])
        lines.append(
            f"| {s['label']} | {s['decided']}/{s['games']} | {cells} | {_p(s['uniformity']['p'])}"
            f" | {_p(s['uniformity']['p_holm'])} | {_num(s['score']['mean'], 1)} "
            f"({_num(s['score']['sd'], 1)}) | {_num(s['margin']['mean'], 1)} | "
            f"{_num(s['length']['mean'], 0)} |")
    return lines


def _effects_table(g: dict[str, Any]) -> list[str]:
    reg = g["regression"]
    if not reg["effects"]:
        return ["No regression: the group has one setup or no varying feature.", ""]
    lines = ["| outcome | seat | feature | effect ± 95% half-width | p |", "|---|---|---|---|---|"]
    for e in reg["effects"]:
        scale = PCT if e["outcome"] == "win_share" else 1
        unit = " pts" if e["outcome"] == "win_share" else ""
        lines.append(f"| {e['outcome']} | {e['seat']} | {e['feature']} | "
                     f"{e['estimate'] * scale:+.2f} ± {(e['high'] - e['estimate']) * scale:.2f}"
                     f"{unit} | {_p(e['p'])} |")
    if reg["dropped"]:
        lines.append(f"\nNot estimable in this design (aliased with earlier features): "
                     f"{', '.join(reg['dropped'])}.")
    return lines + [""]


def _metric_tables(rows: list[dict[str, Any]], n: int) -> list[str]:
    metrics = [m for m in rows[0]["metrics"]] if rows else []
    game = rows[0]["env"].rsplit("_v", 1)[0] if rows else ""
    if not metrics:
        if game in EXPECTED_SUMMARY:
            return [f"No game-specific measures: the {game} records carry no "
                    f"{EXPECTED_SUMMARY[game]} in their summary.", ""]
        return []
    lines = ["### Game-specific measures (mean per game)", ""]
    if any(m.startswith("sponsor") for m in metrics):
        return lines + _sponsor_tables(rows)
    head = " | ".join(f"{METRIC_TEXT.get(m, m)}, seat {k}" for m in metrics for k in range(n))
    lines += [f"| setup | {head} |", "|---" * (1 + len(metrics) * n) + "|"]
    for s in rows:
        cells = " | ".join(_num(v) for m in metrics for v in s["metrics"][m])
        lines.append(f"| {s['label']} | {cells} |")
    return lines + [""]


def _sponsor_tables(rows: list[dict[str, Any]]) -> list[str]:
    """Otys: uses of each sponsor tile per game, and what one use yields by tile and side.

    The yields are summed over the setups of ``rows`` (not its pooled row); a tile's
    side is constant within a setup.
    """
    tiles = sorted({m.split("_")[0] for m in rows[0]["metrics"] if m.count("_") == 1})
    lines = ["Sponsor tile uses per game (all seats):", "",
             "| setup | " + " | ".join(f"tile #{t[-1]}" for t in tiles) + " |",
             "|---" * (1 + len(tiles)) + "|"]
    for s in rows:
        lines.append(f"| {s['label']} | " + " | ".join(
            _num(sum(s["metrics"][f"{t}_uses"])) for t in tiles) + " |")
    totals: dict[str, float] = {}  # "sponsorK_SIDE_uses" / "..._yield_KIND" -> sum over setups
    for s in (r for r in rows if r["label"] != POOLED_LABEL):
        for key, per_seat in s["metrics"].items():
            if key.count("_") >= 2:
                totals[key] = totals.get(key, 0.0) + sum(per_seat) * s["games"]
    units = sorted(k.removesuffix("_uses") for k in totals if k.endswith("_uses"))
    kinds = sorted({k.split("_yield_")[1] for k in totals if "_yield_" in k})
    kinds = [k for k in kinds if any(v for key, v in totals.items() if key.endswith(f"_{k}"))]
    lines += ["", "What one use yields, by tile and side (over all games of these setups):", "",
              "| tile | side | uses | " + " | ".join(f"{k} per use" for k in kinds) + " |",
              "|---" * (3 + len(kinds)) + "|"]
    for unit in units:
        tile, side = unit.split("_", 1)
        used = totals[f"{unit}_uses"]
        cells = [_num(totals.get(f"{unit}_yield_{k}", 0.0) / used) if used else "n/a" for k in kinds]
        lines.append(f"| #{tile[-1]} | {side} | {used:.0f} | " + " | ".join(cells) + " |")
    return lines + [""]


def _group_section(g: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    n = g["players"]
    lines = [f"## Sweep `{g['sweep']}`: {g['env']}, {n} players{_lineup(g)}", "",
             f"Lineup, rotated through the seats: {', '.join(rows[0]['lineup'])}. Win shares in "
             "percent with 95% Wilson intervals; χ² tests equal shares by seat.", ""]
    lines += _setup_table(rows, n) + [""]
    if len(rows) > 1:
        ranked = sorted(rows, key=lambda s: -abs(s["deviation"]["value"]))[:RANKED_SETUPS]
        lines += ["### Setups ranked by imbalance (largest seat deviation from 1/n)", "",
                  "| rank | setup | seat | deviation (points ± 95%) | Holm p |",
                  "|---|---|---|---|---|"]
        for k, s in enumerate(ranked, 1):
            d = s["deviation"]
            lines.append(f"| {k} | {s['label']} | {d['seat']} | {_pt(d['value'])} ± "
                         f"{_pt(d['ci'])} | {_p(s['uniformity']['p_holm'])} |")
        lines += ["", "### Effects of the setup features (OLS, HC3 errors)", "",
                  "Win-share effects in percentage points per unit of the feature; score "
                  "effects in game points.", ""]
        lines += _effects_table(g)
    if len({a["agent"] for s in rows for a in s["agents"]}) > 1:
        lines += ["### Win share by agent", "", "| setup | " + " | ".join(
            a["agent"] for a in rows[0]["agents"]) + " |", "|---" * (1 + len(rows[0]["agents"])) + "|"]
        for s in rows:
            lines.append(f"| {s['label']} | " + " | ".join(
                f"{_pt(a['share'])} [{_pt(a['low'])}, {_pt(a['high'])}]" for a in s["agents"]) + " |")
        lines.append("")
    lines += _metric_tables(rows + ([g["pooled"]] if len(rows) > 1 else []), n)
    lines += [f"![effects](effects_{group_tag(g)}.png)", ""] if g["regression"]["effects"] else []
    return lines


def write_balance_report(folder: Path, cfg, setups: list, analysis: dict[str, Any],
                         timing: list[dict[str, Any]], command: str | None = None,
                         play_seconds: float | None = None, verification=None) -> None:
    """Write every output of a balance run into ``folder``: ``timing``, the clock time
    of each session that ran to its end, ``play_seconds``, the games' own wall times
    summed (:func:`wall_time_text`), and ``verification``, what this
    start re-played of the records already there."""
    write_text_atomic(folder / "summary.json", json.dumps(analysis, indent=1, sort_keys=True) + "\n")
    tagged = any("lineup_name" in s for s in analysis["setups"])  # named lineups (tiers)
    _write_csv(folder / "results.csv", RESULT_COLUMNS + ["lineup"] * tagged, tidy_rows(analysis))
    _write_csv(folder / "effects.csv", EFFECT_COLUMNS + ["lineup"] * tagged, effect_rows(analysis))
    if analysis.get("skill"):
        _write_csv(folder / "matchups.csv", MATCHUP_COLUMNS, matchup_rows(analysis["skill"]))
        luck = luck_rows(analysis["skill"])
        if luck:
            _write_csv(folder / "luck.csv", LUCK_COLUMNS, luck)
    total = sum(s["games"] for s in analysis["setups"])
    agents_used = sorted({name for s in setups for _, seats in s.lineups or ((None, s.lineup),)
                          for name in seats})
    lines = [
        f"# Balance study: {', '.join(cfg.sweeps[k].name for k in range(len(cfg.sweeps)))}",
        "",
        "Agents: " + ", ".join(f"`{n}` = `{cfg.agents[n]}`" for n in agents_used) + ". "
        "**Every conclusion below holds for these agents**: stronger or different play may "
        "see a different balance.",
        "",
        f"{total} games over {len(setups)} setups, seats rotated through the lineup, master "
        f"seed {cfg.seed}. " + wall_time_text(total, timing, play_seconds),
        "",
        f"Reproduce: `{command}`" if command else "",
        "",
        verification_text(verification),
        "",
        "Win share: 1 for a sole winner, 1/k for each of k seats sharing the victory, so the "
        f"fair share at n players is 1/n. Intervals are {1 - cfg.alpha:.0%}; Holm's "
        "correction runs over the setups of a sweep; the regressions (linear probability "
        "model, OLS with HC3 errors) pool a sweep's setups with equal player count. Seat 0 "
        "plays first.",
        "",
        "## Findings",
        "",
        *findings(analysis),
        "",
        "Win share of each seat pooled over the setups of a sweep (95% intervals):",
        "",
        *glance_table(analysis),
        *_power_section(analysis),
        *skill_sections(analysis),
    ]
    for sweep in cfg.sweeps:
        factors = sweep.factors
        if len(factors) > 1:
            lines += [f"Sweep `{sweep.name}` setup labels list: "
                      + ", ".join(f"`{f.name}`" for f in factors) + ".", ""]
        if not any(g["sweep"] == sweep.name for g in analysis.get("skill", [])):
            lines += [f"![heatmap](heatmap_{sweep.name}.png)", ""]
    for g in analysis["groups"]:
        rows = [s for s in analysis["setups"] if s["sweep"] == g["sweep"] and
                s["players"] == g["players"] and s.get("lineup_name") == g.get("lineup_name")]
        lines += _group_section(g, rows)
    write_text_atomic(folder / "report.md", "\n".join(lines))
    _plots(folder, analysis)
    skill_plots(folder, analysis)


def _write_csv(path: Path, columns: list[str], rows: list[dict[str, Any]]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
    write_text_atomic(path, text.getvalue(), newline="")


def _plots(folder: Path, analysis: dict[str, Any]) -> None:
    plt = pyplot()

    sweeps: dict[str, list] = {}
    tiered = {g["sweep"] for g in analysis.get("skill", [])}  # skill_plots draws those
    for s in analysis["setups"]:
        if s["sweep"] not in tiered:
            sweeps.setdefault(s["sweep"], []).append(s)
    for sweep, rows in sweeps.items():
        width = max(s["players"] for s in rows)
        grid = np.full((len(rows), width), np.nan)
        for i, s in enumerate(rows):
            for c in s["seats"]:
                grid[i, c["seat"]] = (c["share"] - 1 / s["players"]) * PCT
        limit = max(1.0, float(np.nanmax(np.abs(grid)))) if np.isfinite(grid).any() else 1.0
        fig, ax = plt.subplots(figsize=(2 + 1.1 * width, 1.5 + 0.24 * len(rows)))
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
        for i, s in enumerate(rows):
            for c in s["seats"]:
                ax.text(c["seat"], i, f"{c['share'] * PCT:.0f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(width), [f"seat {k}" for k in range(width)])
        ax.set_yticks(range(len(rows)), [s["label"] + _lineup(s) for s in rows], fontsize=7)
        ax.set_title(f"{sweep}: win share % (colour: points above fair share)")
        fig.colorbar(image, ax=ax, label="points above 1/n")
        fig.tight_layout()
        try:
            save_figure(fig, folder / f"heatmap_{sweep}.png", dpi=PLOT_DPI)
        finally:
            plt.close(fig)
    for g in analysis["groups"]:
        effects = [e for e in g["regression"]["effects"] if e["outcome"] == "win_share"]
        if not effects:
            continue
        features = list(dict.fromkeys(e["feature"] for e in effects))
        n = g["players"]
        fig, ax = plt.subplots(figsize=(6.5, 1.5 + 0.45 * len(features)))
        for seat in range(n):
            mine = [e for e in effects if e["seat"] == seat]
            ys = [features.index(e["feature"]) + (seat - (n - 1) / 2) * 0.8 / n for e in mine]
            xs = [e["estimate"] * PCT for e in mine]
            err = [(e["high"] - e["estimate"]) * PCT for e in mine]
            ax.errorbar(xs, ys, xerr=err, fmt="o", capsize=3, label=f"seat {seat}")
        ax.axvline(0, color="grey", linestyle="--")
        ax.invert_yaxis()  # first feature, and seat 0 within it, on top
        ax.set_yticks(range(len(features)), features, fontsize=8)
        ax.set_xlabel("effect on win share (points per unit, 95% CI)")
        ax.set_title(f"{g['sweep']}, {n} players{_lineup(g).replace('`', '')}: feature effects")
        ax.legend(fontsize=7)
        fig.tight_layout()
        try:
            save_figure(fig, folder / f"effects_{group_tag(g)}.png", dpi=PLOT_DPI)
        finally:
            plt.close(fig)
