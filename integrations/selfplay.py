"""The single-agent self-play view as a public gymnasium env, usable without our trainer.

``SelfPlay("oceanos_v0", num_players=2)`` is a ``gymnasium.Env``: one learner seat
(random each episode unless ``learner_seat`` is given); every other seat is played by
an opponent drawn from ``opponents`` (``random``, ``greedy``, ``self`` = frozen
snapshots set with :meth:`SelfPlay.set_snapshots`). The learner receives every
reward that reaches its seat (including those paid during the others' turns and its
final -1 when it loses), unlike a wrapper that pays only the mover.

- observation: ``Box(float32, (N,))``, the learner seat's observation, bounded by each
  piece's declared range (``Game.observation_bounds``; the hints' in [0, 1]);
- ``action_masks()``: the learner's legal actions as booleans (sb3-contrib
  MaskablePPO reads it), and ``info["action_mask"]`` (int8) after each reset and step;
- ``info["learner_seat"]`` and ``info["game_seed"]`` after reset: the game can be
  replayed through the AEC env (``otrio.envs.make(id, **config).reset(seed=game_seed)``);
- ``illegal_action="terminate"`` in the game config ends the episode on an illegal
  action with reward -1 and ``info["terminated_by"] == "illegal_action"`` (the
  default, ``"raise"``, raises ``IllegalActionError``), in the inner view too
  (``env.unwrapped``, which Gymnasium's ``check_env`` recommends).

It wraps :class:`otrio.training.selfplay.SelfPlayEnv` (the view our trainer uses), so the
two stay one implementation.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from otrio.training.selfplay import SelfPlayEnv


class SelfPlay(gymnasium.Wrapper):
    """One learner seat of a suite env against a pool of opponents (see the module)."""

    def __init__(self, env_id: str, *, opponents: dict[str, float] | None = None,
                 learner_seat: int | None = None, seed: int = 0, hints: str | None = None,
                 **game_config: Any):
        super().__init__(SelfPlayEnv(env_id, game_config, opponents=opponents,
                                     learner_seat=learner_seat, seed=seed, hints=hints))
        self.metadata = {"render_modes": []}
        self._num_actions = self.action_space.n

    @property
    def learner_seat(self) -> int:
        """The learner's seat this episode."""
        return self.env.unwrapped.seat

    def set_snapshots(self, paths: list[str], sha256: list[str] | None = None) -> None:
        """Frozen learner snapshots for ``self`` opponents: exported agents (``X.json`` +
        ``X.safetensors``, which load without running anything; ``otrio export-checkpoint``
        writes them), each with its weights' expected sha256 if ``sha256`` is given."""
        self.env.unwrapped.set_snapshots(paths, sha256)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector (a copy)."""
        return np.array(self.env.unwrapped.action_masks(), dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; the learner's first observation and its info."""
        obs, info = self.env.reset(seed=seed, options=options)
        info["action_mask"] = self.action_masks().astype(np.int8)
        return obs, info

    def step(self, action):
        """Play the learner's ``action``, then the opponents until it decides again."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["action_mask"] = (np.zeros(self._num_actions, np.int8) if terminated or truncated
                               else self.action_masks().astype(np.int8))
        return obs, reward, terminated, truncated, info


def selfplay_env(env_id: str, **kwargs: Any) -> SelfPlay:
    """``SelfPlay(env_id, **kwargs)``: the entry point of the gymnasium ids."""
    return SelfPlay(env_id, **kwargs)


__all__ = ["SelfPlay", "selfplay_env"]
