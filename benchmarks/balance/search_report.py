"""A setup search's outputs: ``report.md`` (the verdict, the pre-registered test, the
search and its finalists), ``trace.csv``, ``summary.json`` (everything the report
shows) and the plots (the
optimiser's trace, the confirmed winner against the default), written to temporary
files and renamed into place."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from otrio.arena.games import verification_text
from otrio.arena.outputs import pyplot
from otrio.envs.core.files import write_atomic

from .report import wall_time_text
from .skill_report import save_figure

PCT = 100
LISTED = 10  # rows of the ranking and of the best trials


def _num(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _pt(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x * PCT:.1f}"


def _p(x: float) -> str:
    return f"{x:.2g}" if x >= 1e-4 else "<1e-4"


TRACE_COLUMNS = ["trial", "setup", "value", "deviation", "edge", "best_so_far"]


def trace_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per trial: its setup, objective and parts, and the best value so far."""
    best = math.inf
    out = []
    for t in sorted(result["trials"], key=lambda t: t["trial"]):
        best = min(best, t["value"])
        out.append({"trial": t["trial"], "setup": t["setup"], "value": t["value"],
                    "deviation": t["deviation"], "edge": t.get("edge", ""),
                    "best_so_far": best})
    return out


def _objective_text(cfg) -> str:
    o = cfg.search.objective
    text = (f"100 · max(0, largest |seat share − 1/n| over the judged lineups − "
            f"{o.seat_tolerance * PCT:g} points)")
    if o.depth_weight > 0:
        text += f" − {o.depth_weight:g} · 100 · skill-depth edge"
    return text


def _verdict(c: dict[str, Any], cfg) -> str:
    w, d = c["candidates"]["winner"], c["candidates"]["default"]
    head = (f"the search's winner `{w['label']}` has an objective of "
            f"{_num(w['objective']['value'])} [{_num(w['objective_low'])}, "
            f"{_num(w['objective_high'])}] against {_num(d['objective']['value'])} "
            f"[{_num(d['objective_low'])}, {_num(d['objective_high'])}] for the default "
            f"`{d['label']}` on {c['resamples']}-resample paired bootstrap intervals; the "
            f"difference is {_num(c['difference'])} [{_num(c['difference_low'])}, "
            f"{_num(c['difference_high'])}], one-sided upper {1 - cfg.alpha:g} bound "
            f"{_num(c['upper_bound'])} (bootstrap p = {_p(c['p'])})")
    if c["same_setup"]:
        return "**The search's winner is the default setup**: " + head + "."
    if c["confirmed"]:
        return "**Confirmed on fresh seeds**: " + head + "."
    return ("**Not confirmed**: " + head + ", so the fresh games do not show the winner "
            "closer to the target than the default.")


def _candidate_table(c: dict[str, Any], players: int) -> list[str]:
    lines = ["| setup | lineup | decided | " + " | ".join(f"seat {k} % [95% CI]" for k in
                                                        range(players))
             + " | largest deviation (points) | uniformity p |",
             "|---" * (5 + players) + "|"]
    for role in ("winner", "default"):
        cand = c["candidates"][role]
        for lineup in cand["lineups"]:
            if "depth" in lineup:
                d = lineup["depth"]
                cells = [f"{role} `{cand['label']}`", f"{lineup['lineup']} (the lone seat)",
                         str(d["n"]), f"{_pt(d['share'])} [{_pt(d['low'])}, {_pt(d['high'])}] "
                         f"(edge {_num(d['edge'])})"] + [""] * (players + 1)
                lines.append("| " + " | ".join(cells) + " |")
                continue
            cells = " | ".join(f"{_pt(s['share'])} [{_pt(s['low'])}, {_pt(s['high'])}]"
                               for s in lineup["seats"])
            lines.append(f"| {role} `{cand['label']}` | {lineup['lineup']} | {lineup['decided']} "
                         f"| {cells} | {_pt(lineup['deviation'])} | {_p(lineup['uniformity_p'])} |")
    return lines


def write_search_report(folder: Path, cfg, result: dict[str, Any], timing: list[dict],
                        command: str | None = None, play_seconds: float | None = None,
                        verification=None) -> None:
    """Every output of a search run into ``folder`` (``timing``, ``play_seconds`` and
    ``verification`` as :func:`otrio.benchmarks.balance.report.write_balance_report` takes them)."""
    plan, c = result["plan"], result["confirm"]
    spec = cfg.search
    write_atomic(folder / "summary.json", (json.dumps(result, indent=1, sort_keys=True)
                                           + "\n").encode())
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=TRACE_COLUMNS)
    writer.writeheader()
    for row in trace_rows(result):
        writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
    write_atomic(folder / "trace.csv", buffer.getvalue().encode())
    space = ", ".join(f"`{f['name']}` ({f['levels']})" for f in plan["space"])
    agents_used = ", ".join(f"`{n}` = `{s}`" for n, s in sorted(plan["agents"].items()))
    games = (plan["trials"] * plan["games_per_trial"] + plan["finalists"] * plan["final_games"]
             + 2 * plan["confirm_games"]) * len(plan["lineups"])
    lines = [
        f"# Setup search: {plan['env']}, {plan['players']} players",
        "",
        f"Agents: {agents_used}. Judged lineups (seats rotated): "
        + ", ".join(f"`{n}` ({', '.join(plan['seats'][n])})" for n in plan["judged"])
        + (f"; skill depth from `{plan['depth']}`" if plan["depth"] else "")
        + ". **Every conclusion holds for these agents.**",
        "",
        f"Target (objective, lower is better, in points): {_objective_text(cfg)}.",
        "",
        f"Space: {space}: {plan['size']} setups. Optimiser `{plan['optimizer']}` (seeded), "
        f"{plan['trials']} trials of {plan['games_per_trial']} games per lineup, "
        f"{plan['batch']} proposed at a time; {plan['finalists']} finalists re-played on "
        f"{plan['final_games']} new games each; confirmation: {plan['confirm_games']} games "
        f"per lineup for the winner and the default, on seeds no earlier game used. {games} "
        "games in all. " + wall_time_text(games, timing, play_seconds),
        "",
        f"Reproduce: `{command}`" if command else "",
        "",
        verification_text(verification),
        "",
        "## Verdict",
        "",
        _verdict(c, cfg),
        "",
        f"Winner: `{result['winner']['label']}`, game config "
        f"`{json.dumps(result['winner']['config'], sort_keys=True)}`.",
        "",
        "## Pre-registered confirmation",
        "",
        f"Registered in `preregistration.json` before any confirmation game: hypothesis "
        f"\"{result['preregistration']['hypothesis']}\"; test: "
        f"{result['preregistration']['test']}; {result['preregistration']['decision']}, at "
        f"level {cfg.alpha:g}. Seeds: {result['preregistration']['seeds']}.",
        "",
        *_candidate_table(c, plan["players"]),
        "",
        "![winner against the default](confirm.png)",
        "",
        "## Search",
        "",
        "The optimiser's trace (each trial's objective on its own games, and the best so "
        "far). A trial's value is noisy and the best of many is biased low: the finalists "
        "and the confirmation are played on new games for that reason.",
        "",
        "![trace](trace.png)",
        "",
        f"Best-ranked setups ({'tuple means of the N-tuple model' if plan['optimizer'] == 'ntbea' else 'mean objective over their trials'}): "
        + ", ".join(f"`{label}`" for label in result["ranking"]) + ".",
        "",
    ]
    if result["finalists"]:
        lines += ["| finalist | setup | objective | largest seat deviation (points) |"
                  + (" depth edge |" if plan["depth"] else ""),
                  "|---|---|---|---|" + ("---|" if plan["depth"] else "")]
        for f in result["finalists"]:
            lines.append(f"| {f['finalist']} | `{f['setup']}` | {_num(f['value'])} | "
                         f"{_pt(f['deviation'])} |"
                         + (f" {_num(f.get('edge'))} |" if plan["depth"] else ""))
        lines.append("")
    best = sorted(result["trials"], key=lambda t: (t["value"], t["trial"]))[:LISTED]
    lines += ["Best trials:", "", "| trial | setup | objective | largest seat deviation (points) |",
              "|---|---|---|---|"]
    for t in best:
        lines.append(f"| {t['trial']} | `{t['setup']}` | {_num(t['value'])} | "
                     f"{_pt(t['deviation'])} |")
    lines.append("")
    write_atomic(folder / "report.md", "\n".join(lines).encode())
    _plots(folder, result, spec)


def _plots(folder: Path, result: dict[str, Any], spec) -> None:
    plt = pyplot()

    rows = trace_rows(result)
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    ax.scatter([r["trial"] for r in rows], [r["value"] for r in rows], s=12, label="trial")
    ax.step([r["trial"] for r in rows], [r["best_so_far"] for r in rows], where="post",
            color="black", label="best so far")
    c = result["confirm"]
    for role, colour in (("winner", "tab:green"), ("default", "tab:red")):
        value = c["candidates"][role]["objective"]["value"]
        ax.axhline(value, color=colour, linestyle="--",
                   label=f"{role} on the confirmation games ({value:.2f})")
    ax.set_xlabel("trial")
    ax.set_ylabel("objective (points, lower is better)")
    ax.set_title(f"search trace ({result['plan']['optimizer']})", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, folder / "trace.png")
    plt.close(fig)
    n = result["plan"]["players"]
    judged = [lineup for lineup in c["candidates"]["winner"]["lineups"] if "seats" in lineup]
    fig, axes = plt.subplots(1, len(judged), figsize=(3.2 * len(judged) + 1, 3), squeeze=False)
    for ax, lineup in zip(axes[0], judged):
        for k, role in enumerate(("winner", "default")):
            cand = c["candidates"][role]
            mine = next(x for x in cand["lineups"] if x["lineup"] == lineup["lineup"])
            xs = [s["seat"] + (k - 0.5) * 0.3 for s in mine["seats"]]
            ys = [s["share"] * PCT for s in mine["seats"]]
            err = [[(s["share"] - s["low"]) * PCT for s in mine["seats"]],
                   [(s["high"] - s["share"]) * PCT for s in mine["seats"]]]
            ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=3, label=f"{role} `{cand['label']}`")
        fair = 100 / n
        tol = spec.objective.seat_tolerance * PCT
        ax.axhspan(fair - tol, fair + tol, color="grey", alpha=0.2)
        ax.axhline(fair, color="grey", linestyle="--")
        ax.set_xticks(range(n), [f"seat {k}" for k in range(n)], fontsize=7)
        ax.set_ylabel("win share % (95% CI)")
        ax.set_title(lineup["lineup"], fontsize=8)
        ax.legend(fontsize=6)
    fig.suptitle("confirmation: the winner against the default (band: the target)", fontsize=9)
    fig.tight_layout()
    save_figure(fig, folder / "confirm.png")
    plt.close(fig)
