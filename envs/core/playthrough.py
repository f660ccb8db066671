"""Golden playthroughs (OpenSpiel ``integration_tests/playthroughs``).

A playthrough is one seeded game with seeded random actions, recorded as the action
ids and names, the rewards and a digest of every observation. A test replays it and
demands the same record; ``python -m otrio.envs.core.playthrough`` regenerates the files
on purpose after an intended rule change.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from .registry import make
from .rng import make_rng
from .testing import digest


def record(env_id: str, config: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play one game (env seed ``seed``, action seed ``seed``) and record it."""
    env = make(env_id, **config)
    env.reset(seed=seed)
    rng = make_rng(seed)
    steps = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        entry = {
            "agent": agent,
            "reward": round(float(reward), 6),
            "obs": digest(obs["observation"], obs["action_mask"]),
        }
        if term or trunc:
            entry["done"] = True
            steps.append(entry)
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        entry["action"] = action
        entry["name"] = env.unwrapped.action_name(action)
        steps.append(entry)
        env.step(action)
    state = env.unwrapped.state_
    return {
        "env_id": env_id,
        "config": config,
        "seed": seed,
        "scores": list(state.scores()),
        "winners": list(state.winners()),
        "steps": steps,
    }


def write(path: Path, env_id: str, config: dict[str, Any], seed: int) -> None:
    """Record a playthrough and write it as JSON (one step per line, for diffs)."""
    data = record(env_id, config, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    steps = data.pop("steps")
    body = json.dumps(data, sort_keys=True)[:-1]
    lines = ",\n".join(json.dumps(s, sort_keys=True) for s in steps)
    path.write_text(f'{body}, "steps": [\n{lines}\n]}}\n')


def load(path: Path) -> dict[str, Any]:
    """Read a playthrough file."""
    return json.loads(Path(path).read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description="Regenerate a golden playthrough file.")
    parser.add_argument("path", type=Path)
    parser.add_argument("--env", required=True, help="env id, e.g. oceanos_v0")
    parser.add_argument("--config", default="{}", help="JSON config")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write(args.path, args.env, json.loads(args.config), args.seed)
    print(f"wrote {args.path}")


if __name__ == "__main__":
    main()
