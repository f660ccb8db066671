"""The fairest setup: ``otrio balance CONFIG --search`` runs a config's ``search:``
section (:class:`otrio.benchmarks.balance.config.SearchSpec`).

A designer states a target (:class:`~otrio.benchmarks.balance.sweep.SearchObjective`): every seat
of every judged tier within ``seat_tolerance`` of its fair share, and optionally as
much skill depth as possible. The **objective** of a batch of games (lower is better,
in share points) is::

    100 · max(0, max over judged tiers and seats |share - 1/n| - tolerance)
      - depth_weight · 100 · edge

where ``edge`` = (share - 1/n) / (1 - 1/n) of the strongest judged tier alone among
the weakest (:mod:`otrio.benchmarks.balance.skill`). The search runs in three phases, each a
set of seeded games recorded in one run folder (``games.jsonl``: resumable, checked on
resume, the same on 1 or N workers and on Ray, as a sweep's):

1. **search**: the optimiser (:mod:`otrio.benchmarks.balance.optimise`: NTBEA, Optuna's TPE
   or random) proposes ``batch`` setups at a time from the factor ``space``; each trial
   plays ``games_per_trial`` games per judged lineup, seats rotated, on seeds of its own
   (``derive_seed(seed, "search", trial, j)``), and tells the optimiser its objective;
2. **final**: the ``finalists`` best-ranked setups are played again on new seeds shared
   by all of them (``derive_seed(seed, "final", j)``) and the best of these games is
   the **winner** (the search's own values are biased upward for the setups it picked:
   the winner's curse);
3. **confirm**: ``preregistration.json`` is written first (the winner and the default,
   the games, the seeds, the objective, the test and its level), then the winner and
   the ``default`` setup each play ``confirm_games`` games per judged lineup on fresh
   seeds never used before (``derive_seed(seed, "confirm", j)``, the same seeds for
   both, so the comparison is paired). The pre-registered test: the paired bootstrap
   (``bootstrap`` resamples of the game seeds) of objective(winner) -
   objective(default); the winner is **confirmed** when the upper one-sided
   ``1 - alpha`` bound of that difference is below 0.

Resuming re-proposes every batch from the recorded games (the optimisers are
deterministic given their seed and values), checks that each recorded game is the one
the search would play now, and plays only what is missing.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field
from tqdm import tqdm

from otrio import agents, envs
from otrio.arena.games import RESUME_IGNORES, RotatedRecord, run_tasks, task_fields
from otrio.arena.play import GameTask
from otrio.arena.records import (
    GAME_RUN_FILES,
    RECORDS_FILE,
    RUN_FILE,
    RecordSchema,
    RecordWriter,
    Verify,
    open_run,
    plain,
    read_records,
    write_atomic,
)
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import wilson
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import exists, read_json
from otrio.envs.core.rng import derive_seed

from .config import BalanceConfig, Factor
from .optimise import Trial, make_optimiser, pick, search_loop
from .search_report import write_search_report
from .skill import cell, lone_shares, matchup_name
from .stats import seat_uniformity, win_shares, z_quantile
from .summary import LINEUP
from .sweep import (
    TIMING_FILE,
    TIMING_SCHEMA,
    _players,
    _text,
    deep_merge,
    factor_features,
    set_path,
)

PREREGISTRATION_FILE = "preregistration.json"
WORST = 100.0  # the objective of a batch with no decided game (points)
PHASES = ("search", "final", "confirm")
BOOTSTRAP_CHUNK = 100  # resamples computed at once


# ---------------------------------------------------------------- the plan
@dataclass(frozen=True)
class Candidate:
    """A setup the search plays: its point in the space (None: the default setup), its
    label and its full game config."""

    point: tuple[int, ...] | None
    label: str
    config: dict[str, Any]
    features: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """Everything a search's games follow from (derived from the config alone)."""

    env_id: str
    base: dict[str, Any]
    factors: tuple[Factor, ...]
    lineups: tuple[tuple[str, tuple[str, ...]], ...]  # judged lineups (then the depth one)
    judged: tuple[str, ...]  # lineups whose seats the objective judges
    depth: str | None  # the lineup whose lone seat gives the depth
    players: int
    trials: int
    games: int  # per trial and lineup (a multiple of the seats)
    finalists: int
    final_games: int
    confirm_games: int
    default: Candidate
    specs: dict[str, str]
    seed: int

    @property
    def levels(self) -> list[int]:
        return [len(f.levels()) for f in self.factors]

    def slots(self, phase: str) -> int:
        return {"search": self.trials, "final": self.finalists, "confirm": 2}[phase]

    def games_of(self, phase: str) -> int:
        return {"search": self.games, "final": self.final_games,
                "confirm": self.confirm_games}[phase]

    def first_id(self, phase: str) -> int:
        first = 0
        for p in PHASES:
            if p == phase:
                return first
            first += self.slots(p) * len(self.lineups) * self.games_of(p)
        raise ValueError(phase)

    @property
    def total(self) -> int:
        return self.first_id("confirm") + 2 * len(self.lineups) * self.confirm_games


def _round_up(games: int, players: int) -> int:
    return -(-games // players) * players  # every rotation equally often


def make_plan(cfg: BalanceConfig) -> Plan:
    """The search's plan; ConfigError for a search that cannot run."""
    spec = cfg.search
    if spec is None:
        raise ConfigError("the config has no search: section (see benchmarks/balance/search.py)")
    env_id = spec.game or cfg.game
    base = deep_merge(cfg.game_config, spec.game_config)
    default_config = without_nulls(deep_merge(base, spec.default))
    try:
        players = _players(env_id, default_config)
    except ConfigError as err:
        raise ConfigError(f"search default setup: {err}") from None
    tiers = cfg.search_tiers()
    if tiers:
        lineups = [(t, (t,) * players) for t in tiers]
        depth = None
        if spec.objective.depth_weight > 0:
            depth = matchup_name(tiers[-1], tiers[0])
            lineups.append((depth, (tiers[-1],) + (tiers[0],) * (players - 1)))
        judged = tuple(tiers)
    else:
        seats = list(cfg.lineup or [])
        if cfg.fill_lineup:
            seats = [seats[k % len(seats)] for k in range(players)]
        if len(seats) != players:
            raise ConfigError(f"search: the lineup has {len(seats)} seats but {env_id} is "
                              f"configured for {players} players (set fill_lineup: true)")
        lineups, depth, judged = [(LINEUP, tuple(seats))], None, (LINEUP,)
    names = sorted({n for _, seats in lineups for n in seats})
    games = _round_up(spec.games_per_trial, players)
    plan = Plan(
        env_id=env_id, base=base, factors=tuple(spec.space), lineups=tuple(lineups),
        judged=judged, depth=depth, players=players, trials=spec.trials, games=games,
        finalists=min(spec.finalists, spec.trials),
        final_games=_round_up(spec.finalist_games or 2 * spec.games_per_trial, players),
        confirm_games=_round_up(spec.confirm_games, players),
        default=Candidate(None, spec.default_label, default_config),
        specs={n: cfg.agents[n] for n in names}, seed=cfg.seed,
    )
    for factor in plan.factors:  # every level alone on the base setup must be a valid game
        for level in range(len(factor.levels())):
            point = tuple(level if f is factor else 0 for f in plan.factors)
            candidate(plan, point)
    return plan


def without_nulls(config: Any) -> Any:
    """``config`` without its null values (a null in ``default`` removes the key: the
    game's own default, e.g. ``kraken: {mode: random, values: null}``)."""
    if isinstance(config, dict):
        return {k: without_nulls(v) for k, v in config.items() if v is not None}
    return config


def candidate(plan: Plan, point: tuple[int, ...]) -> Candidate:
    """The setup at ``point`` (one level index per factor), validated."""
    config, features, shorts = copy.deepcopy(plan.base), {}, []
    for factor, level in zip(plan.factors, point):
        value = factor.levels()[level]
        set_path(config, factor.path, value)
        features.update(factor_features(factor, value))
        shorts.append(factor.labels.get(_text(value), _text(value)))
    label = (f"{plan.factors[0].name}={shorts[0]}" if len(plan.factors) == 1
             else " ".join(shorts))
    try:
        players = _players(plan.env_id, config)
    except ConfigError as err:
        raise ConfigError(f"search setup {label!r}: {err}") from None
    if players != plan.players:
        raise ConfigError(f"search setup {label!r} has {players} players but the default has "
                          f"{plan.players}: a search keeps the player count")
    return Candidate(tuple(point), label, config, features)


def seed_of(plan: Plan, phase: str, slot: int, j: int) -> int:
    """Game ``j``'s seed: its own per search trial, shared by the finalists, shared by
    the winner and the default in the confirmation (a namespace used nowhere else)."""
    if phase == "search":
        return derive_seed(plan.seed, "search", slot, j)
    return derive_seed(plan.seed, phase, j)


def game_id(plan: Plan, phase: str, slot: int, lineup: int, j: int) -> int:
    games = plan.games_of(phase)
    return plan.first_id(phase) + (slot * len(plan.lineups) + lineup) * games + j


def _fixed(plan: Plan, phase: str, slot: int, lineup: int, j: int) -> dict[str, Any]:
    """What a game's id alone fixes: seed, seating and the tags but the setup's."""
    name, seats = plan.lineups[lineup]
    rotation = j % plan.players
    return {"seed": seed_of(plan, phase, slot, j),
            "seating": list(seats[rotation:] + seats[:rotation]),
            "phase": phase, "slot": slot, "lineup": name, "rotation": rotation,
            "players": plan.players, "env": plan.env_id}


def tasks_for(plan: Plan, phase: str, slot: int, cand: Candidate) -> list[GameTask]:
    """The games of one trial, finalist or confirmation candidate, lineup by lineup."""
    out = []
    for lineup in range(len(plan.lineups)):
        for j in range(plan.games_of(phase)):
            fixed = _fixed(plan, phase, slot, lineup, j)
            tags = {k: fixed[k] for k in ("phase", "slot", "lineup", "rotation", "players",
                                          "env")}
            tags["setup"] = cand.label
            out.append(GameTask(game=game_id(plan, phase, slot, lineup, j), env_id=plan.env_id,
                                config=cand.config, seating=tuple(fixed["seating"]),
                                specs=dict(plan.specs), seed=fixed["seed"], tags=tags))
    return out


class SearchGameRecord(RotatedRecord):
    """A search's record (:func:`otrio.arena.games.play_game` with the tags of
    :func:`tasks_for`): phase, slot (trial, finalist, or 0 = winner / 1 = default),
    lineup, rotation, player count, env and the setup's label."""

    phase: Literal["search", "final", "confirm"]
    slot: int = Field(ge=0)
    lineup: str
    env: str
    setup: str


def record_schema(plan: Plan) -> RecordSchema:
    """Every game id of the search with what the id fixes; the setup a trial played is
    checked once the optimiser has proposed it again (:func:`_mismatch`)."""
    games = {}
    for phase in PHASES:
        for slot in range(plan.slots(phase)):
            for lineup in range(len(plan.lineups)):
                for j in range(plan.games_of(phase)):
                    games[(game_id(plan, phase, slot, lineup, j),)] = plain(
                        _fixed(plan, phase, slot, lineup, j))
    return RecordSchema(name="search record", model=SearchGameRecord, unique_by=("game",),
                        games=games, replay=True)


def _mismatch(record: dict, task: GameTask) -> str | None:
    """Why ``record`` is not the record of ``task`` (None when it is): a field the task
    fixes that differs (and whether the record's own replay config is the task's, so that
    the record contradicts itself), or a replay config of another setup."""
    fields = task_fields(task)
    replay, want = record.get("replay"), fields["replay"]
    same_config = replay is None or (replay.get("env_id") == want["env_id"]
                                     and replay.get("config") == want["config"])
    for key, value in fields.items():
        got = record.get(key)
        if key != "replay" and json.dumps(got, sort_keys=True) != json.dumps(value, sort_keys=True):
            return (f"its '{key}' is {json.dumps(got)[:80]} where the search plays "
                    f"{json.dumps(value)[:80]}" + (
                        ", yet its replay config is that of the game the search plays: the "
                        "record contradicts itself" if replay is not None and same_config else ""))
    if not same_config:
        return f"its replay config is not that of setup {task.tags['setup']!r}, which the " \
               "search plays at this game"
    return None


def _line_of(path: Path, game: int) -> int | None:
    """The line of ``path`` that holds game ``game``'s record (None if none does)."""
    for number, record in enumerate(read_records(path), 1):
        if record.get("game") == game:
            return number
    return None


# ---------------------------------------------------------------- the objective
def lineup_arrays(records: list[dict], plan: Plan, phase: str) -> dict[str, np.ndarray]:
    """Per lineup, games x seats win shares in game order (j), NaN rows for undecided
    games; for the depth lineup, one column: the lone tier's share."""
    games = plan.games_of(phase)
    out = {}
    for name, seats in plan.lineups:
        width = 1 if name == plan.depth else plan.players
        arr = np.full((games, width), np.nan)
        for record in records:
            if record["lineup"] != name:
                continue
            j = (record["game"] - plan.first_id(phase)) % games
            if name == plan.depth:
                values = lone_shares([record], seats[0])
                if values:
                    arr[j, 0] = values[0]
            else:
                shares = win_shares(record)
                if shares is not None:
                    arr[j] = shares
        out[name] = arr
    return out


def objective_of_means(means: dict[str, np.ndarray], plan: Plan, tolerance: float,
                       depth_weight: float) -> dict[str, np.ndarray]:
    """The objective and its parts from mean shares (each ``(..., width)``): works on
    one set of games or a stack of bootstrap resamples alike."""
    fair = 1 / plan.players
    deviation = np.max(np.stack([np.max(np.abs(means[name] - fair), axis=-1)
                                 for name in plan.judged]), axis=0)
    unfair = np.maximum(0.0, deviation - tolerance)
    value = 100 * unfair
    edge = None
    if plan.depth is not None:
        edge = (means[plan.depth][..., 0] - fair) / (1 - fair)
        value = value - depth_weight * 100 * edge
    value = np.where(np.isfinite(value), value, WORST)
    return {"value": value, "deviation": deviation, "edge": edge}


def objective(records: list[dict], plan: Plan, phase: str, spec) -> dict[str, Any]:
    """The objective of one batch of games (see the module docstring), with its parts."""
    arrays = lineup_arrays(records, plan, phase)
    means = {name: np.nanmean(a, axis=0) if np.isfinite(a).any() else
             np.full(a.shape[1], np.nan) for name, a in arrays.items()}
    parts = objective_of_means(means, plan, spec.objective.seat_tolerance,
                               spec.objective.depth_weight)
    out = {"value": float(parts["value"]), "deviation": float(parts["deviation"])}
    if parts["edge"] is not None:
        out["edge"] = float(parts["edge"])
    return out


# ---------------------------------------------------------------- confirmation
def bootstrap(arrays: dict[str, dict[str, np.ndarray]], plan: Plan, spec, resamples: int,
              seed: int) -> dict[str, np.ndarray]:
    """Objective of each candidate over ``resamples`` paired resamples of the games
    (the same game indices for every candidate and lineup)."""
    games = plan.confirm_games
    rng = np.random.Generator(np.random.PCG64(seed))
    out: dict[str, list[np.ndarray]] = {c: [] for c in arrays}
    done = 0
    while done < resamples:
        size = min(BOOTSTRAP_CHUNK, resamples - done)
        index = rng.integers(0, games, size=(size, games))
        for name, lineups in arrays.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no decided game
                means = {lineup: np.nanmean(a[index], axis=1) for lineup, a in lineups.items()}
            out[name].append(objective_of_means(
                means, plan, spec.objective.seat_tolerance,
                spec.objective.depth_weight)["value"])
        done += size
    return {name: np.concatenate(values) for name, values in out.items()}


def preregistration(plan: Plan, cfg: BalanceConfig, winner: Candidate,
                    trials: list[Trial]) -> dict[str, Any]:
    """What the confirmation will test, fixed before its games are played."""
    spec = cfg.search
    trace = json.dumps([[t.number, list(t.point), t.value] for t in trials])
    return plain({
        "written": "before any confirmation game was played",
        "winner": {"label": winner.label, "config": winner.config},
        "default": {"label": plan.default.label, "config": plan.default.config},
        "lineups": [name for name, _ in plan.lineups], "judged": list(plan.judged),
        "games_per_lineup": plan.confirm_games,
        "seeds": f"derive_seed({cfg.seed}, 'confirm', j) for j < {plan.confirm_games}, "
                 "the same for both setups (paired); no search or final game used them",
        "objective": spec.objective.model_dump(mode="json"),
        "hypothesis": "the winner's objective is lower than the default's",
        "test": f"paired bootstrap over the game seeds, {spec.bootstrap} resamples "
                f"(seed derive_seed({cfg.seed}, 'bootstrap')), one-sided",
        "alpha": cfg.alpha,
        "decision": f"confirmed when the upper {1 - cfg.alpha:g} bound of objective(winner) - "
                    "objective(default) is below 0",
        "search_trace_sha256": hashlib.sha256(trace.encode()).hexdigest(),
    })


def confirm_analysis(records: list[dict], plan: Plan, cfg: BalanceConfig,
                     winner: Candidate) -> dict[str, Any]:
    """The pre-registered test and what a designer reads beside it, per candidate."""
    spec = cfg.search
    z = z_quantile(1 - cfg.alpha / 2)
    first = plan.first_id("confirm")
    per = len(plan.lineups) * plan.confirm_games
    names = {0: "winner", 1: "default"}
    by_cand = {names[s]: [r for r in records if (r["game"] - first) // per == s] for s in (0, 1)}
    arrays = {c: lineup_arrays(rs, plan, "confirm") for c, rs in by_cand.items()}
    boot = bootstrap(arrays, plan, spec, spec.bootstrap, derive_seed(cfg.seed, "bootstrap"))
    diff = boot["winner"] - boot["default"]
    point = {c: objective(rs, plan, "confirm", spec) for c, rs in by_cand.items()}
    observed = point["winner"]["value"] - point["default"]["value"]
    upper = float(np.quantile(diff, 1 - cfg.alpha))
    lo, hi = cfg.alpha / 2, 1 - cfg.alpha / 2
    candidates = {}
    for c, rs in by_cand.items():
        cand = winner if c == "winner" else plan.default
        lineups = []
        for name, seats in plan.lineups:
            mine = [r for r in rs if r["lineup"] == name]
            if name == plan.depth:
                lineups.append({"lineup": name, "depth": cell(lone_shares(mine, seats[0]),
                                                              plan.players, z)})
                continue
            decided = [s for r in mine if (s := win_shares(r)) is not None]
            shares = np.array(decided, dtype=float).reshape(-1, plan.players)
            test = seat_uniformity(shares)
            seat_rows = []
            for seat in range(plan.players):
                total = float(shares[:, seat].sum()) if len(shares) else 0.0
                low, high = wilson(total, len(shares), z)
                seat_rows.append({"seat": seat, "share": total / len(shares) if len(shares)
                                  else float("nan"), "low": low, "high": high})
            lineups.append({"lineup": name, "decided": len(shares), "seats": seat_rows,
                            "uniformity_p": test.p,
                            "deviation": max(abs(s["share"] - 1 / plan.players)
                                             for s in seat_rows)})
        candidates[c] = {
            "label": cand.label, "config": cand.config, "objective": point[c],
            "objective_low": float(np.quantile(boot[c], lo)),
            "objective_high": float(np.quantile(boot[c], hi)), "lineups": lineups}
    return plain({
        "candidates": candidates, "difference": observed,
        "difference_low": float(np.quantile(diff, lo)),
        "difference_high": float(np.quantile(diff, hi)), "upper_bound": upper,
        "p": float((1 + np.sum(diff >= 0)) / (len(diff) + 1)),
        "confirmed": bool(upper < 0), "same_setup": winner.config == plan.default.config,
        "resamples": len(diff), "alpha": cfg.alpha,
    })


# ---------------------------------------------------------------- running
def search_identity(cfg: BalanceConfig, plan: Plan) -> dict[str, Any]:
    """What makes a search the same search (its ``run.json``): the games it can play
    and how it chooses them; sweeps, outputs and parallelism are left out."""
    spec = cfg.search.model_dump(mode="json")
    spec.pop("output", None)
    return {"kind": "balance search", "game": plan.env_id, "game_config": cfg.game_config,
            "agents": plan.specs, "tiers": cfg.tiers, "lineup": cfg.lineup,
            "fill_lineup": cfg.fill_lineup, "seed": cfg.seed, "alpha": cfg.alpha,
            "search": spec, "workers": cfg.workers, "backend": cfg.backend,
            "ray_address": cfg.ray_address}


def check_agents(plan: Plan, reference: bool = False) -> None:
    """Every agent of the search can play its game (before any game is played); a
    reference agent only where ``reference`` (the config's) allows it."""

    env = envs.make(plan.env_id, **plan.default.config)
    for name, spec in sorted(plan.specs.items()):
        if spec == "human":
            raise ConfigError("human agents cannot play balance searches; use `otrio play`")
        try:
            agents.check_spec(spec, env, reference)
        except (ImportError, KeyError, AttributeError) as err:
            raise ConfigError(f"agent {name!r} = {spec!r} cannot play {plan.env_id} in this "
                              f"checkout ({type(err).__name__}: {err})") from None
        except ConfigError as err:
            raise ConfigError(f"search agent {name!r}: {err}") from None


class _Games:
    """The recorded games of the run and the writer of new ones."""

    def __init__(self, folder: Path, done: list[dict], cfg: BalanceConfig, total: int,
                 progress: bool):
        self.by_id = {r["game"]: r for r in done}
        self.path = folder / RECORDS_FILE
        self.cfg = cfg
        self.played = 0
        self.seconds = 0.0
        self.bar = None
        if progress:
            self.bar = tqdm(total=total, initial=len(self.by_id), unit="game",
                            desc="balance search")

    def play(self, tasks: list[GameTask]) -> list[dict]:
        """The records of ``tasks`` in order: recorded ones checked, the rest played."""
        todo = []
        for task in tasks:
            record = self.by_id.get(task.game)
            if record is None:
                todo.append(task)
                continue
            problem = _mismatch(record, task)
            if problem:
                line = _line_of(self.path, task.game)
                raise StateError(
                    f"{self.path} line {line}: the record of game {task.game} is tampered or "
                    f"inconsistent with this search: {problem} (the record was edited, or "
                    "written by another version of the search's code); nothing was changed: "
                    "remove the line to play the game again, or use a new output folder")
        if todo:
            start = time.perf_counter()
            with RecordWriter(self.path) as writer:
                for record in run_tasks(todo, self.cfg.workers, self.cfg.backend,
                                        self.cfg.ray_address):
                    writer.write(record)
                    self.by_id[record["game"]] = record
                    if self.bar:
                        self.bar.update(1)
            self.seconds += time.perf_counter() - start
            self.played += len(todo)
        return [self.by_id[t.game] for t in tasks]

    def close(self) -> None:
        if self.bar:
            self.bar.close()


def search_folder(cfg: BalanceConfig, output: str | None = None) -> Path:
    """Where a search writes: ``output``, else the section's ``output``, else the
    config's output (with ``_search`` appended when the config has sweeps too, whose
    folder that is)."""
    if output or cfg.search.output:
        return Path(output or cfg.search.output)
    return Path(f"{cfg.output}_search" if cfg.sweeps else cfg.output)


SETUP_SEARCH = register(RunKind(
    name="setup search", command="otrio balance (a search: section)", marker=RUN_FILE, files=(
        *GAME_RUN_FILES,
        RunFile(TIMING_FILE, "record", "the wall time of each call that played games"),
        RunFile(PREREGISTRATION_FILE, "record", "the confirmation registered before its "
                "games (checked against the search's own on every call)"),
        RunFile("summary.json", "derived", "the verdict, the search and its finalists"),
        RunFile("trace.csv", "derived", "every trial's objective"),
        RunFile("report.md", "derived", "the report"),
        RunFile("*.png", "derived", "the report's figures"))))


def run(cfg: BalanceConfig, output: str | None = None, progress: bool = True,
        command: str | None = None, repair: bool = False, verify: Verify = "all") -> Path:
    """Search, pick, confirm and report (resuming from the folder's records)."""
    plan = make_plan(cfg)
    check_agents(plan, cfg.reference)
    folder = search_folder(cfg, output)
    with RunFolder(SETUP_SEARCH, folder):
        _search(cfg, plan, folder, progress, command, repair, verify)
    return folder


def _search(cfg: BalanceConfig, plan: Plan, folder: Path, progress: bool, command: str | None,
            repair: bool, verify: Verify) -> None:
    spec = cfg.search
    schema = record_schema(plan)
    done = open_run(folder, search_identity(cfg, plan), RESUME_IGNORES, schema=schema,
                    repair=repair, verify=verify, progress=progress)
    games = _Games(folder, done, cfg, plan.total, progress)
    optimiser = make_optimiser(spec.optimizer, plan.levels, derive_seed(cfg.seed, "optimiser"),
                               exploration=spec.exploration, neighbours=spec.neighbours,
                               startup=spec.startup_trials, batch=spec.batch)
    trial_rows: list[dict[str, Any]] = []
    final_rows: list[dict[str, Any]] = []

    def evaluator(stage: str, games_each: int, rows: list[dict[str, Any]]):
        """The objective of a batch of points at ``stage`` ("search" trials or "final"
        re-plays), each point's games played together; one row per point into ``rows``."""
        def evaluate(numbers, points):
            cands = [candidate(plan, p) for p in points]
            records = games.play([t for n, c in zip(numbers, cands)
                                  for t in tasks_for(plan, stage, n, c)])
            per = len(plan.lineups) * games_each
            values = []
            for k, (n, c) in enumerate(zip(numbers, cands)):
                parts = objective(records[k * per:(k + 1) * per], plan, stage, spec)
                key = {"trial": n, "setup": c.label, "point": list(c.point)} if stage == "search" \
                    else {"finalist": k, "setup": c.label}
                rows.append({**key, **parts})
                values.append(parts["value"])
            return values
        return evaluate

    evaluate = evaluator("search", plan.games, trial_rows)
    evaluate_final = evaluator("final", plan.final_games, final_rows)

    try:
        trials = search_loop(optimiser, plan.trials, spec.batch, evaluate)
        point, finalists, _ = pick(optimiser, trials, plan.finalists, evaluate_final)
        winner = candidate(plan, point)
        prereg = preregistration(plan, cfg, winner, trials)
        path = folder / PREREGISTRATION_FILE
        if exists(path):  # read bounded, no link followed: a one-line error if it is no record
            saved = read_json(path, f"the search's pre-registration {path}", folder)
            if saved != prereg:
                raise StateError(f"{path} registered another confirmation than this search "
                                 "now makes (its winner or test differ): use a new output "
                                 "folder")
        else:
            write_atomic(path, (json.dumps(prereg, indent=1, sort_keys=True) + "\n").encode())
        confirm_records = games.play(tasks_for(plan, "confirm", 0, winner)
                                     + tasks_for(plan, "confirm", 1, plan.default))
    finally:
        games.close()
    ranking = optimiser.ranking(trials)
    result = {
        "plan": {"env": plan.env_id, "players": plan.players, "space": [
            {"name": f.name, "path": f.path, "levels": len(f.levels())} for f in plan.factors],
            "size": math.prod(plan.levels), "lineups": [n for n, _ in plan.lineups],
            "judged": list(plan.judged), "depth": plan.depth, "trials": plan.trials,
            "games_per_trial": plan.games, "finalists": plan.finalists,
            "final_games": plan.final_games, "confirm_games": plan.confirm_games,
            "optimizer": spec.optimizer, "batch": spec.batch, "agents": plan.specs,
            "seats": {name: list(seats) for name, seats in plan.lineups}},
        "trials": trial_rows,
        "ranking": [candidate(plan, p).label for p in ranking[:10]],
        "finalists": final_rows,
        "winner": {"label": winner.label, "config": winner.config},
        "confirm": confirm_analysis(confirm_records, plan, cfg, winner),
        "preregistration": prereg,
    }
    if games.played:
        with RecordWriter(folder / TIMING_FILE) as timing:
            timing.write({"games": games.played, "seconds": round(games.seconds, 1),
                          "workers": cfg.workers, "backend": cfg.backend})

    sessions = read_records(folder / TIMING_FILE, TIMING_SCHEMA)
    write_search_report(folder, cfg, result, sessions, command,
                        play_seconds=sum(r["wall_time"] for r in games.by_id.values()),
                        verification=done.verification)


__all__ = ["Candidate", "Plan", "candidate", "make_plan", "objective", "run", "search_folder"]
