"""Where a relative path names a file: one rule for every path a user gives.

The suite installs as one package, ``otrio``, whose sub-packages (``otrio.envs``,
``otrio.agents``, ...) sit next to its data, ``agents/pretrained/`` (the shipped agents)
and ``configs/`` (the shipped configs): in a clone they are the clone's top-level folders,
in an installed wheel they lie in ``site-packages/otrio`` (:data:`PACKAGE_ROOT`). So a
path written from the clone's root, such as ``agents/pretrained/oceanos_ppo.json`` or
``configs/tournament/oceanos.yaml``, names the same file in both.

**The rule.** A relative path that names a file to read (a config given on the command
line; ``ppo:PATH``, ``net:PATH`` and mcts's ``net=PATH`` in an agent spec; a training
config's ``init_policy``) is looked up, first match wins:

1. beside the config that names it (relative to the config file's folder), for paths
   inside a config; such a path is rewritten to that absolute path when the config
   is loaded (:func:`rebase_spec`, :func:`rebase_file`), so it means the same file
   from any folder;
2. in the current folder (as every path did before this rule);
3. in the installed package (:data:`PACKAGE_ROOT`), so the shipped agents and configs
   are found from any folder; a path that leads out of the package from there
   (``../../etc/passwd``, or a link inside it to elsewhere) is refused.

An absolute path is taken as it is. Paths a run writes (``output``, ``--json``) are
always relative to the current folder.
"""

from __future__ import annotations

from pathlib import Path

from .errors import ConfigError

# the folder that holds the sub-packages and their data (agents/pretrained, configs): the
# clone's root, or site-packages/otrio
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
PRETRAINED = PACKAGE_ROOT / "agents" / "pretrained"  # the shipped agents
CONFIGS = PACKAGE_ROOT / "configs"  # the shipped configs
FILE_KINDS = ("ppo", "net")  # agent specs KIND:PATH
# agent specs KIND:...,KEY=PATH (and value:PATH,...: its first item is the model's path)
FILE_OPTIONS = {"mcts": ("net", "value"), "value": ("net",)}


def find_file(path: str | Path) -> Path:
    """The file ``path`` names when it is opened (steps 2 and 3 of the rule: step 1 was
    applied when its config was loaded): the path itself if it exists, else the
    installed package's file; the path as given where neither exists, so that the
    caller's own error names it. A package file that resolves outside the package
    (``..`` or a link) is refused with a :class:`ConfigError` naming it."""
    path = Path(path)
    if path.is_absolute() or path.exists():
        return path
    shipped = PACKAGE_ROOT / path
    if not shipped.exists():
        return path
    resolved = shipped.resolve()
    if not resolved.is_relative_to(PACKAGE_ROOT):
        raise ConfigError(f"{path} is not in the current folder, and in the installed package "
                          f"it leads out of the package (to {resolved}); a path looked up in the "
                          f"package must stay inside {PACKAGE_ROOT}")
    return shipped


def where_looked(path: str | Path) -> str:
    """The end of a "does not exist" message for a relative ``path``: where it was
    looked for (empty for an absolute path)."""
    if Path(path).is_absolute():
        return ""
    return (f" (a relative path is looked for beside the config that names it, if any, "
            f"then in the current folder, then in the installed package, {PACKAGE_ROOT})")


def rebase_file(path: str, folder: str | Path) -> str:
    """``path`` as an absolute path where it names a file beside a config in ``folder``
    (step 1 of the rule); unchanged otherwise (it is looked up when it is opened)."""
    if not path or Path(path).is_absolute():
        return path
    here = Path(folder) / path
    return str(here.resolve()) if here.exists() else path


def rebase_spec(spec: str, folder: str | Path) -> str:
    """An agent spec from a config in ``folder`` with each file it names rebased
    (:func:`rebase_file`): ``ppo:PATH``, ``net:PATH``, ``value:PATH`` and the file options
    of :data:`FILE_OPTIONS` (``mcts:...,net=PATH,value=PATH``, ``value:...,net=PATH``);
    any other spec, or text that is not a spec, unchanged."""
    if not isinstance(spec, str):
        return spec
    kind, colon, arg = spec.partition(":")
    if kind in FILE_KINDS and arg:
        return f"{kind}:{rebase_file(arg, folder)}"
    if kind in FILE_OPTIONS and colon:
        items = arg.split(",")
        for k, item in enumerate(items):
            key, eq, value = item.partition("=")
            if kind == "value" and k == 0 and not eq:
                items[k] = rebase_file(item.strip(), folder)
            elif eq and key.strip() in FILE_OPTIONS[kind]:
                items[k] = f"{key}={rebase_file(value.strip(), folder)}"
        return f"{kind}:{','.join(items)}"
    return spec


__all__ = ["CONFIGS", "FILE_OPTIONS", "PACKAGE_ROOT", "PRETRAINED", "find_file", "rebase_file", "rebase_spec",
           "where_looked"]
