"""The balance study's config, as YAML gives it: :class:`BalanceConfig` with its sweeps
(:class:`Sweep`, each a product of :class:`Factor` values or a list of
:class:`SetupSpec`), skill tiers and lineups, and the fairest-setup search
(:class:`SearchSpec`). Validated before any game is played; an unknown key is refused
naming it. :func:`load_config` reads a file. The runners are
:mod:`otrio.benchmarks.balance.sweep` (``otrio balance``),
:mod:`otrio.benchmarks.balance.search` (its ``search:`` section) and
:mod:`otrio.benchmarks.balance.skill_ceiling`."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from otrio.arena.games import ExecutionOptions
from otrio.envs.core.config import EnvId, StrictModel, apply_sets, load_yaml, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import find_file, rebase_spec, where_looked

from .skill import AMONG

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


def load_config(path: str | Path, sets: Sequence[str] = (),
                **overrides: Any) -> BalanceConfig:
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
    data = apply_sets(data, sets, f"balance config {path}")  # --set and --seed
    data.update({k: v for k, v in overrides.items() if v is not None})
    cfg = validate(BalanceConfig, data)
    folder = path.resolve().parent
    return cfg.model_copy(update={"agents": {name: rebase_spec(spec, folder)
                                             for name, spec in cfg.agents.items()}})
