"""Strength against compute for value models: does more self-play data make a better
judge, and a stronger agent? (``otrio value curve DATA --sizes 300,1000,... --output DIR``)

One value-data run (``training/value_data.py``) is fitted again on its first ``s`` games
for each size ``s`` (the shards in order, player counts in turn, so every prefix holds
the counts in the same proportions), with one fit config. Every model is judged by the
calibration gate (``training/value_report.py``) on the **same** test games, those of the
whole run (game index ending in 0: no prefix trains or validates on them), so the sizes
differ only in the data they learned from. With ``play=SPEC`` (``{model}`` standing for
the model's path, e.g. ``value:{model},depth=8,judge=mixed``) each model's agent plays
one seat among greedy players on the same seeded games for every size (seats rotated:
game ``g`` seats it at ``g mod n``), so two sizes compare game for game (exact McNemar
on the games won by one only).

Compute is counted as the run's own manifest says: the games and positions in the prefix
and the core-seconds its shards took to play (the self-play), and the fit's seconds. The output folder holds ``models/`` (each size's model), ``curve.json``
(every number, written after each step: a second start reuses the steps done, each
model checked against its digest: the fits and gates when the data and the fit config
are the same, what was played when the play settings are too, so ``--play`` can be
added to a curve fitted earlier), ``curve.md`` (the table) and
``curve.png`` (AUC per quarter and win rate against training games).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from otrio import envs
from otrio.agents.value import load_value_model
from otrio.arena.outputs import make_output_folder, pyplot
from otrio.arena.parallel import run_ordered
from otrio.arena.play import GameTask, outcome, play_task
from otrio.arena.stats import mcnemar_exact, wilson
from otrio.envs.core.bounded import read_json
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import write_atomic
from otrio.envs.core.rng import derive_seed

from . import value_fit, value_report
from .value_data import first_tasks, load_rows, saved_run, shard_tasks, win_shares
from .value_store import read_manifest

CURVE_FILE = "curve.json"
MAX_SIZES = 32
MAX_PLAY_GAMES = 100_000


def prefix_cost(folder: str | Path, size: int) -> dict[str, Any]:
    """Games, positions and self-play core-seconds of the first shards of the run in
    ``folder`` that hold ``size`` games (whole shards, so at least ``size``)."""

    cfg, entries = saved_run(folder)
    tasks = first_tasks([t for t in shard_tasks(cfg) if t.index in entries], size)
    if sum(t.games for t in tasks) < size:
        raise ConfigError(f"{folder} holds {sum(t.games for t in tasks):,} games; a curve "
                          f"size of {size:,} needs at least that many")
    return {"games": sum(t.games for t in tasks),
            "positions": sum(int(entries[t.index]["positions"]) for t in tasks),
            "core_seconds": round(sum(float(entries[t.index]["seconds"]) for t in tasks), 1)}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def _model_digest(stem: Path) -> str:
    """The sha256 of a model's weights (what it plays by; its manifest also logs the
    fit's wall time), empty if the weights or the manifest are missing."""
    return _digest(stem.with_suffix(".safetensors")) if stem.with_suffix(".json").is_file() else ""


def play_share(task) -> float:
    """The win share (1/k in a k-way tie) of the seat named ``agent`` in one game."""
    env, _ = play_task(task)
    _, winners, _ = outcome(env.unwrapped.state_)
    return win_shares(winners, len(task.seating))[task.seating.index("agent")]


def play_against_greedy(spec: str, env_id: str, players: int, games: int, seed: int,
                        workers: int = 1, progress: bool = True) -> list[float]:
    """``spec`` in one seat among greedy players (game ``g``: seat ``g mod players``) on
    ``games`` seeded games; each game's win share of ``spec``'s seat, in game order."""
    tasks = []
    for g in range(games):
        seating = ["greedy"] * players
        seating[g % players] = "agent"
        tasks.append(GameTask(g, env_id, {"num_players": players}, tuple(seating),
                              {"agent": spec, "greedy": "greedy"},
                              derive_seed(seed, "value-curve", players, g)))
    return [float(s) for s in tqdm(run_ordered(play_share, tasks, workers), total=games,
                                   unit="game", desc=f"{players}p play", disable=not progress)]


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    saved = read_json(path, 64 << 20, "value curve record", StateError, follow_symlinks=False,
                      allow_nan=True)  # an AUC of a class-less quarter is NaN
    if not isinstance(saved, dict):
        raise StateError(f"{path} is not a value curve's record (a JSON object expected)")
    return saved


def _valid_shares(shares: Any, games: int, players: int) -> bool:
    allowed = {0.0, *(1.0 / k for k in range(1, players + 1))}
    return (isinstance(shares, list) and len(shares) == games
            and all(isinstance(s, (int, float)) and float(s) in allowed for s in shares))


def run_curve(data: str | Path, fit_cfg, sizes: list[int], out: str | Path,
              play: str | None = None, players: list[int] | None = None, games: int = 300,
              seed: int = 0, workers: int = 1, progress: bool = True) -> dict[str, Any]:
    """Fit, gate and (with ``play``) play a model per size (see the module docstring);
    the curve's record, also written to ``out/curve.json``, ``curve.md`` and ``curve.png``."""
    if not sizes or len(sizes) > MAX_SIZES or any(s < 10 for s in sizes):
        raise ConfigError(f"curve sizes: 1 to {MAX_SIZES} sizes of at least 10 games each")
    if play is not None and "{model}" not in play:
        raise ConfigError("curve --play: the agent spec must hold {model} where the model's "
                          "path goes, e.g. value:{model}")
    if not 1 <= games <= MAX_PLAY_GAMES:
        raise ConfigError(f"curve --games: 1 to {MAX_PLAY_GAMES:,}")
    data = Path(data)
    manifest = read_manifest(data)
    if manifest is None:
        raise ConfigError(f"{data} holds no value-data run")
    env_id = manifest["config"]["env"]
    players = players or list(manifest["config"]["players"])
    costs = {s: prefix_cost(data, s) for s in sorted(set(sizes))}
    out = make_output_folder(out, "value curve folder")
    (out / "models").mkdir(exist_ok=True)
    record_path = out / CURVE_FILE
    saved = _load(record_path)
    data_digest = hashlib.sha256(json.dumps(manifest["shards"], sort_keys=True).encode()).hexdigest()
    settings = {"data": data.name, "data_digest": data_digest, "env": env_id,
                "fit": fit_cfg.model_dump(exclude=value_fit.IDENTITY_EXCLUDES), "play": play,
                "players": players, "games": games, "seed": seed}
    old_settings = saved.get("settings", {})
    # a size's model and gate depend on the data and the fit alone; its play on the rest too
    fits_same = all(old_settings.get(k) == settings[k] for k in ("data_digest", "env", "fit"))
    plays_same = fits_same and old_settings == settings
    record = {"settings": settings, "sizes": {}, "play": {}}

    def save():
        write_atomic(record_path, json.dumps(record, indent=1).encode())

    if fits_same:  # sizes fitted before and not asked for now stay in the curve
        for key, entry in saved.get("sizes", {}).items():
            stem = Path(str(entry.get("model", ""))).with_suffix("")
            if (key.isdigit() and int(key) not in costs and stem.parent == out / "models"
                    and entry.get("model_digest") == _model_digest(stem) != ""):
                record["sizes"][key] = entry
    rows = None
    env = envs.make(env_id)
    scale = env.unwrapped.game.info.score_scale
    for size, cost in costs.items():
        stem = out / "models" / f"games_{cost['games']}"
        entry = saved.get("sizes", {}).get(str(size)) if fits_same else None
        if entry is not None and entry.get("model_digest") == _model_digest(stem) != "":
            record["sizes"][str(size)] = entry
            continue
        start = time.perf_counter()
        cfg = fit_cfg.model_copy(update={"max_games": cost["games"]})
        value_fit.fit_and_export([data], stem, cfg, progress=progress)
        fit_seconds = round(time.perf_counter() - start, 1)
        if rows is None:  # the whole run's rows: its test games judge every size
            rows = load_rows(data, max_bytes=int(fit_cfg.max_gib * 2**30), obs_of="test")
        model = load_value_model(stem.with_suffix(".json"), env, any_players=True)
        gate = value_report.gate(rows, model, scale)
        record["sizes"][str(size)] = {**cost, "fit_seconds": fit_seconds, "gate": gate,
                                      "model": str(stem.with_suffix(".json")),
                                      "model_digest": _model_digest(stem)}
        save()
    rows = None  # not carried into the play's worker processes
    if play is not None:
        for size in costs:
            model_path = record["sizes"][str(size)]["model"]
            digest = record["sizes"][str(size)]["model_digest"]
            for n in players:
                key = f"{size}_{n}p"
                old = saved.get("play", {}).get(key) if plays_same else None
                if (old is not None and old.get("model_digest") == digest
                        and _valid_shares(old.get("shares"), games, n)):
                    record["play"][key] = old  # played by this very model
                    continue
                spec = play.replace("{model}", model_path)
                shares = play_against_greedy(spec, env_id, n, games, seed, workers, progress)
                record["play"][key] = {"size": size, "players": n, "spec": spec,
                                       "model_digest": digest, "shares": shares}
                save()
    save()
    write_atomic(out / "curve.md", curve_markdown(record).encode())
    curve_plot(record, out / "curve.png")
    return record


def _sizes(record: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return sorted(((int(k), v) for k, v in record["sizes"].items()), key=lambda kv: kv[0])


def _rate(shares: list[float]) -> tuple[float, float, float]:
    lo, hi = wilson(sum(shares), len(shares))
    return sum(shares) / len(shares), lo, hi


def paired(a: list[float], b: list[float]) -> tuple[int, int, float]:
    """Games won (wholly or shared) by ``a``'s agent only and by ``b``'s only, and the
    exact McNemar p-value of the difference."""

    only_a = sum(1 for x, y in zip(a, b) if x > 0 and y == 0)
    only_b = sum(1 for x, y in zip(a, b) if y > 0 and x == 0)
    return only_a, only_b, mcnemar_exact(only_a, only_b)


def curve_markdown(record: dict[str, Any]) -> str:
    """The curve as Markdown: compute, the gate's AUC per quarter, and play."""
    s = record["settings"]
    sizes = _sizes(record)
    counts = sorted({e["players"] for _, v in sizes for e in v["gate"]["table"]})
    lines = [f"# Value curve: {s['env']}, data `{s['data']}`", "",
             "Each model is the same fit on the run's first games; every one is judged on "
             "the whole run's test games (never trained on). AUC of \"this seat wins\" by "
             "quarter of the game; the score margin's in the last row.", ""]
    for n in counts:
        lines += [f"## {n} players", "",
                  "| games | positions | self-play core-s | fit s | AUC Q1 | Q2 | Q3 | Q4 | Brier Q1 | Q2 |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        by_q: dict = {}
        for _, v in sizes:
            by_q = {e["quarter"]: e for e in v["gate"]["table"] if e["players"] == n}
            aucs = " | ".join(f"{by_q[q]['model']['auc']:.3f}" if q in by_q else "" for q in range(1, 5))
            briers = " | ".join(f"{by_q[q]['model']['brier']:.3f}" if q in by_q else "" for q in (1, 2))
            lines.append(f"| {v['games']:,} | {v['positions']:,} | {v['core_seconds']:,.0f} | "
                         f"{v['fit_seconds']:.0f} | {aucs} | {briers} |")
        if by_q:  # the margin's numbers are the same in every size's gate (the same test rows)
            aucs = " | ".join(f"{by_q[q]['margin']['auc']:.3f}" if q in by_q else "" for q in range(1, 5))
            briers = " | ".join(f"{by_q[q]['margin']['brier']:.3f}" if q in by_q else "" for q in (1, 2))
            lines.append(f"| score margin | | | | {aucs} | {briers} |")
        lines.append("")
    if record["play"]:
        lines += ["## Play: one seat among greedy players", "",
                  f"Spec `{s['play']}`, {s['games']} games a size and player count, seed "
                  f"{s['seed']}, seats rotated, the same games for every size; 95% Wilson "
                  "intervals; against the previous size: games won by this size only / by "
                  "the previous only, exact McNemar p.", "",
                  "| players | games of data | win rate | 95% interval | vs previous size |",
                  "|---|---|---|---|---|"]
        for n in s["players"]:
            prev = None
            for size, v in sizes:
                entry = record["play"].get(f"{size}_{n}p")
                if entry is None:
                    continue
                rate, lo, hi = _rate(entry["shares"])
                versus = ""
                if prev is not None:
                    a, b, p = paired(entry["shares"], prev)
                    versus = f"{a} / {b}, p = {p:.2g}"
                lines.append(f"| {n} | {v['games']:,} | {rate:.3f} | [{lo:.3f}, {hi:.3f}] | {versus} |")
                prev = entry["shares"]
        lines.append("")
    return "\n".join(lines)


def curve_plot(record: dict[str, Any], path: str | Path) -> Path:
    """AUC per quarter against training games (the margin's dashed), and with play, the
    win rate with its interval."""
    plt = pyplot()

    sizes = _sizes(record)
    counts = sorted({e["players"] for _, v in sizes for e in v["gate"]["table"]})
    panels = len(counts) + (1 if record["play"] else 0)
    fig, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 4), squeeze=False)
    xs = [v["games"] for _, v in sizes]
    for ax, n in zip(axes[0], counts):
        for q in range(1, 5):
            ys, margin = [], None
            for _, v in sizes:
                hit = [e for e in v["gate"]["table"] if e["players"] == n and e["quarter"] == q]
                ys.append(hit[0]["model"]["auc"] if hit else np.nan)
                margin = hit[0]["margin"]["auc"] if hit else margin
            line, = ax.plot(xs, ys, marker="o", label=f"quarter {q}")
            if margin is not None:
                ax.axhline(margin, color=line.get_color(), ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("self-play games of data")
        ax.set_ylabel("AUC (dashed: score margin)")
        ax.set_title(f"{n} players")
        ax.legend(fontsize=8)
    if record["play"]:
        ax = axes[0][-1]
        for n in record["settings"]["players"]:
            pts = [(v["games"], *_rate(record["play"][f"{size}_{n}p"]["shares"]))
                   for size, v in sizes if f"{size}_{n}p" in record["play"]]
            if not pts:
                continue
            g, r, lo, hi = map(np.array, zip(*pts))
            ax.errorbar(g, r, yerr=[r - lo, hi - r], marker="o", capsize=3, label=f"{n} players")
            ax.axhline(1 / n, color="grey", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("self-play games of data")
        ax.set_ylabel("win rate among greedy (dotted: fair)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["curve_markdown", "curve_plot", "paired", "play_against_greedy", "prefix_cost",
           "run_curve"]
