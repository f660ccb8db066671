"""Balance sweeps: ``otrio balance configs/balance/FILE.yaml``.

A sweep plays many *setups* of a game (a kraken triple, the sides of the sponsor
tiles, a player count), each for ``games_per_setup`` games by the configured agents
with seats rotated as in tournaments: setup game ``j`` uses lineup rotation
``j mod n`` and the seed ``derive_seed(seed, sweep name, setup index, j)``, so adding
a sweep or a setup never changes another setup's games. Setups come from an explicit
list or from the product of named factors; each factor writes its value at a dotted
path of the game config (``kraken.values.0``; integers index lists) and gives the
setup its *features* for the regression:

- ``linear`` (default for numbers): the value itself (effect per unit);
- ``categorical`` (default for text): one 0/1 feature per level but the first;
- ``position`` (default for lists, e.g. a tile order): the level (1-based position)
  of each item, ``name[item]``.

Each record carries its setup's sweep, label, index, player count and features as
tags, so the analysis (``balance_summary``) reads everything from the records. The
run folder is resumable exactly as a tournament's; see ``agents/records.py``.
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from agents.arena import GameTask
from agents.records import (
    RECORDS_FILE,
    RecordSchema,
    RecordWriter,
    Verify,
    open_run,
    read_records,
    write_atomic,
)
from agents.run_lock import RunLock
from envs.core.config import StrictModel, load_yaml, validate
from envs.core.errors import ConfigError
from envs.core.paths import find_file, rebase_spec, where_looked
from envs.core.rng import derive_seed

from .play import ExecutionOptions, GameRecord, play_into, task_fields

SETUPS_FILE = "setups.json"
TIMING_FILE = "timing.jsonl"  # wall time of each invocation that played games
RESUME_IGNORES = ("workers", "backend", "ray_address", "output")
Coding = Literal["auto", "linear", "categorical", "position"]


class Factor(StrictModel):
    """One named factor of a product sweep: where its value goes and which values it takes."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    path: str  # dotted key in the game config; integer parts index lists
    values: list[Any] | None = None
    permutations_of: list[Any] | None = None  # every ordering of these items, instead of values
    coding: Coding = "auto"
    labels: dict[str, str] = Field(default_factory=dict)  # value (as text) -> short label

    @model_validator(mode="after")
    def _one_source(self):
        if (self.values is None) == (self.permutations_of is None):
            raise ValueError(f"factor {self.name!r} needs exactly one of values / permutations_of")
        if self.values is not None and len(self.values) < 1:
            raise ValueError(f"factor {self.name!r} has no values")
        return self

    def levels(self) -> list[Any]:
        """The values this factor takes, in order."""
        if self.permutations_of is not None:
            return [list(p) for p in itertools.permutations(self.permutations_of)]
        return list(self.values)

    def resolved_coding(self) -> str:
        """The coding, with ``auto`` resolved from the values."""
        if self.coding != "auto":
            return self.coding
        levels = self.levels()
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in levels):
            return "linear"
        if all(isinstance(v, (list, tuple)) for v in levels):
            return "position"
        return "categorical"


class SetupSpec(StrictModel):
    """One setup of an explicit list: its label, config changes and features."""

    label: str
    config: dict[str, Any] = Field(default_factory=dict)  # merged over the sweep's game config
    features: dict[str, float] = Field(default_factory=dict)


class Sweep(StrictModel):
    """A family of setups: a product of factors or an explicit list."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    game: str | None = None  # env id; default: the config's
    game_config: dict[str, Any] = Field(default_factory=dict)  # merged over the config's
    lineup: list[str] | None = None
    fill_lineup: bool | None = None
    games_per_setup: int | None = Field(None, ge=1)
    factors: list[Factor] = Field(default_factory=list)
    setups: list[SetupSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_kind(self):
        if bool(self.factors) == bool(self.setups):
            raise ValueError(f"sweep {self.name!r} needs exactly one of factors / setups")
        names = [f.name for f in self.factors]
        if len(set(names)) != len(names):
            raise ValueError(f"sweep {self.name!r} repeats a factor name: {names}")
        return self


class BalanceConfig(ExecutionOptions):
    """A balance study: agents, lineup, sweeps of setups, games per setup, seed, parallelism."""

    game: str | None = None  # env id used by sweeps that name none
    game_config: dict[str, Any] = Field(default_factory=dict)
    agents: dict[str, str]  # name -> spec (random, greedy, ppo:PATH)
    lineup: list[str]  # one agent name per seat (cycled to the player count with fill_lineup)
    fill_lineup: bool = False
    games_per_setup: int = Field(1000, ge=1)
    seed: int = Field(0, ge=0)
    alpha: float = Field(0.05, gt=0, lt=1)  # level of every test and interval
    power: float = Field(0.8, gt=0, lt=1)  # for the power calculation
    target_advantage: float = Field(0.05, gt=0, lt=1)  # seat advantage to detect (share)
    sweeps: list[Sweep] = Field(min_length=1)
    output: str = "runs/balance"

    @model_validator(mode="after")
    def _consistent(self):
        names = [s.name for s in self.sweeps]
        if len(set(names)) != len(names):
            raise ValueError(f"sweep names must be unique: {names}")
        for sweep in self.sweeps:
            if (sweep.game or self.game) is None:
                raise ValueError(f"sweep {sweep.name!r} names no game and the config has none")
            unknown = [n for n in (sweep.lineup or self.lineup) if n not in self.agents]
            if unknown:
                raise ValueError(f"lineup names {unknown} are not in agents {sorted(self.agents)}")
        return self


@dataclass(frozen=True)
class Setup:
    """One setup to play: its game, full config, seating lineup, features and game count."""

    sweep: str
    index: int  # position within its sweep
    label: str
    env_id: str
    config: dict[str, Any]
    lineup: tuple[str, ...]
    features: dict[str, float]
    games: int
    factor_names: tuple[str, ...] = field(default=())

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.lineup)


def load_config(path: str | Path, **overrides: Any) -> BalanceConfig:
    """Read a YAML balance config; ``overrides`` (not None) replace its keys.

    A ``games_per_setup`` override applies to every sweep (it replaces sweep values).
    ``path`` and the files its agent specs name follow :mod:`envs.core.paths`, as a
    tournament's (:func:`benchmarks.tournament.load_config`).
    """
    path = find_file(path)
    data = load_yaml(path, "balance config", where_looked(path)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"balance config {path} must be a mapping")
    if overrides.get("games_per_setup") is not None:
        for sweep in data.get("sweeps") or []:
            if isinstance(sweep, dict):
                sweep.pop("games_per_setup", None)
    data.update({k: v for k, v in overrides.items() if v is not None})
    cfg = validate(BalanceConfig, data)
    folder = path.resolve().parent
    return cfg.model_copy(update={"agents": {name: rebase_spec(spec, folder)
                                             for name, spec in cfg.agents.items()}})


# ---------------------------------------------------------------- setups
def deep_merge(base: dict, extra: dict) -> dict:
    """A copy of ``base`` with ``extra`` merged in (nested dicts merge, the rest replaces)."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def set_path(config: dict, path: str, value: Any) -> None:
    """Set ``value`` at a dotted ``path``; integer parts index lists (grown as needed)."""
    parts = path.split(".")
    node: Any = config
    for part, following in zip(parts, parts[1:] + [None]):
        key: Any = int(part) if part.isdigit() else part
        if isinstance(key, int):
            if not isinstance(node, list):
                raise ConfigError(f"path {path!r}: {part} indexes a list, found {node!r}")
            node.extend([None] * (key + 1 - len(node)))
        elif not isinstance(node, dict):
            raise ConfigError(f"path {path!r}: {part!r} needs a mapping, found {node!r}")
        if following is None:
            node[key] = copy.deepcopy(value)
            return
        child = node[key] if isinstance(key, int) else node.get(key)
        if child is None or (following.isdigit() and not isinstance(child, list)):
            child = [] if following.isdigit() else {}
            node[key] = child
        elif isinstance(child, tuple):
            child = list(child)
            node[key] = child
        node = child


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
        return "".join(items) if all(len(s) == 1 for s in items) else "-".join(items)
    return str(value)


def factor_features(factor: Factor, value: Any) -> dict[str, float]:
    """The regression features one factor value gives a setup."""
    coding = factor.resolved_coding()
    if coding == "linear":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"factor {factor.name!r}: linear coding needs numbers, got {value!r}")
        return {factor.name: float(value)}
    if coding == "position":
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"factor {factor.name!r}: position coding needs list values")
        return {f"{factor.name}[{item}]": float(pos + 1) for pos, item in enumerate(value)}
    return {f"{factor.name}={_text(level)}": float(value == level)
            for level in factor.levels()[1:]}


def _lineup(cfg: BalanceConfig, sweep: Sweep, players: int) -> tuple[str, ...]:
    lineup = list(sweep.lineup or cfg.lineup)
    fill = cfg.fill_lineup if sweep.fill_lineup is None else sweep.fill_lineup
    if fill:
        lineup = [lineup[k % len(lineup)] for k in range(players)]
    return tuple(lineup)


def _players(env_id: str, config: dict[str, Any]) -> int:
    import envs

    return envs.make(env_id, **config).unwrapped.num_players


def build_setups(cfg: BalanceConfig) -> list[Setup]:
    """Every setup of every sweep, in order (validates each game config)."""
    setups: list[Setup] = []
    for sweep in cfg.sweeps:
        env_id = sweep.game or cfg.game
        base = deep_merge(cfg.game_config, sweep.game_config)
        entries: list[tuple[str, dict, dict]] = []
        if sweep.factors:
            for combo in itertools.product(*(f.levels() for f in sweep.factors)):
                config, features, shorts = copy.deepcopy(base), {}, []
                for factor, value in zip(sweep.factors, combo):
                    set_path(config, factor.path, value)
                    features.update(factor_features(factor, value))
                    shorts.append(factor.labels.get(_text(value), _text(value)))
                if len(sweep.factors) == 1:
                    label = f"{sweep.factors[0].name}={shorts[0]}"
                else:
                    label = " ".join(shorts)
                entries.append((label, config, features))
        else:
            entries = [(s.label, deep_merge(base, s.config), dict(s.features))
                       for s in sweep.setups]
        labels = [e[0] for e in entries]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"sweep {sweep.name!r} has repeated setup labels")
        games_per_setup = sweep.games_per_setup or cfg.games_per_setup
        for index, (label, config, features) in enumerate(entries):
            try:
                players = _players(env_id, config)
            except ConfigError as err:
                raise ConfigError(f"sweep {sweep.name!r}, setup {label!r}: {err}") from None
            lineup = _lineup(cfg, sweep, players)
            if len(lineup) != players:
                raise ConfigError(
                    f"sweep {sweep.name!r}, setup {label!r}: lineup has {len(lineup)} seats but "
                    f"{env_id} is configured for {players} players (set fill_lineup: true to "
                    "repeat the lineup)"
                )
            games = -(-games_per_setup // players) * players  # every rotation equally often
            setups.append(Setup(sweep.name, index, label, env_id, config, lineup, features,
                                games, tuple(f.name for f in sweep.factors)))
    return setups


def check_before_start(cfg: BalanceConfig, setups: list[Setup]) -> None:
    """Every problem that would stop the run, raised before any game is played."""
    import agents
    import envs

    checked: set[tuple[str, str]] = set()
    for setup in setups:
        for name in sorted(set(setup.lineup)):
            spec = cfg.agents[name]
            if spec == "human":
                raise ConfigError("human agents cannot play balance sweeps; use `otrio play`")
            if (setup.env_id, spec) not in checked:
                try:
                    agents.check_spec(spec, envs.make(setup.env_id, **setup.config))
                except (ImportError, KeyError, AttributeError) as err:  # agent not written yet
                    raise ConfigError(f"agent {name!r} = {spec!r} cannot play {setup.env_id} in "
                                      f"this checkout ({type(err).__name__}: {err})") from None
                checked.add((setup.env_id, spec))


def build_tasks(cfg: BalanceConfig, setups: list[Setup]) -> list[GameTask]:
    """Every game of the study, in order; game ids run over all sweeps and setups."""
    tasks: list[GameTask] = []
    for global_index, setup in enumerate(setups):
        n = setup.players
        for j in range(setup.games):
            rotation = j % n
            seating = setup.lineup[rotation:] + setup.lineup[:rotation]
            tags = {"sweep": setup.sweep, "setup": setup.label, "setup_index": global_index,
                    "env": setup.env_id, "players": n, "rotation": rotation,
                    "features": dict(setup.features)}
            tasks.append(GameTask(
                game=len(tasks), env_id=setup.env_id, config=setup.config, seating=seating,
                specs=dict(cfg.agents), seed=derive_seed(cfg.seed, setup.sweep, setup.index, j),
                tags=tags,
            ))
    return tasks


class BalanceRecord(GameRecord):
    """A balance sweep's record (:func:`benchmarks.play.play_game` with the tags of
    :func:`build_tasks`): its sweep, setup, env, player count, rotation and features."""

    sweep: str
    setup: str
    setup_index: int = Field(ge=0)
    env: str
    players: int = Field(ge=1)
    rotation: int = Field(ge=0)
    features: dict[str, float]

    @model_validator(mode="after")
    def _tags(self):
        if self.players != len(self.seating) or self.rotation >= self.players:
            raise ValueError(f"{self.players} players and rotation {self.rotation} for "
                             f"{len(self.seating)} seats")
        return self


def record_schema(tasks: list[GameTask]) -> RecordSchema:
    """What a record of this study is: a :class:`BalanceRecord` of one of its games,
    with the seed, seating, tags and replay config of that game's task."""
    return RecordSchema(name="balance record", model=BalanceRecord, unique_by=("game",),
                        games={(t.game,): task_fields(t) for t in tasks}, replay=True)


def run(cfg: BalanceConfig, progress: bool = True, command: str | None = None,
        repair: bool = False, verify: Verify = "sample") -> Path:
    """Play the study (resuming if its folder has records), then analyse and report it.

    Everything is checked before the folder is touched; the folder is locked
    (:class:`~agents.run_lock.RunLock`) while the study plays and reports. Records
    already there are checked as a tournament's are (:func:`record_schema`,
    ``repair``, ``verify``: :func:`benchmarks.tournament.run`).
    """
    setups = build_setups(cfg)
    check_before_start(cfg, setups)
    folder = Path(cfg.output)
    with RunLock(folder):
        _play_and_report(cfg, setups, folder, progress, command, repair, verify)
    return folder


def _play_and_report(cfg: BalanceConfig, setups: list[Setup], folder: Path, progress: bool,
                     command: str | None, repair: bool = False,
                     verify: Verify = "sample") -> None:
    tasks = build_tasks(cfg, setups)
    schema = record_schema(tasks)
    done = open_run(folder, cfg.model_dump(mode="json"), RESUME_IGNORES, schema=schema,
                    repair=repair, verify=verify)
    write_atomic(folder / SETUPS_FILE, (json.dumps(
        [asdict(setup) for setup in setups], indent=1, sort_keys=True) + "\n").encode())
    done_ids = {r["game"] for r in done}
    todo = [t for t in tasks if t.game not in done_ids]
    start = time.perf_counter()
    play_into(folder / RECORDS_FILE, todo, cfg, len(done_ids), "balance sweep", progress)
    elapsed = time.perf_counter() - start
    from .balance_report import write_balance_report
    from .balance_summary import analyze

    records = sorted(read_records(folder / RECORDS_FILE, schema), key=lambda r: r["game"])
    analysis = analyze(records, setups, cfg)
    if todo:  # one line per invocation that played games: the report sums them
        with RecordWriter(folder / TIMING_FILE) as timing:
            timing.write({"games": len(todo), "seconds": round(elapsed, 1),
                          "workers": cfg.workers, "backend": cfg.backend})
    write_balance_report(folder, cfg, setups, analysis, read_records(folder / TIMING_FILE),
                         command)
