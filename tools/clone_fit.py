"""How well a run's behaviour clone fits its teacher: on games it trained on, and on
fresh ones.

Re-records the first ``--games`` teacher games of the run's demonstrations (the same
seeds, so the same games the clone was fitted to) and as many games it never saw,
then scores the clone's most likely action against the teacher's and its value head
against the returns. A policy that fits the trained-on games no better than fresh
ones is not over-fitting: it cannot represent the teacher (see
``agents/pretrained/README.md``). Usage::

    python tools/clone_fit.py runs/train/otys_bc_wide --games 100
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from envs.core.rng import derive_seed
from training.imitation import collect, evaluate_clone

FRESH_SEED_OFFSET = 1000  # the fresh games' seed: the run's seed plus this


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a training run folder with imitation.zip and config.json")
    parser.add_argument("--games", type=int, default=100, help="games of each kind")
    args = parser.parse_args()
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    run = Path(args.run)
    cfg = json.loads((run / "config.json").read_text())
    model = MaskablePPO.load(run / "imitation.zip", device="cpu")
    teacher = cfg["imitation"]["teacher"]
    for name, seed in (("trained-on games", cfg["seed"]),
                       ("fresh games", cfg["seed"] + FRESH_SEED_OFFSET)):
        demos = collect(cfg["game"], cfg["game_config"], teacher, args.games,
                        derive_seed(seed, "demonstrations"))
        scores = evaluate_clone(model.policy, demos)
        print(f"{name}: {len(demos)} decisions, agreement {scores['accuracy']:.3f}, "
              f"value RMSE {scores['value_rmse']:.3f}")


if __name__ == "__main__":
    main()
