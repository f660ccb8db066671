"""The registry of the suite's environments: ``otrio.envs.make("oceanos_v0", **config)``."""

from __future__ import annotations

import importlib
from typing import Any

from .bounded import short_repr
from .errors import ConfigError

# env id -> module that defines env() and raw_env()
ENV_MODULES: dict[str, str] = {
    "oceanos_v0": "otrio.envs.oceanos.env",
    "otys_v0": "otrio.envs.otys.env",
    "otontin_v0": "otrio.envs.otontin.env",
}


# gymnasium ids of the single-agent self-play view (otrio.integrations.selfplay.SelfPlay):
# registered by name, so importing envs imports nothing from the layers above it
GYMNASIUM_IDS: dict[str, str] = {
    "oceanos_v0": "otrio/OceanosSelfPlay-v0",
    "otys_v0": "otrio/OtysSelfPlay-v0",
    "otontin_v0": "otrio/OtontinSelfPlay-v0",
}
GYMNASIUM_ENTRY_POINT = "otrio.integrations.selfplay:selfplay_env"


def _short(env_id: str) -> str:
    return env_id.rsplit("_v", 1)[0]


def game_name(env_id: str) -> str:
    """The short name of an env id's game: ``game_name("oceanos_v0") == "oceanos"``."""
    return _short(resolve_env_id(env_id))


def resolve_env_id(name: str) -> str:
    """The env id ``name`` stands for: an env id (``oceanos_v0``) or a game's short name
    (``oceanos``: its newest version), case and outer spaces aside. The one reader of a
    game named by a user (the commands, the configs' ``game:``); a :class:`ConfigError`
    naming the known ones otherwise."""
    if isinstance(name, str):
        text = name.strip().lower()
        if text in ENV_MODULES:
            return text
        versions = [env_id for env_id in ENV_MODULES if _short(env_id) == text]
        if versions:
            return max(versions, key=lambda env_id: int(env_id.rsplit("_v", 1)[1]))
    shorts = ", ".join(dict.fromkeys(_short(env_id) for env_id in sorted(ENV_MODULES)))
    raise ConfigError(f"unknown env id {short_repr(name, 60)}; known: "
                      f"{', '.join(sorted(ENV_MODULES))}, or a game's short name ({shorts})")


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
        try:  # a short name: say which id it stands for (make takes exact ids)
            hint = f"; did you mean {resolve_env_id(env_id)!r}?"
        except ConfigError:
            hint = f"; known: {', '.join(sorted(ENV_MODULES))}"
        raise ConfigError(f"unknown env id {short_repr(env_id, 60)}{hint}")
    return importlib.import_module(ENV_MODULES[env_id])


def config_model(env_id: str):
    """The pydantic model of ``env_id``'s config (its game's ``config_model``: the keys
    and values :func:`make` accepts)."""
    return _module(env_id).raw_env.game.config_model


def make(env_id: str, **config: Any):
    """The environment ``env_id`` built with ``config`` (validated by the game)."""
    return _module(env_id).env(**config)


def make_raw(env_id: str, **config: Any):
    """Like :func:`make` (the suite's env() needs no extra wrappers)."""
    return _module(env_id).raw_env(**config)


def parallel_env(env_id: str, **config: Any):
    """The parallel API of ``env_id`` (PettingZoo's ``turn_based_aec_to_parallel`` of
    :func:`make`; its ``aec_to_parallel`` refuses turn-based games).

    Every step takes a dict of actions but plays only the acting agent's; the others are
    ignored. Each live agent's observation is returned at every step, and an agent that
    does not act now has an all-zero ``action_mask``: a policy must not sample from it
    (``numpy``'s ``choice`` of no legal action raises ``ValueError: a cannot be empty``);
    give such an agent any action, or leave it out of the dict. The acting agent is the
    one whose mask has a legal action (``infos[agent]["active_agent"]`` also names it
    after each step). Rewards are each step's, for every agent, so a seat's final -1
    reaches it on the step that ends the game, whoever moved.
    """
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(make(env_id, **config))


PARALLEL_ENTRY_POINT = "otrio.envs.core.registry:parallel_env"


def register_with_pettingzoo() -> None:
    """Register every id with PettingZoo's registry, for both APIs:
    ``pettingzoo.make("aec", "otrio/oceanos_v0")`` and
    ``pettingzoo.make("parallel", "otrio/oceanos_v0")`` (:func:`parallel_env`)."""
    try:
        from pettingzoo import register
    except ImportError:  # older PettingZoo without a registry
        return
    import warnings

    for env_id, module in ENV_MODULES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            register("aec", f"otrio/{env_id}", entry_point=f"{module}:env")
            register("parallel", f"otrio/{env_id}", entry_point=PARALLEL_ENTRY_POINT,
                     kwargs={"env_id": env_id})


def register_with_gymnasium() -> None:
    """Register the self-play view of every game with gymnasium's registry:
    ``gymnasium.make("otrio/OceanosSelfPlay-v0", num_players=2)`` (after ``import envs``,
    or in one step: ``gymnasium.make("envs:otrio/OceanosSelfPlay-v0", ...)``)."""
    import gymnasium

    for env_id, gym_id in GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYMNASIUM_ENTRY_POINT,
                               kwargs={"env_id": env_id})
