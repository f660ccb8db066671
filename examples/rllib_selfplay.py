"""RLlib: multi-agent PPO self-play with action masking on a suite game, in-process or on
a Ray cluster.

    make setup-rllib    # .venv-rllib: RLlib pins gymnasium 1.2.2, so it has its own venv
    .venv-rllib/bin/python examples/rllib_selfplay.py --env oceanos_v0 --players 2 --iterations 20

Every seat is mapped to one shared policy (self-play). The env is the suite's AEC env
through RLlib's ``PettingZooEnv``, with the observation keys RLlib's action-masking
module reads (``otrio.integrations.rllib_keys``: ``observations`` and ``action_mask``), and
``illegal_action="terminate"`` so that RLlib's env pre-check, which steps random
unmasked actions, ends a game instead of raising. RLlib's ``PettingZooEnv`` reports
each agent's reward when it next acts or when the game ends, so a seat's final -1
reaches it even when another seat made the last move. (Ray 2.60 has no
``local_mode``: ``ray.init()`` starts a local Ray on this machine.)

On a cluster: start a head node, ``ray start --head --port=6379``; then run this same
script with ``--address auto`` on the head (or ``--address HEAD_IP:6379`` from a machine
that can reach it) and more ``--env-runners``. To add machines, install the project
the same way on each (``make setup-rllib``) and join them with
``ray start --address HEAD_IP:6379``; RLlib spreads the env runners over the
cluster's CPUs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from otrio import envs
from otrio.integrations import rllib_keys


def env_creator(config: dict):
    """One RLlib multi-agent env (imports inside: env runners build it in their own
    processes, possibly on other machines)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # optional: the [ray] extra


    return PettingZooEnv(rllib_keys(envs.make(config["env_id"],
                                              num_players=config["players"],
                                              illegal_action="terminate")))


def build(args):
    """The PPO algorithm: one shared masked policy for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig  # optional: the [ray] extra
    from ray.rllib.core.rl_module.multi_rl_module import (  # optional: the [ray] extra
        MultiRLModuleSpec,
    )
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # optional: the [ray] extra
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (  # optional: the [ray] extra
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env  # optional: the [ray] extra

    register_env("otrio_selfplay", env_creator)
    config = (
        PPOConfig()
        .environment("otrio_selfplay", env_config={"env_id": args.env, "players": args.players})
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [args.hidden] * 2}),
        }))
        .env_runners(num_env_runners=args.env_runners, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                  num_epochs=args.epochs, lr=args.lr)
        .debugging(seed=args.seed)
    )
    return config.build_algo()


def masked_action(module, obs: dict) -> int:
    """The shared policy's greedy legal action for one observation."""
    import torch  # deferred: torch (~1 s)

    batch = {"obs": {"observations": torch.as_tensor(obs["observations"][None]),
                     "action_mask": torch.as_tensor(obs["action_mask"][None])}}
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    logits = np.where(obs["action_mask"] > 0, logits, -np.inf)
    return int(np.argmax(logits))


def evaluate(module, env_id: str, players: int, games: int, seed: int) -> float:
    """The policy's win share in seat 0 (rotated over the seats) against random
    opponents; a shared win counts as half."""

    rng = np.random.default_rng(seed)
    score = 0.0
    for game in range(games):
        env = rllib_keys(envs.make(env_id, num_players=players))
        env.reset(seed=seed + game)
        learner = env.possible_agents[game % players]
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == learner:
                    score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(masked_action(module, obs) if agent == learner else int(rng.choice(legal)))
    return score / games


def main(argv: list[str] | None = None) -> dict:
    """Train ``--iterations`` PPO iterations, evaluate; print and return the result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--env-runners", type=int, default=1,
                        help="sampling processes (0: sample in this process)")
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", default=None,
                        help="a running Ray cluster ('auto', or HEAD_IP:6379); "
                             "default: start a local Ray for this run")
    parser.add_argument("--num-cpus", type=int, default=None,
                        help="CPUs of the local Ray (default: all)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of this process, where the learner runs "
                             "(default 1: faster than torch's default on a small machine)")
    parser.add_argument("--quiet", action="store_true", help="no line after each iteration")
    args = parser.parse_args(argv)

    import ray  # optional: the [ray] extra
    import torch  # deferred: torch (~1 s)

    torch.set_num_threads(args.threads)

    start = time.perf_counter()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    try:
        algo = build(args)
        env_steps = 0
        for iteration in range(args.iterations):
            result = algo.train()
            env_steps = result.get("num_env_steps_sampled_lifetime",
                                   result.get("env_runners", {}).get(
                                       "num_env_steps_sampled_lifetime", env_steps))
            if not args.quiet:  # on stderr: the last line of stdout is the result
                print(f"iteration {iteration + 1}/{args.iterations}: {env_steps} env steps, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        module = algo.get_module("shared")
        win = evaluate(module, args.env, args.players, args.eval_games, args.seed + 10_000)
        algo.stop()
    finally:
        ray.shutdown()
    out = {"iterations": args.iterations, "env_steps": env_steps,
           "eval_games": args.eval_games, "win_share_vs_random": win,
           "chance": 1 / args.players, "seconds": round(time.perf_counter() - start, 1)}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
