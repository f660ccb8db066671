"""A training run interrupted after a checkpoint and resumed ends bit for bit where the
uninterrupted run of the same config and seed ends: every tensor of the final agent and
of the training state (weights, optimizer, generators), every snapshot, and the same
``eval.jsonl``.

The interruption comes at a fixed point after the first checkpoint (t=128): the
evaluation at t=192 has written its line to ``eval.jsonl`` and the snapshot at t=192
is on disk, both later than the checkpoint; then the process is SIGKILLed (a
subprocess, no clean-up at all: the lock is left behind) or Ctrl-C'd
(``KeyboardInterrupt`` in this process). Two envs, every opponent kind (random,
greedy, self-play snapshots, a pool of two), games in progress at the checkpoint.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import safetensors.torch
import torch

from otrio.envs.core.errors import ConfigError
from otrio.training.config import TrainConfig
from otrio.training.train import train

ROOT = Path(__file__).resolve().parents[2]
INTERRUPT_AT = 192  # the evaluation after which the run is interrupted


def config(folder: Path, **kw) -> TrainConfig:
    base = dict(game="oceanos_v0", game_config={"num_players": 2},
                opponents={"random": 1.0, "greedy": 1.0, "self": 1.0}, total_timesteps=320,
                ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 2}, net_arch=[32], num_envs=2,
                snapshot_interval=64, max_snapshots=2, checkpoint_interval=128,
                eval={"interval": 96, "games": 2, "opponents": ["random"]}, output=str(folder))
    return TrainConfig(**{**base, **kw})


CHILD = f"""
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
import otrio.training.train as T
from test_resume import config
original = T._run_eval
def run_eval(model, cfg, folder, timesteps, logger=None):
    out = original(model, cfg, folder, timesteps, logger)
    if timesteps >= {INTERRUPT_AT}:
        assert (folder / "checkpoints" / "resume.json").exists()
        os.kill(os.getpid(), signal.SIGKILL)
    return out
T._run_eval = run_eval
T.train(config(Path(sys.argv[1])), progress=False)
"""


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("uninterrupted") / "run"
    train(config(folder), progress=False)
    return folder


def tensors(path: Path) -> dict[str, torch.Tensor]:
    return safetensors.torch.load(path.read_bytes())


def assert_same_run(a: Path, b: Path) -> None:
    """Every tensor the two runs wrote is equal, and so is every evaluation."""
    files = sorted(p.relative_to(a) for p in a.rglob("*.safetensors")
                   if p.name != "eval_current.safetensors")
    assert files == sorted(p.relative_to(b) for p in b.rglob("*.safetensors")
                           if p.name != "eval_current.safetensors")
    assert Path("final.safetensors") in files
    assert sum(f.parent.name == "checkpoints" and f.name.startswith("resume.") for f in files) == 1
    for file in files:
        ta, tb = tensors(a / file), tensors(b / file)
        assert sorted(ta) == sorted(tb), file
        for name in ta:
            assert torch.equal(ta[name], tb[name]), (file, name)
    assert (a / "eval.jsonl").read_text() == (b / "eval.jsonl").read_text()
    evals = [json.loads(line)["timesteps"] for line in (a / "eval.jsonl").read_text().splitlines()]
    assert evals == [96, 192, 288]
    # the training states agree beyond the tensors (generators, games, pool, counters);
    # only the episodes' wall times differ
    ra, rb = (json.loads((f / "checkpoints" / "resume.json").read_text())["meta"] for f in (a, b))
    for r in (ra, rb):
        r["run"]["config"].pop("output", None)  # excluded from the comparison of configs
        for info in r["ep_info_buffer"]:
            info.pop("t")
    assert ra == rb


def test_a_run_sigkilled_after_a_checkpoint_resumes_bit_for_bit(tmp_path, uninterrupted):
    folder = tmp_path / "run"
    child = subprocess.run([sys.executable, "-c", CHILD, str(folder)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert (folder / "run.lock").exists()  # killed: nothing cleaned up
    assert not (folder / "final.json").exists()
    assert json.loads((folder / "checkpoints" / "resume.json").read_text())["meta"][
        "num_timesteps"] == 128
    assert (folder / "snapshots" / f"step_{INTERRUPT_AT}.json").exists()  # later than it
    assert len((folder / "eval.jsonl").read_text().splitlines()) == 2  # 96, and 192 after it
    with pytest.warns(UserWarning, match="took over the lock"):
        train(config(folder), progress=False)
    assert_same_run(uninterrupted, folder)


def test_a_run_interrupted_by_ctrl_c_after_a_checkpoint_resumes_bit_for_bit(
        tmp_path, uninterrupted, monkeypatch):
    import otrio.training.train as T

    original = T._run_eval

    def run_eval(model, cfg, folder, timesteps, logger=None):
        out = original(model, cfg, folder, timesteps, logger)
        if timesteps >= INTERRUPT_AT:
            raise KeyboardInterrupt
        return out

    folder = tmp_path / "run"
    monkeypatch.setattr(T, "_run_eval", run_eval)
    with pytest.raises(KeyboardInterrupt):
        train(config(folder), progress=False)
    monkeypatch.setattr(T, "_run_eval", original)
    assert not (folder / "final.json").exists() and not (folder / "run.lock").exists()
    train(config(folder), progress=False)
    assert_same_run(uninterrupted, folder)


def test_a_run_with_subprocess_envs_and_hints_resumes_bit_for_bit(tmp_path, monkeypatch):
    """The envs' states cross the process boundary (SubprocVecEnv), and the hints'
    greedy agent is rebuilt by the replay."""
    import otrio.training.train as T

    kw = dict(vec_env="subproc", hints="greedy", total_timesteps=256)
    train(config(tmp_path / "a", **kw), progress=False)
    original = T._run_eval

    def run_eval(model, cfg, folder, timesteps, logger=None):
        out = original(model, cfg, folder, timesteps, logger)
        if timesteps >= INTERRUPT_AT:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(T, "_run_eval", run_eval)
    with pytest.raises(KeyboardInterrupt):
        train(config(tmp_path / "b", **kw), progress=False)
    monkeypatch.setattr(T, "_run_eval", original)
    train(config(tmp_path / "b", **kw), progress=False)
    state = json.loads((tmp_path / "a" / "checkpoints" / "resume.json").read_text())["file"]
    for file in ("final.safetensors", f"checkpoints/{state}"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()
    assert (tmp_path / "a" / "eval.jsonl").read_text() == (tmp_path / "b" / "eval.jsonl").read_text()


def test_a_run_killed_while_it_writes_a_checkpoint_resumes_from_the_one_before(
        tmp_path, uninterrupted, monkeypatch):
    """The tensors of a checkpoint are written first, under their own name; an
    interruption before its JSON replaces the old one leaves the previous checkpoint
    whole."""
    import otrio.training.safe_state as S

    original, writes = S.write_atomic, []

    def write_atomic(path, data):
        if path.name == "resume.json":
            writes.append(path)
            if len(writes) == 2:  # the second checkpoint (t=256): its tensors are on disk
                raise KeyboardInterrupt
        original(path, data)

    folder = tmp_path / "run"
    monkeypatch.setattr(S, "write_atomic", write_atomic)
    with pytest.raises(KeyboardInterrupt):
        train(config(folder), progress=False)
    monkeypatch.setattr(S, "write_atomic", original)
    states = sorted(p.name for p in (folder / "checkpoints").glob("resume.*.safetensors"))
    assert len(states) == 2  # the one the record names, and the unfinished one
    meta = json.loads((folder / "checkpoints" / "resume.json").read_text())
    assert meta["meta"]["num_timesteps"] == 128 and meta["file"] in states
    train(config(folder), progress=False)
    assert_same_run(uninterrupted, folder)  # and the unfinished save's tensors are gone


def test_a_finished_run_given_more_timesteps_continues_as_one_long_run(tmp_path):
    long_run, short = tmp_path / "long", tmp_path / "short"
    cfg = dict(checkpoint_interval=10**9, eval={"interval": 10**9, "games": 2,
                                               "opponents": ["random"]})
    train(config(long_run, total_timesteps=192, **cfg), progress=False)
    train(config(short, total_timesteps=128, **cfg), progress=False)
    train(config(short, total_timesteps=192, **cfg), progress=False)  # resumes at 128
    ta, tb = tensors(long_run / "final.safetensors"), tensors(short / "final.safetensors")
    assert all(torch.equal(ta[k], tb[k]) for k in ta)


def test_a_resume_refuses_a_changed_log_or_snapshot_in_one_line(tmp_path):
    folder = tmp_path / "run"
    cfg = config(folder, total_timesteps=128, num_envs=1)
    train(cfg, progress=False)
    more = config(folder, total_timesteps=192, num_envs=1)
    log = folder / "eval.jsonl"
    saved = log.read_text()
    log.write_text(saved.replace('"timesteps": 96', '"timesteps": 97'))
    with pytest.raises(ConfigError, match="eval.jsonl has changed since the checkpoint") as err:
        train(more, progress=False)
    assert "\n" not in str(err.value)
    log.write_text(saved)
    # a listed snapshot's weights replaced (and its manifest made to match them)
    manifest_file = folder / "snapshots" / "step_64.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["weights"]["sha256"] = "0" * 64
    manifest_file.write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="snapshot step_64.json has changed") as err:
        train(more, progress=False)
    assert "\n" not in str(err.value)
    assert log.read_text() == saved  # nothing cut, nothing rewritten by a refused resume
    assert json.loads((folder / "config.json").read_text())["total_timesteps"] == 128
    assert json.loads((folder / "final.json").read_text())["timesteps"] == 128


def test_resume_state_is_safetensors_and_json_only(tmp_path, monkeypatch):
    """No unpickler runs while a run writes, resumes and finishes."""
    import pickle

    import cloudpickle

    def refuse(*args, **kwargs):
        raise AssertionError("an unpickler was called")

    folder = tmp_path / "run"
    train(config(folder, total_timesteps=128, num_envs=1), progress=False)
    for owner, name in ((pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"),
                        (cloudpickle, "load"), (cloudpickle, "loads"), (torch, "load")):
        monkeypatch.setattr(owner, name, refuse)
    train(config(folder, total_timesteps=192, num_envs=1), progress=False)
    assert not list(folder.rglob("*.zip")) and not list(folder.rglob("*.pkl"))
    assert os.path.exists(folder / "final.json")


def test_saved_episode_infos_that_are_not_episodes_are_a_one_line_error(tmp_path):
    """Found by tests/attacks/run_folder_attack.py: an episode info of the training state
    replaced by a list was handed to Stable-Baselines3, which failed with a TypeError
    when it logged the mean return."""
    from otrio.envs.core.errors import ConfigError
    from tests.attacks.tiny_runs import training

    training(tmp_path / "run")
    state = tmp_path / "run" / "checkpoints" / "resume.json"
    saved = json.loads(state.read_text())
    assert saved["meta"]["ep_info_buffer"], "the tiny run keeps episode infos"
    for key, bad in (("ep_info_buffer", [[1]]), ("ep_info_buffer", [{"r": "x", "l": 1, "t": 0}]),
                     ("ep_info_buffer", {"r": 1}), ("ep_success_buffer", [1])):
        changed = json.loads(json.dumps(saved))
        changed["meta"][key] = bad
        state.write_text(json.dumps(changed))
        with pytest.raises(ConfigError, match="cannot resume.*episode") as caught:
            training(tmp_path / "run", total_timesteps=192)
        assert "\n" not in str(caught.value)


def test_saved_optimizer_switches_or_settings_that_are_not_this_runs_are_a_one_line_error(
        tmp_path):
    """Found by tests/attacks/run_folder_attack.py: a training state whose optimizer said
    ``capturable: true`` was loaded, and the first step on the CPU was torch's
    AssertionError. A switch of the code must be this optimizer's own, a setting a
    finite number >= 0 of its shape."""
    from otrio.envs.core.errors import ConfigError
    from tests.attacks.tiny_runs import training

    training(tmp_path / "run")
    state = tmp_path / "run" / "checkpoints" / "resume.json"
    saved = json.loads(state.read_text())
    for key, bad in (("capturable", True), ("foreach", 1), ("lr", -1.0), ("lr", "0.1"),
                     ("betas", [0.9]), ("eps", None), ("params", [0])):
        changed = json.loads(json.dumps(saved))
        changed["param_groups"][0][key] = bad
        state.write_text(json.dumps(changed))
        with pytest.raises(ConfigError, match="optimizer is not this run's") as caught:
            training(tmp_path / "run", total_timesteps=192)
        assert "\n" not in str(caught.value), key
    state.write_text(json.dumps(saved))
    training(tmp_path / "run", total_timesteps=192)  # the state as saved resumes
