"""PettingZoo's "SB3: Action Masked PPO" tutorial route on a suite game, working under
gymnasium 1.x, and what it loses that ``integrations.SelfPlay`` keeps.

    .venv/bin/python examples/sb3_pettingzoo_tutorial.py --env oceanos_v0 --players 2 \
        --timesteps 4096 --eval-games 50

The tutorial wraps the AEC env in a ``pettingzoo.utils.BaseWrapper`` whose ``reset`` and
``step`` look like gymnasium's, then in sb3-contrib's ``ActionMasker``. Under gymnasium
1.x that fails at once: ``ActionMasker`` is a ``gymnasium.Wrapper``, which refuses
anything that is not a ``gymnasium.Env`` (``TypeError: Expected env to be a
gymnasium.Env``). The fix is to make the tutorial's wrapper a ``gymnasium.Env`` too
(``class TurnWrapper(BaseWrapper, gymnasium.Env)``); nothing else changes.

It then trains, but on the wrong rewards for these games. One network plays every seat
and each step reports the reward of the seat that moved; a seat's final -1 (or +1)
is paid on the step that ends the game, usually another seat's move, so it never
reaches the network: of the ``n`` final rewards of an ``n``-player game only the
mover's is seen (``final_rewards_seen`` below counts them). Patched this way, on
two-player Oceanos it won 0.375 against random after 4,096 steps in one measurement and
0.50 (chance) in another (this script's defaults). ``integrations.SelfPlay`` (the
route of docs/libraries.md, ``examples/sb3_maskable_ppo.py``) is the view built from the AEC
semantics instead: one learner seat, opponents inside the env, every reward that
reaches the learner's seat paid to it, whoever moved.
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
import pettingzoo.utils
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

from otrio import envs


class TurnWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The tutorial's wrapper, a ``gymnasium.Env`` as well (what gymnasium 1.x needs):
    the observation of the seat to act, the reward of the seat that just moved."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        first = self.possible_agents[0]
        self.observation_space = super().observation_space(first)["observation"]
        self.action_space = super().action_space(first)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        mover = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                self.terminations[mover], self.truncations[mover], self.infos[mover])

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def make_env(env_id: str, players: int, seed: int) -> ActionMasker:
    """The tutorial's stack: our AEC env, the turn wrapper, sb3-contrib's mask wrapper."""
    env = TurnWrapper(envs.make(env_id, num_players=players))
    env.reset(seed=seed)  # the tutorial sets the spaces in reset
    return ActionMasker(env, lambda e: e.action_mask())


def final_rewards_seen(env_id: str, players: int, games: int, seed: int) -> dict:
    """Random games through the tutorial's wrapper: how many of the seats' final
    rewards its ``step`` reports (the mover's only) against how many the game pays."""
    rng = np.random.default_rng(seed)
    seen = paid = 0
    for game in range(games):
        env = TurnWrapper(envs.make(env_id, num_players=players))
        env.reset(seed=seed + game)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_mask())
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        seen += reward != 0  # the mover's final reward, in the one step that ends the game
        paid += sum(value != 0 for value in env.rewards.values())
    return {"final_rewards_seen": int(seen), "final_rewards_paid": int(paid)}


def evaluate(model: MaskablePPO, env_id: str, players: int, games: int, seed: int) -> float:
    """The model's win share in one seat (rotated) against random seats; a shared win
    counts as half."""
    rng = np.random.default_rng(seed)
    score = 0.0
    for game in range(games):
        env = envs.make(env_id, num_players=players)
        env.reset(seed=seed + game)
        learner = env.possible_agents[game % players]
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == learner:
                    score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                env.step(None)
                continue
            if agent == learner:
                action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"],
                                          deterministic=True)
            else:
                action = rng.choice(np.flatnonzero(obs["action_mask"]))
            env.step(int(action))
    return score / games


def main(argv: list[str] | None = None) -> dict:
    """Train through the tutorial's route, evaluate against random; print and return."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0", help="environment id (default oceanos_v0)")
    parser.add_argument("--players", type=int, default=2, help="player count (default 2)")
    parser.add_argument("--timesteps", type=int, default=4096,
                        help="decisions of every seat together (default 4096)")
    parser.add_argument("--n-steps", type=int, default=2048,
                        help="rollout length per update (default 2048)")
    parser.add_argument("--eval-games", type=int, default=50, help="default 50")
    parser.add_argument("--seed", type=int, default=0, help="default 0")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no training log (verbose=0)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    env = make_env(args.env, args.players, args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps,
                        batch_size=min(64, args.n_steps), seed=args.seed,
                        verbose=0 if args.quiet else 1, device="cpu")
    model.learn(total_timesteps=args.timesteps)
    result = {"timesteps": int(model.num_timesteps),
              "win_share_vs_random": evaluate(model, args.env, args.players, args.eval_games,
                                              args.seed + 20_000),
              "chance": 1 / args.players,
              **final_rewards_seen(args.env, args.players, max(args.eval_games, 1),
                                   args.seed + 30_000)}
    print(result)
    return result


if __name__ == "__main__":
    main()
