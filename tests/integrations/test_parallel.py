"""PettingZoo's parallel API (issue 32, item 2): ``pettingzoo.make("parallel", ...)`` and
the version shims' ``parallel_env`` give ``turn_based_aec_to_parallel`` of the AEC env,
whose idle agents hold all-zero masks (documented, and handled by the recipe)."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.env import ParallelEnv

from otrio import envs

MIN_PLAYERS = {"oceanos_v0": 2, "otys_v0": 2, "otontin_v0": 3}


@pytest.mark.parametrize("env_id", envs.available())
def test_every_id_is_registered_for_the_parallel_api(env_id):
    env = pettingzoo.make("parallel", f"otrio/{env_id}", num_players=MIN_PLAYERS[env_id])
    assert isinstance(env, ParallelEnv)
    assert env.unwrapped.num_players == MIN_PLAYERS[env_id]
    shim = getattr(__import__("envs", fromlist=[env_id]), env_id)
    assert isinstance(shim.parallel_env(), ParallelEnv)
    parallel_api_test(env, num_cycles=60)


def test_idle_agents_have_all_zero_masks_which_a_naive_random_policy_cannot_sample():
    env = pettingzoo.make("parallel", "otrio/oceanos_v0", num_players=3)
    observations, _ = env.reset(seed=0)
    sizes = {agent: int(obs["action_mask"].sum()) for agent, obs in observations.items()}
    acting = [agent for agent, size in sizes.items() if size]
    assert len(acting) == 1 and sorted(sizes.values())[:2] == [0, 0]
    idle = next(agent for agent, size in sizes.items() if not size)
    with pytest.raises(ValueError, match="a cannot be empty"):  # what the docs warn of
        np.random.default_rng(0).choice(np.flatnonzero(observations[idle]["action_mask"]))
    # the wrapper plays only the acting agent's action: the idle ones may be left out
    observations, rewards, *_ = env.step({acting[0]: int(np.flatnonzero(
        observations[acting[0]]["action_mask"])[0])})
    assert set(rewards) == set(env.possible_agents)


def test_the_parallel_env_documents_the_idle_mask():
    doc = envs.core.registry.parallel_env.__doc__
    assert "all-zero" in doc and "a cannot be empty" in doc
