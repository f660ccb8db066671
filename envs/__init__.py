"""The suite's environments. ``otrio.envs.make("oceanos_v0", num_players=4)``.

``from otrio.envs import oceanos_v0; oceanos_v0.env(...)`` works too, and every id is
registered with PettingZoo's registry as ``otrio/<id>``; the single-agent self-play
view of each game (``integrations.SelfPlay``) is registered with gymnasium as
``otrio/OceanosSelfPlay-v0``, ``otrio/OtysSelfPlay-v0`` and ``otrio/OtontinSelfPlay-v0``;
and the games are registered with OpenSpiel when ``pyspiel`` is imported, before or after
(``pyspiel.load_game("python_otrio_oceanos")``).
"""

from .core.registry import (
    ENV_MODULES,
    GYMNASIUM_IDS,
    available,
    make,
    make_raw,
    register_with_gymnasium,
    register_with_openspiel,
    register_with_pettingzoo,
)

register_with_pettingzoo()
register_with_gymnasium()
register_with_openspiel()

__all__ = ["ENV_MODULES", "GYMNASIUM_IDS", "available", "make", "make_raw"]
