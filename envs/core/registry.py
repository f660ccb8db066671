"""The registry of the suite's environments: ``otrio.envs.make("oceanos_v0", **config)``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from typing import Any

import gymnasium
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .bounded import short_repr
from .errors import ConfigError

ENV_MODULES: dict[str, str] = {
    "oceanos_v0": "otrio.envs.oceanos.env",
    "otys_v0": "otrio.envs.otys.env",
    "otontin_v0": "otrio.envs.otontin.env",
}
"""Every env id -> the module that defines its ``env()`` and ``raw_env()``."""

# registered by name, so importing envs imports nothing from the layers above it
GYMNASIUM_IDS: dict[str, str] = {
    "oceanos_v0": "otrio/OceanosSelfPlay-v0",
    "otys_v0": "otrio/OtysSelfPlay-v0",
    "otontin_v0": "otrio/OtontinSelfPlay-v0",
}
"""Env id -> the gymnasium id of its single-agent self-play view
(:class:`otrio.integrations.selfplay.SelfPlay`)."""
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
    """The env ids whose game can be imported here (``["oceanos_v0", "otys_v0",
    "otontin_v0"]`` in a full install): what :func:`make` takes."""
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
    """The environment ``env_id`` with the game's ``config`` keys, validated: a
    PettingZoo AEC env (:class:`~otrio.envs.core.aec.BoardGameEnv`). ``otrio.make`` and
    ``otrio.envs.make`` are this function.

    ``env_id``: ``oceanos_v0``, ``otys_v0`` or ``otontin_v0`` (:data:`ENV_MODULES`;
    :func:`available` lists those importable here). The keys: every game takes
    ``num_players``, ``dense_reward`` (score-change shaping on top of the +1/-1 end
    reward), ``illegal_action`` (``"raise"`` or ``"terminate"``), ``render_viewer`` (a
    seat, or None for the whole table) and ``render_mode`` (``"ansi"``, ``"rgb_array"``,
    ``"human"``), plus its own, such as ``troubled_waters`` (Oceanos), ``sponsors``
    (Otys) or ``bean_target`` (Otontin): :func:`config_model` is the model, each game's
    page lists them. An unknown id or key, or a bad value, raises
    :class:`~otrio.envs.core.errors.ConfigError` naming it. For example::

        import otrio
        env = otrio.make("otys_v0", num_players=3, sponsors={"sides": "advanced"})
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.last()
        env.step(int(obs["action_mask"].nonzero()[0][0]))  # the first legal action
    """
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

    return turn_based_aec_to_parallel(make(env_id, **config))


PARALLEL_ENTRY_POINT = "otrio.envs.core.registry:parallel_env"


def register_with_pettingzoo() -> None:
    """Register every id with PettingZoo's registry, for both APIs:
    ``pettingzoo.make("aec", "otrio/oceanos_v0")`` and
    ``pettingzoo.make("parallel", "otrio/oceanos_v0")`` (:func:`parallel_env`)."""
    try:
        from pettingzoo import register  # optional: old PettingZoo
    except ImportError:  # older PettingZoo without a registry
        return

    for env_id, module in ENV_MODULES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            register("aec", f"otrio/{env_id}", entry_point=f"{module}:env")
            register("parallel", f"otrio/{env_id}", entry_point=PARALLEL_ENTRY_POINT,
                     kwargs={"env_id": env_id})


def register_with_gymnasium() -> None:
    """Register the self-play view of every game with gymnasium's registry:
    ``gymnasium.make("otrio/OceanosSelfPlay-v0", num_players=2)`` (after ``import otrio``,
    or in one step: ``gymnasium.make("otrio:otrio/OceanosSelfPlay-v0", ...)``)."""

    for env_id, gym_id in GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYMNASIUM_ENTRY_POINT,
                               kwargs={"env_id": env_id})


OPENSPIEL_MODULE = "otrio.integrations.openspiel"  # registers the games with pyspiel


def register_with_openspiel() -> None:
    """Register the games with OpenSpiel (``pyspiel.load_game("python_otrio_oceanos")``)
    once ``pyspiel`` is imported: now if it is, else when it is, so that importing the
    suite imports no OpenSpiel (about a third more import time) and needs none."""
    if sys.modules.get("pyspiel") is not None:
        _register_openspiel_games()
    elif not any(isinstance(finder, _AfterPyspiel) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterPyspiel())


def _register_openspiel_games() -> None:
    """Import :data:`OPENSPIEL_MODULE`; a failure warns, since it must not break OpenSpiel."""
    try:
        importlib.import_module(OPENSPIEL_MODULE)
    except Exception as err:  # noqa: BLE001 (any failure of ours, reported, not raised)
        warnings.warn(f"otrio: the games were not registered with OpenSpiel: {err!r}",
                      RuntimeWarning, stacklevel=2)


class _AfterPyspiel:
    """An import hook (on ``sys.meta_path``) that registers the games once ``pyspiel``
    has loaded, then leaves the path; it finds nothing itself."""

    def find_spec(self, name, path=None, target=None):
        if name != "pyspiel":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)  # the real one, by the finders after this
        if spec is not None and spec.loader is not None:
            spec.loader = _LoadThenRegister(spec.loader)
        return spec


class _LoadThenRegister:
    """A loader that runs ``pyspiel``'s own, then registers the games."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self.loader  # as if never wrapped
        _register_openspiel_games()
