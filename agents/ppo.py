"""A trained MaskablePPO policy as an agent: spec ``ppo:PATH``.

``PATH`` is an exported agent (``otrio export-checkpoint``): its manifest ``X.json``
(or its weights ``X.safetensors``; the manifest beside them has the same stem). The
network is rebuilt from this package's code and its safetensors weights are loaded
after their sha256 is checked: nothing in the files is executed (``agents/weights.py``).

``PATH`` may also be a Stable-Baselines3 ``.zip`` of the user's own training run, with
its metadata ``.json`` beside it; loading one runs code stored in the file, so it is
refused unless trusted (``--trust-checkpoint`` or ``OTRIO_TRUST_CHECKPOINTS=1``).

Either way the manifest or metadata names the env id, the observation size and the
action count the policy was trained on, and the teacher hints it reads, if any
(``agents/hints.py``; the agent computes them). A checkpoint that is missing, corrupt,
untrusted or made for another game is rejected before any game starts.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from envs.core.errors import ConfigError

from .base import Agent


def metadata_path(path: Path) -> Path:
    """Where the metadata of a checkpoint lives (an exported agent's: its manifest)."""
    return path.with_suffix(".json")


def read_metadata(path: Path) -> dict:
    """The metadata beside a checkpoint; a clear error if it is missing or corrupt."""
    meta_file = metadata_path(path)
    try:
        meta = json.loads(meta_file.read_text())
    except (OSError, ValueError) as err:
        raise ConfigError(f"PPO checkpoint metadata {meta_file} is missing or corrupt: {err}") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"PPO checkpoint metadata {meta_file} is corrupt: not a JSON object")
    return meta


class PPOAgent(Agent):
    """Plays the policy's most likely legal action (deterministic) for any seat."""

    def __init__(self, path: str, env, deterministic: bool = True, trust: bool | None = None):
        super().__init__()
        from . import weights

        self.path = Path(path)
        if not self.path.exists():
            raise ConfigError(f"PPO checkpoint {self.path} does not exist")
        import torch

        torch.set_num_threads(1)
        zipped = weights.is_sb3_zip(self.path)
        if zipped:
            meta = read_metadata(self.path)  # plain JSON; the zip itself is not read yet
        else:
            self.policy, manifest = weights.load_policy(self.path)
            meta = manifest.model_dump()
        info = env.unwrapped.game.info
        expected = {"env_id": info.env_id, "observation_size": info.observation_size,
                    "num_actions": info.num_actions}
        for key, value in expected.items():
            if meta.get(key) != value:
                raise ConfigError(
                    f"PPO checkpoint {self.path} was trained for {key}={meta.get(key)!r}, "
                    f"this game has {key}={value!r}"
                )
        if zipped:  # refused here unless trusted
            self.policy = weights.load_sb3_zip(self.path, trust, device="cpu").policy
        self.deterministic = deterministic
        from .hints import make_hints, observation_size

        try:
            self.hints = make_hints(meta.get("hints"), env)
        except ValueError as err:
            raise ConfigError(f"PPO checkpoint {self.path}: {err}") from None
        size = observation_size(env, meta.get("hints"))
        if self.policy.observation_space.shape != (size,):
            raise ConfigError(f"PPO checkpoint {self.path} reads {self.policy.observation_space.shape} "
                              f"observations, its metadata promises ({size},)")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.hints is not None:
            self.hints.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return policy_action(self.policy, observation, self.deterministic, self.hints)


def policy_action(model, observation: dict[str, np.ndarray], deterministic: bool, hints=None) -> int:
    """The action of a MaskablePPO model or its policy (both ``predict`` alike) for an
    observation dict (with its hints, if any)."""
    if hints is not None:
        observation = hints.augment(observation)
    action, _ = model.predict(observation["observation"],
                              action_masks=observation["action_mask"].astype(bool),
                              deterministic=deterministic)
    return int(action)
