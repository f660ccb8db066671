"""Version shim: ``from otrio.envs import oceanos_v0; oceanos_v0.env(num_players=...)``, or
``oceanos_v0.parallel_env(...)`` for PettingZoo's parallel API."""

from .core.registry import parallel_env as _parallel_env
from .oceanos.env import env, raw_env


def parallel_env(**config):
    """The parallel API of oceanos_v0 (``otrio.envs.core.registry.parallel_env``: an idle
    agent's action mask is all zeros)."""
    return _parallel_env("oceanos_v0", **config)


__all__ = ["env", "parallel_env", "raw_env"]
