"""The recipes in examples/ run end to end with a tiny budget (docs/libraries.md, "RL
libraries"). The RLlib recipe runs in its own venv (.venv-rllib, `make setup-rllib`:
RLlib pins gymnasium 1.2.2), in-process and against a running Ray cluster."""

import importlib.util
import json
import os
import secrets
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RLLIB_PYTHON = ROOT / ".venv-rllib" / "bin" / "python"


def _load(name: str):
    """The example module ``examples/<name>.py``."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sb3_maskable_ppo(capsys):
    import torch

    torch.set_num_threads(2)  # torch's default on two cores: the recipe sets one
    result = _load("sb3_maskable_ppo").main(
        ["--timesteps", "128", "--n-steps", "64", "--epochs", "1", "--eval-games", "2"])
    assert torch.get_num_threads() == 1
    assert result["timesteps"] >= 128
    assert 0.0 <= result["win_share_vs_random"] <= 1.0
    assert "total_timesteps" in capsys.readouterr().out  # SB3's log: it shows progress


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "examples").glob("*.py")))
def test_every_recipe_sets_one_torch_thread_by_default(name):
    """2,048 SB3 steps took 68 s with torch's default two threads and 5.2 s with one
    on the shared 2-core machine (103 s and 20.6 s in an earlier run): each recipe that
    runs torch sets its threads, 1 by default (``--threads``)."""
    source = (ROOT / "examples" / f"{name}.py").read_text()
    if "torch" not in source:
        return
    assert "torch.set_num_threads(args.threads)" in source
    assert '"--threads", type=int, default=1' in source


def test_docs_sb3_snippet_sets_one_thread_and_shows_progress():
    page = (ROOT / "docs" / "libraries.md").read_text()
    start = page.index("from sb3_contrib import MaskablePPO")
    snippet = page[start:page.index("```", start)]
    assert "torch.set_num_threads(1)" in snippet
    assert "verbose=1" in snippet or "progress_bar=True" in snippet


@pytest.mark.parametrize("env_id,players", [("oceanos_v0", 3), ("otys_v0", 2), ("otontin_v0", 4)])
def test_pettingzoo_parallel(env_id, players):
    result = _load("pettingzoo_parallel").main(
        ["--env", env_id, "--players", str(players), "--games", "1"])
    assert result["steps"] > 0 and result["idle_all_zero_masks"] == result["steps"] * (players - 1)
    assert result["returns_settled"]


def test_sb3_pettingzoo_tutorial_route_runs_under_gymnasium_1_and_loses_final_rewards():
    import gymnasium
    import pettingzoo.utils
    from sb3_contrib.common.wrappers import ActionMasker

    from otrio import envs

    class Tutorial(pettingzoo.utils.BaseWrapper):  # the tutorial's wrapper, as it is
        pass

    if int(gymnasium.__version__.split(".")[0]) >= 1:
        with pytest.raises(TypeError, match="gymnasium.Env"):
            ActionMasker(Tutorial(envs.make("oceanos_v0", num_players=2)), lambda e: None)
    result = _load("sb3_pettingzoo_tutorial").main(
        ["--timesteps", "128", "--n-steps", "64", "--eval-games", "2", "--quiet"])
    assert result["timesteps"] >= 128 and 0.0 <= result["win_share_vs_random"] <= 1.0
    # of each game's two final rewards the tutorial's step reports one (the mover's)
    assert result["final_rewards_seen"] == 2 and result["final_rewards_paid"] == 4


@pytest.mark.parametrize("env_id,players", [("oceanos_v0", 2), ("otontin_v0", 3)])
def test_torchrl_rollout(env_id, players):
    from otrio import envs

    result = _load("torchrl_rollout").main(
        ["--env", env_id, "--players", str(players), "--steps", "150"])
    assert result["steps"] == 150
    assert result["all_legal"]
    assert result["state_size"] == envs.make(env_id).state_space.shape[0]
    assert result["value_shape"] == (150, 1)


def test_torchrl_ppo_trains_with_legal_actions_only(tmp_path):
    """A tiny PPO run: the loss stays finite, every collected action was legal (and the
    evaluation games, which raise on an illegal action, finish); the saved weights load."""
    import math

    import torch

    saved = tmp_path / "ppo.pt"
    result = _load("torchrl_ppo").main(
        ["--timesteps", "512", "--n-steps", "256", "--batch-size", "128", "--epochs", "1",
         "--hidden", "32", "--eval-games", "2", "--save", str(saved)])
    assert result["timesteps"] == 512
    assert math.isfinite(result["last_loss"])
    assert result["all_legal"]
    assert 0.0 <= result["win_share_vs_random"] <= 1.0
    assert set(torch.load(saved)) == {"policy", "value", "args"}


def test_torchrl_specs_hold():
    """TorchRL's own spec check (random steps, the state included) on the recipe's env."""
    from torchrl.envs.utils import check_env_specs

    check_env_specs(_load("torchrl_rollout").make_env("otys_v0", 3, seed=0), seed=0)


TINY_RLLIB = ["--iterations", "1", "--batch", "200", "--minibatch", "100", "--epochs", "1",
              "--eval-games", "2"]

# a Ray cluster for the test's lifetime: writes its address to a file, stops when its
# stdin closes
HOLDER = """
import sys
import ray
ctx = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
open(sys.argv[1], "w").write(ctx.address_info["address"])
sys.stdin.read()
ray.shutdown()
"""


def _rllib_env(tmp_path: Path) -> dict:
    """The environment of the RLlib runs: Ray's token authentication on, with a token of
    this test's own (the cluster and its client share it)."""
    token = tmp_path / "ray_token"
    token.write_text(secrets.token_hex(32))
    return dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token),
                PYTHONPATH=str(ROOT))


def _run_recipe(args: list[str], env: dict) -> str:
    done = subprocess.run([str(RLLIB_PYTHON), str(ROOT / "examples" / "rllib_selfplay.py"),
                           *TINY_RLLIB, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.skipif(not RLLIB_PYTHON.exists(),
                    reason="no .venv-rllib: run `make setup-rllib` (CI's .ci/run does)")
def test_rllib_selfplay_in_process_and_on_a_cluster(tmp_path):
    env = _rllib_env(tmp_path)
    result = json.loads(_run_recipe(["--env-runners", "0", "--num-cpus", "2"], env))
    assert result["env_steps"] >= 200 and result["eval_games"] == 2
    address_file = tmp_path / "address"
    with open(tmp_path / "cluster.log", "w") as log:
        holder = subprocess.Popen([str(RLLIB_PYTHON), "-c", HOLDER, str(address_file)],
                                  cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while not address_file.exists() or not address_file.read_text():
            assert holder.poll() is None and time.monotonic() < deadline, \
                "the Ray cluster did not start: " + (tmp_path / "cluster.log").read_text()[-2000:]
            time.sleep(0.5)
        result = json.loads(_run_recipe(["--env-runners", "1", "--address",
                                         address_file.read_text(), "--env", "otontin_v0",
                                         "--players", "3"], env))
        assert result["env_steps"] >= 200
    finally:
        holder.stdin.close()
        holder.wait(timeout=120)
