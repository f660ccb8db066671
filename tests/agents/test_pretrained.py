"""The shipped checkpoints (agents/pretrained/) load as ppo:PATH and play legal moves."""

import json
from pathlib import Path

import pytest

import agents
import envs

PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"
CHECKPOINTS = sorted(PRETRAINED.glob("*_ppo.zip"))


def test_every_game_ships_a_checkpoint():
    assert {p.name for p in CHECKPOINTS} == {f"{e.rsplit('_v', 1)[0]}_ppo.zip" for e in envs.available()}


@pytest.mark.parametrize("checkpoint", CHECKPOINTS, ids=lambda p: p.stem)
def test_a_shipped_checkpoint_plays_a_whole_game_legally(checkpoint):
    meta = json.loads(checkpoint.with_suffix(".json").read_text())
    env = envs.make(meta["env_id"], **meta["game_config"])
    agent = agents.make(f"ppo:{checkpoint}", env)
    agent.reset(0)
    env.reset(seed=1)
    ended = set()
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            ended.add(name)
            env.step(None)
            continue
        action = agent.act(obs)  # the checkpoint plays every seat
        assert obs["action_mask"][action] == 1, f"{name} chose illegal {action}"
        env.step(action)
    assert ended == set(env.possible_agents)  # the game reached its end
