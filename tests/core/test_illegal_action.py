"""The ``illegal_action`` config: "raise" (the default) or "terminate" (PettingZoo's
TerminateIllegalWrapper semantics, built into the env)."""

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.errors import ConfigError, IllegalActionError

GAMES = [("oceanos_v0", 2), ("otontin_v0", 3), ("otys_v0", 2)]


def _illegal(env) -> int:
    """An action id that the acting seat may not take now."""
    mask = env.unwrapped.action_mask()
    return int(np.flatnonzero(mask == 0)[0])


@pytest.mark.parametrize("env_id,n", GAMES)
def test_raise_is_the_default(env_id, n):
    env = envs.make(env_id, num_players=n)
    env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(_illegal(env))
    assert env.unwrapped.illegal_end is None


def test_bad_value_is_a_config_error():
    with pytest.raises(ConfigError, match="illegal_action"):
        envs.make("oceanos_v0", illegal_action="ignore")


@pytest.mark.parametrize("env_id,n", GAMES)
def test_terminate_pays_minus_one_to_the_offender_only(env_id, n):
    env = envs.make(env_id, num_players=n, illegal_action="terminate")
    env.reset(seed=3)
    # two legal decisions first, then the acting seat offends
    for _ in range(2):
        env.step(int(env.unwrapped.legal_actions()[0]))
    offender = env.agent_selection
    bad = _illegal(env)
    env.step(np.int64(bad))  # a numpy integer, as libraries pass them
    others = [a for a in env.possible_agents if a != offender]
    assert env.rewards == {offender: -1.0, **dict.fromkeys(others, 0.0)}
    assert env.terminations == dict.fromkeys(env.possible_agents, True)
    assert env.truncations == dict.fromkeys(env.possible_agents, False)
    for agent in env.possible_agents:
        assert env.infos[agent]["terminated_by"] == "illegal_action"
        assert env.infos[agent]["illegal_action"]["agent"] == offender
        assert env.infos[agent]["illegal_action"]["action"] == bad
    assert env.unwrapped.legal_actions() == []
    assert not env.unwrapped.action_mask().any()
    # every agent then sees its final reward once, and steps None to leave
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated and not truncated
        seen[agent] = reward
        env.step(None)
    assert seen == {offender: -1.0, **dict.fromkeys(others, 0.0)}
    assert env.agents == []


def test_terminate_with_a_non_integer_action():
    env = envs.make("oceanos_v0", num_players=3, illegal_action="terminate")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step("1")
    assert env.rewards[offender] == -1.0
    assert env.infos[offender]["illegal_action"]["action"] == "'1'"


def test_terminate_keeps_pending_dense_rewards_of_the_others():
    """Under dense rewards an agent may hold a reward not yet collected by last(); the
    illegal end adds 0 to it (the offender's own pending reward is replaced by -1, as
    PettingZoo's wrapper does)."""
    env = envs.make("oceanos_v0", num_players=2, dense_reward=True, illegal_action="terminate")
    rng = np.random.default_rng(0)
    env.reset(seed=5)
    while True:
        acting = env.agent_selection
        pending = {a: r for a, r in env._cumulative_rewards.items() if a != acting and r}
        if pending:
            break
        legal = env.unwrapped.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        assert not any(env.terminations.values()), "no shaping reward met before the end"
    (other, held), = pending.items()
    env.step(_illegal(env))
    assert env._cumulative_rewards == {acting: -1.0, other: held}


@pytest.mark.parametrize("env_id,n", GAMES)
def test_terminated_game_saves_and_loads(env_id, n):
    env = envs.make(env_id, num_players=n, illegal_action="terminate")
    env.reset(seed=2)
    env.step(_illegal(env))
    saved = env.unwrapped.save_state()
    copy = envs.make(env_id, num_players=n, illegal_action="terminate")
    copy.unwrapped.load_state(saved)
    assert copy.unwrapped.illegal_end == env.unwrapped.illegal_end
    assert copy.terminations == env.terminations
    assert copy.infos == env.infos
    assert copy.unwrapped.legal_actions() == []
    # a save without the offence but with everyone terminated mid-game is corrupt
    broken = dict(saved, illegal_end=None)
    with pytest.raises(Exception, match="terminations"):
        envs.make(env_id, num_players=n, illegal_action="terminate").unwrapped.load_state(broken)


@pytest.mark.parametrize("env_id,n", GAMES)
def test_unmasked_random_actions_play_to_an_end(env_id, n):
    """A library that samples the whole action space (no mask), as SB3's check_env or
    RLlib's pre-check do, ends each game with an illegal move or a legal end."""
    env = envs.make(env_id, num_players=n, illegal_action="terminate")
    space = env.action_space(env.possible_agents[0])
    space.seed(0)
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else space.sample())
        assert env.agents == []
