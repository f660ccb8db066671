"""Seeded games between agents, seat by seat: the runner that tournaments, balance
studies, training's evaluation, the CLI and the tools share.

A game is fully described by a :class:`GameTask`; :func:`play_task` plays it the same
way whatever was played before it in the process, so the same task gives the same game.
Envs and agents are built once per process and reused (:func:`env_and_agents`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from otrio import agents, envs
from otrio.envs.core.aec import live_turns
from otrio.envs.core.paths import find_file
from otrio.envs.core.rng import derive_seed


@dataclass(frozen=True)
class GameTask:
    """One game to play: which env and config, who sits where, and its seed."""

    game: int  # index of the game in its run
    env_id: str
    config: dict[str, Any]
    seating: tuple[str, ...]  # agent name per seat
    specs: dict[str, str]  # agent name -> spec
    seed: int
    tags: dict[str, Any] = field(default_factory=dict)  # carried into the record


_ENV_CACHE: dict[str, Any] = {}
# (env key, spec, seat) -> (the spec's file identity, agent)
_AGENT_CACHE: dict[tuple[str, str, int], tuple[tuple, Any]] = {}


def spec_identity(spec: str) -> tuple:
    """What must match for a cached agent to serve ``spec`` again: for a spec that
    names a file (``ppo:PATH``), the file's modification time and size, so a checkpoint
    rewritten in place (a training run's evaluation checkpoint) is loaded afresh."""
    _, _, argument = spec.partition(":")
    try:
        stat = os.stat(find_file(argument)) if argument else None
    except OSError:
        stat = None
    return () if stat is None else (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def env_and_agents(task: GameTask) -> tuple[Any, list]:
    """The task's env and one agent per seat, built once per process and reused (an
    agent whose spec names a file is built again once the file changes)."""

    key = task.env_id + json.dumps(task.config, sort_keys=True)
    env = _ENV_CACHE.get(key)
    if env is None:
        env = _ENV_CACHE[key] = envs.make(task.env_id, **task.config)
    seat_agents = []
    for seat, name in enumerate(task.seating):
        spec = task.specs[name]
        akey = (key, spec, seat)  # one agent object per seat
        identity = spec_identity(spec)
        cached = _AGENT_CACHE.get(akey)
        if cached is None or cached[0] != identity:
            cached = _AGENT_CACHE[akey] = (identity, agents.make(spec, env))
        seat_agents.append(cached[1])
    return env, seat_agents


def play_seated(env, seat_agents: list, on_action=None) -> int:
    """Play the env (already reset) to its end, each seat by its agent; return decisions.

    ``on_action(agent_name, action)`` is called before each action is played.
    """
    seats = {agent: k for k, agent in enumerate(env.possible_agents)}
    decisions = 0
    for agent, obs in live_turns(env):
        action = seat_agents[seats[agent]].act(obs)
        if on_action is not None:
            on_action(agent, action)
        env.step(action)
        decisions += 1
    return decisions


def play_task(task: GameTask, on_action=None) -> tuple[Any, int]:
    """Play ``task`` to its end: ``(env, decisions)``, the env left at the final state.

    Every seat's agent is reset with a seed derived from the game's first, so a task
    gives the same game whatever was played before it in this process.
    """
    env, seat_agents = env_and_agents(task)
    for seat, agent in enumerate(seat_agents):
        agent.reset(derive_seed(task.seed, "agent", seat))
    env.reset(seed=task.seed)
    return env, play_seated(env, seat_agents, on_action)


def outcome(state) -> tuple[list, list[int], bool]:
    """``(scores, winners, truncated)`` of a finished game's state: a game stopped
    before its end (the decision cap) has no winners."""
    truncated = not state.is_terminal()
    return list(state.scores()), [] if truncated else list(state.winners()), truncated


__all__ = ["GameTask", "env_and_agents", "outcome", "play_seated", "play_task", "spec_identity"]
