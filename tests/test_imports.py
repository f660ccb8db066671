"""One import name: the suite is ``otrio`` and its sub-packages (``otrio.envs``,
``otrio.agents``, ...). A bare ``import envs`` anywhere in the product, its tests, examples,
tools or docs would import the clone's folder as a second, top-level copy of the package
(and in an installed wheel there is none), so none may remain.

The imports between the modules of ``otrio`` form no circle (a circle hidden in a
function-level import counts), and they point down the layers of DESIGN.md."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import otrio

ROOT = Path(__file__).resolve().parents[1]
SUB_PACKAGES = otrio.SUB_PACKAGES
BARE = re.compile(r"^\s*(?:>>>\s*)?(?:from|import)\s+(?:" + "|".join(SUB_PACKAGES)
                  + r")(?:\.\w+)*(?:\s+import\b|\s*$|\s*[,#;]|\s+as\b)", re.MULTILINE)
TEXT = (".py", ".md", ".yaml", ".yml")


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode:  # not a git clone (an unpacked archive): every file
        return [p for p in ROOT.rglob("*") if p.suffix in TEXT and ".venv" not in p.parts]
    return [ROOT / line for line in out.stdout.splitlines() if line.endswith(TEXT)]


def test_no_file_imports_a_sub_package_by_its_bare_name():
    found = []
    for path in _tracked():
        if not path.is_file() or path == Path(__file__).resolve():
            continue
        for match in BARE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            line = path.read_text(encoding="utf-8").count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0).strip()}")
    assert not found, "bare imports (use otrio.<name>):\n" + "\n".join(found)


def test_the_scan_finds_a_bare_import():
    for line in ("import envs", "from agents.base import Agent", "import training.train as t",
                 "    from benchmarks import tournament", ">>> import envs"):
        assert BARE.search(line), line
    for line in ("import otrio.envs", "from otrio.agents import make", "import envsx",
                 "from envs_of_mine import x", "# the envs import order"):
        assert not BARE.search(line), line


# ------------------------------------------------------------------ the import graph
# Every import statement of every module under otrio, read from the source (those inside
# functions too: an import moved into a function to break a circle at import time is still
# a circle in the design), resolved to the module it loads.


def _package_dirs() -> dict[str, str]:
    """pyproject.toml's ``[tool.setuptools.package-dir]``, import name -> folder (read with
    a pattern: tomllib is Python 3.11+, the suite runs on 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[tool.setuptools.package-dir]", 1)[1].split("\n[", 1)[0]
    found = dict(re.findall(r'^"?([\w.]+)"?\s*=\s*"([^"]+)"\s*$', table, re.MULTILINE))
    assert found.get("otrio") == "otrio" and found.get("otrio.envs") == "envs", found
    return found


PACKAGE_DIRS = _package_dirs()
# What each layer may not import (DESIGN.md: data flows one way, envs <- agents <- arena <-
# training / benchmarks / integrations <- cli). The arena (runs: the game loop, records,
# run folders, workers, stats) sits on the agents and under everything that runs games.
# training and benchmarks sit side by side: benchmarks measures training (otrio bench's PPO
# share), so training never imports benchmarks.
FORBIDDEN = {
    "otrio.envs": ("otrio.agents", "otrio.arena", "otrio.training", "otrio.benchmarks",
                   "otrio.integrations", "otrio.cli"),
    "otrio.agents": ("otrio.arena", "otrio.training", "otrio.benchmarks", "otrio.integrations",
                     "otrio.cli"),
    "otrio.arena": ("otrio.training", "otrio.benchmarks", "otrio.integrations", "otrio.cli"),
    "otrio.training": ("otrio.benchmarks", "otrio.cli"),
    "otrio.integrations": ("otrio.benchmarks", "otrio.cli"),
    "otrio.benchmarks": ("otrio.cli",),
}
# Upward imports kept on purpose, each with its reason: (importer, imported) -> why. None
# today; an entry here is a debt named, not a rule relaxed.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def package_modules(root: Path = ROOT, package_dirs: dict[str, str] = PACKAGE_DIRS
                    ) -> dict[str, Path]:
    """Every module by its import name, through the package-dir mapping (``otrio.envs`` is
    the folder ``envs/``): a package is its ``__init__.py``; a folder without one is not a
    package, nor is anything under it."""
    out = {}
    for name, folder in package_dirs.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            if not all((base.joinpath(*parts[:k]) / "__init__.py").is_file()
                       for k in range(len(parts))):
                continue
            module = ".".join((name, *parts))
            out[module.removesuffix(".__init__")] = path
    return out


def import_graph(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {module it imports: line of its first such import}, over ``modules`` only
    (the standard library and third parties are left out). ``from X import name`` imports
    the module ``X.name`` where there is one, else ``X``; relative imports are resolved
    from the importing module's package."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = graph[module] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1],
                                     *([node.module] if node.module else [])])
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in targets:
                found = known(target)
                if found and found != module:
                    edges.setdefault(found, node.lineno)
    return graph


def find_cycles(graph: dict[str, dict[str, int] | set[str]]) -> list[list[str]]:
    """One circle of each strongly connected part of ``graph`` that has more than one node
    (Tarjan's algorithm), as the shortest path from its first node back to itself:
    ``[a, b, a]``. Empty when the graph has no circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    parts.append(sorted(part))
    cycles = []
    for part in sorted(parts):
        members, first = set(part), part[0]
        came_from: dict[str, str] = {}  # node -> the node it was first reached from
        frontier = [first]
        while first not in came_from:  # breadth first, inside the part, back to first
            reached = []
            for node in frontier:
                for child in sorted(graph[node]):
                    if child in members and child not in came_from:
                        came_from[child] = node
                        reached.append(child)
            frontier = reached
        path = [first]
        while len(path) == 1 or path[-1] != first:
            path.append(came_from[path[-1]])
        cycles.append(path[::-1])
    return cycles


def _where(graph, modules, src: str, dst: str) -> str:
    return f"{modules[src].relative_to(ROOT).as_posix()}:{graph[src][dst]}"


def test_no_module_imports_itself_through_others():
    modules = package_modules()
    graph = import_graph(modules)
    assert len(modules) > 100 and graph["otrio.cli"], "the scan found too little"
    shown = [" -> ".join(cycle) + "  (" + ", ".join(
        _where(graph, modules, a, b) for a, b in zip(cycle, cycle[1:])) + ")"
        for cycle in find_cycles(graph)]
    assert not shown, ("import circles (move the shared piece to the lower module):\n"
                       + "\n".join(shown))


def test_the_sub_packages_import_each_other_in_one_direction():
    """The layers as wholes: otrio.training -> otrio.integrations and back would be a
    circle even with no circle between two modules."""
    graph = import_graph(package_modules())

    def layer(module: str) -> str:
        return ".".join(module.split(".")[:2])

    layers: dict[str, set[str]] = {}
    for src, targets in graph.items():
        layers.setdefault(layer(src), set()).update(
            layer(t) for t in targets if layer(t) != layer(src))
    cycles = find_cycles(layers)
    assert not cycles, "sub-packages in a circle: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_layers_point_down():
    modules = package_modules()
    graph = import_graph(modules)
    upward, used = [], set()
    for src, targets in sorted(graph.items()):
        for dst in targets:
            for low, banned in FORBIDDEN.items():
                if (src == low or src.startswith(low + ".")) and any(
                        dst == b or dst.startswith(b + ".") for b in banned):
                    if (src, dst) in ALLOWED_UPWARD:
                        used.add((src, dst))
                    else:
                        upward.append(f"{_where(graph, modules, src, dst)}: {src} imports {dst}")
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)
    assert used == set(ALLOWED_UPWARD), f"stale allow-list entries: {set(ALLOWED_UPWARD) - used}"


def test_the_cycle_finder_finds_a_known_circle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b", "c"}, "b": {"a"}, "c": {"d"}, "d": {"c"}, "e": set()}) == [
        ["a", "b", "a"], ["c", "d", "c"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}) == []


def test_the_graph_reads_mapped_folders_relative_and_function_level_imports(tmp_path):
    """A package ``p`` with a sub-package ``p.sub`` in another folder (as ``otrio.envs`` is
    ``envs/``): ``p`` imports ``p.sub.a``, which imports ``.b`` inside a function, which
    imports ``p`` back by ``from .. import``."""
    for name, text in {"p/__init__.py": "from p.sub import a\n", "sub/__init__.py": "",
                       "sub/a.py": "def f():\n    from . import b\n",
                       "sub/b.py": "import json\nfrom .. import thing\n",
                       "sub/notes/c.py": "import p\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    modules = package_modules(tmp_path, {"p": "p", "p.sub": "sub"})
    assert set(modules) == {"p", "p.sub", "p.sub.a", "p.sub.b"}  # notes/ is no package
    graph = import_graph(modules)
    assert graph == {"p": {"p.sub.a": 1}, "p.sub": {}, "p.sub.a": {"p.sub.b": 2},
                     "p.sub.b": {"p": 2}}
    assert find_cycles(graph) == [["p", "p.sub.a", "p.sub.b", "p"]]


# ------------------------------------------------------------------ imports at the top
# An import inside a function says why on its line: "# deferred: ..." (a heavy module that
# would load at start-up: torch, matplotlib, or a command's modules in the CLI), "# optional:
# ..." (an extra that may be missing) or "# circle: ..." (a circle the layers do not allow).
REASONS = ("# deferred:", "# optional:", "# circle:")
CHECKED = (*SUB_PACKAGES, "otrio", "tools", "examples")


def function_imports(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every import statement inside a function of ``path``."""
    text = path.read_text(encoding="utf-8")
    tree, lines = ast.parse(text), text.splitlines()
    found = []
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.append((node.lineno, lines[node.lineno - 1].strip()))
    return sorted(set(found))


def test_an_import_inside_a_function_says_why():
    unexplained = [f"{path.relative_to(ROOT)}:{line}: {text}"
                   for path in _tracked() if path.suffix == ".py" and path.is_file()
                   and path.relative_to(ROOT).parts[0] in CHECKED
                   for line, text in function_imports(path)
                   if not any(reason in text for reason in REASONS)]
    assert not unexplained, ("imports inside functions without a reason (move them to the top, "
                             "or say why on the line):\n" + "\n".join(unexplained))


def test_the_function_import_scan_finds_one(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import os\n\ndef f():\n    import json\n    import torch  # deferred: x\n")
    assert function_imports(path) == [(4, "import json"), (5, "import torch  # deferred: x")]
