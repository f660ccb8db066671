"""The Makefile's set-up, read with ``make -n`` (nothing is installed): ``make demo``
installs the core only and says its cost before it starts; ``make test`` adds the
[dev] extras, whether the demo's set-up ran first or not (two stamps)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def _dry(folder: Path, *args: str) -> list[str]:
    # Under ``make test`` the parent make's flags are inherited (and it would print
    # "Entering directory" lines): run a top-level make of our own.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    result = subprocess.run(["make", "-n", "--no-print-directory", "-f", str(ROOT / "Makefile"),
                             *args], cwd=folder, env=env, capture_output=True, text=True,
                            timeout=60, check=True)
    return result.stdout.splitlines()


def test_demo_installs_the_core_only_after_saying_what_it_costs(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    lines = _dry(tmp_path, "demo")
    assert lines[0] == 'echo "$CORE_NOTICE"'  # before the venv is made
    installs = [line for line in lines if "pip install" in line and "--upgrade" not in line]
    assert installs == [".venv/bin/python -m pip install torch==2.13.0 ",
                        ".venv/bin/python -m pip install -e ."]
    assert lines[-1] == ".venv/bin/python -m otrio demo"
    cpu = _dry(tmp_path, "demo", "TORCH_INDEX=https://download.pytorch.org/whl/cpu")
    assert ("--index-url https://download.pytorch.org/whl/cpu"
            in next(line for line in cpu if "install torch" in line))


def test_the_notice_names_the_size_and_the_cpu_torch(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    notice = subprocess.run(["make", "-s", "-f", str(ROOT / "Makefile"), "demo",
                             "PYTHON=false"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=60).stdout
    assert "1.1 GB" in notice and "0.75 GB" in notice and "a few minutes" in notice
    assert "TORCH_INDEX=https://download.pytorch.org/whl/cpu" in notice
    assert not (tmp_path / ".venv").exists()  # PYTHON=false: nothing was made


def test_test_adds_the_dev_extras_after_the_demo_or_alone(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    alone = _dry(tmp_path, "test")
    assert [line.split("install ")[1] for line in alone if "pip install" in line
            and "--upgrade" not in line] == ["torch==2.13.0 ", "-e .", "-e '.[dev]'"]
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    (tmp_path / ".venv" / ".core-installed").touch()  # after make demo
    after_demo = _dry(tmp_path, "test")
    assert [line for line in after_demo if "pip install" in line] == [
        ".venv/bin/python -m pip install -e '.[dev]'"]
    assert after_demo[-1] == ".venv/bin/python -m pytest tests"
    (tmp_path / ".venv" / ".installed").touch()  # after make test: the demo installs nothing
    assert _dry(tmp_path, "demo") == [".venv/bin/python -m otrio demo"]
