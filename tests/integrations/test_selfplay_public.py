"""The public single-agent self-play view (integrations.SelfPlay) and its gymnasium ids."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from otrio import envs
from otrio.envs.core.errors import IllegalActionError, OrderError
from otrio.integrations import SelfPlay
from otrio.training.selfplay import SelfPlayEnv


def _episode(env, seed: int, rng) -> tuple[float, int]:
    """Play one episode with random legal actions: (return, steps)."""
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert np.array_equal(info["action_mask"], mask.astype(np.int8))
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


@pytest.mark.parametrize("env_id,n", [("oceanos_v0", 2), ("otontin_v0", 3), ("otys_v0", 2)])
def test_episodes_end_with_the_end_reward(env_id, n):
    env = SelfPlay(env_id, num_players=n, opponents={"random": 1.0})
    rng = np.random.default_rng(0)
    for seed in range(3):
        total, steps = _episode(env, seed, rng)
        assert steps > 0
        assert total in (-1.0, 0.0, 1.0)  # sparse rewards: the end reward only


def test_same_observations_as_the_trainers_view():
    """The public view is the trainer's view: the same seeds give the same game."""
    public = SelfPlay("oceanos_v0", num_players=3, seed=4)
    inner = SelfPlayEnv("oceanos_v0", {"num_players": 3}, seed=4)
    a, info_a = public.reset(seed=9)
    b, info_b = inner.reset(seed=9)
    assert (info_a["learner_seat"], info_a["game_seed"]) == (info_b["learner_seat"],
                                                             info_b["game_seed"])
    for _ in range(30):
        np.testing.assert_array_equal(a, b)
        action = int(np.flatnonzero(inner.action_masks())[0])
        a, ra, ta, _, _ = public.step(action)
        b, rb, tb, _, _ = inner.step(action)
        assert (ra, ta) == (rb, tb)
        if ta:
            break


def test_illegal_action_raises_by_default_and_terminates_on_request():
    env = SelfPlay("oceanos_v0", num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    env = SelfPlay("oceanos_v0", num_players=2, illegal_action="terminate")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(np.int64(illegal))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["terminated_by"] == "illegal_action"
    assert info["illegal_action"]["action"] == illegal
    assert not obs.any()
    with pytest.raises(OrderError):
        env.step(0)
    env.reset(seed=1)  # a new episode plays on
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_gymnasium_ids():
    assert set(envs.GYMNASIUM_IDS.values()) <= set(gymnasium.registry)
    env = gymnasium.make("otrio/OtontinSelfPlay-v0", num_players=4)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    assert env.unwrapped.num_players == 4
    mask = env.get_wrapper_attr("action_masks")()
    env.step(int(np.flatnonzero(mask)[0]))
    # the module:id form imports otrio first
    other = gymnasium.make("otrio:otrio/OceanosSelfPlay-v0", num_players=2)
    assert other.reset(seed=0)[0].shape == (other.unwrapped.game.info.observation_size,)


def test_sb3_check_env():
    """SB3's checker steps random actions without a mask: the terminate policy ends
    those episodes instead of raising."""
    from stable_baselines3.common.env_checker import check_env

    check_env(SelfPlay("oceanos_v0", num_players=2, illegal_action="terminate"), warn=False)


@pytest.mark.parametrize("env_id,n,hints", [("oceanos_v0", 2, None), ("otys_v0", 3, "greedy"),
                                            ("otontin_v0", 3, None)])
def test_gymnasiums_checker_passes_without_a_warning(env_id, n, hints):
    """Finite bounds (each piece's declared range, the hints' [0, 1]), and the inner view
    (what ``check_env`` recommends) ends on the checker's random illegal actions as asked."""
    env = gymnasium.make(envs.GYMNASIUM_IDS[env_id], num_players=n, hints=hints,
                         illegal_action="terminate")
    space = env.observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    base = envs.make(env_id, num_players=n).unwrapped
    low, high = base.game.observation_bounds(base.config)
    np.testing.assert_array_equal(space.low[:low.size], low)
    np.testing.assert_array_equal(space.high[:high.size], high)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert not caught, [str(w.message) for w in caught]


def test_the_inner_view_terminates_on_an_illegal_action_too():
    """``illegal_action="terminate"`` is the inner view's own (SelfPlayEnv), not the
    wrapper's: the info names the offence as the AEC env's does."""
    env = SelfPlayEnv("otontin_v0", {"num_players": 3, "illegal_action": "terminate"}, seed=2)
    env.reset(seed=3)
    legal = np.flatnonzero(env.action_masks()).tolist()
    illegal = next(a for a in range(env.action_space.n) if a not in legal)
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False) and not obs.any()
    assert info == {"terminated_by": "illegal_action",
                    "illegal_action": {"agent": env.learner, "action": illegal, "legal": legal}}
    with pytest.raises(OrderError):
        env.step(legal[0])
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
