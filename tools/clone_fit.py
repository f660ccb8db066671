"""How well a run's behaviour clone fits its teacher: on games it trained on, and on
fresh ones.

Re-records the first ``--games`` teacher games of the run's demonstrations (the same
seeds, so the same games the clone was fitted to) and as many games it never saw,
then scores the clone's most likely action against the teacher's and its value head
against the returns, and on the fresh games the agreement per kind of decision (the
teacher's action block; forced decisions, with one legal action, apart). A policy that fits the trained-on games no better than fresh
ones is not over-fitting: it cannot represent the teacher (see
``agents/pretrained/README.md``). Usage::

    python tools/clone_fit.py runs/train/otys_bc_wide --games 100
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import envs
from envs.core.rng import derive_seed
from training.imitation import collect, evaluate_clone

FRESH_SEED_OFFSET = 1000  # the fresh games' seed: the run's seed plus this


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a training run folder with its clone (imitation.json, or "
                        "an older run's imitation.zip) and config.json")
    parser.add_argument("--games", type=int, default=100, help="games of each kind")
    args = parser.parse_args()
    from types import SimpleNamespace

    import torch

    from agents.weights import load_policy, load_sb3_zip

    torch.set_num_threads(1)
    run = Path(args.run)
    cfg = json.loads((run / "config.json").read_text())
    if (run / "imitation.json").exists():  # the safe format runs write now
        model = SimpleNamespace(policy=load_policy(run / "imitation.json")[0])
    else:  # an older run's zip: refused unless trusted
        model = load_sb3_zip(run / "imitation.zip", device="cpu")
    teacher = cfg["imitation"]["teacher"]
    for name, seed in (("trained-on games", cfg["seed"]),
                       ("fresh games", cfg["seed"] + FRESH_SEED_OFFSET)):
        demos = collect(cfg["game"], cfg["game_config"], teacher, args.games,
                        derive_seed(seed, "demonstrations"), hints=cfg.get("hints"))
        scores = evaluate_clone(model.policy, demos)
        print(f"{name}: {len(demos)} decisions, agreement {scores['accuracy']:.3f}, "
              f"value RMSE {scores['value_rmse']:.3f}")
    print("\nfresh games, agreement by the teacher's action block:")
    for block, (count, agreed) in agreement_by_block(model, cfg, demos):
        print(f"  {block:24s} {count:7d} decisions  {agreed:.3f}")


def agreement_by_block(model, cfg: dict, demos) -> list[tuple[str, tuple[int, float]]]:
    """(block, (decisions, agreement)) by the teacher's action block, most frequent first."""
    import torch

    names = envs.make(cfg["game"], **cfg["game_config"]).unwrapped.game.actions
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(demos.observations),
                                             action_masks=demos.masks)
        chosen = dist.distribution.probs.argmax(dim=1).numpy()
    forced = demos.masks.sum(axis=1) == 1
    count, agreed = Counter(), Counter()
    for action, choice, only in zip(demos.actions, chosen, forced, strict=True):
        block = names.name(int(action)).split(":")[0] + (" (forced)" if only else "")
        count[block] += 1
        agreed[block] += int(action == choice)
    return [(b, (n, agreed[b] / n)) for b, n in count.most_common()]


if __name__ == "__main__":
    main()
