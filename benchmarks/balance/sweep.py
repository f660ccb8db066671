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
from typing import Any

from pydantic import Field

from otrio import agents, envs
from otrio.arena.games import RESUME_IGNORES, RotatedRecord, play_into, task_fields
from otrio.arena.play import GameTask
from otrio.arena.records import (
    GAME_RUN_FILES,
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
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.rng import derive_seed

from .config import BalanceConfig, Factor, Sweep
from .report import write_balance_report
from .skill import matchup_name
from .summary import (
    LINEUP,  # a single lineup's name (its records carry no lineup tag)
    analyze,
)

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


class BalanceRecord(RotatedRecord):
    """A balance sweep's record (:func:`otrio.arena.games.play_game` with the tags of
    :func:`build_tasks`): its sweep, setup, env, player count, rotation and features,
    and with tiers its lineup's name."""

    sweep: str
    setup: str
    setup_index: int = Field(ge=0)
    env: str
    features: dict[str, float]
    lineup: str = None  # type: ignore[assignment]  # with tiers: the lineup's name


def record_schema(tasks: list[GameTask]) -> RecordSchema:
    """What a record of this study is: a :class:`BalanceRecord` of one of its games,
    with the seed, seating, tags and replay config of that game's task."""
    return RecordSchema(name="balance record", model=BalanceRecord, unique_by=("game",),
                        games={(t.game,): task_fields(t) for t in tasks}, replay=True)


BALANCE = register(RunKind(
    name="balance sweep", command="otrio balance", marker=RUN_FILE, files=(
        *GAME_RUN_FILES,
        RunFile(TIMING_FILE, "record", "the wall time of each call that played games"),
        RunFile(SETUPS_FILE, "derived", "every setup's config and features"),
        RunFile("summary.json", "derived", "the analysis: seats, setups, effects, tiers"),
        RunFile("results.csv", "derived", "the analysis as a table"),
        RunFile("effects.csv", "derived", "the setup effects as a table"),
        RunFile("report.md", "derived", "the report"),
        RunFile("*.png", "derived", "the report's figures"))))


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
    with RunFolder(BALANCE, folder):
        _play_and_report(cfg, setups, folder, progress, command, repair, verify)
    return folder


def verified_records(cfg: BalanceConfig, progress: bool = False) -> list[dict] | None:
    """The records of the sweep run of ``cfg`` already played, each re-played and checked
    as a resume checks them (the folder locked meanwhile, nothing played or written); None
    when its folder holds no run of this config's kind yet."""
    folder = Path(cfg.output)
    run = RunFolder(BALANCE, folder)
    if not run.holds_run():
        return None
    schema = record_schema(build_tasks(cfg, build_setups(cfg)))
    with run:
        done = open_run(folder, cfg.identity(), RESUME_IGNORES, schema=schema,
                        progress=progress)
    return sorted(done, key=lambda r: r["game"])


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
