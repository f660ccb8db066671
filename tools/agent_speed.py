"""Seconds a decision of one agent, measured in seeded games against other agents.

    python tools/agent_speed.py net:agents/pretrained/oceanos_net.json oceanos_v0 \
        --players 2 --games 20 [--opponent greedy]

The agent sits in every seat in turn (the others play ``--opponent``); each of its
decisions is timed around ``act`` alone (``time.perf_counter``), and the mean, median
and 95th percentile are printed with the machine's load average, so a figure measured
on a busy machine says so. Strength is measured elsewhere (tournaments, search-bench);
this is the clock only.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from otrio import agents, envs
from otrio.envs.core.aec import live_turns
from otrio.envs.core.rng import derive_seed


def measure(spec: str, env_id: str, players: int, games: int, opponent: str,
            seed: int = 0) -> dict:
    """Seconds of each of ``spec``'s decisions over ``games`` games (see the docstring)."""
    env = envs.make(env_id, num_players=players)
    agent = agents.make(spec, env)
    others = [agents.make(opponent, env) for _ in range(players)]
    times = []
    for g in range(-1, games):  # game -1 warms up (imports, caches) and is not timed
        game_seed = derive_seed(seed, "agent-speed", "warm-up" if g < 0 else g)
        seat = g % players
        seated = list(others)
        seated[seat] = agent
        for s, player in enumerate(seated):
            player.reset(derive_seed(game_seed, "agent", s))
        env.reset(seed=game_seed)
        for name, obs in live_turns(env):
            k = env.possible_agents.index(name)
            if k == seat:
                start = time.perf_counter()
                action = agent.act(obs)
                if g >= 0:
                    times.append(time.perf_counter() - start)
            else:
                action = seated[k].act(obs)
            env.step(action)
    t = np.asarray(times)
    return {"spec": spec, "env_id": env_id, "players": players, "games": games,
            "decisions": len(t), "mean_s": float(t.mean()), "median_s": float(np.median(t)),
            "p95_s": float(np.percentile(t, 95)), "load_average": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="the agent spec timed, e.g. net:PATH or mcts")
    parser.add_argument("env_id", help="e.g. oceanos_v0")
    parser.add_argument("--players", type=int, required=True, help="player count")
    parser.add_argument("--games", type=int, default=10, help="games (default 10)")
    parser.add_argument("--opponent", default="greedy", help="the other seats' spec (default greedy)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    args = parser.parse_args()
    r = measure(args.spec, args.env_id, args.players, args.games, args.opponent, args.seed)
    print(f"{r['spec']} on {r['env_id']} ({r['players']} players), {r['decisions']} decisions "
          f"in {r['games']} games: mean {r['mean_s'] * 1e3:.3f} ms, median "
          f"{r['median_s'] * 1e3:.3f} ms, 95th percentile {r['p95_s'] * 1e3:.3f} ms "
          f"(1-minute load average {r['load_average']:.2f})")


if __name__ == "__main__":
    main()
