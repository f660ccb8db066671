"""Playing seeded games between agents into records, on one process, many, or a Ray
cluster.

Shared by tournaments and balance studies. A game is fully described by a
:class:`~agents.arena.GameTask` (played by :func:`agents.arena.play_task`); its result
depends on nothing else, so the same tasks give the same records on one worker, on N
workers, or on Ray.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from agents.arena import GameTask, outcome, play_task
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
    its ``seed`` (:mod:`benchmarks.replay`).
    """
    from .replay import replay_field

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
    """Play ``tasks`` and yield their records in task order, whatever the parallelism."""
    if backend == "ray":
        yield from _run_ray(tasks, workers, ray_address)
        return
    if workers <= 1:
        for task in tasks:
            yield run_task(task)
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn" if mp.get_start_method(allow_none=True) == "spawn" else "fork")
    with ctx.Pool(workers, initializer=_worker_init) as pool:
        chunk = max(1, min(16, len(tasks) // (workers * 8) or 1))
        yield from pool.imap(run_task, tasks, chunksize=chunk)


def play_into(path, tasks: list[GameTask], execution: ExecutionOptions, already: int,
              desc: str, progress: bool = True) -> None:
    """Play ``tasks`` and append each record to the JSONL file ``path`` as it lands
    (flushed: an interruption loses no finished game), with a progress bar that counts
    the ``already`` recorded games too."""
    from .records import RecordWriter

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


def _worker_init() -> None:
    """Each worker process uses one thread for torch (2-core machines).

    Only if torch is already loaded: importing it costs each worker a second or two,
    and a PPO agent, the only user of torch here, sets one thread itself when it loads.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _run_ray(tasks: list[GameTask], workers: int, address: str | None) -> Iterator[dict]:
    try:
        import ray
    except ImportError:
        raise RuntimeError("backend 'ray' needs Ray: pip install 'otrio[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_task)
    try:
        window = max(2, 4 * max(1, workers))
        pending = [remote.remote(t) for t in tasks[:window]]
        next_task = len(pending)
        while pending:
            record = ray.get(pending.pop(0))
            if next_task < len(tasks):
                pending.append(remote.remote(tasks[next_task]))
                next_task += 1
            yield record
    finally:
        if started_here:
            ray.shutdown()
