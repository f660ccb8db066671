"""What a training run folder may hold, and who may write it.

- ``otrio train`` runs no code from files it did not write: SB3 zips whose pickle
  payload would create a marker file, planted as ``checkpoints/last.zip`` and
  ``snapshots/step_N.zip`` (in a folder with no ``config.json``, and in a run of the same
  config), are refused in one line and the marker never appears; a snapshot the run's
  record does not list is never drawn.
- A run the suite just made scores (``evaluate-run``) and ships (``export-checkpoint``)
  with no trust flag (issue 32).
- ``evaluate-run`` holds the run folder's lock (two at once refuse each other),
  validates ``--games`` and refuses a folder that is not a training run, in one line.
"""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from otrio.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = dict(game="oceanos_v0", game_config={"num_players": 2},
            opponents={"random": 1.0, "self": 1.0}, total_timesteps=128,
            ppo={"n_steps": 64, "batch_size": 32, "n_epochs": 1}, net_arch=[16],
            snapshot_interval=64, checkpoint_interval=64,
            eval={"interval": 64, "games": 2, "opponents": ["random"]})


class _Touch:
    """Unpickles as ``Path(marker).touch()``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def evil_zip(path: Path, marker: Path) -> Path:
    """An SB3-shaped zip whose ``observation_space`` unpickles as touching ``marker``
    (as ``tests/agents/test_safe_checkpoints.py`` builds it, where a plain
    ``MaskablePPO.load`` is shown to run it), with Oceanos metadata beside it."""
    payload = base64.b64encode(pickle.dumps(_Touch(marker))).decode()
    data = {"observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>",
                                  ":serialized:": payload}, "policy_kwargs": {"net_arch": [16]}}
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    path.with_suffix(".json").write_text(json.dumps({
        "env_id": "oceanos_v0", "observation_size": 2549, "num_actions": 34,
        "game_config": {"num_players": 2}, "timesteps": 64, "seed": 0, "hints": None}))
    return path


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch):
    monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)


def write_config(tmp_path: Path, folder: Path, **kw) -> Path:
    """A tiny training config (YAML: JSON is YAML) that trains into ``folder``."""
    path = tmp_path / f"train_{len(list(tmp_path.glob('train_*.yaml')))}.yaml"
    path.write_text(json.dumps({**TINY, "output": str(folder), **kw}))
    return path


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("otrio: error:") and "\n" not in err and "Traceback" not in err, err
    return err


def test_train_refuses_planted_zips_in_a_folder_it_did_not_write(tmp_path, capsys):
    marker = tmp_path / "PWNED"
    run = tmp_path / "run"
    evil_zip(run / "checkpoints" / "last.zip", marker)  # and no config.json
    evil_zip(run / "snapshots" / "step_64.zip", marker)
    assert main(["train", str(write_config(tmp_path, run)), "--quiet"]) == 2
    err = one_line_error(capsys)
    assert "Stable-Baselines3 zip" in err and "loads no zip" in err and "new output folder" in err
    assert not marker.exists()
    assert not (run / "config.json").exists() and not (run / "run.lock").exists()


def test_train_refuses_a_zip_planted_in_its_own_run_and_never_draws_an_unlisted_snapshot(
        tmp_path, capsys):
    marker = tmp_path / "PWNED"
    run = tmp_path / "run"
    assert main(["train", str(write_config(tmp_path, run)), "--quiet"]) == 0
    capsys.readouterr()
    more = write_config(tmp_path, run, total_timesteps=256)
    for planted in ("snapshots/step_192.zip", "checkpoints/last.zip", "final.zip"):
        evil_zip(run / planted, marker)
        assert main(["train", str(more), "--quiet"]) == 2
        assert Path(planted).name in one_line_error(capsys)
        assert not marker.exists()
        (run / planted).unlink()
        (run / planted).with_suffix(".json").unlink()
    # a snapshot the record does not list is never read: a file that is not even a
    # manifest, where the pool would find it by name
    (run / "snapshots" / "step_1.json").write_text("not a manifest")
    assert main(["train", str(more), "--quiet"]) == 0
    assert json.loads((run / "final.json").read_text())["timesteps"] == 256
    assert not marker.exists()


def test_a_run_just_made_scores_and_exports_with_no_trust_flag(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", str(write_config(tmp_path, run)), "--quiet"]) == 0
    assert not list(run.rglob("*.zip"))
    assert main(["evaluate-run", str(run)]) == 0
    rows = [json.loads(x) for x in (run / "eval_snapshots.jsonl").read_text().splitlines()]
    assert [r["checkpoint"] for r in rows] == ["step_64.json", "step_128.json", "final.json"]
    # a snapshot scores as the periodic evaluation at its timestep did (the same weights,
    # taken at the same step, and the same seeds)
    periodic = {json.loads(x)["timesteps"]: json.loads(x)["random"]
                for x in (run / "eval.jsonl").read_text().splitlines()}
    assert [r["random"] for r in rows[:2]] == [periodic[64], periodic[128]]
    assert main(["export-checkpoint", str(run / "final.json"), str(tmp_path / "agent.json")]) == 0
    from otrio import agents, envs

    env = envs.make("oceanos_v0", num_players=2)
    agent = agents.make(f"ppo:{tmp_path / 'agent.json'}", env)
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1


EVALUATE_CHILD = """
import sys, time
from pathlib import Path
import otrio.training.train as T
original = T.evaluate
def evaluate(*args, **kwargs):
    Path(sys.argv[2]).touch()  # inside the lock, mid-run
    while not Path(sys.argv[3]).exists():
        time.sleep(0.05)
    return original(*args, **kwargs)
T.evaluate = evaluate
from otrio.cli import main
sys.exit(main(["evaluate-run", sys.argv[1]]))
"""


def test_two_evaluate_runs_on_one_folder_refuse_each_other(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", str(write_config(tmp_path, run, total_timesteps=64)), "--quiet"]) == 0
    capsys.readouterr()
    started, go = tmp_path / "started", tmp_path / "go"
    child = subprocess.Popen([sys.executable, "-c", EVALUATE_CHILD, str(run), str(started),
                              str(go)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.exists():
            assert child.poll() is None and time.monotonic() < deadline, child.stderr.read()
            time.sleep(0.05)
        assert main(["evaluate-run", str(run)]) == 2
        assert "in use by another run" in one_line_error(capsys)
        assert main(["train", str(write_config(tmp_path, run, total_timesteps=128)),
                     "--quiet"]) == 2  # nor may a training run write there meanwhile
        assert "in use by another run" in one_line_error(capsys)
    finally:
        go.touch()
        out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    rows = (run / "eval_snapshots.jsonl").read_text().splitlines()
    assert [json.loads(r)["checkpoint"] for r in rows] == ["step_64.json", "final.json"]


@pytest.mark.parametrize("games", ["-1", "0", "many"])
def test_evaluate_run_refuses_a_bad_game_count_in_one_line(tmp_path, capsys, games):
    from otrio.envs.core.errors import ConfigError
    from otrio.training.train import evaluate_snapshots

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({**TINY, "output": str(run)}))
    assert main(["evaluate-run", str(run), "--games", games]) == 2
    err = capsys.readouterr().err.strip()
    assert "--games" in err and "\n" not in err, err
    if games != "many":
        with pytest.raises(ConfigError, match="--games must be a whole number >= 1"):
            evaluate_snapshots(run, int(games))
    assert sorted(p.name for p in run.iterdir()) == ["config.json"]  # nothing written


@pytest.mark.parametrize("case", ["no config", "a list", "not JSON", "another kind",
                                  "a distillation", "a file"])
def test_evaluate_run_refuses_a_folder_that_is_not_a_training_run(tmp_path, capsys, case):
    folder = tmp_path / "folder"
    folder.mkdir()
    config = folder / "config.json"
    if case == "a list":
        config.write_text("[1, 2, 3]")
    elif case == "not JSON":
        config.write_text("{")
    elif case == "another kind":  # a tournament's settings, say
        config.write_text(json.dumps({"agents": {"r": "random"}, "lineup": ["r", "r"]}))
    elif case == "a distillation":
        config.write_text(json.dumps({"game": "oceanos_v0", "distill": {
            "rounds": [{"games": {2: 1}}]}}))
    elif case == "a file":
        folder.rmdir()
        folder.write_text("x")
    assert main(["evaluate-run", str(folder)]) == 2
    err = one_line_error(capsys)
    assert ("not a training run folder" in err or "distillation run" in err), err
    if folder.is_dir():
        assert not (folder / "run.lock").exists() and not (folder / "eval_snapshots.jsonl").exists()
