"""``otrio train CONFIG --smoke``: a run a user can size (issue 32, item 1).

A shipped config's warm start and evaluation settings are sized for hours; ``--smoke``
sizes the whole run for a minute, and it still writes an evaluation, snapshots for
``evaluate-run`` and a final agent, with no trust flag needed anywhere.
"""

import json
from pathlib import Path

import pytest

from otrio.cli import main
from otrio.training.config import (
    SMOKE_EVAL_GAMES,
    SMOKE_IMITATION_GAMES,
    SMOKE_TIMESTEPS,
    load_train_config,
    plan,
)

ROOT = Path(__file__).resolve().parents[2]
PPO_CONFIGS = sorted(p for p in (ROOT / "configs" / "train").glob("*.yaml")
                     if "distill" not in p.read_text())


@pytest.fixture(autouse=True)
def untrusted(monkeypatch):
    monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)


@pytest.mark.parametrize("path", PPO_CONFIGS, ids=lambda p: p.stem)
def test_every_shipped_config_has_a_smoke_size(path):
    full = load_train_config(path)
    cfg = load_train_config(path, smoke=True)
    assert cfg.total_timesteps == min(full.total_timesteps, SMOKE_TIMESTEPS)
    assert cfg.ppo.n_steps * cfg.num_envs * 4 <= cfg.total_timesteps
    assert cfg.ppo.batch_size <= cfg.ppo.n_steps * cfg.num_envs
    if cfg.imitation is not None:
        assert cfg.imitation.games <= SMOKE_IMITATION_GAMES and cfg.imitation.epochs == 1
        warmup = cfg.imitation.value_warmup_timesteps
        assert warmup <= cfg.ppo.n_steps * cfg.num_envs
    else:
        warmup = 0
    # one evaluation at the end: PPO counts its interval from where it starts
    assert warmup + cfg.eval.interval == cfg.total_timesteps
    assert cfg.eval.games <= SMOKE_EVAL_GAMES
    assert cfg.snapshot_interval <= cfg.total_timesteps // 2
    assert cfg.output == full.output + "_smoke"  # never the real run's folder
    # what a smoke run keeps of the config
    for key in ("game", "game_config", "opponents", "net_arch", "encoder", "hints", "seed"):
        assert getattr(cfg, key) == getattr(full, key)
    assert "1 in this run" in plan(cfg)


def test_timesteps_alone_changes_only_the_length_and_the_plan_says_so():
    path = ROOT / "configs" / "train" / "oceanos_ppo.yaml"
    full = load_train_config(path)
    cfg = load_train_config(path, total_timesteps=2048)
    assert cfg.imitation == full.imitation and cfg.eval == full.eval
    assert "0 in this run after the start (--smoke evaluates at the end)" in plan(cfg)
    assert "warm start cloning greedy from 3000 games" in plan(cfg)
    cfg = load_train_config(path, smoke=True, total_timesteps=512, output="elsewhere")
    assert cfg.total_timesteps == 512 and cfg.output == "elsewhere"


def test_a_distillation_config_has_no_smoke_size(capsys):
    assert main(["train", str(ROOT / "configs" / "train" / "oceanos_distill.yaml"),
                 "--smoke"]) == 2
    assert "--smoke sizes a PPO run" in capsys.readouterr().err


def test_a_smoke_run_of_a_shipped_config_evaluates_and_its_snapshots_score(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", str(ROOT / "configs" / "train" / "oceanos_ppo.yaml"), "--smoke",
                 "--timesteps", "256", "--output", str(run), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("training oceanos_v0, 256 timesteps")
    evals = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in evals] == [0, 256]  # the clone's, then the end's
    assert evals[-1]["random"]["games"] == SMOKE_EVAL_GAMES
    assert f"evaluations: {run / 'eval.jsonl'} (2 so far)" in out
    snapshots = sorted(p.name for p in (run / "snapshots").glob("*.json"))
    assert snapshots == ["step_128.json", "step_256.json"]
    # the run just made scores with no trust flag
    assert main(["evaluate-run", str(run), "--games", "2"]) == 0
    scored = (run / "eval_snapshots.jsonl").read_text().splitlines()
    assert [json.loads(line)["checkpoint"] for line in scored] == [
        "step_128.json", "step_256.json", "final.json"]
