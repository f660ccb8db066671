"""Adapt an exported agent (``X.json`` + ``X.safetensors``) to an observation that
gained values.

When a game's observation layout gains values (a new piece inserted at ``--at``), a
trained MLP policy can keep playing exactly as before by giving its first layers zero
weights for the new inputs; it ignores them until it is trained further. The agent is
loaded and saved with the safe format of ``agents/weights.py`` (nothing unpickled):

    python tools/widen_checkpoint.py agents/pretrained/oceanos_ppo.json --at 469 --count 15
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch

from otrio.agents.weights import load_policy, save_policy


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
    parser.add_argument("agent", help="the agent's manifest (X.json)")
    parser.add_argument("--at", type=int, required=True, help="offset of the new values")
    parser.add_argument("--count", type=int, required=True, help="how many values were inserted")
    args = parser.parse_args()


    policy, manifest = load_policy(args.agent)
    if manifest.policy.encoder != "mlp" or manifest.hints:
        raise SystemExit("only plain MLP agents without hints can be widened this way")
    size = manifest.observation_size + args.count
    policy.observation_space = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
    for net in (policy.mlp_extractor.policy_net, policy.mlp_extractor.value_net):
        net[0] = widen_linear(net[0], args.at, args.count)
    meta = manifest.model_dump(mode="json")
    meta["observation_size"] = size
    save_policy(policy, args.agent, meta)
    print(f"{args.agent}: observation {size - args.count} -> {size} values")


if __name__ == "__main__":
    main()
