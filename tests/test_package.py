"""The project as a package: the wheel built from the sources carries the shipped agents
and configs, and ``otrio`` installed from it into a fresh venv plays a shipped
tournament config with a shipped agent from another folder, with no clone in sight.

The wheel is built offline (``pip wheel --no-build-isolation`` with this interpreter's
setuptools, a dev dependency); where setuptools is missing and pip cannot fetch it, the
tests are skipped saying so. The fresh venv gets its dependencies (numpy, torch, ...)
from this interpreter's site-packages through a ``.pth`` file of plain paths: the
``.pth`` files there (this clone's editable install among them) are not run, so the
venv imports the suite from the wheel alone (checked).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

import otrio

ROOT = Path(__file__).resolve().parents[1]
# what the wheel is not built from (and what would only slow the copy down)
NOT_COPIED = {".git", ".venv", ".venv-rllib", "runs", "build", "dist", ".hypothesis",
              ".pytest_cache", ".ruff_cache", "tests", "examples", "tools", "site"}
GAMES = ("oceanos", "otys", "otontin")
SHIPPED_CONFIG = "configs/tournament/oceanos_ppo_vs_greedy.yaml"  # names ppo:agents/pretrained/...


def project_version() -> str:
    """The version, stated once: ``otrio/__init__.py``'s ``__version__`` (pyproject.toml
    reads it from there)."""
    text = (ROOT / "otrio" / "__init__.py").read_text()
    return re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.MULTILINE).group(1)


def _ignore(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == ROOT
    return {n for n in names if n == "__pycache__" or n.endswith(".egg-info")
            or (top and n in NOT_COPIED)}


def _run(cmd: list, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the sources (a build in place would leave build/
    and *.egg-info in the clone, and a stale build/ can carry files since deleted)."""
    if importlib.util.find_spec("pip") is None:
        pytest.skip("pip is not installed in this interpreter: cannot build the wheel")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_ignore)
    has_setuptools = importlib.util.find_spec("setuptools") is not None
    cmd = [sys.executable, "-m", "pip", "wheel", src, "--no-deps", "-q", "-w", tmp / "dist"]
    if has_setuptools:
        cmd.append("--no-build-isolation")  # this interpreter's setuptools: nothing fetched
    result = _run(cmd)
    if result.returncode and not has_setuptools:
        pytest.skip("cannot build the wheel offline: setuptools is not installed here "
                    "(pip install -e '.[dev]' installs it) and pip could not fetch it: "
                    + (result.stderr.strip().splitlines() or ["?"])[-1])
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = (tmp / "dist").glob("otrio-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """A fresh venv with the wheel installed (``--no-deps``; dependencies from this
    interpreter's site-packages): its python, its bin folder, its site-packages and the
    environment to run it in (no PYTHONPATH)."""
    pip_version = tuple(int(x) for x in re.findall(r"\d+", _pip_version())[:2])
    if pip_version < (22, 3):
        pytest.skip(f"pip {pip_version} has no --python (22.3+) to install into another venv")
    tmp = tmp_path_factory.mktemp("venv")
    venv = tmp / "venv"
    result = _run([sys.executable, "-m", "venv", "--without-pip", venv])
    assert result.returncode == 0, result.stderr
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"], env=env).stdout.strip())
    deps = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"],
                          sysconfig.get_paths()["platlib"],  # and a --system-site-packages'
                          *(p for p in sys.path if Path(p).name in ("site-packages",
                                                                     "dist-packages"))])
    deps = [p for p in deps if Path(p).is_dir() and Path(p).resolve() != ROOT]
    (purelib / "_otrio_test_deps.pth").write_text("".join(f"{p}\n" for p in deps))
    result = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                   "--no-index", "-q", wheel], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    elsewhere = tmp / "elsewhere"  # a folder with no clone in it
    elsewhere.mkdir()
    return {"python": python, "bin": bin_dir, "site": purelib, "env": env, "cwd": elsewhere}


def _pip_version() -> str:
    return _run([sys.executable, "-m", "pip", "--version"]).stdout.split()[1]


def test_the_wheel_carries_the_shipped_agents_configs_and_rules(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in GAMES:
        for suffix in (".json", ".safetensors", "_eval.jsonl", "_imitation.jsonl"):
            assert f"otrio/agents/pretrained/{game}_ppo{suffix}" in names
        assert {f"otrio/envs/{game}/RULES.md", f"otrio/envs/{game}/README.md"} <= names
    assert "otrio/agents/pretrained/README.md" in names
    shipped = {"otrio/" + p.relative_to(ROOT).as_posix() for p in (ROOT / "configs").rglob("*.yaml")}
    shipped.add("otrio/configs/README.md")  # which configs are starters, which research runs
    assert shipped and shipped == {n for n in names if n.startswith("otrio/configs/")}
    assert {"otrio/__init__.py", "otrio/cli.py"} <= names


def test_the_wheel_installs_one_top_level_package_with_every_sub_package(wheel):
    """One name on the path, ``otrio``: every package folder of the clone (pyproject.toml
    lists them) is a sub-package of it, and nothing else sits beside it."""
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {n.split("/")[0] for n in names} == {"otrio", f"otrio-{project_version()}.dist-info"}
    for top in otrio.SUB_PACKAGES:
        for init in (ROOT / top).rglob("__init__.py"):
            assert f"otrio/{init.relative_to(ROOT).as_posix()}" in names, init
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert f"\nVersion: {project_version()}\n" in text
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "otrio = otrio.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_installed_otrio_plays_a_shipped_config_from_another_folder(installed):
    env, cwd = installed["env"], installed["cwd"]
    otrio = shutil.which("otrio", path=str(installed["bin"]))
    assert otrio, "the wheel installed no otrio command"
    result = _run([otrio, "--version"], env=env, cwd=cwd)
    assert result.returncode == 0 and result.stdout.strip() == f"otrio {project_version()}"
    # the venv imports the suite from the wheel, not from this clone; the demo finds the
    # shipped agents there
    probe = ("import json, otrio, otrio.cli; from otrio.envs.core.paths import PACKAGE_ROOT; "
             "print(json.dumps({'envs': otrio.envs.__file__, 'cli': otrio.cli.__file__, "
             "'root': str(PACKAGE_ROOT), "
             "'demo_ppo': otrio.cli._demo_lineups('oceanos_v0')[1].get('ppo')}))")
    result = _run([installed["python"], "-c", probe], env=env, cwd=cwd)
    assert result.returncode == 0, result.stderr
    where = json.loads(result.stdout)
    site_dir = installed["site"].resolve()
    for key in ("envs", "cli", "root"):
        assert Path(where[key]).resolve().is_relative_to(site_dir), where
    assert where["demo_ppo"] == f"ppo:{site_dir / 'otrio/agents/pretrained/oceanos_ppo.json'}"
    # a shipped config by its clone-root name, naming a shipped agent by its own
    result = _run([otrio, "tournament", SHIPPED_CONFIG, "--games-per-seating", "1",
                   "--output", "out", "--quiet"], env=env, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((cwd / "out" / "summary.json").read_text())
    assert summary["games"] == 2
    assert {row["agent"] for row in summary["leaderboard"]} == {"ppo", "greedy"}
    assert f"run folder: {(cwd / 'out').resolve()}" in result.stdout


def test_the_value_pipelines_smoke_run_works_from_an_empty_folder_of_the_wheel(installed):
    """The value pipeline from an installed package: its shipped config found by name,
    the data, fit and gate sized to seconds (--smoke), in an empty folder."""
    env, cwd = installed["env"], installed["cwd"] / "empty"
    cwd.mkdir()
    otrio = shutil.which("otrio", path=str(installed["bin"]))
    start = time.perf_counter()
    result = _run([otrio, "value", "all", "configs/values/otys.yaml", "--smoke", "--quiet"],
                  env=env, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.perf_counter() - start < 60
    out = cwd / "runs" / "values" / "otys_all_smoke"
    assert (out / "model.json").is_file() and (out / "gate" / "gate.json").is_file()
    # and a match by tier, without a file, from the wheel's zoo
    result = _run([otrio, "tournament", "--game", "otontin", "--agents", "fast,greedy,greedy",
                   "--games", "3", "--output", "m", "--quiet"], env=env, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_project_with_its_own_envs_and_agents_packages_uses_the_wheel(installed):
    """A common RL layout: the user's project holds its own ``envs/`` and ``agents/``.
    Both stay theirs, and the suite is ``otrio`` beside them."""
    env, cwd = installed["env"], installed["cwd"] / "project"
    for name in ("envs", "agents", "training", "benchmarks"):
        (cwd / name).mkdir(parents=True)
        (cwd / name / "__init__.py").write_text(f"def make(*args):\n    return 'mine: {name}'\n")
    script = ("import envs, agents, otrio\n"
              "assert envs.make() == 'mine: envs' and agents.make() == 'mine: agents'\n"
              "env = otrio.make('oceanos_v0', num_players=2)\n"
              "env.reset(seed=0)\n"
              "import otrio.agents\n"
              "agent = otrio.agents.make('greedy', env)\n"
              "print(type(env.unwrapped).__name__, type(agent).__name__)\n")
    result = _run([installed["python"], "-c", script], env=env, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["raw_env", "GreedyOceanos"]
