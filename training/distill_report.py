"""The report of a distillation run: strength against training compute, round by round.

``report.md`` has one row per round (the teacher, its games and labelled decisions,
the teacher's compute so far in CPU-hours, the fit's held-out agreement and value
error, and the network alone against each evaluation opponent with its 95% interval);
``strength.png`` draws the win rates against the cumulative compute.
"""

from __future__ import annotations

from pathlib import Path

from otrio.arena.outputs import pyplot
from otrio.envs.core.files import save_figure, write_text_atomic

from .config import TrainConfig


def compute_hours(lines: list[dict]) -> list[float]:
    """Cumulative CPU-hours (teacher games plus fits) after each round."""
    total, out = 0.0, []
    for line in lines:
        total += (line.get("teacher_seconds") or 0) + (line.get("fit_seconds") or 0)
        out.append(total / 3600)
    return out


def report_markdown(cfg: TrainConfig, lines: list[dict]) -> str:
    """The rounds as a Markdown table (see the module docstring)."""
    opponents = list(cfg.eval.opponents)
    head = ["round", "teacher", "games", "decisions", "CPU-h so far", "held-out agreement",
            "value RMSE"] + [f"vs {o}" for o in opponents]
    out = [f"# Distillation: {cfg.game} {cfg.game_config or ''}".rstrip(), "",
           f"Network alone (no search) against each opponent, {cfg.eval.games} games, seats "
           "rotated, 95% Wilson intervals. Compute: the teacher games' and fits' wall time "
           "summed over processes.", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for line, hours in zip(lines, compute_hours(lines)):
        fit = line.get("fit") or {}
        cells = [str(line["round"]), f"`{line['teacher']}`", str(line["games"]),
                 f"{line['decisions']:,}", f"{hours:.2f}",
                 _num(fit.get("held_out_agreement")), _num(fit.get("held_out_value_rmse"))]
        for o in opponents:
            r = (line.get("eval") or {}).get(o)
            cells.append(f"{r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]" if r else "")
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "![strength against compute](strength.png)", ""]
    return "\n".join(out)


def _num(value) -> str:
    return "" if value is None else f"{value:.3f}"


def plot(cfg: TrainConfig, lines: list[dict], path: Path) -> None:
    """Each opponent's win rate (with its interval) against cumulative compute."""
    plt = pyplot()

    hours = compute_hours(lines)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for opponent in cfg.eval.opponents:
        rows = [(h, line["eval"][opponent]) for h, line in zip(hours, lines)
                if opponent in (line.get("eval") or {})]
        if not rows:
            continue
        x = [h for h, _ in rows]
        y = [r["win_rate"] for _, r in rows]
        err = [[r["win_rate"] - r["low"] for _, r in rows], [r["high"] - r["win_rate"] for _, r in rows]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"vs {opponent}")
        for k, (xi, yi) in enumerate(zip(x, y), 1):
            ax.annotate(f"r{k}", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("teacher + fit compute so far (CPU-hours)")
    ax.set_ylabel("network alone: win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{cfg.game}: strength against compute")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    try:
        save_figure(fig, path, dpi=110)
    finally:
        plt.close(fig)


def write_report(cfg: TrainConfig, folder: Path, lines: list[dict]) -> None:
    """``report.md`` and ``strength.png`` in the run folder."""
    write_text_atomic(folder / "report.md", report_markdown(cfg, lines))
    plot(cfg, lines, folder / "strength.png")
