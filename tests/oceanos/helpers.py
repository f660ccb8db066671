"""A small known card list for hand-computed Oceanos rule tests."""

from __future__ import annotations

from otrio import agents, envs
from otrio.envs.core import testing
from otrio.envs.core.rng import make_rng
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.rules import State

KINDS = {
    "crab": ("crab", 0, 0, 0, "-", 0),
    "turtle": ("turtle", 0, 0, 0, "-", 0),
    "seahorse": ("seahorse", 0, 0, 0, "-", 0),
    "goldfish": ("goldfish", 0, 0, 0, "-", 0),
    "shark": ("shark", 0, 0, 0, "-", 0),
    "whale": ("whale", 0, 0, 0, "-", 0),
    "dolphin": ("dolphin", 0, 0, 0, "-", 0),
    "octopus": ("octopus", 0, 0, 0, "-", 0),
    "coral": ("-", 1, 0, 0, "-", 0),
    "coral2": ("-", 2, 0, 0, "-", 0),
    "chest": ("-", 0, 1, 0, "-", 0),
    "eye": ("-", 0, 0, 1, "-", 0),
    "eye2": ("-", 0, 0, 2, "-", 0),
    "green": ("-", 0, 0, 0, "green", 0),
    "yellow": ("-", 0, 0, 0, "yellow", 0),
    "base": ("-", 0, 0, 0, "-", 1),
    "coralchest": ("-", 1, 1, 0, "-", 0),
}
NAMES = list(KINDS)
COPIES = 3
DECK = tuple(KINDS[name] for _ in range(COPIES) for name in NAMES)


def cid(name: str, round_: int = 0, copy: int = 0) -> int:
    """Card id of ``name`` (copy ``copy``) in round ``round_``'s test deck."""
    return round_ * len(DECK) + copy * len(NAMES) + NAMES.index(name)


def config(**overrides) -> Config:
    """A config using the test deck."""
    return Config(cards=(DECK, DECK, DECK), **overrides)


def fresh(num_players: int = 3, seed: int = 0, **overrides) -> State:
    """A new game on the test deck (at its first decision)."""
    return State(config(num_players=num_players, **overrides), make_rng(seed))


GAMES = 2  # seeded games of each kind that the observation and seat-view tests walk


def random_games(config: dict):
    """Every state of a few seeded random games (one state object, played on)."""
    return testing.random_states(lambda seed: State(Config(**config), make_rng(seed)), GAMES)


def greedy_games(config: dict):
    """Every state of a few greedy games played through the env."""
    def env_fn():
        return envs.make("oceanos_v0", **config)

    agent = agents.make("greedy", env_fn())
    return testing.policy_states(env_fn, lambda env, obs: agent.act(obs), range(GAMES))
