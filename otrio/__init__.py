"""otrio: three tabletop games (Otys, Oceanos, Otontin) as reinforcement-learning
environments, with agents, tournaments, training and balance analysis.

``otrio.make(env_id, **config)`` is the front door (``otrio.envs.make`` behind it)::

    import otrio
    env = otrio.make("oceanos_v0", num_players=3)

The sub-packages are ``otrio.envs``, ``otrio.agents``, ``otrio.arena`` (runs: games
played, recorded and checked), ``otrio.training``, ``otrio.benchmarks`` and
``otrio.integrations``. Importing ``otrio`` registers the games
with PettingZoo (``otrio/<id>``) and Gymnasium (``otrio/<Game>SelfPlay-v0``), and with
OpenSpiel (``python_otrio_<game>``) once ``pyspiel`` is imported, before or after: ``import
otrio`` itself never imports OpenSpiel, which would cost it about half again its time.
"""

from __future__ import annotations

from pathlib import Path

# In a source checkout the sub-packages are the repository's top-level folders (envs/,
# agents/, ...), mapped to otrio.envs, otrio.agents, ... exactly as the wheel and an
# editable install map them (pyproject.toml's package-dir); without an install, the
# checkout's root is searched after this folder. An installed wheel holds them here.
_HERE = Path(__file__).resolve().parent
if not (_HERE / "envs").is_dir() and (_HERE.parent / "envs" / "__init__.py").is_file():
    __path__.append(str(_HERE.parent))  # noqa: F821 (a package's own __path__)

import importlib  # noqa: E402  (after the path above is set)

from otrio.envs import available, make  # noqa: E402

__version__ = "0.1.0"
__all__ = ["__version__", "available", "make"]
# imported on first use (``otrio.agents.make(...)`` after a plain ``import otrio``)
SUB_PACKAGES = ("envs", "agents", "arena", "training", "benchmarks", "integrations")


def __getattr__(name: str):
    """A sub-package on first use, so that ``import otrio`` stays light."""
    if name in SUB_PACKAGES:
        return importlib.import_module(f"otrio.{name}")
    raise AttributeError(f"module 'otrio' has no attribute {name!r}")
