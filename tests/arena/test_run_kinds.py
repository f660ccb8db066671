"""The run-kind contract (arena/run_folder.py) holds for every command that writes a
folder: each declares its kind, opens its folder through RunFolder (checked, locked, its
sub-folders never links), and no command makes or locks a folder another way; every
declared kind has a tiny run, so the attack pass breaks the files of each without an edit."""

from __future__ import annotations

import ast
import subprocess
import warnings
from pathlib import Path

import pytest

from otrio.arena import run_folder
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.cli import run_kinds
from otrio.envs.core.errors import ConfigError, StateError
from tests.attacks.tiny_runs import KIND_MAKERS

ROOT = Path(__file__).resolve().parents[2]
# the calls that make, check or lock a folder: the contract's own, kept to arena/
FOLDER_CALLS = ("RunLock", "check_run_folder", "make_output_folder", "check_output_folder",
                "mkdir")
CONTRACT = {"arena/run_folder.py", "arena/run_lock.py", "arena/outputs.py",
            "envs/core/files.py"}  # real_dir: a run's sub-folders, checked
# the other places that make a folder, each with its reason
ALLOWED = {
    ("agents/value.py", "mkdir"): "an exported value model's folder (the command checks it)",
    ("agents/weights.py", "mkdir"): "an exported agent's folder (the command checks it)",
    ("arena/records.py", "mkdir"): "open_run, called inside a RunFolder",
    ("envs/core/playthrough.py", "mkdir"): "the golden playthroughs a developer regenerates",
    ("training/train.py", "mkdir"): "save_checkpoint: a user's own SB3 zip, for tests",
    ("training/safe_state.py", "mkdir"): "a training state's folder (inside the run folder "
                                         "its command opened)",
}


KINDS = run_kinds()  # every command's module imported: every kind declared


def test_every_declared_kind_has_a_tiny_run_and_every_tiny_run_a_kind():
    assert set(KIND_MAKERS) == set(KINDS), (set(KINDS) ^ set(KIND_MAKERS))
    assert len(KINDS) >= 13


def _calls(path: Path) -> set[str]:
    """The names of the folder calls in a module (``mkdir`` as a method, the others as
    functions or classes)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = (node.func.attr if isinstance(node.func, ast.Attribute) else
                    node.func.id if isinstance(node.func, ast.Name) else "")
            if name in FOLDER_CALLS:
                found.add(name)
    return found


def test_no_command_makes_or_locks_a_folder_outside_the_contract():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                           text=True).stdout.split()
    product = [f for f in files if f.split("/")[0] in (
        "agents", "arena", "benchmarks", "envs", "integrations", "otrio", "training")]
    assert len(product) > 100
    bypass, used = [], set()
    for rel in product:
        if rel in CONTRACT:
            continue
        for name in sorted(_calls(ROOT / rel)):
            if (rel, name) in ALLOWED:
                used.add((rel, name))
            else:
                bypass.append(f"{rel}: {name}()")
    assert not bypass, ("folders made or locked outside the run-kind contract (open them "
                        "with otrio.arena.run_folder.RunFolder):\n" + "\n".join(bypass))
    assert used == set(ALLOWED), f"stale allowed entries: {set(ALLOWED) - used}"


def test_the_scan_finds_a_folder_made_by_hand(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from pathlib import Path\n\ndef f(p):\n    Path(p).mkdir()\n"
                    "    check_run_folder(p, 'run.json', 'x')\n")
    assert _calls(path) == {"mkdir", "check_run_folder"}


@pytest.mark.parametrize("kind", sorted(KIND_MAKERS))
def test_each_kind_opens_its_folder_through_the_contract(kind, tmp_path, monkeypatch):
    entered = []
    real_enter = RunFolder.__enter__

    def spy(self):
        entered.append((self.kind.name, self.path))
        return real_enter(self)

    monkeypatch.setattr(RunFolder, "__enter__", spy)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        KIND_MAKERS[kind](folder)
    assert (kind, folder) in entered, entered
    assert (folder / KINDS[kind].marker).exists()  # the marker says what the folder holds
    for entry in folder.rglob("*"):  # everything in it is declared (or a sub-run's)
        rel = entry.relative_to(folder).as_posix()
        parts = rel.split("/")
        if entry.name != "run.lock" and not any(
                KINDS[kind].role_of("/".join(parts[:k])) == "sub-run" for k in range(1, len(parts))):
            assert KINDS[kind].declares(rel), rel


def test_a_folder_of_another_kind_or_of_the_users_files_is_refused(tmp_path):
    kind = register(RunKind(name="test kind", command="-", marker="mine.json",
                            files=(RunFile("mine.json", "marker", "a test"),),
                            folders=("sub",)))
    try:
        (tmp_path / "user").mkdir()
        (tmp_path / "user" / "notes.md").write_text("mine")
        with pytest.raises(ConfigError, match="not empty .*holds no test kind"):
            RunFolder(kind, tmp_path / "user").check()
        with RunFolder(kind, tmp_path / "ok") as run:
            (run.path / "mine.json").write_text("{}")
            (tmp_path / "elsewhere").mkdir()
            (run.path / "sub").symlink_to(tmp_path / "elsewhere")
            with pytest.raises(StateError, match="symbolic link"):
                run.sub("sub")
            with pytest.raises(ValueError, match="declares no folder"):
                run.sub("other")
        assert not (tmp_path / "ok" / "run.lock").exists()  # released
    finally:
        run_folder.KINDS.pop("test kind")
