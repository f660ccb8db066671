"""Self-play data for value models: cheap games, each seat's outcome as the label.

A value needs no search to label it: the game's end is the label. This module plays
seeded games between a *mixture* of fast seat policies and keeps, at positions sampled
across the whole game, **every seat's observation** with that seat's outcome:

- ``win``: the seat's win share (1 a sole winner, 1/k in a k-way tie, 0 otherwise; a
  game that every seat shares pays 1/n to each);
- ``margin``: the seat's final score minus the best rival's (raw points; the search's
  baseline judges a position by the same difference, taken mid-game);
- ``now``: that difference at the sampled position (the score-margin baseline that a
  value model must beat, :mod:`otrio.training.value_report`);
- ``progress``: the position's place in the game (its choice decision's index over the
  game's choice decisions, 0 at the first), for per-quarter reports;
- ``seat``, ``acting`` (the seat is the one to move), ``players``, ``game`` (its index
  in the run, so held-out sets split by game, never inside one).

**Seat policies** (:data:`POLICIES`): ``greedy`` (the game's heuristic, ties by the
game's generator), ``explore`` (greedy, but at a share ``eps`` of its decisions a
uniform pick among greedy's ``top`` best moves: the coverage a value needs of the
positions just off greedy's line) and ``random``; ``value:PATH`` seats the fast value
agent (:mod:`otrio.agents.value_agent`), exploring as ``explore`` does, so that a later round
learns from the positions its own choices lead to (DouZero's loop: a value fitted on
someone else's play is exploited by the argmax that chooses with it); ``net:PATH`` seats
an exported network (its favourite move, or at a share ``eps`` one of its ``top`` best).
Each seat of each game draws its policy from the mixture.

**Shards and records.** A run is a folder of shards (``shard_00000.npz``, numpy arrays,
no pickle) of ``shard_games`` games at one player count, and ``manifest.json``: the
config and, per shard written, its player count, rows and the digest of its arrays
(the files: :mod:`otrio.training.value_store`). A shard also keeps what
re-plays it: each game's seed, policies and actions; :func:`verify_shard` re-plays every
game through the engine (no agent) and checks every row and label, so data counts only
after it is verified (a resume verifies what it keeps; a fit verifies what it reads).

A shard depends on its task alone (the run's seed and the shard's index), so 1 worker,
N workers and Ray write the same data, and a run killed at any point resumes to the
same shards: those named in the manifest with a matching digest whose games re-play to
their rows are kept; the rest (torn, missing, altered) are played again, with a warning
naming each one that was named but did not hold.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator, model_validator
from tqdm import tqdm

from otrio import agents, envs
from otrio.agents.hints import encode
from otrio.agents.net import load_net
from otrio.agents.value_agent import parse_value_spec
from otrio.arena.parallel import run_ordered
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.bounded import read_bytes
from otrio.envs.core.config import EnvId, StrictModel, validate
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.paths import find_file
from otrio.envs.core.rng import derive_seed, make_rng

from .value_store import (
    DTYPES,
    MANIFEST,
    ROW_FIELDS,
    SPLIT,
    TEST,
    content_digest,
    read_manifest,
    read_shard,
    shard_path,
    split_tail,
    write_manifest,
    write_shard,
)

POLICIES = ("greedy", "explore", "random")  # plus value:PATH and net:PATH
MAX_MODEL_MANIFEST_BYTES = 1 << 20  # a seated model's manifest (the loaders' own bound)
# the rows one read may hold in memory (obs float32: 10 KB a row in Oceanos, 4 KB in
# Otys); the fit's max_gib sets its own
MAX_ROW_BYTES = 4 << 30


class ValueDataConfig(StrictModel):
    """What a value-data run plays (YAML; unknown keys refused)."""

    kind: str = "value_data"
    env: EnvId = "otys_v0"  # env id or short name
    config: dict[str, Any] = {}  # the game config, num_players aside
    players: list[int] = Field([2], min_length=1, max_length=16)  # counts, shards in turn
    games: int = Field(1000, ge=1, le=10_000_000)
    shard_games: int = Field(50, ge=1, le=100_000)
    positions: int = Field(12, ge=1, le=10_000)  # positions kept a game (each: every seat)
    seed: int = Field(0, ge=0, le=2**63 - 1)
    mixture: dict[str, float] = {"greedy": 1.0}  # policy -> weight (read in name order)
    eps: float = Field(0.1, ge=0, le=1)  # explore: share of decisions off greedy's best
    top: int = Field(3, ge=2, le=64)  # explore: among greedy's ``top`` best moves

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value != "value_data":
            raise ValueError(f"kind must be value_data, got {value!r}")
        return value

    @model_validator(mode="after")
    def _check(self) -> ValueDataConfig:
        if "num_players" in self.config:
            raise ValueError("config.num_players: give the counts in players")
        for n in self.players:  # each count with the game config: checked by the game
            envs.make(self.env, num_players=n, **self.config)
        if len(set(self.players)) != len(self.players):
            raise ValueError(f"players: a count is listed twice ({self.players})")
        weights = list(self.mixture.values())
        if not self.mixture or not all(math.isfinite(w) and w > 0 for w in weights) \
                or not math.isfinite(sum(weights)):
            raise ValueError("mixture: give each policy a finite weight > 0 (their sum "
                             "finite too)")
        for name in self.mixture:
            if name not in POLICIES and not name.startswith(("value:", "net:")):
                raise ValueError(f"mixture policy {name!r} is unknown "
                                 f"(known: {', '.join(POLICIES)}, value:PATH, net:PATH)")
            if name.startswith(("value:", "net:")) and not name.partition(":")[2].split(",")[0]:
                raise ValueError(f"mixture policy {name!r} names no file: value:PATH or "
                                 "net:PATH")
        return self

    def shard_count(self) -> int:
        """Shards of the run (the last one may hold fewer games)."""
        return -(-self.games // self.shard_games)


SMOKE_GAMES = 12  # a smoke run's games: test, validation and train games of every count


def smoke_config(cfg: ValueDataConfig) -> ValueDataConfig:
    """``cfg`` sized to seconds (``otrio value data --smoke``): a few games in small shards,
    few positions a game; the game, counts, mixture and seed as given."""
    games = max(SMOKE_GAMES, 3 * len(cfg.players))
    return cfg.model_copy(update={"games": min(cfg.games, games),
                                  "shard_games": min(cfg.shard_games, 4),
                                  "positions": min(cfg.positions, 4)})


@dataclass(frozen=True)
class ShardTask:
    """One shard: its index, the run's config and the games it plays."""

    index: int
    cfg: ValueDataConfig
    num_players: int
    first_game: int
    games: int

    def seed(self, g: int) -> int:
        """The seed of game ``g`` of the run (its deal and every draw of its policies)."""
        return derive_seed(self.cfg.seed, "value-data", g)


def shard_tasks(cfg: ValueDataConfig) -> list[ShardTask]:
    """The run's shards, player counts taken in turn."""
    tasks = []
    for k in range(cfg.shard_count()):
        first = k * cfg.shard_games
        tasks.append(ShardTask(k, cfg, cfg.players[k % len(cfg.players)], first,
                               min(cfg.shard_games, cfg.games - first)))
    return tasks


# ------------------------------------------------------------------ playing
class _Seats:
    """The policies of one process, built once: greedy, and any value agents and
    networks."""

    def __init__(self, env):
        self.env = env
        self.game = env.unwrapped.game
        self.cap = self.game.decision_cap(env.unwrapped.config)  # a game's most decisions
        self.greedy = agents.make("greedy", env)
        self.values: dict[str, Any] = {}
        self.nets: dict[str, Any] = {}
        self.row = np.zeros(self.game.info.observation_size, np.float32)

    def value_agent(self, name: str):
        if name not in self.values:
            self.values[name] = agents.make(name, self.env)
        return self.values[name]

    def net_ranked(self, name: str, state, seat: int, legal: list[int]) -> list[int]:
        """``legal`` from the network's favourite down (``net:PATH``; its logits for the
        seat's observation, with greedy's hints where it reads them)."""
        if name not in self.nets:
            net, manifest = load_net(name[4:], self.env, hints_ok=True)
            self.nets[name] = (net, manifest.hints is not None)
        net, hinted = self.nets[name]
        self.game.observe(state, seat, self.row)
        observation = self.row
        if hinted:
            values = self.greedy.values_of_view(self.game.view(state, seat), legal)
            observation = np.concatenate([observation, encode(values, self.game.info.num_actions)])
        logits = net.logits(observation)
        return sorted(legal, key=lambda a: -logits[a])

    def choose(self, policy: str, state, seat: int, legal: list[int], rng, cfg,
               turn_start: bool = True) -> int:
        """``policy``'s move for ``seat`` (``rng``: the game's, for ties and exploration;
        ``turn_start``: the decision is the first of the seat's turn)."""
        if policy == "random":
            return legal[int(rng.integers(len(legal)))]
        explore = policy != "greedy" and rng.random() < cfg.eps
        if policy.startswith("value:") and not explore:
            return self.value_agent(policy).choose_state(state, seat, legal, rng, turn_start)
        if policy.startswith("net:"):  # its favourite, or with eps one of its top moves
            ranked = self.net_ranked(policy, state, seat, legal)
            return ranked[int(rng.integers(min(cfg.top, len(ranked))))] if explore else ranked[0]
        values = self.greedy.values_of_view(self.game.view(state, seat), legal)
        if explore:
            ranked = sorted(legal, key=lambda a: -values.get(a, -np.inf))
            return ranked[int(rng.integers(min(cfg.top, len(ranked))))]
        best = max(values.get(a, -np.inf) for a in legal)
        ties = [a for a in legal if values.get(a, -np.inf) >= best - 1e-9]
        return ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]


_SEATS: dict[str, _Seats] = {}


def _env_for(task: ShardTask):
    key = f"{task.cfg.env}|{task.num_players}|{json.dumps(task.cfg.config, sort_keys=True)}"
    if key not in _SEATS:
        _SEATS[key] = _Seats(envs.make(task.cfg.env, num_players=task.num_players,
                                       **task.cfg.config))
    return _SEATS[key]


def win_shares(winners: list[int], n: int) -> list[float]:
    """Each seat's share of the victory: 1/k to each of k winners, 0 to the others
    (no winner: a truncated game, 0 to all)."""
    won = set(winners)
    return [1.0 / len(won) if s in won else 0.0 for s in range(n)]


def margins(scores: list[int]) -> list[int]:
    """Each seat's score minus the best rival's."""
    return [scores[s] - max(scores[t] for t in range(len(scores)) if t != s)
            for s in range(len(scores))]


def _policies(cfg: ValueDataConfig, n: int, rng) -> list[int]:
    names = sorted(cfg.mixture)
    weights = np.array([cfg.mixture[k] for k in names], float)
    return [int(rng.choice(len(names), p=weights / weights.sum())) for _ in range(n)]


def _observe_all(seats: _Seats, state, n: int) -> tuple[np.ndarray, list[int]]:
    """Every seat's observation of ``state`` and each seat's score margin now."""
    obs = np.zeros((n, seats.game.info.observation_size), np.float32)
    for seat in range(n):
        seats.game.observe(state, seat, obs[seat])
    return obs, margins(list(state.scores()))


def play_game(seats: _Seats, cfg: ValueDataConfig, n: int, seed: int) -> dict[str, Any]:
    """One game of the mixture: its policies (indices into the sorted mixture names),
    actions and result, and ``cfg.positions`` of its choice decisions drawn uniformly (reservoir
    sampling, so the game is observed once, as it is played): each one's step, its
    index among the choice decisions, every seat's observation and margin there."""
    env = seats.env
    rng = make_rng(derive_seed(seed, "seats"))
    policies = _policies(cfg, n, rng)
    names = sorted(cfg.mixture)
    env.reset(seed=seed)
    state = env.unwrapped.state_
    actions: list[int] = []
    kept: list[tuple] = []  # (step, choice index, observations, margins now)
    choices = 0
    limit = seats.cap
    mover = None  # the seat of the last decision
    while not state.is_terminal() and len(actions) < limit:
        legal, seat = state.legal_actions(), state.current_player()
        first, mover = seat != mover, seat
        if len(legal) > 1:
            slot = choices if choices < cfg.positions else int(rng.integers(choices + 1))
            if slot < cfg.positions:
                entry = (len(actions), choices, seat, *_observe_all(seats, state, n))
                kept.append(entry) if slot == len(kept) else kept.__setitem__(slot, entry)
            action = seats.choose(names[policies[seat]], state, seat, legal, rng, cfg, first)
            choices += 1
        else:
            action = legal[0]
        state.apply_action(action)
        actions.append(action)
    finished = state.is_terminal()
    return {"policies": policies, "actions": actions, "choices": choices,
            "kept": sorted(kept, key=lambda e: e[0]), "scores": list(state.scores()),
            "winners": list(state.winners()) if finished else []}


def game_rows(played: dict[str, Any], g: int, n: int) -> dict[str, list]:
    """The rows of one played game: every seat at each kept position, with its labels."""
    win = win_shares(played["winners"], n)
    final = margins(played["scores"])
    total = max(1, played["choices"])
    out: dict[str, list] = {k: [] for k in ROW_FIELDS}
    for _, index, mover, obs, now in played["kept"]:
        for seat in range(n):
            for key, value in (("obs", obs[seat]), ("seat", seat), ("acting", seat == mover),
                               ("players", n), ("game", g), ("progress", index / total),
                               ("now", now[seat]), ("win", win[seat]), ("margin", final[seat])):
                out[key].append(value)
    return out


def replay_game(seats: _Seats, seed: int, actions: list[int], steps: list[int], g: int,
                n: int) -> dict[str, Any]:
    """Re-play a game's recorded actions through the engine alone (no policy): what
    :func:`play_game` returns for it, with each kept step's mover; StateError for an
    illegal action or a kept step where the mover had no choice."""
    env = seats.env
    env.reset(seed=seed)
    state = env.unwrapped.state_
    wanted = set(steps)
    kept, choices = [], 0
    for step, action in enumerate(actions):
        legal = state.legal_actions()
        if step in wanted:
            if len(legal) < 2:
                raise StateError(f"game {g}: step {step} is kept but had no choice")
            kept.append((step, choices, state.current_player(), *_observe_all(seats, state, n)))
        choices += len(legal) > 1
        if action not in legal:
            raise StateError(f"game {g}: action {action} at step {step} is not legal")
        state.apply_action(action)
    if not state.is_terminal() and len(actions) < seats.cap:
        raise StateError(f"game {g} stops before its end")
    return {"actions": list(actions), "choices": choices, "kept": kept,
            "scores": list(state.scores()),
            "winners": list(state.winners()) if state.is_terminal() else []}


def play_shard(task: ShardTask) -> dict[str, np.ndarray]:
    """Play ``task``'s games; the shard's arrays (rows, and what re-plays them)."""
    seats = _env_for(task)
    n, size = task.num_players, seats.game.info.observation_size
    rows: dict[str, list] = {k: [] for k in ROW_FIELDS}
    seeds, policies, actions, offsets, scores, steps, kept = [], [], [], [0], [], [], []
    start = time.perf_counter()
    for g in range(task.first_game, task.first_game + task.games):
        seed = task.seed(g)
        played = play_game(seats, task.cfg, n, seed)
        for key, values in game_rows(played, g, n).items():
            rows[key].extend(values)
        seeds.append(seed)
        policies.append(played["policies"])
        actions.extend(played["actions"])
        offsets.append(len(actions))
        scores.append(played["scores"])
        steps.extend(e[0] for e in played["kept"])
        kept.append(len(played["kept"]))
    arrays = {k: np.asarray(rows[k], DTYPES[k]) for k in ROW_FIELDS}
    arrays["obs"] = arrays["obs"].reshape(-1, size)
    arrays.update(seeds=np.asarray(seeds, np.uint64), policies=np.asarray(policies, np.int8),
                  actions=np.asarray(actions, np.int16), offsets=np.asarray(offsets, np.int64),
                  scores=np.asarray(scores, np.int32), steps=np.asarray(steps, np.int32),
                  kept=np.asarray(kept, np.int32),
                  seconds=np.asarray([time.perf_counter() - start], np.float64))
    return arrays


def verify_shard(task: ShardTask, arrays: dict[str, np.ndarray]) -> None:
    """Re-play every game of a shard through the engine alone (no policy: cheap) and
    check each row and label against it: StateError naming the first difference. The
    policies that chose the moves are not re-run; any legal game's outcome is a true
    label of its positions."""
    seats = _env_for(task)
    n = task.num_players
    offsets, kept = arrays["offsets"], arrays["kept"]
    if not (len(arrays["seeds"]) == len(kept) == task.games and len(offsets) == task.games + 1
            and offsets[0] == 0 and np.all(np.diff(offsets) >= 0)
            and offsets[-1] == len(arrays["actions"]) and kept.sum() == len(arrays["steps"])
            and np.all(kept >= 0)):
        raise StateError(f"shard {task.index} is not laid out as {task.games} games")
    row, first = 0, 0
    for k in range(task.games):
        g = task.first_game + k
        seed = int(arrays["seeds"][k])
        if seed != task.seed(g):
            raise StateError(f"game {g} of shard {task.index} has another seed than its task")
        steps = arrays["steps"][first:first + int(kept[k])].tolist()
        first += int(kept[k])
        played = replay_game(seats, seed, arrays["actions"][offsets[k]:offsets[k + 1]].tolist(),
                             steps, g, n)
        if played["scores"] != arrays["scores"][k].tolist():
            raise StateError(f"game {g} of shard {task.index} re-plays to other scores")
        want = game_rows(played, g, n)
        count = len(want["seat"])
        for key in ROW_FIELDS:
            have = arrays[key][row:row + count]
            if have.shape[0] != count or not np.array_equal(
                    have, np.asarray(want[key], DTYPES[key]).reshape(have.shape)):
                raise StateError(f"shard {task.index}, game {g}: its {key!r} rows are not "
                                 "what the game re-plays to")
        row += count
    if row != len(arrays["seat"]):
        raise StateError(f"shard {task.index} has {len(arrays['seat']) - row} rows of no game")


def _saved_config(path: Path, saved: dict[str, Any]) -> ValueDataConfig:
    """The config a manifest was written by, every key of it (a run writes them all):
    StateError naming the manifest and the field otherwise."""
    config = saved["config"]
    missing = [k for k in ValueDataConfig.model_fields if k not in config]
    if missing:
        raise StateError(f"{path} holds no value-data config: its config lacks "
                         f"{', '.join(repr(k) for k in missing)}")
    try:
        return validate(ValueDataConfig, config)
    except ConfigError as err:
        raise StateError(f"{path} holds no value-data config: "
                         f"{str(err).splitlines()[0][:300]}") from None


def _entry(task: ShardTask, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """A shard's entry in the manifest, from the shard itself (its wall time aside, all
    of it covered by the digest)."""
    try:  # the one array the digest leaves out: a wall time that is not one counts 0
        seconds = np.asarray(arrays["seconds"], dtype=float).ravel()
        spent = float(seconds[0]) if seconds.size == 1 and 0 <= seconds[0] < 1e12 else 0.0
    except (TypeError, ValueError):
        spent = 0.0
    return {"players": task.num_players, "games": task.games,
            "rows": int(len(arrays["seat"])), "positions": int(arrays["kept"].sum()),
            "seconds": round(spent, 3), "digest": content_digest(arrays)}


def model_digests(cfg: ValueDataConfig) -> dict[str, str]:
    """The sha256 of each model the mixture seats (``value:PATH`` and the network of its
    ``net=`` option; ``net:PATH``): a model fitted again in place is another policy, so a
    run that seated it is another run."""

    out = {}
    for name in sorted(cfg.mixture):
        if name.startswith(("value:", "net:")):
            spec = parse_value_spec(name[6:]) if name.startswith("value:") else None
            model, net = (spec.path, spec.net) if spec else (name[4:], None)
            digest = hashlib.sha256()
            for file in filter(None, (model, net)):
                path = find_file(Path(file).with_suffix(".json"))
                if path.is_file() or path.is_symlink():  # read as the loaders read it:
                    # bounded, no link followed (a manifest is a small JSON file)
                    digest.update(read_bytes(path, MAX_MODEL_MANIFEST_BYTES, f"the model "
                                             f"manifest {path} of {name!r}",
                                             follow_symlinks=False))
            out[name] = digest.hexdigest()
    return out


def _write_manifest(folder: Path, cfg: ValueDataConfig, shards: dict[str, dict]) -> None:
    write_manifest(folder, cfg.model_dump(), model_digests(cfg), shards)


VALUE_DATA = register(RunKind(
    name="value-data run", command="otrio value data", marker=MANIFEST, files=(
        RunFile(MANIFEST, "marker", "the run's config, the digests of the models it seats, "
                "and each shard's entry (its digest among them)"),
        RunFile("shard_*.npz", "record", "a shard's rows and what re-plays its games: "
                "matched to its digest and re-played before it counts, played again if "
                "either fails"))))


def generate(cfg: ValueDataConfig, folder: str | Path, workers: int = 1, backend: str = "local",
             ray_address: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Play (or resume) the run into ``folder``: every shard of the config, verified.
    Returns the summary (games, rows, positions a second)."""
    run = RunFolder(VALUE_DATA, folder, "value-data run folder")
    run.check()
    folder = Path(folder)
    with run:
        saved = read_manifest(folder)
        shards: dict[str, dict] = {}
        if saved is not None:
            if saved["config"] != cfg.model_dump():
                raise ConfigError(f"{folder} holds a value-data run of another config; "
                                  "use another folder")
            if saved.get("models", {}) != model_digests(cfg):
                raise ConfigError(f"{folder} was played by other value models than the ones "
                                  "the config names now (fitted again?); use another folder")
        saved_shards = saved["shards"] if saved is not None else {}
        tasks = shard_tasks(cfg)
        todo = []
        for task in tasks:  # the manifest keeps the run's tasks only, each from its shard
            entry = saved_shards.get(str(task.index))
            path = shard_path(folder, task.index)
            if entry is not None and (path.exists() or path.is_symlink()):
                try:
                    arrays = read_shard(path)
                    if content_digest(arrays) != entry["digest"]:
                        raise StateError(f"{path} does not match its digest in the manifest")
                    verify_shard(task, arrays)
                    shards[str(task.index)] = _entry(task, arrays)
                    continue
                except StateError as err:  # played again: a shard depends on its task alone
                    warnings.warn(f"{err}; shard {task.index} is played again", stacklevel=2)
            todo.append(task)
        seconds = 0.0
        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), unit="shard",
                   desc=f"{cfg.env} value data", disable=not progress)
        for task, arrays in zip(todo, run_ordered(play_shard, todo, workers, backend,
                                                  ray_address, chunksize=1)):
            write_shard(shard_path(folder, task.index), arrays)
            seconds += float(arrays["seconds"][0])
            shards[str(task.index)] = _entry(task, arrays)
            _write_manifest(folder, cfg, shards)
            bar.update(1)
        bar.close()
        _write_manifest(folder, cfg, shards)
    done = list(shards.values())
    positions = sum(s["positions"] for s in done)
    return {"folder": str(folder), "games": sum(s["games"] for s in done), "positions": positions,
            "rows": sum(s["rows"] for s in done),
            "positions_per_core_second": round(positions / max(1e-9, sum(
                s["seconds"] for s in done)), 1), "played_now": len(todo),
            "core_seconds_now": round(seconds, 1)}


SCALAR_BYTES = sum(np.dtype(DTYPES[k]).itemsize for k in ROW_FIELDS if k != "obs")
OBS_ITEM_BYTES = np.dtype(DTYPES["obs"]).itemsize


def obs_width(cfg: ValueDataConfig) -> int:
    """The observation's length in a run of ``cfg``."""

    return envs.make(cfg.env, **cfg.config).unwrapped.game.info.observation_size


def row_bytes(cfg: ValueDataConfig) -> int:
    """The bytes one row of a run of ``cfg`` takes in memory (its observation and its
    scalar fields, as stored)."""
    return SCALAR_BYTES + obs_width(cfg) * OBS_ITEM_BYTES


def saved_run(folder: str | Path) -> tuple[ValueDataConfig, dict[int, dict[str, Any]]]:
    """The config of the value-data run in ``folder`` and its manifest's shard entries by
    index (ConfigError if the folder holds no run; StateError if its manifest names a
    shard no task of its config plays)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is no value-data run folder (no such folder)")
    saved = read_manifest(folder)
    if saved is None:
        raise ConfigError(f"{folder} holds no value-data run (no {MANIFEST})")
    path = folder / MANIFEST
    cfg = _saved_config(path, saved)
    entries = {int(k): v for k, v in saved["shards"].items()}
    tasks = {t.index: t for t in shard_tasks(cfg)}
    for index, entry in entries.items():
        task = tasks.get(index)
        if task is None or entry["games"] != task.games or entry["players"] != task.num_players:
            raise StateError(f"{path} names shard {index}, which no task of its config plays "
                             f"as listed (its config asks for {cfg.games} games in "
                             f"{len(tasks)} shards): the manifest was changed; play the run "
                             "again")
    return cfg, entries


def data_runs(folders: list[str | Path], partial: bool = False
              ) -> list[tuple[Path, ValueDataConfig, dict[int, dict[str, Any]]]]:
    """The value-data runs a fit or a gate reads, each checked before a row is read: a
    run whose shards are not all in its manifest (interrupted, or an entry lost) is
    refused unless ``partial`` (then a warning names what is missing); runs of two games,
    or of observations of two widths, are refused. ``(folder, config, entries)`` each."""
    runs = [(Path(f), *saved_run(f)) for f in folders]
    for folder, cfg, entries in runs:
        count = cfg.shard_count()
        missing = [k for k in range(count) if k not in entries]
        if missing and not partial:
            raise ConfigError(f"{folder} is an unfinished value-data run: {len(missing)} of "
                              f"its {count} shards are not in its manifest (first: shard "
                              f"{missing[0]}); finish it (otrio value data), or pass "
                              "--partial to use the shards it has")
        if missing:
            warnings.warn(f"{folder}: a partial run, {count - len(missing)} of {count} shards "
                          f"({sum(e['games'] for e in entries.values())} of {cfg.games} "
                          "games)", stacklevel=2)
    kinds = {(cfg.env, obs_width(cfg)) for _, cfg, _ in runs}
    if len(kinds) > 1:
        shown = "; ".join(f"{folder} holds {cfg.env} games" for folder, cfg, _ in runs)
        raise ConfigError(f"the value-data runs are of different games or observations: "
                          f"{shown}; give runs of one game")
    return runs


def first_tasks(tasks: list[ShardTask], max_games: int) -> list[ShardTask]:
    """The first of ``tasks`` (in order) that hold ``max_games`` games: whole shards, so
    the last may take the count past it."""
    games, first = 0, []
    for task in tasks:
        if games >= max_games:
            break
        first.append(task)
        games += task.games
    return first


def load_rows(folder: str | Path, players: list[int] | None = None, max_rows: int = 3_000_000,
              verify: bool = True, max_games: int | None = None,
              max_bytes: int = MAX_ROW_BYTES, obs_of: str = "all") -> dict[str, np.ndarray]:
    """The rows of a run's shards (of the given player counts; with ``max_games``, of its
    first shards only, player counts in turn), each shard's digest checked against the
    manifest and, with ``verify``, its games re-played. With ``obs_of="test"`` only the
    test games' rows (game index ending in 0) keep their observation: ``obs`` then holds
    those rows alone, in order (what a gate needs, a tenth of the memory). Refused with a
    :class:`ConfigError` before the rows would exceed ``max_rows`` or ``max_bytes``
    (from the manifest's counts, before anything is read): a run too big to hold in
    memory says so instead of exhausting it. The arrays are allocated once at their
    final size and filled shard by shard."""
    if obs_of not in ("all", "test"):
        raise ValueError(f"obs_of is 'all' or 'test', not {obs_of!r}")
    folder = Path(folder)
    cfg, entries = saved_run(folder)
    tasks = [t for t in shard_tasks(cfg) if t.index in entries
             and (players is None or t.num_players in players)]
    if max_games is not None:
        tasks = first_tasks(tasks, max_games)
    if not tasks:
        raise ConfigError(f"{folder} has no shard of {players or cfg.players} players")
    counts = [int(entries[t.index]["rows"]) for t in tasks]
    total = sum(counts)
    width = obs_width(cfg)
    if obs_of == "all":
        with_obs = total
    else:  # a shard's rows in proportion to its test games (a game's rows: positions x seats)
        with_obs = sum(-(-c * _test_games(t) // t.games) for t, c in zip(tasks, counts))
    size = total * SCALAR_BYTES + with_obs * width * OBS_ITEM_BYTES
    if total > max_rows or size > max_bytes:
        raise ConfigError(
            f"{folder}: {total:,} rows of {len(tasks)} shards need {size / 2**30:.1f} GiB, over "
            f"max_rows={max_rows:,} or {max_bytes / 2**30:.1f} GiB; read fewer games (the "
            "fit's and the gate's max_games) or allow more (max_rows, max_gib)")
    out = {k: np.empty(total, DTYPES[k]) for k in ROW_FIELDS if k != "obs"}
    obs = np.empty((total, width), DTYPES["obs"]) if obs_of == "all" else None
    test_obs: list[np.ndarray] = []
    at = 0
    for task, count in zip(tasks, counts):
        path = shard_path(folder, task.index)
        arrays = read_shard(path)
        if content_digest(arrays) != entries[task.index]["digest"]:
            raise StateError(f"{path} does not match its digest in the manifest")
        if verify:
            verify_shard(task, arrays)
        if len(arrays["game"]) != count or arrays["obs"].shape[1:] != (width,):
            raise StateError(f"{path} holds {len(arrays['game'])} rows of "
                             f"{arrays['obs'].shape[1:]}, its manifest {count} of ({width},)")
        for key in out:
            out[key][at:at + count] = arrays[key]
        if obs is not None:
            obs[at:at + count] = arrays["obs"]
        else:
            test_obs.append(arrays["obs"][split_tail(arrays["game"]) == TEST])
        at += count
    out["obs"] = obs if obs is not None else (
        np.concatenate(test_obs) if test_obs else np.empty((0, width), DTYPES["obs"]))
    return out


def _test_games(task: ShardTask) -> int:
    """How many of a shard's games are test games (:func:`value_store.split_tail`)."""
    first, stop = task.first_game, task.first_game + task.games
    return (stop - 1 - TEST) // SPLIT - (first - 1 - TEST) // SPLIT


__all__ = ["POLICIES", "ShardTask", "ValueDataConfig", "data_runs", "first_tasks", "generate",
           "load_rows",
           "margins", "model_digests", "play_shard", "saved_run", "shard_tasks", "verify_shard",
           "win_shares"]
