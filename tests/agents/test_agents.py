"""Agents: the interface, random, greedy per game, human input, spec errors."""

import io

import numpy as np
import pytest

from otrio import agents, envs
from otrio.agents.greedy import has_greedy
from otrio.envs.core.aec import live_turns
from otrio.envs.core.errors import ConfigError

GAMES = [g for g in envs.available() if has_greedy(g.rsplit("_v", 1)[0])]


def play(env, seat_agents, seed):
    env.reset(seed=seed)
    index = {a: k for k, a in enumerate(env.possible_agents)}
    actions = []
    for agent, obs in live_turns(env):
        action = seat_agents[index[agent]].act(obs)
        assert obs["action_mask"][action] == 1, "agent chose an illegal action"
        actions.append(action)
        env.step(action)
    return actions, env.unwrapped.state_


@pytest.mark.parametrize("spec", ["random", "greedy"])
@pytest.mark.parametrize("env_id", GAMES)
def test_agents_play_legal_and_seeded(env_id, spec):
    env = envs.make(env_id)
    n = env.unwrapped.num_players
    runs = []
    for _ in range(2):
        players = [agents.make(spec, env) for _ in range(n)]
        for seat, p in enumerate(players):
            p.reset(100 + seat)
        runs.append(play(env, players, seed=3)[0])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("env_id", GAMES)
def test_greedy_beats_random_two_ways(env_id):
    env = envs.make(env_id)
    n = env.unwrapped.num_players
    wins = 0
    games = 30
    for g in range(games):
        players = [agents.make("greedy" if seat == g % n else "random", env) for seat in range(n)]
        for seat, p in enumerate(players):
            p.reset(g * 10 + seat)
        _, state = play(env, players, seed=g)
        wins += (g % n) in state.winners()
    assert wins / games >= 2 / n, f"greedy won only {wins}/{games}"


def test_unknown_specs_are_rejected():
    env = envs.make("oceanos_v0")
    for spec in ["randm", "greedy:3", "ppo", "", "ppo:"]:
        with pytest.raises(ConfigError):
            agents.make(spec, env)


def test_ppo_checkpoint_missing_or_mismatched(tmp_path):
    env = envs.make("oceanos_v0")
    with pytest.raises(ConfigError, match="does not exist"):
        agents.make(f"ppo:{tmp_path / 'nope.zip'}", env)
    ckpt = tmp_path / "model.zip"
    ckpt.write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match="metadata"):
        agents.make(f"ppo:{ckpt}", env)
    (tmp_path / "model.json").write_text('{"env_id": "otys_v0", "observation_size": 1, "num_actions": 2}')
    with pytest.raises(ConfigError, match="trained for env_id='otys_v0'"):
        agents.make(f"ppo:{ckpt}", env)


def test_human_agent_asks_again_on_bad_input():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    out = io.StringIO()
    human = agents.make("human", env)
    human.stdin = io.StringIO("seven\n99\nkeep:slot1\n")
    human.stdout = out
    action = human.act(env.last()[0])
    assert action == 1
    text = out.getvalue()
    assert text.count("is not one of the moves listed") == 2
    assert "0) keep:slot0" in text and "Oceanos — 3 players" in text
    human.stdin = io.StringIO("0\n")
    assert human.act(env.last()[0]) == 0


def test_random_agent_is_uniform_over_the_mask():
    agent = agents.make("random", envs.make("oceanos_v0"))
    agent.reset(0)
    mask = np.zeros(34, np.int8)
    mask[[3, 7, 20]] = 1
    picks = [agent.act({"observation": np.zeros(1), "action_mask": mask}) for _ in range(3000)]
    counts = np.bincount(picks, minlength=34)
    assert set(np.flatnonzero(counts)) == {3, 7, 20}
    assert counts[[3, 7, 20]].min() > 850
