"""The registry of the suite's environments: ``envs.make("oceanos_v0", **config)``."""

from __future__ import annotations

import importlib
from typing import Any

from .errors import ConfigError

# env id -> module that defines env() and raw_env()
ENV_MODULES: dict[str, str] = {
    "oceanos_v0": "envs.oceanos.env",
    "otys_v0": "envs.otys.env",
    "otontin_v0": "envs.otontin.env",
}


# gymnasium ids of the single-agent self-play view (integrations.selfplay.SelfPlay):
# registered by name, so importing envs imports nothing from the layers above it
GYMNASIUM_IDS: dict[str, str] = {
    "oceanos_v0": "otrio/OceanosSelfPlay-v0",
    "otys_v0": "otrio/OtysSelfPlay-v0",
    "otontin_v0": "otrio/OtontinSelfPlay-v0",
}
GYMNASIUM_ENTRY_POINT = "integrations.selfplay:selfplay_env"


def available() -> list[str]:
    """Ids whose module can be imported (games that exist in this checkout)."""
    ids = []
    for env_id, module in ENV_MODULES.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        ids.append(env_id)
    return ids


def _module(env_id: str):
    if env_id not in ENV_MODULES:
        raise ConfigError(f"unknown env id {env_id!r}; known: {', '.join(sorted(ENV_MODULES))}")
    return importlib.import_module(ENV_MODULES[env_id])


def make(env_id: str, **config: Any):
    """The environment ``env_id`` built with ``config`` (validated by the game)."""
    return _module(env_id).env(**config)


def make_raw(env_id: str, **config: Any):
    """Like :func:`make` (the suite's env() needs no extra wrappers)."""
    return _module(env_id).raw_env(**config)


def register_with_pettingzoo() -> None:
    """Register every id with PettingZoo's registry (``pettingzoo.make("aec", id)``)."""
    try:
        from pettingzoo import register
    except ImportError:  # older PettingZoo without a registry
        return
    import warnings

    for env_id, module in ENV_MODULES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            register("aec", f"otrio/{env_id}", entry_point=f"{module}:env")


def register_with_gymnasium() -> None:
    """Register the self-play view of every game with gymnasium's registry:
    ``gymnasium.make("otrio/OceanosSelfPlay-v0", num_players=2)`` (after ``import envs``,
    or in one step: ``gymnasium.make("envs:otrio/OceanosSelfPlay-v0", ...)``)."""
    import gymnasium

    for env_id, gym_id in GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYMNASIUM_ENTRY_POINT,
                               kwargs={"env_id": env_id})
