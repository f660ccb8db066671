"""Playing seeded games between agents into records, on one process, many, or a Ray
cluster.

Shared by tournaments and balance studies, as is the sentence their reports give of a
resume (:func:`verification_text`). A game is fully described by a
:class:`~otrio.arena.play.GameTask` (played by :func:`otrio.arena.play.play_task`); its result
depends on nothing else, so the same tasks give the same records on one worker, on N
workers, or on Ray.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field, model_validator
from tqdm import tqdm

from otrio.arena.parallel import run_ordered
from otrio.arena.play import GameTask, outcome, play_task
from otrio.arena.records import Fields, RecordModel, RecordWriter, ReplayField, plain
from otrio.arena.replay import REPLAY_FORMAT, replay_field
from otrio.arena.stats import ranks
from otrio.envs.core.config import StrictModel

MAX_SEATS = 16


class ExecutionOptions(StrictModel):
    """Where games run, and whether a research-only reference agent may play; results
    never depend on it (shared by tournaments and sweeps)."""

    workers: int = Field(1, ge=1)
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # a Ray cluster; None starts a local instance
    # true: the config may play a reference agent that cheats (mcts:clairvoyant=1), for
    # research such as a skill-ceiling report; never the default (otrio.agents.check_spec)
    reference: bool = False


# config keys that may change when a run folder resumes: where games run, the
# reference permission (it changes no game) and the output folder itself
RESUME_IGNORES = (*ExecutionOptions.model_fields, "output")


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game and return its record (wall time is the only non-deterministic field).

    A task gives the same game whatever was played before it in this process
    (:func:`otrio.arena.play.play_task`). The record's
    ``replay`` field (env id, config and every action) replays the game exactly with
    its ``seed`` (:mod:`otrio.arena.replay`).
    """
    start = time.perf_counter()
    actions: list[int] = []
    env, decisions = play_task(task, on_action=lambda _, a: actions.append(int(a)))
    record = game_record(env, task.game, task.seed, task.seating, task.env_id, task.config,
                         actions, time.perf_counter() - start)
    record.update(task.tags)
    return record


def game_record(env, game: int, seed: int, seating, env_id: str, config: dict[str, Any],
                actions: list[int], wall_time: float) -> dict[str, Any]:
    """The record of a game ``env`` has finished (what :class:`GameRecord` checks): its
    result, and the ``replay`` field that replays it with ``seed`` (:mod:`otrio.arena.replay`)."""

    state = env.unwrapped.state_
    scores, winners, truncated = outcome(state)
    record = {
        "game": game,
        "seed": seed,
        "seating": list(seating),
        "scores": scores,
        "winners": winners,
        "ranks": ranks(scores, winners),
        "decisions": len(actions),
        "truncated": truncated,
        "wall_time": round(wall_time, 4),
    }
    summary = env.unwrapped.game.game_summary(state)
    if summary:
        record["summary"] = summary
    record["replay"] = replay_field(env_id, config, env.unwrapped.game.info.num_actions, actions)
    return record


class GameRecord(RecordModel):
    """What :func:`play_game` writes, as the reader of a run folder checks it
    (:mod:`otrio.arena.records`); tournaments and balance sweeps add their tags.

    Beyond the types: one score and one rank per seat, winners distinct seats, no
    winners in a truncated game, and the ranks those of the scores and winners. The
    run's task of the game fixes its seed, seating, tags and replay env and config
    (:func:`task_fields`); a replay checks the rest.
    """

    game: int = Field(ge=0)
    seed: int = Field(ge=0)
    seating: list[str] = Field(min_length=1, max_length=MAX_SEATS)
    scores: list[float]
    winners: list[int]
    ranks: list[int]
    decisions: int = Field(ge=0)
    truncated: bool
    wall_time: float = Field(ge=0)
    # optional but never null (a default is not validated, an explicit null is refused);
    # records written before replays existed have no replay field
    summary: dict[str, Any] = None  # type: ignore[assignment]
    replay: ReplayField = None  # type: ignore[assignment]

    @model_validator(mode="after")
    def _one_result_per_seat(self):
        n = len(self.seating)
        if len(self.scores) != n or len(self.ranks) != n:
            raise ValueError(f"{len(self.scores)} scores and {len(self.ranks)} ranks for "
                             f"{n} seats")
        if len(set(self.winners)) != len(self.winners) or not all(
                0 <= w < n for w in self.winners):
            raise ValueError(f"winners {self.winners} are not distinct seats 0..{n - 1}")
        if self.truncated and self.winners:
            raise ValueError("a truncated game has no winners")
        if self.ranks != ranks(self.scores, self.winners):
            raise ValueError(f"ranks {self.ranks} are not those of the scores and winners "
                             f"({ranks(self.scores, self.winners)})")
        return self


class RotatedRecord(GameRecord):
    """A record of a run whose games rotate one lineup through the seats (a balance
    sweep, a setup search): its player count and rotation, checked against its seating."""

    players: int = Field(ge=1)
    rotation: int = Field(ge=0)

    @model_validator(mode="after")
    def _rotation_fits_the_seats(self):
        if self.players != len(self.seating) or self.rotation >= self.players:
            raise ValueError(f"{self.players} players and rotation {self.rotation} for "
                             f"{len(self.seating)} seats")
        return self


def task_fields(task: GameTask) -> dict[str, Any]:
    """The fields of a game's record that its task fixes (see :class:`GameRecord`)."""
    return {**plain({"game": task.game, "seed": task.seed, "seating": list(task.seating),
                     **task.tags}),
            "replay": Fields(format=REPLAY_FORMAT, env_id=task.env_id,
                             config=plain(task.config))}


def run_task(task: GameTask) -> dict[str, Any]:
    """Play one task (the unit a worker process or Ray task runs)."""
    return play_game(task)


# Agents whose games take seconds to minutes: a worker is handed one such game at a
# time, so each record is written (and counts for a resume) as soon as it is played.
SEARCH_KINDS = ("mcts",)


def seats_search(tasks: list[GameTask]) -> bool:
    """Whether a search agent sits at any seat of ``tasks``."""
    return any(task.specs.get(name, name).partition(":")[0] in SEARCH_KINDS
               for task in tasks for name in set(task.seating))


def run_tasks(tasks: list[GameTask], workers: int = 1, backend: str = "local",
              ray_address: str | None = None) -> Iterator[dict[str, Any]]:
    """Play ``tasks`` and yield their records in task order, whatever the parallelism
    (:func:`otrio.arena.parallel.run_ordered`): a few quick games to a worker at a
    time, one at a time where a search plays."""
    yield from run_ordered(run_task, tasks, workers, backend, ray_address,
                           chunksize=1 if seats_search(tasks) else None)


def play_into(path, tasks: list[GameTask], execution: ExecutionOptions, already: int,
              desc: str, progress: bool = True) -> None:
    """Play ``tasks`` and append each record to the JSONL file ``path`` as it lands
    (flushed: an interruption loses no finished game), with a progress bar that counts
    the ``already`` recorded games too."""

    bar = None
    if progress and tasks:
        bar = tqdm(total=len(tasks) + already, initial=already, unit="game", desc=desc)
    with RecordWriter(path) as writer:
        for record in run_tasks(tasks, execution.workers, execution.backend,
                                execution.ray_address):
            writer.write(record)
            if bar:
                bar.update(1)
    if bar:
        bar.close()


def verification_text(verification) -> str:
    """The report's sentence on what this start re-played of the records already in the
    folder (an :class:`otrio.arena.records.Verification`; "" for a fresh run or None)."""
    if verification is None or not verification.records:
        return ""
    return f"Resumed: {verification.describe()}."
