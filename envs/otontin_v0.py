"""Version shim: ``from envs import otontin_v0; otontin_v0.env(num_players=...)``."""

from .otontin.env import env, raw_env

__all__ = ["env", "raw_env"]
