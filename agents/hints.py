"""Teacher hints: a greedy agent's opinion of every action, as observation features.

A policy trained with ``hints: greedy`` reads, after the game's observation, two
blocks of one number per action id, computed by the game's greedy agent from that same
observation:

- **best**: 1 for each action greedy values highest (ties all marked), else 0;
- **closeness**: ``1 / (1 + shortfall)`` for every legal action, where ``shortfall`` is
  how far its value falls below the best in greedy's units (PP for Otys), 0 for an
  illegal one.

The hints are a function of the observation, so a hinted policy sees nothing the
plain one could not: they hand it the heuristic's one-turn lookahead (Otys' greedy
values a key by simulating the turn it opens, which no clone learned from the flat
observation). Whoever runs a hinted policy computes the same hints: the self-play view
for the learner and its frozen snapshots, the ``ppo:PATH`` agent from the checkpoint's
metadata, and the demonstrations of an imitation warm start.
"""

from __future__ import annotations

import numpy as np

from .greedy import greedy_agent

HINT_KINDS = ("greedy",)
BLOCKS = ("best", "closeness")  # per action id, in this order
TIE_TOLERANCE = 1e-9  # values this close to the best are best (as Agent.choose_best ties them)


def hint_size(num_actions: int) -> int:
    """How many floats the hints add to an observation."""
    return len(BLOCKS) * num_actions


def block_offset(block: str, num_actions: int) -> int:
    """Where hint block ``block`` (one of :data:`BLOCKS`) starts within the hints."""
    return BLOCKS.index(block) * num_actions


def observation_size(env, kind: str | None) -> int:
    """The size of ``env``'s observation as a policy with hints ``kind`` reads it."""
    info = env.unwrapped.game.info
    return info.observation_size + (hint_size(info.num_actions) if kind is not None else 0)


def observation_bounds(env, kind: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The float32 ``(low, high)`` of that observation: the game's declared ranges
    (``Game.observation_bounds``), then [0, 1] for each hint."""
    base = env.unwrapped
    low, high = base.game.observation_bounds(base.config)
    if kind is None:
        return low, high
    size = hint_size(base.game.info.num_actions)
    return (np.concatenate([low, np.zeros(size, np.float32)]),
            np.concatenate([high, np.ones(size, np.float32)]))


def encode(values: dict[int, float], num_actions: int) -> np.ndarray:
    """The hint blocks (float32) of a valuing agent's ``action_values``."""
    out = np.zeros(hint_size(num_actions), np.float32)
    best = max(values.values())
    for action, value in values.items():
        shortfall = best - value
        out[action] = shortfall <= TIE_TOLERANCE
        out[num_actions + action] = 1.0 / (1.0 + shortfall)
    return out


class GreedyHints:
    """The hints of one seat's view (a greedy agent of its own: its caches follow one game)."""

    def __init__(self, env):
        self.num_actions = env.unwrapped.game.info.num_actions
        self.size = hint_size(self.num_actions)
        self.greedy = greedy_agent(env)

    def reset(self, seed: int | None = None) -> None:
        """Forget the last game (the greedy agent's caches)."""
        self.greedy.reset(seed)

    def features(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The hint blocks (float32, ``size``) for one observation dict."""
        return encode(self.greedy.action_values(observation), self.num_actions)

    def augment(self, observation: dict[str, np.ndarray],
                values: dict[int, float] | None = None) -> dict[str, np.ndarray]:
        """The observation dict with the hints appended to its vector (``values``: the
        greedy agent's ``action_values`` for it, when the caller has them already)."""
        return {"observation": self.hinted(observation, values),
                "action_mask": observation["action_mask"]}

    def hinted(self, observation: dict[str, np.ndarray],
               values: dict[int, float] | None = None) -> np.ndarray:
        """The observation vector with the hints appended (``values`` as for ``augment``)."""
        hints = (self.features(observation) if values is None
                 else encode(values, self.num_actions))
        return np.concatenate([observation["observation"], hints])


def make_hints(kind: str | None, env) -> GreedyHints | None:
    """The hints of ``kind`` for ``env`` (None: no hints); a ValueError for an unknown kind."""
    if kind is None:
        return None
    if kind not in HINT_KINDS:
        raise ValueError(f"unknown hints {kind!r} (use {', '.join(HINT_KINDS)})")
    return GreedyHints(env)
