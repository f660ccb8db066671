"""One import name: the suite is ``otrio`` and its sub-packages (``otrio.envs``,
``otrio.agents``, ...). A bare ``import envs`` anywhere in the product, its tests, examples,
tools or docs would import the clone's folder as a second, top-level copy of the package
(and in an installed wheel there is none), so none may remain."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUB_PACKAGES = ("envs", "agents", "training", "benchmarks", "integrations")
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
