"""Tournaments: ``otrio tournament configs/tournament/GAME.yaml``.

Seats rotate: the ``lineup`` (one agent name per seat) is played in each of its n
cyclic rotations, so every lineup entry sits in every seat equally often. Game ``i``
uses rotation ``i mod n`` and the seed ``derive_seed(seed, i)``. A ladder of more
agents than seats names several ``lineups`` instead (e.g. every pair of four agents
at two players); each is played in all its rotations, one after another, and the
OpenSkill ratings put every agent on one scale. Records are appended
to ``games.jsonl`` as games finish, so an interrupted run resumes where it stopped; a
resume checks every record already there against the run (:func:`record_schema`) and
re-plays every one through the engine (:mod:`otrio.arena.records`; a sample on request), and
the report says how long that took.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from otrio import agents, envs
from otrio.arena.games import RESUME_IGNORES, ExecutionOptions, GameRecord, play_into, task_fields
from otrio.arena.play import GameTask
from otrio.arena.records import (
    GAME_RUN_FILES,
    RECORDS_FILE,
    RUN_FILE,
    RecordSchema,
    Verify,
    open_run,
    read_records,
)
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import mean_and_ci, wilson
from otrio.envs.core.config import EnvId, apply_sets, load_yaml, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import find_file, rebase_spec, where_looked
from otrio.envs.core.rng import derive_seed

from ..ratings import openskill_ratings
from .report import write_tournament_report


class TournamentConfig(ExecutionOptions):
    """A tournament: game, agents, lineup, games per seating, seed, parallelism."""

    game: EnvId  # env id, e.g. oceanos_v0 (or its short name, oceanos)
    game_config: dict[str, Any] = Field(default_factory=dict)
    agents: dict[str, str]  # name -> spec (random, greedy, ppo:PATH)
    lineup: list[str] = Field(default_factory=list)  # one agent name per seat
    lineups: list[list[str]] = Field(default_factory=list)  # or several (a ladder)
    games_per_seating: int = Field(100, ge=1)
    seed: int = Field(0, ge=0)
    output: str = "runs/tournament"

    @model_validator(mode="after")
    def _lineup_names_known(self):
        if bool(self.lineup) == bool(self.lineups):
            raise ValueError("give either lineup (one agent name per seat) or lineups (several)")
        if len({len(lineup) for lineup in self.all_lineups()}) != 1:
            raise ValueError("every lineup must have the same number of seats")
        unknown = [name for lineup in self.all_lineups() for name in lineup
                   if name not in self.agents]
        if unknown:
            raise ValueError(f"lineup names {unknown} are not in agents {sorted(self.agents)}")
        return self


    def all_lineups(self) -> list[list[str]]:
        """The lineups played, in order (the one ``lineup``, or ``lineups``)."""
        return self.lineups or [self.lineup]

    @property
    def seats(self) -> int:
        """Seats of every lineup."""
        return len(self.all_lineups()[0])

    def identity(self) -> dict[str, Any]:
        """The config as its run folder records it (``lineups`` only where given, so
        that folders made before ladders existed still resume)."""
        return self.model_dump(mode="json", exclude=set() if self.lineups else {"lineups"})




def load_config(path: str | Path, sets: Sequence[str] = (),
                **overrides: Any) -> TournamentConfig:
    """Read a YAML tournament config; ``overrides`` (not None) replace its keys.

    ``path`` and the files its agent specs name follow :mod:`otrio.envs.core.paths`: a spec's
    relative path beside the config becomes absolute; others are looked up in the
    current folder, then in the installed package, when the agent is made."""
    path = find_file(path)
    data = load_yaml(path, "tournament config", where_looked(path)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"tournament config {path} must be a mapping of keys to values, "
                          f"not a {type(data).__name__}")
    data = apply_sets(data, sets, f"tournament config {path}")  # --set and --seed
    data.update({k: v for k, v in overrides.items() if v is not None})
    cfg = validate(TournamentConfig, data)
    folder = path.resolve().parent
    return cfg.model_copy(update={"agents": {name: rebase_spec(spec, folder)
                                             for name, spec in cfg.agents.items()}})


def match(game: str, specs: list[str], games: int = 200, sets: Sequence[str] = (),
          **overrides: Any) -> TournamentConfig:
    """A tournament without a file: ``specs`` one a seat (``strong``, ``greedy``,
    ``mcts:iterations=64``; each names itself), about ``games`` games in all (rounded up to
    a whole number a seating), into ``runs/tournament/GAME_Np_SPECS`` unless ``output`` is
    given; ``sets`` and ``overrides`` change it as a file's are changed."""
    n = len(specs)
    if n < 1:
        raise ConfigError("a match needs an agent a seat (--agents strong,greedy)")
    slug = re.sub(r"[^a-z0-9]+", "_", "_vs_".join(dict.fromkeys(specs)).lower()).strip("_")
    data = {"game": game, "game_config": {"num_players": n},
            "agents": {spec: spec for spec in specs}, "lineup": list(specs),
            "games_per_seating": -(-games // n), "seed": 0,
            "output": f"runs/tournament/{game.rsplit('_v', 1)[0]}_{n}p_{slug[:80]}"}
    data = apply_sets(data, sets, "match")
    data.update({k: v for k, v in overrides.items() if v is not None})
    return validate(TournamentConfig, data)


def check_before_start(cfg: TournamentConfig) -> None:
    """Every problem that would stop the run, raised before any game is played."""

    env = envs.make(cfg.game, **cfg.game_config)  # unknown game, bad config, player count
    if cfg.seats != env.unwrapped.num_players:
        raise ConfigError(
            f"lineup has {cfg.seats} seats but {cfg.game} is configured for "
            f"{env.unwrapped.num_players} players"
        )
    for name in sorted({name for lineup in cfg.all_lineups() for name in lineup}):
        spec = cfg.agents[name]
        if spec == "human":
            raise ConfigError("human agents cannot play tournaments; use `otrio play`")
        agents.check_spec(spec, env, cfg.reference)


def build_tasks(cfg: TournamentConfig) -> list:
    """Every game of the tournament, in order."""
    n = cfg.seats
    tasks = []
    for k, lineup in enumerate(cfg.all_lineups()):
        for j in range(cfg.games_per_seating * n):
            i = len(tasks)
            rotation = j % n
            seating = tuple(lineup[rotation:] + lineup[:rotation])
            tags = {"rotation": rotation, **({"lineup": k} if cfg.lineups else {})}
            tasks.append(GameTask(
                game=i, env_id=cfg.game, config=dict(cfg.game_config), seating=seating,
                specs=dict(cfg.agents), seed=derive_seed(cfg.seed, i), tags=tags,
            ))
    return tasks


class TournamentRecord(GameRecord):
    """A tournament's record (:func:`otrio.arena.games.play_game` with the tags of
    :func:`build_tasks`): its rotation, and its lineup in a ladder."""

    rotation: int = Field(ge=0)
    lineup: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _tags(self, info: ValidationInfo):
        if self.rotation >= len(self.seating):
            raise ValueError(f"rotation {self.rotation} of {len(self.seating)} seats")
        ladder = (info.context or {}).get("ladder")
        if ladder is not None and (self.lineup is not None) != ladder:
            raise ValueError("a ladder's record names its lineup, another's does not")
        return self


def record_schema(cfg: TournamentConfig, tasks: list[GameTask]) -> RecordSchema:
    """What a record of this tournament is: a :class:`TournamentRecord` of one of its
    games, with the seed, seating, tags and replay config of that game's task."""
    return RecordSchema(name="tournament record", model=TournamentRecord, unique_by=("game",),
                        games={(t.game,): task_fields(t) for t in tasks},
                        context={"ladder": bool(cfg.lineups)}, replay=True)


TOURNAMENT = register(RunKind(
    name="tournament", command="otrio tournament", marker=RUN_FILE, files=(
        *GAME_RUN_FILES,
        RunFile("summary.json", "derived", "leaderboard, seats, head-to-head, ratings"),
        RunFile("report.md", "derived", "the report"),
        RunFile("*.png", "derived", "the report's figures"))))


def run(cfg: TournamentConfig, progress: bool = True, command: str | None = None,
        repair: bool = False, verify: Verify = "all") -> Path:
    """Play the tournament (resuming if its folder has records) and write its report.

    Everything is checked before the folder is touched; the folder is locked
    (:class:`~otrio.arena.run_lock.RunLock`) while the run plays and reports. Records already
    there are checked (:func:`record_schema`; ``verify``: re-play all of them, the
    default, a sample, or none; the report says what was re-played and in how long); a
    bad one stops the run unless ``repair`` moves it aside
    (:func:`otrio.arena.records.open_run`).
    """
    check_before_start(cfg)
    folder = Path(cfg.output)
    tasks = build_tasks(cfg)
    schema = record_schema(cfg, tasks)
    with RunFolder(TOURNAMENT, folder):
        done = open_run(folder, cfg.identity(), RESUME_IGNORES, schema=schema, repair=repair,
                        verify=verify, progress=progress)
        done_ids = {r["game"] for r in done}
        todo = [t for t in tasks if t.game not in done_ids]
        play_into(folder / RECORDS_FILE, todo, cfg, len(done_ids), f"{cfg.game} tournament",
                  progress)

        records = sorted(read_records(folder / RECORDS_FILE, schema), key=lambda r: r["game"])
        write_tournament_report(folder, cfg, summarize(records, cfg.seats), command,
                                done.verification)
    return folder


def summarize(records: list[dict], num_players: int) -> dict[str, Any]:
    """Leaderboard, per-seat table, head-to-head table and each lineup's win shares
    (:func:`by_lineup`) from game records."""
    per_agent: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    seat_wins: list[list[int]] = [[] for _ in range(num_players)]
    agent_seat: dict[tuple[str, int], list[int]] = defaultdict(list)
    pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        winners = set(r["winners"])
        for seat, name in enumerate(r["seating"]):
            won = int(seat in winners)
            per_agent[name]["win"].append(won)
            per_agent[name]["score"].append(r["scores"][seat])
            per_agent[name]["rank"].append(r["ranks"][seat])
            seat_wins[seat].append(won)
            agent_seat[(name, seat)].append(won)
        for a, name_a in enumerate(r["seating"]):
            for b, name_b in enumerate(r["seating"]):
                if name_a != name_b:
                    ra, rb = r["ranks"][a], r["ranks"][b]
                    pair[(name_a, name_b)].append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
    ratings = openskill_ratings(records) if records else {}
    board = []
    for name, d in per_agent.items():
        n = len(d["win"])
        wins = sum(d["win"])
        low, high = wilson(wins, n)
        score, score_ci = mean_and_ci(d["score"])
        mu, sigma = ratings.get(name, (float("nan"), float("nan")))
        board.append({
            "agent": name, "entries": n, "wins": wins, "win_rate": wins / n,
            "win_low": low, "win_high": high, "mean_score": score, "score_ci": score_ci,
            "mean_rank": sum(d["rank"]) / n, "mu": mu, "sigma": sigma,
        })
    board.sort(key=lambda row: (-row["mu"], row["agent"]))
    seats = []
    for seat, wins in enumerate(seat_wins):
        low, high = wilson(sum(wins), len(wins))
        seats.append({"seat": seat, "games": len(wins), "win_rate": sum(wins) / max(1, len(wins)),
                      "win_low": low, "win_high": high})
    by_agent_seat = {f"{name}@{seat}": sum(w) / len(w) for (name, seat), w in sorted(agent_seat.items())}
    head = {f"{a} vs {b}": sum(v) / len(v) for (a, b), v in sorted(pair.items())}
    lengths = [r["decisions"] for r in records]
    return {
        "games": len(records),
        "num_players": num_players,
        "leaderboard": board,
        "seats": seats,
        "agent_seat_win_rate": by_agent_seat,
        "head_to_head": head,
        "mean_decisions": sum(lengths) / max(1, len(lengths)),
        "truncated": sum(r.get("truncated", False) for r in records),
        "lineups": by_lineup(records),
    }


def by_lineup(records: list[dict]) -> list[dict[str, Any]]:
    """Each lineup's games and each of its agents' wins there (a ladder's win shares: an
    agent in one seat among another's players), in lineup order. ``one``: the agent
    that sits in one seat among the others' players, where the lineup has one."""
    games: dict[int, int] = defaultdict(int)
    seats: dict[int, dict[str, int]] = {}
    wins: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        k = r.get("lineup", 0)  # a one-lineup run's records name none
        games[k] += 1
        winners = set(r["winners"])
        count: dict[str, int] = defaultdict(int)
        for seat, name in enumerate(r["seating"]):
            count[name] += 1
            wins[k][name].append(int(seat in winners))
        seats.setdefault(k, dict(count))
    rows = []
    for k in sorted(games):
        agents = {}
        for name, won in wins[k].items():
            low, high = wilson(sum(won), len(won))
            agents[name] = {"entries": len(won), "wins": sum(won), "win_rate": sum(won) / len(won),
                            "win_low": low, "win_high": high}
        singles = [name for name, n in seats[k].items() if n == 1]
        one = singles[0] if len(singles) == 1 and len(seats[k]) == 2 else None
        rows.append({"lineup": k, "games": games[k], "seats": seats[k], "one": one,
                     "agents": agents})
    return rows
