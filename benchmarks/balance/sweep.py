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
tags, so the analysis (:mod:`otrio.benchmarks.balance.summary`) reads everything from
the records. The run folder is resumable exactly as a tournament's; see
``arena/records.py``.

**Skill tiers.** Instead of one ``lineup``, a config may name ``tiers`` (agents from
weakest to strongest, each filling every seat), the ``matchups`` among them (one seat
of a tier among the others filled by another: ``"B among A"``) and further mixed
``lineups``. Every lineup plays every setup on the same seeds and rotations (game
``j`` of a setup has the seed above whatever the lineup: common random numbers, so
identical lineups play identical games), and each record carries its ``lineup``
name. A tier or lineup entry that is not a name in ``agents`` is an agent spec of its
own (``mcts:iterations=16``). ``otrio.benchmarks.balance.skill`` analyses the tiers;
``otrio.benchmarks.balance.search`` searches for the fairest setup (``search:``).
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from otrio.arena.play import GameTask
from otrio.arena.records import (
    RECORDS_FILE,
    RUN_FILE,
    RecordModel,
    RecordSchema,
    RecordWriter,
    Verify,
    open_run,
    read_records,
    write_atomic,
)
from otrio.arena.run_folder import check_run_folder
from otrio.arena.run_lock import RunLock
from otrio.envs.core.config import EnvId, StrictModel, load_yaml, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import find_file, rebase_spec, where_looked
from otrio.envs.core.rng import derive_seed

from ..play import RESUME_IGNORES, ExecutionOptions, GameRecord, play_into, task_fields
from .skill import AMONG, matchup_name
from .summary import LINEUP  # a single lineup's name (its records carry no lineup tag)

SETUPS_FILE = "setups.json"
TIMING_FILE = "timing.jsonl"  # wall time of each invocation that played games


class TimingRecord(RecordModel):
    """One line of ``timing.jsonl``: an invocation that played ``games`` games in
    ``seconds`` of clock time (read as untrusted data, as the records are)."""

    games: int = Field(ge=0)
    seconds: float = Field(ge=0)
    workers: int = Field(ge=1)
    backend: str


TIMING_SCHEMA = RecordSchema(name="timing line", model=TimingRecord, unique_by=())
Coding = Literal["auto", "linear", "categorical", "position"]
Matchups = Literal["none", "stronger", "all"]
# keys a config had before tiers: a run folder of such a config resumes unchanged
NEW_KEYS_DEFAULTS = {"tiers": None, "lineups": {}, "matchups": "all", "search": None}


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
    game: EnvId | None = None  # env id (or short name); default: the config's
    game_config: dict[str, Any] = Field(default_factory=dict)  # merged over the config's
    lineup: list[str] | None = None
    tiers: list[str] | None = None  # this sweep's tiers, weakest first (default: the config's)
    matchups: Matchups | None = None  # default: the config's
    fill_lineup: bool | None = None
    games_per_setup: int | None = Field(None, ge=1)
    factors: list[Factor] = Field(default_factory=list)
    setups: list[SetupSpec] = Field(default_factory=list)

    @field_validator("tiers")
    @classmethod
    def _tiers(cls, tiers: list[str] | None) -> list[str] | None:
        return check_tiers(tiers)

    @model_validator(mode="after")
    def _one_kind(self):
        if bool(self.factors) == bool(self.setups):
            raise ValueError(f"sweep {self.name!r} needs exactly one of factors / setups")
        names = [f.name for f in self.factors]
        if len(set(names)) != len(names):
            raise ValueError(f"sweep {self.name!r} repeats a factor name: {names}")
        return self


def _tier_names(tiers: Any) -> list:
    return list(tiers) if isinstance(tiers, list) else []


def check_tiers(tiers: list[str] | None) -> list[str] | None:
    """Tiers are a non-empty list of distinct names (weakest first)."""
    if tiers is None:
        return tiers
    if not tiers:
        raise ValueError("no tiers: list at least one agent, weakest first")
    if len(set(tiers)) != len(tiers):
        raise ValueError(f"a tier is listed twice: {tiers}")
    for name in tiers:
        if not name.strip() or AMONG.strip() in name.split():
            raise ValueError(f"{name!r} cannot name a tier")
    return tiers


class SearchObjective(StrictModel):
    """What the designer wants (``otrio.benchmarks.balance.search.objective``, lower is better):
    every seat of every judged tier within ``seat_tolerance`` of its fair share, then
    ``depth_weight`` points of objective for each point of skill depth (the strongest
    tier's edge as the lone seat among the weakest)."""

    seat_tolerance: float = Field(0.01, ge=0, lt=1)  # share (0.01 = one point)
    depth_weight: float = Field(0.0, ge=0)


class SearchSpec(StrictModel):
    """A ``search:`` section: the setup closest to a target, found by an optimiser over
    a factor space, confirmed against the default setup on fresh seeds
    (``otrio.benchmarks.balance.search``)."""

    game: EnvId | None = None  # env id (or short name); default: the config's
    game_config: dict[str, Any] = Field(default_factory=dict)  # merged over the config's
    space: list[Factor] = Field(min_length=1)  # each factor: one dimension of the search
    # the rulebook setup, merged over the game config (a null removes a key)
    default: dict[str, Any] = Field(default_factory=dict)
    default_label: str = "default"
    tiers: list[str] | None = None  # whose seats are judged; default: every tier
    objective: SearchObjective = Field(default_factory=SearchObjective)
    optimizer: Literal["ntbea", "tpe", "random"] = "ntbea"
    trials: int = Field(40, ge=1)  # evaluations of a setup, each a batch of seeded games
    batch: int = Field(1, ge=1)  # trials proposed together and played in one parallel map
    games_per_trial: int = Field(200, ge=1)  # per judged lineup (rounded up to the seats)
    startup_trials: int = Field(8, ge=0)  # tpe: random trials before the model
    exploration: float = Field(1.0, gt=0)  # ntbea: UCB constant (times the values' spread)
    neighbours: int = Field(50, ge=1)  # ntbea: mutated neighbours scored per proposal
    finalists: int = Field(3, ge=0)  # best setups re-played on fresh search seeds
    finalist_games: int | None = Field(None, ge=1)  # default: 2 x games_per_trial
    confirm_games: int = Field(1000, ge=1)  # for the winner and the default each
    bootstrap: int = Field(2000, ge=100)  # resamples of the confirmation's test
    output: str | None = None  # default: the config's output + "_search"

    @field_validator("tiers")
    @classmethod
    def _tiers(cls, tiers: list[str] | None) -> list[str] | None:
        return check_tiers(tiers)

    @model_validator(mode="after")
    def _distinct(self):
        names = [f.name for f in self.space]
        if len(set(names)) != len(names):
            raise ValueError(f"search space repeats a factor name: {names}")
        return self


class BalanceConfig(ExecutionOptions):
    """A balance study: agents, lineup or tiers, sweeps of setups, games per setup, seed,
    parallelism, and optionally a search for the fairest setup (``search``)."""

    game: EnvId | None = None  # env id (or short name) of sweeps that name none
    game_config: dict[str, Any] = Field(default_factory=dict)
    agents: dict[str, str] = Field(default_factory=dict)  # name -> spec (random, greedy, ...)
    lineup: list[str] | None = None  # one agent name per seat (cycled with fill_lineup)
    tiers: list[str] | None = None  # agents from weakest to strongest, each in every seat
    matchups: Matchups = "all"  # lone-seat lineups among the tiers (see setup_lineups)
    lineups: dict[str, list[str]] = Field(default_factory=dict)  # more named (mixed) lineups
    fill_lineup: bool = False
    games_per_setup: int = Field(1000, ge=1)
    seed: int = Field(0, ge=0)
    alpha: float = Field(0.05, gt=0, lt=1)  # level of every test and interval
    power: float = Field(0.8, gt=0, lt=1)  # for the power calculation
    target_advantage: float = Field(0.05, gt=0, lt=1)  # seat advantage to detect (share)
    sweeps: list[Sweep] = Field(default_factory=list)
    search: SearchSpec | None = None
    output: str = "runs/balance"

    @field_validator("tiers")
    @classmethod
    def _tiers(cls, tiers: list[str] | None) -> list[str] | None:
        return check_tiers(tiers)

    @field_validator("lineups")
    @classmethod
    def _lineups(cls, lineups: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, seats in lineups.items():
            if not seats:
                raise ValueError(f"lineup {name!r} is empty: name one agent per seat")
            if AMONG.strip() in name.split() or not name.strip():
                raise ValueError(f"{name!r} cannot name a lineup")
        return lineups

    @model_validator(mode="before")
    @classmethod
    def _specs_as_names(cls, data: Any) -> Any:
        """A tier or lineup entry that names no agent is a spec of its own."""
        if not isinstance(data, dict):
            return data
        names = _tier_names(data.get("tiers"))
        for sweep in data.get("sweeps") or []:
            if isinstance(sweep, dict):
                names += _tier_names(sweep.get("tiers"))
        if isinstance(data.get("search"), dict):
            names += _tier_names(data["search"].get("tiers"))
        if isinstance(data.get("lineups"), dict):
            for seats in data["lineups"].values():
                names += _tier_names(seats)
        agents = data.get("agents", {})
        if not isinstance(agents, dict):
            return data
        extra = {n: n for n in names if isinstance(n, str) and n and n not in agents}
        return {**data, "agents": {**agents, **extra}} if extra else data

    @model_validator(mode="after")
    def _consistent(self):
        if not self.sweeps and self.search is None:
            raise ValueError("the config has no sweeps (and no search: section)")
        names = [s.name for s in self.sweeps]
        if len(set(names)) != len(names):
            raise ValueError(f"sweep names must be unique: {names}")
        multi = self.multi_lineup
        if self.lineup is not None and multi:
            raise ValueError("lineup and tiers/lineups exclude each other: name the lineup "
                             "under lineups (or as a tier)")
        if not multi and self.lineup is None and (
                self.search is not None or any(s.lineup is None for s in self.sweeps)):
            raise ValueError("the config names no lineup (one agent per seat) and no tiers")
        clash = set(self.lineups) & set(self.tiers or [])
        if clash:
            raise ValueError(f"lineups {sorted(clash)} have the names of tiers")
        for sweep in self.sweeps:
            if (sweep.game or self.game) is None:
                raise ValueError(f"sweep {sweep.name!r} names no game and the config has none")
            if sweep.lineup is not None and multi:
                raise ValueError(f"sweep {sweep.name!r}: a sweep lineup needs a config with a "
                                 "lineup, not tiers/lineups")
            if sweep.tiers is not None and not multi:
                raise ValueError(f"sweep {sweep.name!r} names tiers but the config has a "
                                 "single lineup: give the config tiers instead")
            if not multi:
                unknown = [n for n in (sweep.lineup or self.lineup) if n not in self.agents]
                if unknown:
                    raise ValueError(f"lineup names {unknown} are not in agents "
                                     f"{sorted(self.agents)}")
        if self.search is not None:
            if (self.search.game or self.game) is None:
                raise ValueError("the search names no game and the config has none")
            if self.search.tiers is not None:
                if self.tiers is None:
                    raise ValueError("search.tiers needs the config's tiers")
                unknown = [t for t in self.search.tiers if t not in self.tiers]
                if unknown:
                    raise ValueError(f"search.tiers {unknown} are not among the tiers "
                                     f"{self.tiers}")
            if self.search.objective.depth_weight > 0 and len(self.search_tiers()) < 2:
                raise ValueError("search.objective.depth_weight needs two tiers or more to "
                                 "measure skill depth")
        return self

    @property
    def multi_lineup(self) -> bool:
        """Whether setups are played by named lineups (tiers), tagged in the records."""
        return self.tiers is not None or bool(self.lineups)

    def search_tiers(self) -> list[str]:
        """The tiers whose seats a search judges (none with a single lineup)."""
        if self.search is None or self.tiers is None:
            return []
        return list(self.search.tiers or self.tiers)

    def identity(self) -> dict[str, Any]:
        """The config as a sweep's ``run.json`` holds it: keys added with tiers are left
        out at their defaults (a folder made before them resumes), and ``search`` always
        (a search runs into a folder of its own)."""
        data = self.model_dump(mode="json")
        data.pop("search", None)
        for key, default in NEW_KEYS_DEFAULTS.items():
            if key in data and data[key] == default:
                del data[key]
        for sweep in data["sweeps"]:
            for key in ("tiers", "matchups"):
                if sweep.get(key) is None:
                    sweep.pop(key, None)
        return data


@dataclass(frozen=True)
class Setup:
    """One setup to play: its game, full config, seating lineup(s), features and game
    count (per lineup).

    ``lineups`` names every lineup that plays the setup, ``(name, seats)`` in order;
    ``lineup`` is the first one's seats. ``tiers`` are the sweep's tiers, weakest first
    (empty with a single lineup); ``tagged``: records carry their lineup's name."""

    sweep: str
    index: int  # position within its sweep
    label: str
    env_id: str
    config: dict[str, Any]
    lineup: tuple[str, ...]
    features: dict[str, float]
    games: int
    factor_names: tuple[str, ...] = field(default=())
    lineups: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    tiers: tuple[str, ...] = field(default=())
    tagged: bool = False

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.lineup)

    def views(self) -> list[Setup]:
        """One single-lineup copy of the setup per lineup (the unit of the per-setup
        analysis), in order."""
        return [replace(self, lineup=seats, lineups=((name, seats),))
                for name, seats in (self.lineups or ((LINEUP, self.lineup),))]

    @property
    def lineup_name(self) -> str:
        """The name of the first lineup."""
        return self.lineups[0][0] if self.lineups else LINEUP


def setup_lineups(cfg: BalanceConfig, sweep: Sweep, players: int
                  ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The named lineups that play a setup of ``sweep`` at ``players`` seats.

    With a single lineup: ``(("lineup", seats),)``. With tiers ``t_0 < ... < t_k``
    (weakest first): each tier in every seat, then for ``matchups`` ``stronger`` one
    seat of ``t_j`` among ``t_i`` for each ``i < j``, and for ``all`` also one seat of
    ``t_i`` among ``t_j`` (at two players that is the same game as the first, so it is
    not played twice: the matrix reads both cells from it); then the config's
    ``lineups`` (cycled to the seats with ``fill_lineup``).
    """
    fill = cfg.fill_lineup if sweep.fill_lineup is None else sweep.fill_lineup
    if not cfg.multi_lineup:
        return ((LINEUP, _lineup(cfg, sweep, players)),)
    tiers = list(sweep.tiers or cfg.tiers or [])
    mode = sweep.matchups or cfg.matchups
    out = [(t, (t,) * players) for t in tiers]
    if mode != "none" and players >= 2:
        for j, strong in enumerate(tiers):
            for weak in tiers[:j]:
                out.append((matchup_name(strong, weak), (strong,) + (weak,) * (players - 1)))
                if mode == "all" and players > 2:
                    out.append((matchup_name(weak, strong), (weak,) + (strong,) * (players - 1)))
    for name, seats in cfg.lineups.items():
        seats = [seats[k % len(seats)] for k in range(players)] if fill else list(seats)
        out.append((name, tuple(seats)))
    return tuple(out)


def load_config(path: str | Path, **overrides: Any) -> BalanceConfig:
    """Read a YAML balance config; ``overrides`` (not None) replace its keys.

    A ``games_per_setup`` override applies to every sweep (it replaces sweep values).
    ``path`` and the files its agent specs name follow :mod:`otrio.envs.core.paths`, as a
    tournament's (:func:`otrio.benchmarks.tournament.tournament.load_config`).
    """
    path = find_file(path)
    data = load_yaml(path, "balance config", where_looked(path)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"balance config {path} must be a mapping")
    if "baseline" in data and "sweeps" not in data:
        raise ConfigError(f"{path} is a skill-ceiling config (it names a 'baseline'): "
                          f"run it with `otrio skill-ceiling {path}`")
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
    from otrio import envs

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
            lineups = setup_lineups(cfg, sweep, players)
            for name, lineup in lineups:
                if len(lineup) != players:
                    what = "lineup" if name == LINEUP else f"lineup {name!r}"
                    raise ConfigError(
                        f"sweep {sweep.name!r}, setup {label!r}: {what} has {len(lineup)} seats "
                        f"but {env_id} is configured for {players} players (set fill_lineup: "
                        "true to repeat the lineup)"
                    )
            games = -(-games_per_setup // players) * players  # every rotation equally often
            setups.append(Setup(sweep.name, index, label, env_id, config, lineups[0][1],
                                features, games, tuple(f.name for f in sweep.factors),
                                lineups, tuple(sweep.tiers or cfg.tiers or ()),
                                cfg.multi_lineup))
    return setups


def check_before_start(cfg: BalanceConfig, setups: list[Setup]) -> None:
    """Every problem that would stop the run, raised before any game is played."""
    from otrio import agents, envs

    checked: set[tuple[str, str]] = set()
    for setup in setups:
        for name in sorted({n for _, seats in setup.lineups or ((LINEUP, setup.lineup),)
                            for n in seats}):
            spec = cfg.agents[name]
            if spec == "human":
                raise ConfigError("human agents cannot play balance sweeps; use `otrio play`")
            if (setup.env_id, spec) not in checked:
                try:
                    agents.check_spec(spec, envs.make(setup.env_id, **setup.config),
                                      cfg.reference)
                except (ImportError, KeyError, AttributeError) as err:  # agent not written yet
                    raise ConfigError(f"agent {name!r} = {spec!r} cannot play {setup.env_id} in "
                                      f"this checkout ({type(err).__name__}: {err})") from None
                except ConfigError as err:
                    if name == spec:  # a tier named by its spec: say which entry it is
                        raise ConfigError(f"tier or lineup agent {name!r}: {err}") from None
                    raise
                checked.add((setup.env_id, spec))


def build_tasks(cfg: BalanceConfig, setups: list[Setup]) -> list[GameTask]:
    """Every game of the study, in order (setup by setup, lineup by lineup); game ids
    run over all sweeps, setups and lineups. Game ``j`` of a setup has the same seed and
    rotation in every lineup."""
    tasks: list[GameTask] = []
    for global_index, setup in enumerate(setups):
        n = setup.players
        for name, lineup in setup.lineups or ((LINEUP, setup.lineup),):
            for j in range(setup.games):
                rotation = j % n
                seating = lineup[rotation:] + lineup[:rotation]
                tags = {"sweep": setup.sweep, "setup": setup.label, "setup_index": global_index,
                        "env": setup.env_id, "players": n, "rotation": rotation,
                        "features": dict(setup.features)}
                if setup.tagged:
                    tags["lineup"] = name
                tasks.append(GameTask(  # the seed is the lineup's: common random numbers
                    game=len(tasks), env_id=setup.env_id, config=setup.config, seating=seating,
                    specs=dict(cfg.agents),
                    seed=derive_seed(cfg.seed, setup.sweep, setup.index, j), tags=tags,
                ))
    return tasks


class BalanceRecord(GameRecord):
    """A balance sweep's record (:func:`otrio.benchmarks.play.play_game` with the tags of
    :func:`build_tasks`): its sweep, setup, env, player count, rotation and features,
    and with tiers its lineup's name."""

    sweep: str
    setup: str
    setup_index: int = Field(ge=0)
    env: str
    players: int = Field(ge=1)
    rotation: int = Field(ge=0)
    features: dict[str, float]
    lineup: str = None  # type: ignore[assignment]  # with tiers: the lineup's name

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
        repair: bool = False, verify: Verify = "all") -> Path:
    """Play the study (resuming if its folder has records), then analyse and report it.

    Everything is checked before the folder is touched; the folder is locked
    (:class:`~otrio.arena.run_lock.RunLock`) while the study plays and reports. Records
    already there are checked as a tournament's are (:func:`record_schema`,
    ``repair``, ``verify``: :func:`otrio.benchmarks.tournament.tournament.run`).
    """
    if not cfg.sweeps:
        raise ConfigError("the config has no sweeps: run its search: section with --search")
    setups = build_setups(cfg)
    check_before_start(cfg, setups)
    folder = Path(cfg.output)
    check_run_folder(folder, RUN_FILE, "balance sweep")
    with RunLock(folder):
        _play_and_report(cfg, setups, folder, progress, command, repair, verify)
    return folder


def _play_and_report(cfg: BalanceConfig, setups: list[Setup], folder: Path, progress: bool,
                     command: str | None, repair: bool = False,
                     verify: Verify = "all") -> None:
    tasks = build_tasks(cfg, setups)
    schema = record_schema(tasks)
    done = open_run(folder, cfg.identity(), RESUME_IGNORES, schema=schema,
                    repair=repair, verify=verify, progress=progress)
    write_atomic(folder / SETUPS_FILE, (json.dumps(
        [asdict(setup) for setup in setups], indent=1, sort_keys=True) + "\n").encode())
    done_ids = {r["game"] for r in done}
    todo = [t for t in tasks if t.game not in done_ids]
    start = time.perf_counter()
    play_into(folder / RECORDS_FILE, todo, cfg, len(done_ids), "balance sweep", progress)
    elapsed = time.perf_counter() - start
    from .report import write_balance_report
    from .summary import analyze

    records = sorted(read_records(folder / RECORDS_FILE, schema), key=lambda r: r["game"])
    analysis = analyze(records, setups, cfg)
    if todo:  # one line per invocation that played games: the report sums them
        with RecordWriter(folder / TIMING_FILE) as timing:
            timing.write({"games": len(todo), "seconds": round(elapsed, 1),
                          "workers": cfg.workers, "backend": cfg.backend})
    sessions = read_records(folder / TIMING_FILE, TIMING_SCHEMA)
    write_balance_report(folder, cfg, setups, analysis, sessions, command,
                         play_seconds=sum(r["wall_time"] for r in records),
                         verification=done.verification)
