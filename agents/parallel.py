"""One function over many seeded tasks, on one process, N processes or a Ray cluster.

Tournaments, balance sweeps, search studies and the distillation's teacher games all
play independent games whose results depend on their task alone (a seed inside the
task, never the process's history), so mapping the same function over the same tasks
gives the same results, in task order, whatever the parallelism. This module is that
map; the callers live above it (``benchmarks/``, ``training/``).

``fn`` must be a module-level function (it is pickled by name into the workers).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

BACKENDS = ("local", "ray")


def run_ordered(fn: Callable[[Any], Any], tasks: Sequence[Any], workers: int = 1,
                backend: str = "local", ray_address: str | None = None,
                chunksize: int | None = None) -> Iterator[Any]:
    """Yield ``fn(task)`` for every task, in task order.

    ``backend="local"`` with ``workers`` > 1 uses a process pool (fork where the
    platform allows it), handing each worker ``chunksize`` tasks at a time (None: a
    few per worker's share, for short tasks; 1 for long ones, so results arrive as
    they finish); ``backend="ray"`` sends each task to Ray (``ray_address``: a running
    cluster; None starts a local instance with ``workers`` CPUs)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (use {' or '.join(BACKENDS)})")
    if backend == "ray":
        yield from _run_ray(fn, tasks, workers, ray_address)
        return
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield fn(task)
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn" if mp.get_start_method(allow_none=True) == "spawn" else "fork")
    with ctx.Pool(workers, initializer=_worker_init) as pool:
        chunk = chunksize or max(1, min(16, len(tasks) // (workers * 8) or 1))
        yield from pool.imap(fn, tasks, chunksize=chunk)


def _worker_init() -> None:
    """Each worker process uses one thread for torch and for numpy's BLAS (2-core
    machines: a threaded product in one worker waits for a core another holds), and leaves an
    interruption to the parent (Ctrl-C or SIGINT stops the run there once, without a
    traceback from every worker).

    torch only if it is already loaded: importing it costs each worker a second or
    two, and the agents that use torch set one thread themselves when they load.
    """
    import signal

    from threadpoolctl import threadpool_limits

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threadpool_limits(limits=1, user_api="blas")  # the parallelism is the processes
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _run_ray(fn, tasks: Sequence[Any], workers: int, address: str | None) -> Iterator[Any]:
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
    remote = ray.remote(fn)
    try:
        window = max(2, 4 * max(1, workers))
        pending = [remote.remote(t) for t in tasks[:window]]
        next_task = len(pending)
        while pending:
            result = ray.get(pending.pop(0))
            if next_task < len(tasks):
                pending.append(remote.remote(tasks[next_task]))
                next_task += 1
            yield result
    finally:
        if started_here:
            ray.shutdown()


__all__ = ["BACKENDS", "run_ordered"]
