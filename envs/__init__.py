"""The suite's environments. ``envs.make("oceanos_v0", num_players=4)``.

``from envs import oceanos_v0; oceanos_v0.env(...)`` works too, and every id is
registered with PettingZoo's registry as ``otrio/<id>``.
"""

from .core.registry import ENV_MODULES, available, make, make_raw, register_with_pettingzoo

register_with_pettingzoo()

__all__ = ["ENV_MODULES", "available", "make", "make_raw"]
