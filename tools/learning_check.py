"""A measured learning check per library route (docs/libraries.md):
masked PPO on 2-player Oceanos, trained through the route's public recipe, then scored
against random opponents.

    .venv/bin/python tools/learning_check.py --route sb3 --timesteps 200000 --games 200
    .venv-rllib/bin/python tools/learning_check.py --route rllib --timesteps 200000
    .venv/bin/python tools/learning_check.py --route torchrl --timesteps 150000 --dense

It prints (and with ``--out`` writes) one JSON line: the route, the budget (env steps
of the learner's decisions for sb3 and torchrl, of every seat's for RLlib's shared self-play
policy), the wall time of training and of the evaluation, and the win share over
``--games`` games with its 95% Wilson interval; ``target_met`` is the share >= 0.8.
Not a test: a run takes minutes to an hour on two cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from otrio.arena.stats import wilson  # noqa: E402
from otrio.integrations import SelfPlay  # noqa: E402

TARGET = 0.8


def _example(name: str):
    """The recipe module ``examples/<name>.py``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_sb3(args) -> dict:
    """MaskablePPO through integrations.SelfPlay (the learner's seat rotates at random)."""
    import torch  # deferred: torch (~1 s)
    from sb3_contrib import MaskablePPO  # deferred: torch (~1 s)


    torch.set_num_threads(args.threads)
    recipe = _example("sb3_maskable_ppo")
    config = {"num_players": 2, "dense_reward": args.dense}
    env = SelfPlay("oceanos_v0", opponents={"random": 1.0}, seed=args.seed, **config)
    model = MaskablePPO("MlpPolicy", env, n_steps=2048, batch_size=256, n_epochs=4,
                        learning_rate=3e-4, gamma=0.995, ent_coef=0.01, seed=args.seed,
                        policy_kwargs={"net_arch": [256, 256]}, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - start
    eval_env = SelfPlay("oceanos_v0", opponents={"random": 1.0}, seed=args.seed + 1,
                        num_players=2)
    start = time.perf_counter()
    share = recipe.evaluate(model, eval_env, args.games, seed=10_000 + args.seed)
    return {"env_steps": int(model.num_timesteps), "train_seconds": round(train_s, 1),
            "eval_seconds": round(time.perf_counter() - start, 1), "share": share}


def run_rllib(args) -> dict:
    """RLlib PPO self-play (one shared masked policy for both seats), in a local Ray."""
    import ray  # optional: the [ray] extra

    recipe = _example("rllib_selfplay")
    options = recipe_args(recipe, args)
    ray.init(num_cpus=args.threads + 1, include_dashboard=False)
    try:
        algo = recipe.build(options)
        start = time.perf_counter()
        steps = 0
        while steps < args.timesteps:
            result = algo.train()
            steps = int(result.get("num_env_steps_sampled_lifetime",
                                   result.get("env_runners", {}).get(
                                       "num_env_steps_sampled_lifetime", steps + 1)))
        train_s = time.perf_counter() - start
        start = time.perf_counter()
        share = recipe.evaluate(algo.get_module("shared"), "oceanos_v0", 2, args.games,
                                10_000 + args.seed)
        algo.stop()
    finally:
        ray.shutdown()
    return {"env_steps": steps, "train_seconds": round(train_s, 1),
            "eval_seconds": round(time.perf_counter() - start, 1), "share": share}


def run_torchrl(args) -> dict:
    """The TorchRL PPO recipe (examples/torchrl_ppo.py) through the gymnasium self-play id."""
    import torch  # deferred: torch (~1 s)

    torch.set_num_threads(args.threads)
    recipe = _example("torchrl_ppo")
    options = recipe.parse(["--timesteps", str(args.timesteps), "--seed", str(args.seed)]
                           + (["--dense"] if args.dense else []))
    start = time.perf_counter()
    trained = recipe.train(options)
    train_s = time.perf_counter() - start
    if not trained["all_legal"]:
        raise RuntimeError("the masked policy played an illegal action")
    start = time.perf_counter()
    share = recipe.evaluate(trained["policy"], args.games, 10_000 + args.seed)
    return {"env_steps": trained["steps"], "train_seconds": round(train_s, 1),
            "eval_seconds": round(time.perf_counter() - start, 1), "share": share}


def recipe_args(recipe, args) -> argparse.Namespace:
    """The RLlib recipe's options for this check."""
    return argparse.Namespace(env="oceanos_v0", players=2, batch=4000, minibatch=256,
                              epochs=4, lr=3e-4, hidden=256, env_runners=args.threads,
                              seed=args.seed)


def main(argv: list[str] | None = None) -> dict:
    """Run the check for ``--route``; print and return its JSON record."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--route", choices=("sb3", "rllib", "torchrl"), default="sb3")
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--dense", action="store_true", help="score-change shaping (sb3, torchrl)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="append the record here")
    args = parser.parse_args(argv)
    measured = {"sb3": run_sb3, "rllib": run_rllib, "torchrl": run_torchrl}[args.route](args)
    share = measured.pop("share")
    low, high = wilson(share * args.games, args.games)
    record = {"route": args.route, "game": "oceanos_v0", "players": 2,
              "budget_env_steps": args.timesteps, "dense_reward": args.dense,
              **measured, "games": args.games, "win_share_vs_random": round(share, 3),
              "wilson95": [round(low, 3), round(high, 3)], "target": TARGET,
              "target_met": share >= TARGET}
    line = json.dumps(record)
    print(line)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
    return record


if __name__ == "__main__":
    main()
