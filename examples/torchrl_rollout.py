"""TorchRL: a masked policy plays a suite env through PettingZooWrapper, with the
full-information state beside the observations (for a centralised critic).

    .venv/bin/python examples/torchrl_rollout.py --env oceanos_v0 --players 3 --steps 200

TorchRL's wrapper puts each agent in its own group (``player_0`` ...); a Dict
observation is nested, so an agent's vector is at ``(agent, "observation",
"observation")`` and its legal actions at ``(agent, "action_mask")``;
``return_state=True`` adds ``"state"`` (``env.state()``, the same size at every player
count). Only the acting agent's action is played (its ``(agent, "mask")`` is True).
"""

from __future__ import annotations

import argparse

import torch
from tensordict import TensorDict
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical

from otrio import envs


def make_env(env_id: str, players: int, seed: int) -> PettingZooWrapper:
    """The suite env as a TorchRL env: masks on, full state on, integer actions."""
    return PettingZooWrapper(envs.make(env_id, num_players=players), use_mask=True,
                             return_state=True, categorical_actions=True, seed=seed)


class MaskedPolicy(nn.Module):
    """One network shared by every seat: observation -> logits, illegal actions masked."""

    def __init__(self, observation_size: int, num_actions: int, hidden: int = 64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(observation_size, hidden), nn.Tanh(),
                                 nn.Linear(hidden, num_actions))

    def forward(self, td: TensorDict, agents: list[str]) -> TensorDict:
        """Write an ``action`` for every agent (only the acting agent's is played)."""
        for agent in agents:
            obs = td[agent, "observation", "observation"]
            mask = td[agent, "action_mask"].clone()
            idle = ~mask.any(-1)  # an agent that does not act: any action, unused
            mask[idle, 0] = True
            dist = MaskedCategorical(logits=self.net(obs), mask=mask)
            td[agent, "action"] = dist.sample()
        return td


def main(argv: list[str] | None = None) -> dict:
    """Roll out ``--steps`` steps; print and return what was seen."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: faster than torch's default on a "
                             "small machine)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env = make_env(args.env, args.players, args.seed)
    agents = list(env.group_map)
    info = envs.make(args.env).unwrapped.game.info  # sizes of the observation and actions
    policy = MaskedPolicy(info.observation_size, info.num_actions)
    critic = nn.Linear(env.observation_spec["state"].shape[-1], 1)  # a centralised critic
    with torch.no_grad():
        rollout = env.rollout(args.steps, policy=lambda td: policy(td, agents),
                              break_when_any_done=False)
        values = critic(rollout["state"])
    # every played action was legal: the acting agent's mask allowed it
    legal = all(
        bool(rollout[a, "action_mask"][rollout[a, "mask"]].gather(
            -1, rollout[a, "action"][rollout[a, "mask"]].unsqueeze(-1)).all())
        for a in agents)
    rewards = {a: float(rollout["next", a, "reward"].sum()) for a in agents}
    episodes = int(rollout["next", "done"].sum())
    result = {"steps": rollout.batch_size[0], "state_size": rollout["state"].shape[-1],
              "episodes_ended": episodes, "rewards": rewards, "all_legal": legal,
              "value_shape": tuple(values.shape)}
    print(result)
    return result


if __name__ == "__main__":
    main()
