"""Every module of every game imports alone, and no game's modules import in a circle.

A circle (Oceanos once had rules -> invariants -> observe_cache -> observe -> rules) works
only while the modules happen to be imported in a lucky order; a module that imports
alone in a fresh interpreter, and an import graph without a cycle, need no luck. The
graph is read with ``ast`` from every ``import`` anywhere in a module (inside functions
too), so a deferred import cannot hide a circle. Loading validates in ``Game``, so no
``rules.py`` imports its checker.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "oceanos", "otys", "otontin")


def _modules(package: str) -> list[str]:
    return sorted(p.stem for p in (ROOT / "envs" / package).glob("*.py") if p.stem != "__init__")


def _imported(package: str, module: str) -> set[str]:
    """The modules of ``envs.<package>`` that ``module`` imports, anywhere in it."""
    prefix = f"envs.{package}"
    names: set[str] = set()
    tree = ast.parse((ROOT / "envs" / package / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from . import x / from .x import y
                base = node.module
            elif node.level == 0 and node.module and (node.module + ".").startswith(prefix + "."):
                base = node.module[len(prefix) + 1:] or None
            else:
                continue
            if base is None:
                names.update(alias.name for alias in node.names)
            else:
                names.add(base.split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(prefix + "."):
                    names.add(alias.name.split(".")[2])
    return (names & set(_modules(package))) - {module}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a path that returns to its start), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_a_package(package):
    graph = {module: _imported(package, module) for module in _modules(package)}
    cycle = _cycle(graph)
    assert cycle is None, f"envs.{package} imports in a circle: {' -> '.join(cycle)}"


@pytest.mark.parametrize("package", PACKAGES[1:])
def test_no_rules_module_imports_its_checker(package):
    assert "invariants" not in _imported(package, "rules")


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


# Imports each module named on stdin in a child forked from one interpreter that has
# loaded the third-party libraries but nothing of this project: each child imports its
# module into a fresh ``envs`` (without paying numpy's start-up sixty times).
_FORKING_IMPORTER = """
import importlib, os, sys, traceback
import numpy, pydantic, gymnasium, pettingzoo  # third-party only
assert not any(name == "envs" or name.startswith("envs.") for name in sys.modules)
for module in sys.stdin.read().split():
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(module)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(module, os.waitstatus_to_exitcode(status), flush=True)
"""


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_every_game_module_imports_alone_in_a_fresh_interpreter():
    modules = [f"envs.{package}.{module}" for package in PACKAGES[1:]
               for module in _modules(package)]
    if hasattr(os, "fork"):
        done = _run(["-c", _FORKING_IMPORTER], "\n".join(modules))
        codes = dict(line.split() for line in done.stdout.splitlines())
        assert done.returncode == 0 and set(codes) == set(modules), done.stderr[-3000:]
        failed = [m for m in modules if codes[m] != "0"]
        assert not failed, f"{failed} failed to import alone:\n{done.stderr[-3000:]}"
    else:  # one interpreter a module
        for module in modules:
            done = _run(["-c", f"import {module}"])
            assert done.returncode == 0, f"{module} failed to import alone:\n{done.stderr}"
