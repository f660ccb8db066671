"""Stable-Baselines3: sb3-contrib's MaskablePPO learns one seat of a suite game through
the public self-play view (``integrations.SelfPlay``) against random opponents, then
plays evaluation games against them.

    .venv/bin/python examples/sb3_maskable_ppo.py --env oceanos_v0 --players 2 \
        --timesteps 20000 --eval-games 50 --save sb3_model.zip

``--save`` writes the model and, beside it, the metadata that ties it to its game
(``sb3_model.json``: ``otrio.agents.ppo.write_metadata``); one command then brings it
back as a safe agent that plays in tournaments (``ppo:sb3_agent.json``):

    .venv/bin/otrio export-checkpoint sb3_model.zip sb3_agent.json --trust-checkpoint

No trainer of ours is involved: SelfPlay is a plain ``gymnasium.Env`` whose
``action_masks()`` MaskablePPO reads, and it pays the learner every reward that
reaches its seat (PettingZoo's SB3 tutorial wrapper pays only the mover, which is
wrong for these games: a loser's final -1 arrives on another seat's move).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from otrio.agents.ppo import write_metadata, zip_metadata
from otrio.integrations import SelfPlay


def evaluate(model: MaskablePPO, env: SelfPlay, games: int, seed: int) -> float:
    """The learner's win share over ``games`` (a shared win counts as half)."""
    score = 0.0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        while True:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            if terminated or truncated:
                score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                break
    return score / games


def main(argv: list[str] | None = None) -> dict:
    """Train for ``--timesteps``, then evaluate; print and return the result."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--n-steps", type=int, default=1024, help="rollout length per update")
    parser.add_argument("--epochs", type=int, default=10, help="passes over each rollout")
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: on a 2-core machine 2,048 steps took "
                             "5.2 s with one thread and 68 s with torch's default two)")
    parser.add_argument("--quiet", action="store_true", help="no training log (verbose=0)")
    parser.add_argument("--save", default=None, metavar="MODEL.zip",
                        help="save the model there, with its metadata MODEL.json beside it "
                             "(`otrio export-checkpoint MODEL.zip AGENT.json "
                             "--trust-checkpoint` then makes it a safe agent)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    env = SelfPlay(args.env, num_players=args.players, opponents={"random": 1.0},
                   seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps,
                        batch_size=min(64, args.n_steps), n_epochs=args.epochs, seed=args.seed,
                        verbose=0 if args.quiet else 1, device="cpu")  # 1: a log every update
    model.learn(total_timesteps=args.timesteps)
    eval_env = SelfPlay(args.env, num_players=args.players, opponents={"random": 1.0},
                        seed=args.seed + 10_000)
    win = evaluate(model, eval_env, args.eval_games, seed=args.seed + 20_000)
    result = {"timesteps": int(model.num_timesteps), "eval_games": args.eval_games,
              "win_share_vs_random": win, "chance": float(1 / args.players)}
    if args.save:
        path = Path(args.save)
        path = path if path.suffix == ".zip" else path.with_name(path.name + ".zip")
        model.save(str(path))
        meta = zip_metadata(args.env, {"num_players": args.players},
                            timesteps=model.num_timesteps, seed=args.seed)
        result["saved"] = [str(path), str(write_metadata(path, meta))]
    print(result)
    return result


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
