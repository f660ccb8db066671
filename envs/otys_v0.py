"""Version shim: ``from otrio.envs import otys_v0; otys_v0.env(num_players=...)``, or
``otys_v0.parallel_env(...)`` for PettingZoo's parallel API."""

from .core.registry import parallel_env as _parallel_env
from .otys.env import env, raw_env


def parallel_env(**config):
    """The parallel API of otys_v0 (``otrio.envs.core.registry.parallel_env``: an idle
    agent's action mask is all zeros)."""
    return _parallel_env("otys_v0", **config)


__all__ = ["env", "parallel_env", "raw_env"]
