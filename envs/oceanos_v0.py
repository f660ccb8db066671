"""Version shim: ``from envs import oceanos_v0; oceanos_v0.env(num_players=...)``."""

from .oceanos.env import env, raw_env

__all__ = ["env", "raw_env"]
