"""Markdown reports and PNG plots for tournaments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otrio.arena.games import verification_text
from otrio.arena.outputs import pyplot
from otrio.envs.core.files import save_figure, write_text_atomic


def leaderboard_markdown(summary: dict[str, Any]) -> str:
    """The leaderboard as a markdown table."""
    rows = [
        "| agent | seats played | win rate (95% CI) | mean score | mean rank | OpenSkill mu ± sigma |",
        "|---|---|---|---|---|---|",
    ]
    for r in summary["leaderboard"]:
        rows.append(
            f"| {r['agent']} | {r['entries']} | {r['win_rate']:.3f} "
            f"[{r['win_low']:.3f}, {r['win_high']:.3f}] | {r['mean_score']:.2f} ± "
            f"{r['score_ci']:.2f} | {r['mean_rank']:.2f} | {r['mu']:.2f} ± {r['sigma']:.2f} |"
        )
    return "\n".join(rows)


def write_tournament_report(folder: Path, cfg, summary: dict[str, Any],
                            command: str | None = None, verification=None) -> None:
    """``summary.json``, ``report.md`` and the plots in the run folder; ``verification``
    (:class:`otrio.arena.records.Verification`): what this start re-played of the records
    already there, said in the report."""
    write_text_atomic(folder / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    n = summary["num_players"]
    played = f"lineups {cfg.lineups}" if cfg.lineups else f"lineup {cfg.lineup}"
    lines = [
        f"# Tournament: {cfg.game} ({n} players)",
        "",
        f"{summary['games']} games, {played} rotated over every seat, "
        f"{cfg.games_per_seating} games per seating, master seed {cfg.seed}. "
        f"Mean game length {summary['mean_decisions']:.1f} decisions; "
        f"{summary['truncated']} truncated.",
        "",
        "Agents: " + ", ".join(f"`{name}` = `{spec}`" for name, spec in sorted(cfg.agents.items())),
        "",
        f"Reproduce: `{command}`" if command else "",
        "",
        verification_text(verification),
        "",
        "## Leaderboard",
        "",
        leaderboard_markdown(summary),
        "",
        f"Fair share of wins at {n} players: {1 / n:.3f} (shared victories count for each winner).",
        "",
        "## Win rate by seat",
        "",
        "| seat | games | win rate (95% CI) |",
        "|---|---|---|",
    ]
    for s in summary["seats"]:
        lines.append(f"| {s['seat']} | {s['games']} | {s['win_rate']:.3f} [{s['win_low']:.3f}, {s['win_high']:.3f}] |")
    lines += ["", "## Win rate by agent and seat", "", "| agent@seat | win rate |", "|---|---|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in summary["agent_seat_win_rate"].items()]
    if cfg.lineups:
        lines += ["", "## Win share by lineup (an agent in one seat among another's players)",
                  "", "| lineup | agent | games | win share (95% CI) | fair |", "|---|---|---|---|---|"]
        for row in summary["lineups"]:
            played = " + ".join(f"{n} x {name}" if n > 1 else name
                                for name, n in row["seats"].items())
            for name in [row["one"]] if row["one"] else row["agents"]:
                a = row["agents"][name]
                lines.append(f"| {played} | {name} | {a['entries']} | {a['win_rate']:.3f} "
                             f"[{a['win_low']:.3f}, {a['win_high']:.3f}] | "
                             f"{row['seats'][name] / n:.3f} |")
    lines += ["", "## Head to head (share of games where the first finished ahead; ties count half)",
              "", "| pair | share |", "|---|---|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in summary["head_to_head"].items()]
    lines += ["", "![ratings](ratings.png)", "", "![seats](seat_win_rate.png)", ""]
    write_text_atomic(folder / "report.md", "\n".join(lines))
    _plots(folder, summary)


def _short(name: str, width: int = 32) -> str:
    """An agent's name as a plot's label: a long spec cut, its end kept (the options)."""
    return name if len(name) <= width else name[:12] + "…" + name[-(width - 13):]


def _plots(folder: Path, summary: dict[str, Any]) -> None:
    plt = pyplot()

    board = summary["leaderboard"]
    fig, ax = plt.subplots(figsize=(6, 0.6 * len(board) + 1.5))
    names = [_short(r["agent"]) for r in board][::-1]
    ax.errorbar([r["mu"] for r in board][::-1], range(len(board)),
                xerr=[2 * r["sigma"] for r in board][::-1], fmt="o", capsize=4)
    ax.set_yticks(range(len(board)), names)
    ax.set_xlabel("OpenSkill mu (bars: ± 2 sigma)")
    ax.set_title("Ratings")
    fig.tight_layout()
    try:
        save_figure(fig, folder / "ratings.png", dpi=100)
    finally:
        plt.close(fig)

    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    rates = [s["win_rate"] for s in seats]
    err = [[s["win_rate"] - s["win_low"] for s in seats], [s["win_high"] - s["win_rate"] for s in seats]]
    ax.bar(range(len(seats)), rates, yerr=err, capsize=4, color="#4a7ab5")
    ax.axhline(1 / summary["num_players"], color="grey", linestyle="--", label="fair share")
    ax.set_xticks(range(len(seats)), [f"seat {s['seat']}" for s in seats])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title("Win rate by seat")
    ax.legend()
    fig.tight_layout()
    try:
        save_figure(fig, folder / "seat_win_rate.png", dpi=100)
    finally:
        plt.close(fig)
