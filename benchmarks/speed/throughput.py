"""Throughput of the suite's engines, measured next to PettingZoo's connect_four_v3.

Every figure is a ratio to the reference measured in the same process run, because
the machine is noisy. ``otrio bench`` drives this module.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import numpy as np
from pettingzoo.classic import connect_four_v3


def aec_random_play(env_fn: Callable[[], object], min_steps: int, seed: int = 0) -> dict:
    """Random legal play through the full AEC API (``last()`` + ``step()``).

    Plays whole games until at least ``min_steps`` live steps; returns steps/s and
    games/s. The same loop serves every env, the reference included.
    """
    env = env_fn()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while steps < min_steps:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps": steps, "games": games, "seconds": elapsed,
            "steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def engine_random_play(new_state: Callable[[int], object], min_steps: int, seed: int = 0) -> dict:
    """Random legal play through the rules engine alone (no observations, no env)."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while steps < min_steps:
        state = new_state(seed + games)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps": steps, "games": games, "seconds": elapsed,
            "steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def connect_four_fn():
    """PettingZoo's connect_four_v3 (the reference), without its deprecation noise."""

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
    return connect_four_v3.env


def clone_cost(new_state: Callable[[int], object], min_steps: int, seed: int = 0) -> dict:
    """The cost of ``state.clone()`` next to an engine step, on the same states.

    Each game is played twice with the same random legal actions: first as
    :func:`engine_random_play` plays it, timed as a whole (the engine step), then again
    cloning every state it reaches before stepping it, each clone timed alone (with the
    release of the previous one; the steps of this pass are not timed). Returns
    microseconds per clone and per step, and ``clone_steps``: a clone's cost in steps.
    """
    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    steps = games = 0
    cloning = stepping = 0.0
    while steps < min_steps:
        start_rng = rng.bit_generator.state
        state = new_state(seed + games)
        start = clock()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        stepping += clock() - start
        rng.bit_generator.state = start_rng  # the same actions again, on the same states
        state = new_state(seed + games)
        copy = None
        while not state.is_terminal():
            start = clock()
            copy = state.clone()
            cloning += clock() - start
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        del copy
        games += 1
    clone_us, step_us = cloning / steps * 1e6, stepping / steps * 1e6
    return {"steps": steps, "games": games, "clone_us": clone_us, "step_us": step_us,
            "clone_steps": clone_us / step_us}
