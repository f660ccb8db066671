"""Greedy agents: one real heuristic per game, each documented in its module."""

from __future__ import annotations

import importlib

from otrio.envs.core.errors import ConfigError

# game name -> "module:class"
GREEDY = {
    "oceanos": "otrio.agents.greedy.oceanos:GreedyOceanos",
    "otys": "otrio.agents.greedy.otys:GreedyOtys",
    "otontin": "otrio.agents.greedy.otontin:GreedyOtontin",
}


def greedy_for(game_name: str):
    """The greedy agent class of a game."""
    module, cls = GREEDY[game_name].split(":")
    return getattr(importlib.import_module(module), cls)


def has_greedy(game_name: str) -> bool:
    """True when the game's greedy agent exists in this checkout."""
    try:
        greedy_for(game_name)
    except (KeyError, ModuleNotFoundError, AttributeError):
        return False
    return True


def greedy_agent(env):
    """The greedy agent of ``env``'s game, built for ``env`` (what the spec ``greedy``
    makes); a :class:`ConfigError` naming the game when it has none."""
    name = env.unwrapped.game.info.name
    if name not in GREEDY:
        raise ConfigError(f"no greedy agent for game {name!r}")
    agent = greedy_for(name).for_env(env)
    agent.spec = "greedy"
    return agent
