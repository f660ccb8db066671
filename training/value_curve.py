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
and the core-seconds its shards took to play (the self-play), and the fit's seconds.

The output folder (a ``value curve`` run, :mod:`otrio.arena.run_folder`) holds
``models/`` (each size's model, whose manifest names the fit and the data prefix it was
made from: a second start fits again only the sizes whose model is missing or was made
another way), ``play/SIZE_Np/`` (each size's games at each player count: records
re-played before they count, as a tournament's), and the derived files, recomputed from
those on every call and never read back: ``curve.json`` (every number), ``curve.md`` (the
table) and ``curve.png`` (AUC per quarter and win rate against training games). Every
gate is computed again from its model and the run's test games.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from otrio import envs
from otrio.agents.value import load_value_model
from otrio.arena.games import ExecutionOptions, GameRecord, play_into, task_fields
from otrio.arena.outputs import pyplot
from otrio.arena.play import GameTask
from otrio.arena.records import (
    RECORDS_FILE,
    REJECTED_FILE,
    RUN_FILE,
    RecordSchema,
    open_run,
    read_records,
)
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import mcnemar_exact, wilson
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import dumps_json, save_figure, write_atomic
from otrio.envs.core.rng import derive_seed

from . import value_fit, value_report
from .value_data import data_runs, first_tasks, load_rows, saved_run, shard_tasks, win_shares

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


VALUE_CURVE = register(RunKind(
    name="value curve", command="otrio value curve", marker=CURVE_FILE, files=(
        RunFile(CURVE_FILE, "marker", "every number of the curve, recomputed on every call"),
        RunFile("models/*", "state", "each size's model; its manifest names the fit and "
                "the data prefix, checked before it is used again"),
        RunFile(f"play/*/{RUN_FILE}", "marker", "a size's games at a player count: identity"),
        RunFile(f"play/*/{RECORDS_FILE}", "record", "the games, re-played before they count"),
        RunFile(f"play/*/{REJECTED_FILE}", "aside", "lines a repair moved aside"),
        RunFile("curve.md", "derived", "the table"),
        RunFile("curve.png", "derived", "the figure")),
    folders=("models", "play", "play/*")))


def prefix_digest(entries: dict[int, dict[str, Any]], tasks) -> str:
    """The sha256 of the manifest entries of a run's prefix (each shard's digest
    included): what a size's model was fitted on."""
    listed = {str(t.index): entries[t.index] for t in tasks}
    return hashlib.sha256(json.dumps(listed, sort_keys=True).encode()).hexdigest()


def _made_as_asked(stem: Path, fit: dict[str, Any], prefix: str, env):
    """The model at ``stem`` if it loads and was fitted with ``fit`` on ``prefix``, else
    None."""
    if not stem.with_suffix(".json").is_file():
        return None
    try:
        model = load_value_model(stem.with_suffix(".json"), env, any_players=True)
    except ConfigError:
        return None
    made = model.manifest.made
    return model if made.get("fit") == fit and made.get("prefix") == prefix else None


def _play_tasks(spec: str, env_id: str, players: int, games: int, seed: int) -> list[GameTask]:
    """``spec`` in one seat among greedy players (game ``g``: seat ``g mod players``) on
    ``games`` seeded games, the same for every size."""
    tasks = []
    for g in range(games):
        seating = ["greedy"] * players
        seating[g % players] = "agent"
        tasks.append(GameTask(g, env_id, {"num_players": players}, tuple(seating),
                              {"agent": spec, "greedy": "greedy"},
                              derive_seed(seed, "value-curve", players, g)))
    return tasks


def play_against_greedy(run: RunFolder, key: str, spec: str, env_id: str, players: int,
                        games: int, seed: int, workers: int = 1, progress: bool = True
                        ) -> list[float]:
    """Play (or finish) ``spec``'s games among greedy players into ``play/KEY/`` (records
    re-played before they count; the games of another model, one fitted again, are
    played again); each game's win share of ``spec``'s seat, in game order."""
    folder = run.sub(f"play/{key}")
    tasks = _play_tasks(spec, env_id, players, games, seed)
    identity = {"spec": spec, "env": env_id, "players": players, "games": games, "seed": seed}
    schema = RecordSchema(name="value curve game", model=GameRecord, unique_by=("game",),
                          games={(t.game,): task_fields(t) for t in tasks}, replay=True)
    try:
        done = open_run(folder, identity, schema=schema, progress=progress)
    except ConfigError:  # the games of another model or setting: played again
        for name in (RUN_FILE, RECORDS_FILE, REJECTED_FILE):
            (folder / name).unlink(missing_ok=True)
        done = open_run(folder, identity, schema=schema, progress=progress)
    have = {r["game"] for r in done}
    todo = [t for t in tasks if t.game not in have]
    if todo:
        play_into(folder / RECORDS_FILE, todo, ExecutionOptions(workers=workers), len(have),
                  f"{players}p play", progress)
    records = sorted(read_records(folder / RECORDS_FILE, schema), key=lambda r: r["game"])
    return [float(win_shares(r["winners"], players)[r["seating"].index("agent")])
            for r in records]


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
    ((_, cfg_data, entries),) = data_runs([data])  # a finished run, checked
    env_id = cfg_data.env
    players = players or list(cfg_data.players)
    costs = {s: prefix_cost(data, s) for s in sorted(set(sizes))}
    run = RunFolder(VALUE_CURVE, out, "value curve folder")
    run.check()
    fit_identity = fit_cfg.model_dump(exclude=value_fit.IDENTITY_EXCLUDES)
    settings = {"data": data.name, "env": env_id, "fit": fit_identity, "play": play,
                "players": players, "games": games, "seed": seed}
    record: dict[str, Any] = {"settings": settings, "sizes": {}, "play": {}}
    env = envs.make(env_id)
    scale = env.unwrapped.game.info.score_scale
    all_tasks = [t for t in shard_tasks(cfg_data) if t.index in entries]

    def fitted_as(size: int, prefix_games: int):
        """A size's stem, fit settings and prefix digest."""
        return (models / f"games_{prefix_games}", {**fit_identity, "max_games": prefix_games},
                prefix_digest(entries, first_tasks(all_tasks, size)))

    with run:
        write_atomic(run.path / CURVE_FILE, dumps_json(record).encode())  # the marker first
        models = run.sub("models")
        # sizes fitted before and not asked for now stay in the curve, if made as now
        asked = {cost["games"] for cost in costs.values()}  # a model is named by its games
        for manifest in sorted(models.glob("games_*.json")):
            count = manifest.stem.removeprefix("games_")
            if not count.isdigit() or int(count) in asked:
                continue
            model = _made_as_asked(*fitted_as(int(count), int(count)), env=env)
            size = model.manifest.made.get("size") if model is not None else None
            if isinstance(size, int) and size not in costs and \
                    prefix_cost(data, size)["games"] == int(count):
                costs[size] = prefix_cost(data, size)  # the size asked when it was fitted
        rows = None
        for size in sorted(costs):
            cost = costs[size]
            stem, fit, prefix = fitted_as(size, cost["games"])
            model = _made_as_asked(stem, fit, prefix, env)
            if model is None:
                value_fit.fit_and_export([data], stem, fit_cfg.model_copy(
                    update={"max_games": cost["games"]}), progress=progress,
                    made={"prefix": prefix, "size": size})
                model = load_value_model(stem.with_suffix(".json"), env, any_players=True)
            if rows is None:  # the whole run's rows: its test games judge every size
                rows = load_rows(data, max_bytes=int(fit_cfg.max_gib * 2**30), obs_of="test")
            record["sizes"][str(size)] = {
                **cost, "fit_seconds": model.manifest.made.get("fit_seconds"),
                "gate": value_report.gate(rows, model, scale),
                "model": str(stem.with_suffix(".json"))}
        rows = None  # not carried into the play's worker processes
        if play is not None:  # the sizes asked for now (those kept from before: not played)
            for size in sorted(set(sizes)):
                model_path = record["sizes"][str(size)]["model"]
                for n in players:
                    spec = play.replace("{model}", model_path)
                    record["play"][f"{size}_{n}p"] = {
                        "size": size, "players": n, "spec": spec,
                        "shares": play_against_greedy(run, f"{size}_{n}p", spec, env_id, n,
                                                      games, seed, workers, progress)}
        write_atomic(run.path / CURVE_FILE, dumps_json(record).encode())
        write_atomic(run.path / "curve.md", curve_markdown(record).encode())
        curve_plot(record, run.path / "curve.png")
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
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["VALUE_CURVE", "curve_markdown", "curve_plot", "paired", "play_against_greedy",
           "prefix_cost", "run_curve"]
