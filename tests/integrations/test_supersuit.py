"""SuperSuit's ``normalize_obs_v0`` and ``frame_stack_v1`` on the flat view
(``integrations.FlattenObservation``), whose Box takes the observation's finite bounds."""

import numpy as np
import pytest

from otrio import envs
from otrio.integrations import FlattenObservation

ss = pytest.importorskip("supersuit")

SETUPS = [("oceanos_v0", 2), ("otys_v0", 4), ("otontin_v0", 3)]
STEPS = 60


def _flat(env_id: str, n: int) -> FlattenObservation:
    return FlattenObservation(envs.make(env_id, num_players=n))


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_normalize_obs_on_the_flat_view(env_id, n):
    """Played in step with the plain flat view, every normalised observation is the
    flat one mapped from the Box's [low, high] onto [-1, 1], finite and in its space."""
    plain = _flat(env_id, n)
    space = plain.observation_space(plain.possible_agents[0])
    env = ss.normalize_obs_v0(_flat(env_id, n), env_min=-1.0, env_max=1.0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    plain.reset(seed=0)
    played = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            plain.step(None)
            continue
        assert obs.shape == space.shape and np.isfinite(obs).all()
        assert env.observation_space(agent).contains(obs.astype(np.float32))
        np.testing.assert_allclose(
            obs, (plain.observe(agent) - space.low) / (space.high - space.low) * 2 - 1,
            rtol=1e-5, atol=1e-6)
        if played == STEPS:
            break
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        env.step(action)
        plain.step(action)
        played += 1
    assert played == STEPS


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_frame_stack_on_the_normalised_flat_view(env_id, n):
    """Three frames of the normalised flat view: zeros before the first, the newest
    last, every stack inside its space."""
    env = ss.frame_stack_v1(ss.normalize_obs_v0(_flat(env_id, n)), 3)
    single = _flat(env_id, n).observation_space("player_0").shape[0]
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    first = env.last()[0]
    assert first.shape == (3 * single,)
    assert not first[: 2 * single].any() and first[2 * single :].any()
    played = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs.astype(np.float32))
        assert 0.0 <= obs.min() and obs.max() <= 1.0
        if played == STEPS:
            break
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        played += 1
    assert played == STEPS and obs[: single].any()  # the stack has filled


@pytest.mark.parametrize("wrap", [ss.normalize_obs_v0, lambda env: ss.dtype_v0(env, "float64"),
                                  ss.flatten_v0])
def test_supersuit_on_the_dict_observation_names_the_flat_view(wrap):
    """SuperSuit's Box wrappers read ``low`` of our Dict: the error says what to use."""
    with pytest.raises(AttributeError, match=r"has no 'low'.*integrations\.FlattenObservation"):
        wrap(envs.make("oceanos_v0", num_players=2))
    with pytest.raises(AssertionError, match="only allowed for Box"):  # its own words
        ss.frame_stack_v1(envs.make("oceanos_v0", num_players=2), 3)
