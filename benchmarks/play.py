"""Playing seeded games between agents into records, on one process, many, or a Ray
cluster.

Shared by tournaments and balance studies. A game is fully described by a
:class:`~agents.arena.GameTask` (played by :func:`agents.arena.play_task`); its result
depends on nothing else, so the same tasks give the same records on one worker, on N
workers, or on Ray.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from agents.arena import GameTask, outcome, play_task
from agents.parallel import run_ordered
from agents.stats import ranks
from envs.core.config import StrictModel


class ExecutionOptions(StrictModel):
    """Where games run; results never depend on it (shared by tournaments and sweeps)."""

    workers: int = Field(1, ge=1)
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # a Ray cluster; None starts a local instance


def play_game(task: GameTask) -> dict[str, Any]:
    """Play one game and return its record (wall time is the only non-deterministic field).

    A task gives the same game whatever was played before it in this process
    (:func:`agents.arena.play_task`). The record's
    ``replay`` field (env id, config and every action) replays the game exactly with
    its ``seed`` (:mod:`agents.replay`).
    """
    from agents.replay import replay_field

    start = time.perf_counter()
    actions: list[int] = []
    env, decisions = play_task(task, on_action=lambda _, a: actions.append(int(a)))
    state = env.unwrapped.state_
    scores, winners, truncated = outcome(state)
    record = {
        "game": task.game,
        "seed": task.seed,
        "seating": list(task.seating),
        "scores": scores,
        "winners": winners,
        "ranks": ranks(scores, winners),
        "decisions": decisions,
        "truncated": truncated,
        "wall_time": round(time.perf_counter() - start, 4),
    }
    summary = env.unwrapped.game.game_summary(state)
    if summary:
        record["summary"] = summary
    record["replay"] = replay_field(task.env_id, task.config,
                                    env.unwrapped.game.info.num_actions, actions)
    record.update(task.tags)
    return record


def run_task(task: GameTask) -> dict[str, Any]:
    """Play one task (the unit a worker process or Ray task runs)."""
    return play_game(task)


def run_tasks(tasks: list[GameTask], workers: int = 1, backend: str = "local",
              ray_address: str | None = None) -> Iterator[dict[str, Any]]:
    """Play ``tasks`` and yield their records in task order, whatever the parallelism
    (:func:`agents.parallel.run_ordered`)."""
    yield from run_ordered(run_task, tasks, workers, backend, ray_address)


def play_into(path, tasks: list[GameTask], execution: ExecutionOptions, already: int,
              desc: str, progress: bool = True) -> None:
    """Play ``tasks`` and append each record to the JSONL file ``path`` as it lands
    (flushed: an interruption loses no finished game), with a progress bar that counts
    the ``already`` recorded games too."""
    from agents.records import RecordWriter

    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks) + already, initial=already, unit="game", desc=desc)
    with RecordWriter(path) as writer:
        for record in run_tasks(tasks, execution.workers, execution.backend,
                                execution.ray_address):
            writer.write(record)
            if bar:
                bar.update(1)
    if bar:
        bar.close()
