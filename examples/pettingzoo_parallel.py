"""PettingZoo's parallel API: random legal play through ``pettingzoo.make("parallel", ...)``.

    .venv/bin/python examples/pettingzoo_parallel.py --env otontin_v0 --players 4 --games 5

The games are turn-based, so the parallel env is PettingZoo's
``turn_based_aec_to_parallel`` of the AEC env (``import otrio`` registers it as
``otrio/<id>``; ``otrio.envs.oceanos_v0.parallel_env()`` builds the same). Each step returns
an observation for every live agent, but only one of them acts: every other agent's
``action_mask`` is all zeros. A policy that samples from the mask alone crashes on
those (``numpy``'s ``choice`` of an empty list raises ``ValueError: a cannot be
empty``); the policy below acts only for the agent with legal actions and leaves the
idle ones out of the action dict (the wrapper plays only the acting agent's action).

Rewards come per step for every agent, so each seat's return over a game equals its
AEC reward, whoever made the last move (checked here against ``+1``/``-1``).
"""

from __future__ import annotations

import argparse

import numpy as np
import pettingzoo

from otrio import envs  # noqa: F401  (registers the otrio/* ids with PettingZoo, AEC and parallel)


def random_actions(observations: dict, rng: np.random.Generator) -> dict[str, int]:
    """A random legal action for the agent that acts; idle agents (all-zero mask) get none."""
    actions = {}
    for agent, obs in observations.items():
        legal = np.flatnonzero(obs["action_mask"])
        if legal.size:  # the acting agent; an idle one's mask is all zeros
            actions[agent] = int(rng.choice(legal))
    return actions


def main(argv: list[str] | None = None) -> dict:
    """Play ``--games`` random games; print and return what was seen."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0", help="environment id (default oceanos_v0)")
    parser.add_argument("--players", type=int, default=3, help="player count (default 3)")
    parser.add_argument("--games", type=int, default=3, help="games to play (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game's seed (default 0)")
    args = parser.parse_args(argv)
    env = pettingzoo.make("parallel", f"otrio/{args.env}", num_players=args.players)
    rng = np.random.default_rng(args.seed)
    steps, idle_masks, returns = 0, 0, []
    for game in range(args.games):
        observations, _ = env.reset(seed=args.seed + game)
        total = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = random_actions(observations, rng)
            assert len(actions) == 1, "exactly one agent acts at each step"
            idle_masks += len(observations) - len(actions)
            observations, rewards, _, _, _ = env.step(actions)
            for agent, reward in rewards.items():
                total[agent] += reward
            steps += 1
        returns.append(total)
    # a winner gets +1 and every other seat -1 (0 for all if every seat shares the win)
    settled = all(set(r.values()) <= {1.0, -1.0} or set(r.values()) == {0.0} for r in returns)
    result = {"env": args.env, "games": args.games, "steps": steps,
              "idle_all_zero_masks": idle_masks, "returns_settled": settled,
              "returns": returns}
    print(result)
    return result


if __name__ == "__main__":
    main()
