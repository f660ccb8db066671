"""The calibration gate of a value model: does it predict the winner better than the
score margin, in every part of the game, before anyone plays with it?

On the *test* games of a value-data run (game index ending in 0: never trained or
validated on, :func:`otrio.training.value_fit.split`), per player count and per quarter of
the game (``progress``), for "this seat wins":

- **AUC**: the chance that a winning seat's number is above a losing seat's (0.5 a
  coin); the label is "wins or shares the win";
- **Brier**: the mean squared error of the probability against the win share;
- **log-loss**: the cross-entropy of the probability against the win share.

The baseline is the score margin at the position (the search's old leaf judge): its
AUC needs no calibration; its Brier and log-loss are those of a one-feature logistic
regression of the win share on ``margin / score_scale`` fitted on the train games per
player count, so the comparison is fair to it. The gate **passes** when the model's AUC
beats the margin's by at least :data:`MIN_GAIN` in the first and second quarter at every
player count (clearly above the margin in the first half, not by a test set's noise: a
few thousand rows a quarter move an AUC by about 0.01); a model that passes is still
judged by play before any long run. :func:`reliability_plot` draws predicted against observed win
share.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from otrio import envs
from otrio.agents.value import load_value_model
from otrio.arena.outputs import pyplot
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import dumps_json, save_figure, write_atomic

from .value_data import data_runs, load_rows
from .value_fit import MIN_GAMES, split

QUARTERS = ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0001))
MIN_GAIN = 0.02  # the AUC the model must add to the margin's in each half-game quarter


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for the boolean ``label`` (ties count
    half); NaN if either class is empty."""
    pos = int(label.sum())
    neg = len(label) - pos
    if pos == 0 or neg == 0:
        return float("nan")
    ranks = rankdata(score)
    return float((ranks[label].sum() - pos * (pos + 1) / 2) / (pos * neg))


def brier(p: np.ndarray, target: np.ndarray) -> float:
    """Mean squared error of the probabilities against the (soft) targets."""
    return float(np.mean((p - target) ** 2))


def log_loss(p: np.ndarray, target: np.ndarray) -> float:
    """Cross-entropy of the probabilities against the (soft) targets."""
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(target * np.log(p) + (1 - target) * np.log(1 - p)))


def logistic_1d(x: np.ndarray, target: np.ndarray, steps: int = 50) -> tuple[float, float]:
    """``(a, b)`` of ``sigmoid(a x + b)`` fitted to soft targets by Newton's method."""
    a, b = 0.0, float(np.log(max(target.mean(), 1e-6) / max(1 - target.mean(), 1e-6)))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * x + b)))
        w = np.maximum(p * (1 - p), 1e-9)
        g = np.array([np.sum((p - target) * x), np.sum(p - target)])
        h = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]])
        da, db = np.linalg.solve(h + 1e-9 * np.eye(2), g)
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-10:
            break
    return float(a), float(b)


def _test_obs(rows: dict[str, np.ndarray], test: np.ndarray) -> np.ndarray:
    """The test rows' observations, whether ``rows["obs"]`` holds every row's or, as
    ``load_rows(..., obs_of="test")`` gives them, the test rows' alone, in order."""
    obs = rows["obs"] if len(rows["obs"]) != len(rows["game"]) else rows["obs"][test]
    if len(obs) != int(test.sum()):
        raise ValueError("the rows' observations are neither every row's nor the test rows'")
    return obs


def gate(rows: dict[str, np.ndarray], model, score_scale: float) -> dict[str, Any]:
    """The gate's table (see the module docstring) for ``model`` (an
    :class:`otrio.agents.value.ValueModel`) on ``rows`` (a value-data run's rows; their
    ``obs`` either every row's or, as ``load_rows(..., obs_of="test")`` gives them, the
    test rows' alone, in order)."""

    masks = split(rows)
    test_obs = _test_obs(rows, masks["test"])
    p_all = np.concatenate([model.win(test_obs[k:k + 8192]) for k in range(0, len(test_obs), 8192)]
                           or [np.empty(0)])
    table, passes = [], True
    for n in sorted(int(v) for v in np.unique(rows["players"])):
        at = rows["players"] == n
        train, test = masks["train"] & at, masks["test"] & at
        a, b = logistic_1d(rows["now"][train] / score_scale, rows["win"][train])
        win = rows["win"][test]
        p_model = p_all[(rows["players"][masks["test"]] == n)]
        p_margin = 1 / (1 + np.exp(-(a * rows["now"][test] / score_scale + b)))
        for q, (lo, hi) in enumerate(QUARTERS):
            sel = (rows["progress"][test] >= lo) & (rows["progress"][test] < hi)
            if not sel.any():
                continue
            label = win[sel] > 0
            entry = {"players": n, "quarter": q + 1, "rows": int(sel.sum())}
            for name, p in (("model", p_model[sel]), ("margin", p_margin[sel])):
                entry[name] = {"auc": round(auc(p, label), 4), "brier": round(brier(p, win[sel]), 4),
                               "log_loss": round(log_loss(p, win[sel]), 4)}
            if q < 2 and not entry["model"]["auc"] >= entry["margin"]["auc"] + MIN_GAIN:
                passes = False
            table.append(entry)
    return {"passes": passes, "table": table, "test_games": int(len(np.unique(
        rows["game"][masks["test"]]))), "margin_scale": score_scale}


def gate_markdown(result: dict[str, Any], title: str) -> str:
    """The gate's table as Markdown."""
    lines = [f"# {title}", "",
             f"Test games: {result['test_games']} (never trained on). Gate: "
             f"**{'passes' if result['passes'] else 'fails'}** (model AUC at least "
             f"{MIN_GAIN} above the margin's in the first two quarters at every player "
             "count).", "",
             "| players | quarter | rows | AUC model | AUC margin | Brier model | Brier margin "
             "| log-loss model | log-loss margin |", "|---|---|---|---|---|---|---|---|---|"]
    for e in result["table"]:
        m, b = e["model"], e["margin"]
        lines.append(f"| {e['players']} | {e['quarter']} | {e['rows']} | {m['auc']:.3f} | "
                     f"{b['auc']:.3f} | {m['brier']:.3f} | {b['brier']:.3f} | "
                     f"{m['log_loss']:.3f} | {b['log_loss']:.3f} |")
    return "\n".join(lines) + "\n"


def reliability_plot(rows: dict[str, np.ndarray], model, path: str | Path,
                     bins: int = 10) -> Path:
    """Predicted against observed win share on the test games, a line per player count."""
    plt = pyplot()


    test = split(rows)["test"]
    obs, players, wins = _test_obs(rows, test), rows["players"][test], rows["win"][test]
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    for n in sorted(int(v) for v in np.unique(players)):
        at = players == n
        p = model.win(obs[at])
        edges = np.linspace(0, 1, bins + 1)
        which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
        xs = [p[which == k].mean() for k in range(bins) if (which == k).sum() >= 20]
        ys = [wins[at][which == k].mean() for k in range(bins) if (which == k).sum() >= 20]
        ax.plot(xs, ys, marker="o", label=f"{n} players")
    ax.set_xlabel("predicted chance to win")
    ax.set_ylabel("observed win share")
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


VALUE_GATE = register(RunKind(
    name="value gate", command="otrio value gate", marker="gate.json", files=(
        RunFile("gate.json", "marker", "the gate's table, recomputed on every call"),
        RunFile("gate.md", "derived", "the table"),
        RunFile("reliability.png", "derived", "the reliability plot"))))


def write_gate(data: list[str | Path], model_path: str | Path, out: str | Path,
               max_games: int | None = None, max_gib: float = 4.0,
               partial: bool = False) -> dict[str, Any]:
    """Run the gate of the model at ``model_path`` on the test games of the runs in
    ``data`` (with ``max_games``, of each run's first games only; refused before reading
    more than ``max_gib`` of rows, of which only the test games' keep their observations);
    write ``gate.json``, ``gate.md`` and ``reliability.png`` into ``out`` (a value-gate
    run folder). Every run is checked first (finished unless ``partial``; one game; at
    least :data:`MIN_GAMES` games: a test game and games the margin's baseline fits on)."""
    runs = data_runs(data, partial)
    for folder, _, entries in runs:
        games = sum(e["games"] for e in entries.values())
        if min(games, max_games or games) < MIN_GAMES:
            raise ConfigError(f"{folder} holds {games} games: the gate needs at least "
                              f"{MIN_GAMES} (games ending in 0 are judged, the margin's "
                              "baseline fits on the games ending in 2-9)")
    run = RunFolder(VALUE_GATE, out, "gate folder")
    run.check()
    env = envs.make(runs[0][1].env)
    model = load_value_model(model_path, env, any_players=True)  # anywhere, as measured
    parts = [load_rows(folder, max_games=max_games, max_bytes=int(max_gib * 2**30),
                       obs_of="test") for folder in data]  # a tenth of the memory
    rows = parts[0] if len(parts) == 1 else {k: np.concatenate([p[k] for p in parts])
                                             for k in parts[0]}
    result = gate(rows, model, env.unwrapped.game.info.score_scale)
    result["model"] = str(model_path)
    with run:
        write_atomic(run.path / "gate.json", dumps_json(result).encode())
        write_atomic(run.path / "gate.md", gate_markdown(
            result, f"Value gate: {Path(model_path).name}").encode())
        reliability_plot(rows, model, run.path / "reliability.png")
    return result


__all__ = ["MIN_GAIN", "VALUE_GATE", "QUARTERS", "auc", "brier", "gate", "gate_markdown", "log_loss", "logistic_1d",
           "reliability_plot", "write_gate"]
