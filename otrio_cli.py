"""The ``otrio`` command line: ``otrio demo``, ``otrio play``, ``otrio tournament`` …

Each sub-command lives in its own module; this file only dispatches.
"""

from __future__ import annotations

import argparse
import sys


def _demo(args: argparse.Namespace) -> int:
    """Play one seeded Oceanos game with random legal actions and print the table."""
    import numpy as np

    import envs

    env = envs.make("oceanos_v0", num_players=args.players, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    print(env.render())
    print(f"({decisions} decisions, seed {args.seed})")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``otrio`` command."""
    parser = argparse.ArgumentParser(prog="otrio", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="the main job: a seeded demonstration")
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
