"""Adapt a MaskablePPO checkpoint to an observation that gained pieces.

When a game's observation layout gains values (a new piece inserted at ``--at``), a
trained policy can keep playing exactly as before by giving its first layers zero
weights for the new inputs; it then ignores them until it is trained further. The
metadata's ``observation_size`` is updated beside the checkpoint.

    python tools/widen_checkpoint.py agents/pretrained/oceanos_ppo.zip --at 469 --count 15

Only for the user's own checkpoints: loading an sb3 zip unpickles parts of it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch


def widen_linear(layer: torch.nn.Linear, at: int, count: int) -> torch.nn.Linear:
    """``layer`` with ``count`` zero-weight inputs inserted before input ``at``."""
    wide = torch.nn.Linear(layer.in_features + count, layer.out_features)
    with torch.no_grad():
        weight = layer.weight
        zeros = torch.zeros(weight.shape[0], count, dtype=weight.dtype)
        wide.weight.copy_(torch.cat([weight[:, :at], zeros, weight[:, at:]], dim=1))
        wide.bias.copy_(layer.bias)
    return wide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--at", type=int, required=True, help="offset of the new values")
    parser.add_argument("--count", type=int, required=True, help="how many values were inserted")
    args = parser.parse_args()
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(args.checkpoint), device="cpu")
    size = model.observation_space.shape[0] + args.count
    space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
    model.observation_space = model.policy.observation_space = space
    extractor = model.policy.mlp_extractor
    for net in (extractor.policy_net, extractor.value_net):
        net[0] = widen_linear(net[0], args.at, args.count)
    model.save(str(args.checkpoint))
    meta_path = args.checkpoint.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta["observation_size"] = size
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(f"{args.checkpoint}: observation {size - args.count} -> {size} values")


if __name__ == "__main__":
    main()
