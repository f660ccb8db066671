"""Version shim: ``from envs import otys_v0; otys_v0.env(num_players=...)``."""

from .otys.env import env, raw_env

__all__ = ["env", "raw_env"]
