"""A trained MaskablePPO policy as an agent: spec ``ppo:PATH``.

A checkpoint is ``PATH`` (the sb3 ``.zip``) plus ``PATH`` with ``.json`` in place of
``.zip``: the env id, the observation size and the action count it was trained on,
and the teacher hints it reads, if any (``agents/hints.py``; the agent computes them).
A checkpoint that is missing, corrupt or made for another game is rejected before
any game starts.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from envs.core.errors import ConfigError

from .base import Agent


def metadata_path(path: Path) -> Path:
    """Where the metadata of a checkpoint lives."""
    return path.with_suffix(".json")


def read_metadata(path: Path) -> dict:
    """The metadata beside a checkpoint; a clear error if it is missing or corrupt."""
    meta_file = metadata_path(path)
    try:
        return json.loads(meta_file.read_text())
    except (OSError, ValueError) as err:
        raise ConfigError(f"PPO checkpoint metadata {meta_file} is missing or corrupt: {err}") from None


class PPOAgent(Agent):
    """Plays the policy's most likely legal action (deterministic) for any seat."""

    def __init__(self, path: str, env, deterministic: bool = True):
        super().__init__()
        self.path = Path(path)
        if not self.path.exists():
            raise ConfigError(f"PPO checkpoint {self.path} does not exist")
        meta = read_metadata(self.path)
        info = env.unwrapped.game.info
        expected = {"env_id": info.env_id, "observation_size": info.observation_size,
                    "num_actions": info.num_actions}
        for key, value in expected.items():
            if meta.get(key) != value:
                raise ConfigError(
                    f"PPO checkpoint {self.path} was trained for {key}={meta.get(key)!r}, "
                    f"this game has {key}={value!r}"
                )
        import torch
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)
        try:
            self.model = MaskablePPO.load(str(self.path), device="cpu")
        except Exception as err:  # sb3 raises many kinds on a corrupt zip
            raise ConfigError(f"PPO checkpoint {self.path} could not be loaded: {err}") from None
        self.deterministic = deterministic
        from .hints import make_hints, observation_size

        try:
            self.hints = make_hints(meta.get("hints"), env)
        except ValueError as err:
            raise ConfigError(f"PPO checkpoint {self.path}: {err}") from None
        size = observation_size(env, meta.get("hints"))
        if self.model.observation_space.shape != (size,):
            raise ConfigError(f"PPO checkpoint {self.path} reads {self.model.observation_space.shape} "
                              f"observations, its metadata promises ({size},)")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.hints is not None:
            self.hints.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return policy_action(self.model, observation, self.deterministic, self.hints)


def policy_action(model, observation: dict[str, np.ndarray], deterministic: bool, hints=None) -> int:
    """A MaskablePPO model's action for an observation dict (with its hints, if any)."""
    if hints is not None:
        observation = hints.augment(observation)
    action, _ = model.predict(observation["observation"],
                              action_masks=observation["action_mask"].astype(bool),
                              deterministic=deterministic)
    return int(action)
