"""Seeded random and greedy games of Otontin, walked by the observation and seat-view tests."""

from __future__ import annotations

from otrio import agents, envs
from otrio.envs.core import make_rng, testing
from otrio.envs.otontin.rules import Config, State

GAMES = 2  # seeded games of each kind that the observation and seat-view tests walk


def random_games(config: dict):
    """Every state of a few seeded random games (one state object, played on)."""
    return testing.random_states(lambda seed: State(Config(**config), make_rng(seed)), GAMES)


def greedy_games(config: dict):
    """Every state of a few greedy games played through the env."""
    def env_fn():
        return envs.make("otontin_v0", **config)

    agent = agents.make("greedy", env_fn())
    return testing.policy_states(env_fn, lambda env, obs: agent.act(obs), range(GAMES))
