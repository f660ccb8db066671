"""PettingZoo AEC wrappers that reshape the suite's observations for RL libraries.

The suite's observation is ``{"observation": float32[N], "action_mask": int8[A]}``.

- :class:`RenameObservationKeys` renames the keys, e.g. ``observation`` to
  ``observations``, the key RLlib's action-masking RLModule reads
  (:func:`rllib_keys` builds that one).
- :class:`FlattenObservation` gives one flat ``Box(float32, (N + A,))``: the
  observation followed by the mask as 0/1 floats, for libraries that want a plain
  vector; the mask is also in ``infos[agent]["action_mask"]`` and so in the info of
  ``last()`` (PettingZoo's convention for a non-dict observation). Its bounds are the
  observation's finite ones, then ``[0, 1]`` for the mask, so SuperSuit's Box wrappers
  take it: ``supersuit.normalize_obs_v0(FlattenObservation(env))``, then
  ``frame_stack_v1`` (``tests/integrations/test_supersuit.py``).

Both keep everything else of the env (agents, rewards, ``state()``, ``save_state()``
through ``unwrapped``) and never change what a seat observes.
"""

from __future__ import annotations

from collections.abc import Mapping

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

KEYS = ("observation", "action_mask")


class RenameObservationKeys(BaseWrapper):
    """The observation dict with its keys renamed by ``names`` (old -> new), the mask
    as ``mask_dtype`` (int8 as the env gives it, unless told otherwise)."""

    def __init__(self, env: AECEnv, names: Mapping[str, str], mask_dtype=np.int8):
        super().__init__(env)
        self.mask_dtype = np.dtype(mask_dtype)
        unknown = set(names) - set(KEYS)
        if unknown:
            raise ValueError(f"unknown observation keys {sorted(unknown)}; the keys are {KEYS}")
        self.names = {key: names.get(key, key) for key in KEYS}
        if len(set(self.names.values())) != len(KEYS):
            raise ValueError(f"renaming {dict(names)} would merge two keys")
        self._spaces: dict[str, gymnasium.spaces.Dict] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The inner space with renamed keys."""
        space = self._spaces.get(agent)
        if space is None:
            inner = dict(self.env.observation_space(agent).spaces)
            mask = inner["action_mask"]
            inner["action_mask"] = gymnasium.spaces.Box(0, 1, mask.shape, self.mask_dtype)
            space = self._spaces[agent] = gymnasium.spaces.Dict(
                {self.names[key]: inner[key] for key in KEYS})
        return space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The inner observation with renamed keys."""
        obs = self.env.observe(agent)
        obs["action_mask"] = obs["action_mask"].astype(self.mask_dtype, copy=False)
        return {self.names[key]: obs[key] for key in KEYS}


def rllib_keys(env: AECEnv) -> RenameObservationKeys:
    """``env`` with the keys RLlib's action-masking module reads:
    ``{"observations": float32[N], "action_mask": int8[A]}``."""
    return RenameObservationKeys(env, {"observation": "observations"})


class FlattenObservation(BaseWrapper):
    """One flat float32 vector: the observation, then the action mask as 0/1."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._spaces: dict[str, gymnasium.spaces.Box] = {}
        self._zeros: np.ndarray | None = None  # the mask of an agent not acting

    def observation_space(self, agent: str) -> gymnasium.spaces.Box:
        """``Box(float32, (N + A,))``: the observation's finite bounds (each piece's
        declared range, ``Game.observation_bounds``), then the mask in [0, 1]."""
        space = self._spaces.get(agent)
        if space is None:
            inner = self.env.observation_space(agent)
            obs, mask = inner["observation"], inner["action_mask"]
            low = np.concatenate([obs.low, mask.low.astype(np.float32)])
            high = np.concatenate([obs.high, mask.high.astype(np.float32)])
            space = self._spaces[agent] = gymnasium.spaces.Box(low, high, dtype=np.float32)
        return space

    def observe(self, agent: str) -> np.ndarray:
        """The observation and the mask as one vector."""
        obs = self.env.observe(agent)
        return np.concatenate([obs["observation"], obs["action_mask"].astype(np.float32)])

    @property
    def infos(self) -> dict[str, dict]:
        """Each agent's info with its action mask added, as ``last()`` returns it (an
        int8 array, shared and read-only: the same object while the position stands)."""
        base = self.env.unwrapped
        acting = base.agent_selection
        if base.terminations.get(acting, True) or base.truncations.get(acting, True):
            acting = None
        if self._zeros is None:
            self._zeros = np.zeros(base.game.info.num_actions, np.int8)
            self._zeros.flags.writeable = False
        return {agent: dict(info, action_mask=base.acting_mask_view() if agent == acting
                            else self._zeros)
                for agent, info in self.env.infos.items()}

    def num_observation_values(self, agent: str) -> int:
        """N: where the mask starts in the flat vector."""
        return self.env.observation_space(agent)["observation"].shape[0]


__all__ = ["FlattenObservation", "RenameObservationKeys", "rllib_keys"]
