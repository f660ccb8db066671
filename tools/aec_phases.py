"""Where a game's AEC random-play time goes: per game and per live step.

Plays ``--games`` games through the bench's loop (``last()`` + ``step()``, random legal
actions) and times, per game, ``reset()``, the first decision (``last()`` and
``step()``: a fresh game builds its observation cache there) and the end (every
agent's ``last()`` and ``step(None)`` once the game is over), and the mean of the other
live steps. A game with few decisions pays its per-game costs over fewer steps, which
``otrio bench`` counts in its steps per second. Usage::

    python tools/aec_phases.py oceanos_v0 5 --games 400
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from otrio import envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("players", type=int)
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    env = envs.make(args.env_id, num_players=args.players)
    rng = np.random.default_rng(0)
    clock = time.perf_counter
    spent = dict.fromkeys(("reset", "first", "end", "live"), 0.0)
    live_steps = 0
    for game in range(args.games):
        start = clock()
        env.reset(seed=game)
        spent["reset"] += clock() - start
        first = True
        for _agent in env.agent_iter():
            start = clock()
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                spent["end"] += clock() - start
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            if first:
                spent["first"] += clock() - start
                first = False
            else:
                spent["live"] += clock() - start
                live_steps += 1
    per_game = {k: v / args.games * 1e6 for k, v in spent.items() if k != "live"}
    live = spent["live"] / live_steps * 1e6
    steps = live_steps / args.games + 1
    overhead = per_game["reset"] + per_game["first"] - live + per_game["end"]
    print(f"{args.env_id} {args.players}p, {args.games} games, {steps:.0f} decisions a game")
    print("per game, µs: " + ", ".join(f"{k} {v:.0f}" for k, v in per_game.items()))
    print(f"live step {live:.1f} µs; per-game costs beyond the live steps {overhead:.0f} µs "
          f"= {overhead / steps:.1f} µs a decision ({overhead / (overhead + steps * live):.1%} "
          "of the loop's time)")


if __name__ == "__main__":
    main()
