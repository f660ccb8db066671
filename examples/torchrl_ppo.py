"""TorchRL: masked PPO learns one seat of two-player Oceanos through the public
self-play view (gymnasium id ``otrio/OceanosSelfPlay-v0``) against random opponents,
then plays evaluation games against them.

    .venv/bin/python examples/torchrl_ppo.py --timesteps 20000 --eval-games 50

One file, CleanRL style: ``GymWrapper`` around the self-play env, the legal actions
read from ``info["action_mask"]`` into the tensordict, a ``ProbabilisticActor`` whose
``MaskedCategorical`` gives illegal actions probability zero, ``GAE`` and
``ClipPPOLoss``, and a ``Collector`` gathering ``--n-steps`` learner decisions per
update. The self-play view pays the learner every reward that reaches its seat
(a loss arrives on the opponent's move); ``--dense`` adds Oceanos' score-change shaping.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium
import numpy as np
import torch
from tensordict import TensorDictBase
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import Categorical
from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
from torchrl.envs.libs.gym import default_info_dict_reader
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from otrio import envs  # noqa: F401  (registers the otrio/*SelfPlay-v0 gymnasium ids)

ENV_ID = "otrio/OceanosSelfPlay-v0"


class MaskReader(default_info_dict_reader):
    """Copies ``info["action_mask"]`` (int8) into the tensordict as booleans."""

    def __init__(self, num_actions: int):
        super().__init__(["action_mask"], spec={
            "action_mask": Categorical(2, shape=(num_actions,), dtype=torch.bool)})

    def __call__(self, info_dict: dict, tensordict: TensorDictBase) -> TensorDictBase:
        """Write the mask of the learner's next decision (all False once the game ended)."""
        tensordict.set("action_mask", torch.as_tensor(info_dict["action_mask"], dtype=torch.bool))
        return tensordict


def make_env(seed: int, dense: bool = False) -> TransformedEnv:
    """Two-player Oceanos, one learner seat against random, as a TorchRL env."""
    gym_env = gymnasium.make(ENV_ID, num_players=2, opponents={"random": 1.0}, seed=seed,
                             dense_reward=dense, disable_env_checker=True)
    env = GymWrapper(gym_env, categorical_action_encoding=True)
    env.set_info_dict_reader(MaskReader(int(gym_env.action_space.n)))
    return TransformedEnv(env, ActionMask())  # the action spec follows the mask too


def mlp(inputs: int, outputs: int, hidden: int) -> nn.Sequential:
    """Two tanh hidden layers, orthogonal init (the output layer small)."""
    layers = [nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
              nn.Linear(hidden, outputs)]
    for layer in layers[::2]:
        nn.init.orthogonal_(layer.weight, math.sqrt(2) if layer is not layers[-1] else 0.01)
        nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


def make_agent(env: TransformedEnv, hidden: int) -> tuple[ProbabilisticActor, ValueOperator]:
    """A masked categorical policy and a value network, both reading ``observation``."""
    obs_size = env.observation_spec["observation"].shape[-1]
    num_actions = env.action_spec.space.n
    logits = TensorDictModule(mlp(obs_size, num_actions, hidden), in_keys=["observation"],
                              out_keys=["logits"])
    policy = ProbabilisticActor(logits, in_keys={"logits": "logits", "mask": "action_mask"},
                                out_keys=["action"], spec=env.action_spec,
                                distribution_class=MaskedCategorical, return_log_prob=True)
    value = ValueOperator(mlp(obs_size, 1, hidden), in_keys=["observation"])
    return policy, value


def train(args: argparse.Namespace) -> dict:
    """Run PPO for ``args.timesteps`` learner decisions; the policy and training stats."""
    torch.manual_seed(args.seed)
    env = make_env(args.seed, args.dense)
    env.set_seed(args.seed)
    policy, value = make_agent(env, args.hidden)
    advantage = GAE(gamma=args.gamma, lmbda=0.95, value_network=value, average_gae=True)
    loss_fn = ClipPPOLoss(policy, value, clip_epsilon=0.2, entropy_coeff=args.ent_coef,
                          critic_coeff=0.5, loss_critic_type="l2")
    optim = torch.optim.Adam(loss_fn.parameters(), lr=args.lr, eps=1e-5)
    collector = Collector(env, policy, frames_per_batch=args.n_steps,
                          total_frames=args.timesteps, auto_register_policy_transforms=False)
    steps, all_legal, losses, episodes = 0, True, [], 0
    for batch in collector:
        steps += batch.numel()
        played = batch["action_mask"].gather(-1, batch["action"].unsqueeze(-1))
        all_legal &= bool(played.all())
        episodes += int(batch["next", "done"].sum())
        with torch.no_grad():
            advantage(batch)
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(flat.numel()).split(args.batch_size):
                parts = loss_fn(flat[idx])
                loss = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                optim.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_fn.parameters(), 0.5)
                optim.step()
                losses.append(loss.item())
        collector.update_policy_weights_()
        if not args.quiet:
            print(f"{steps}/{args.timesteps} learner steps, {episodes} games ended, "
                  f"loss {losses[-1]:.3f}", flush=True)
    collector.shutdown()
    return {"policy": policy, "value": value, "steps": steps, "episodes": episodes,
            "all_legal": all_legal, "last_loss": losses[-1] if losses else float("nan")}


def evaluate(policy: ProbabilisticActor, games: int, seed: int) -> float:
    """The greedy policy's win share against random over ``games`` (a shared win is half)."""
    env = gymnasium.make(ENV_ID, num_players=2, opponents={"random": 1.0}, seed=seed,
                         disable_env_checker=True)
    net = policy.module[0].module  # observation -> logits
    score = 0.0
    for game in range(games):
        obs, info = env.reset(seed=seed + game)
        while True:
            with torch.no_grad():
                logits = net(torch.as_tensor(obs))
            mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            action = int(logits.masked_fill(~mask, -math.inf).argmax())
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                break
    return score / games


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (the defaults are the learning check's settings)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--n-steps", type=int, default=2048, help="learner steps per update")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=4, help="passes over each rollout")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--dense", action="store_true", help="score-change reward shaping")
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="write the policy and value weights here")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: faster than torch's default on a "
                             "small machine)")
    parser.add_argument("--quiet", action="store_true", help="no line after each update")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    """Train for ``--timesteps``, optionally save, then evaluate; print and return the result."""
    args = parse(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    trained = train(args)
    train_s = time.perf_counter() - start
    if args.save:
        torch.save({"policy": trained["policy"].state_dict(),
                    "value": trained["value"].state_dict(), "args": vars(args)}, args.save)
    win = evaluate(trained["policy"], args.eval_games, seed=args.seed + 20_000)
    result = {"timesteps": trained["steps"], "episodes": trained["episodes"],
              "train_seconds": round(train_s, 1), "last_loss": trained["last_loss"],
              "all_legal": trained["all_legal"], "eval_games": args.eval_games,
              "win_share_vs_random": win, "chance": 0.5}
    print(result)
    return result


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
