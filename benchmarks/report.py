"""Markdown reports and PNG plots for tournaments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otrio.agents.outputs import save_figure, write_text_atomic


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


def verification_text(verification) -> str:
    """The report's sentence on what this start re-played of the records already in the
    folder (an :class:`otrio.agents.records.Verification`; "" for a fresh run or None)."""
    if verification is None or not verification.records:
        return ""
    return f"Resumed: {verification.describe()}."


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


def write_tournament_report(folder: Path, cfg, summary: dict[str, Any],
                            command: str | None = None, verification=None) -> None:
    """``summary.json``, ``report.md`` and the plots in the run folder; ``verification``
    (:class:`otrio.agents.records.Verification`): what this start re-played of the records
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
    lines += ["", "## Head to head (share of games where the first finished ahead; ties count half)",
              "", "| pair | share |", "|---|---|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in summary["head_to_head"].items()]
    lines += ["", "![ratings](ratings.png)", "", "![seats](seat_win_rate.png)", ""]
    write_text_atomic(folder / "report.md", "\n".join(lines))
    _plots(folder, summary)


def _plots(folder: Path, summary: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    board = summary["leaderboard"]
    fig, ax = plt.subplots(figsize=(6, 0.6 * len(board) + 1.5))
    names = [r["agent"] for r in board][::-1]
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
