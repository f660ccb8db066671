"""A run killed with SIGKILL (no clean-up at all: its lock is left behind, a record may
be half written) once its first record is on disk, then resumed by the same ``otrio``
command, ends with the result of an uninterrupted run of its config: the same records
and summary (wall times aside), the same network for a distillation. Issue 38.

The same for an evaluation of a training run's snapshots (``otrio evaluate-run``). The
other kinds have theirs: training in tests/training/test_resume.py (killed after its
first checkpoint), the value-data engine in tests/training/test_value.py (after its
first shard).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import yaml

from tests.attacks import tiny_runs
from tests.attacks.tiny_runs import timeless

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

# kind: (config overrides: runs long enough to be killed mid-way, the file whose first
# record triggers the kill, the files compared with an uninterrupted run's)
CASES = {
    "tournament": ({"games_per_seating": 40}, "games.jsonl", ["games.jsonl", "summary.json"]),
    "balance": ({"games_per_setup": 30}, "games.jsonl",
                ["games.jsonl", "summary.json", "results.csv", "setups.json"]),
    "setup search": ({"search": {**tiny_runs.CONFIGS["setup search"]["search"],
                                 "games_per_trial": 12, "finalist_games": 12,
                                 "confirm_games": 16}},
                     "games.jsonl",
                     ["games.jsonl", "summary.json", "preregistration.json", "trace.csv"]),
    "search study": ({"games": 40}, "games.jsonl", ["games.jsonl", "summary.json"]),
    "distillation": ({"distill": {**tiny_runs.CONFIGS["distillation"]["distill"],
                                  "rounds": [{**tiny_runs.CONFIGS["distillation"]["distill"][
                                      "rounds"][0], "games": {2: 16}}]}},
                     "round_1/games.jsonl",
                     ["rounds.jsonl", "round_1/games.jsonl", "round_1/eval.json",
                      "round_1/net.safetensors", "round_1/fit.jsonl"]),
}


def command(kind: str, config: dict, folder: Path, tmp_path: Path) -> list[str]:
    """The ``otrio`` command line of a run of ``kind`` with ``config`` into ``folder``."""
    cli = [sys.executable, "-m", "otrio.cli"]
    if kind == "search study":
        return [*cli, "search-bench", config["game"], "--players", str(config["num_players"]),
                "--budgets", ",".join(map(str, config["budgets"])), "--options",
                config["options"], "--games", str(config["games"]), "--seed",
                str(config["seed"]), "--output", str(folder), "--quiet"]
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    sub = {"tournament": ["tournament"], "balance": ["balance"],
           "setup search": ["balance", "--search"], "distillation": ["train"]}[kind]
    return [*cli, *sub, str(path), "--output", str(folder), "--quiet"]


def result(folder: Path, files: list[str]) -> dict:
    """The compared files: JSON without its wall times, any other file by its bytes."""
    out = {}
    for rel in files:
        data = (folder / rel).read_bytes()
        if rel.endswith(".jsonl"):
            out[rel] = [timeless(json.loads(line)) for line in data.splitlines()]
        elif rel.endswith(".json"):
            out[rel] = timeless(json.loads(data))
        else:
            out[rel] = data
    return out


def kill_after_first_record(line: list[str], trigger: Path) -> int:
    """Start ``line``, SIGKILL it once ``trigger`` holds a whole record; the records
    it held then (the run must not have finished before)."""
    child = subprocess.Popen(line, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not has_a_record(trigger) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    _, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL, err.decode()[-2000:]  # killed mid-way
    return len(trigger.read_bytes().splitlines())


def run_again(line: list[str]) -> None:
    again = subprocess.run(line, cwd=ROOT, env=ENV, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "Traceback" not in again.stderr


def has_a_record(path: Path) -> bool:
    try:
        return b"\n" in path.read_bytes()
    except OSError:
        return False


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_run_killed_after_its_first_record_resumes_to_the_uninterrupted_result(kind,
                                                                                tmp_path):
    overrides, trigger, files = CASES[kind]
    whole = tmp_path / "whole"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny_runs.MAKERS[kind](whole, **overrides)  # uninterrupted, in this process
    folder = tmp_path / "killed"
    line = command(kind, {**tiny_runs.CONFIGS[kind], **overrides}, folder, tmp_path)
    killed_at = kill_after_first_record(line, folder / trigger)
    assert (folder / "run.lock").exists()  # nothing cleaned up
    assert killed_at < len((whole / trigger).read_bytes().splitlines()), kind
    run_again(line)
    assert result(folder, files) == result(whole, files), kind
    print(f"{kind}: killed with {killed_at} record(s) of {trigger} on disk; resumed to the "
          "uninterrupted result")


def test_an_evaluation_killed_after_its_first_line_resumes_to_the_uninterrupted_lines(
        tmp_path):
    """``otrio evaluate-run`` over a training run's snapshots, killed once its first
    line is in ``eval_snapshots.jsonl``, then run again: the lines of a whole one."""
    trained = tmp_path / "trained"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny_runs.training(trained)
    whole, folder = tmp_path / "whole", tmp_path / "killed"
    shutil.copytree(trained, whole)
    shutil.copytree(trained, folder)
    tiny_runs.evaluation(whole, games=12)
    line = [sys.executable, "-m", "otrio.cli", "evaluate-run", str(folder), "--games", "12"]
    killed_at = kill_after_first_record(line, folder / "eval_snapshots.jsonl")
    files = ["eval_snapshots.jsonl"]
    assert killed_at < len((whole / files[0]).read_bytes().splitlines())
    run_again(line)
    assert result(folder, files) == result(whole, files)
    print(f"evaluation: killed with {killed_at} line(s) on disk; resumed to the "
          "uninterrupted lines")
