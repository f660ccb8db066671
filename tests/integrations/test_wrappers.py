"""The observation-reshaping AEC wrappers (otrio.integrations.wrappers)."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from otrio import envs
from otrio.integrations import FlattenObservation, RenameObservationKeys, rllib_keys


def test_rllib_keys():
    env = rllib_keys(envs.make("oceanos_v0", num_players=2))
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert set(obs) == {"observations", "action_mask"}
    assert obs["action_mask"].dtype == np.int8
    assert env.observation_space(agent).contains(obs)
    inner = env.unwrapped.observe(agent)
    np.testing.assert_array_equal(obs["observations"], inner["observation"])
    np.testing.assert_array_equal(obs["action_mask"], inner["action_mask"])
    assert env.state().shape == env.unwrapped.state_space.shape


def test_rename_refuses_unknown_or_merging_keys():
    base = envs.make("oceanos_v0")
    with pytest.raises(ValueError, match="unknown"):
        RenameObservationKeys(base, {"obs": "x"})
    with pytest.raises(ValueError, match="merge"):
        RenameObservationKeys(base, {"observation": "action_mask"})


def test_rename_with_a_float_mask():
    env = RenameObservationKeys(envs.make("oceanos_v0", num_players=2),
                                {"action_mask": "mask"}, mask_dtype=np.float32)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observation", "mask"} and obs["mask"].dtype == np.float32
    assert env.observation_space(env.agent_selection).contains(obs)


def test_flatten():
    env = FlattenObservation(envs.make("otontin_v0", num_players=3))
    env.reset(seed=1)
    agent = env.agent_selection
    obs, _, _, _, info = env.last()
    n = env.num_observation_values(agent)
    inner = env.unwrapped.observe(agent)
    np.testing.assert_array_equal(obs[:n], inner["observation"])
    np.testing.assert_array_equal(obs[n:], inner["action_mask"].astype(np.float32))
    np.testing.assert_array_equal(info["action_mask"], inner["action_mask"])
    assert env.observation_space(agent).contains(obs)


@pytest.mark.parametrize("wrap", [rllib_keys, FlattenObservation])
def test_pettingzoo_api_test(wrap):
    api_test(wrap(envs.make("otys_v0", num_players=3)), num_cycles=40)
