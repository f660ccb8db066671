"""Your own agent in the suite's tournaments, balance sweeps, ladders and ``otrio play``.

Two ways in:

- **By name, from your code**: ``otrio.agents.register("mine", MyAgent)`` in the script
  that then runs a tournament (``otrio.benchmarks.tournament.tournament.run``), and the
  spec ``mine`` names it wherever a spec goes. ``MyAgent`` is a subclass of
  :class:`otrio.agents.base.Agent` (or a function ``f(env) -> Agent``); it is built with
  the env if its constructor takes one. A registered name lives in the process that
  registered it: runs on worker processes started by fork see it, Ray workers do not
  (use ``python:`` there).
- **By import path, from a config or the command line**: ``python:my_pkg.my_module:MyAgent``
  imports ``my_pkg.my_module`` (found on ``sys.path``: your installed package, or the
  current folder) and builds ``MyAgent`` as above. Importing a module runs its code, so a
  ``python:`` spec is refused unless you say you trust it: ``--trust-code`` on the command
  line, or ``OTRIO_TRUST_CODE=1`` in the environment (a config file someone handed you
  cannot run code by naming a module). Only a subclass of ``Agent`` is built.

Either way the agent plays through the same loop, records and reports as the suite's own:
its moves are checked for legality like any agent's, and its records replay exactly when
it is seeded by ``reset(seed)``.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from otrio.envs.core.errors import ConfigError

from .base import Agent

TRUST_ENV = "OTRIO_TRUST_CODE"
NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
REGISTERED: dict[str, Callable[..., Agent]] = {}


def register(name: str, factory: Callable[..., Agent], reserved: tuple[str, ...] = ()) -> None:
    """Make ``name`` an agent spec: ``factory`` (an :class:`Agent` subclass, or a function
    of the env) builds it. ``reserved``: names the suite uses itself, refused."""
    if not isinstance(name, str) or not NAME.match(name) or name in reserved:
        raise ConfigError(f"cannot register an agent as {name!r}: a name is lower-case "
                          "letters, digits and _ (at most 40), not one of the suite's own "
                          f"({', '.join(reserved)})")
    if not callable(factory):
        raise ConfigError(f"register({name!r}, ...): the factory must be an Agent subclass or "
                          "a function of the env")
    REGISTERED[name] = factory


def trusted_code(trust: bool | None = None) -> bool:
    """Whether a ``python:`` spec may import its module (``trust``, or
    ``OTRIO_TRUST_CODE=1``)."""
    return bool(trust) or os.environ.get(TRUST_ENV) == "1"


def build(factory: Callable[..., Any], env, what: str) -> Agent:
    """``factory(env)`` or ``factory()``, whichever it takes; refused unless an Agent."""
    try:
        takes_env = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_env = True
    agent = factory(env) if takes_env else factory()
    if not isinstance(agent, Agent):
        raise ConfigError(f"{what} built a {type(agent).__name__}, not an otrio Agent "
                          "(subclass otrio.agents.base.Agent: reset(seed) and act(observation))")
    return agent


def python_agent(target: str, env) -> Agent:
    """The agent ``python:MODULE:CLASS`` names (see the module docstring)."""
    if not TARGET.match(target):
        raise ConfigError(f"python:{target[:80]} is not python:MODULE:CLASS (e.g. "
                          "python:my_pkg.agents:MyAgent)")
    if not trusted_code():
        raise ConfigError(f"python:{target} imports and runs your module's code: say you trust "
                          f"it with --trust-code, or {TRUST_ENV}=1 in the environment")
    module_name, _, attr = target.partition(":")
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:  # the current folder, as python -m has it
        sys.path.append(here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ConfigError(f"python:{target}: cannot import {module_name} ({err}); is it on "
                          "the path (your package installed, or run from its folder)?") from None
    factory = getattr(module, attr, None)
    if not (inspect.isclass(factory) and issubclass(factory, Agent)):
        raise ConfigError(f"python:{target}: {module_name} has no Agent subclass {attr}")
    return build(factory, env, f"python:{target}")


__all__ = ["REGISTERED", "TRUST_ENV", "build", "python_agent", "register", "trusted_code"]
