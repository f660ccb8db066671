"""``env.state()`` / ``env.state_space``: the full-information state vector."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from otrio import envs

# every game at its fewest and most players
SETUPS = [("oceanos_v0", 2), ("oceanos_v0", 5), ("otontin_v0", 3), ("otontin_v0", 8),
          ("otys_v0", 2), ("otys_v0", 4)]
GAMES = sorted({env_id for env_id, _ in SETUPS})


def _play(env, seed: int, steps: int):
    """Reset with ``seed`` and play ``steps`` random legal decisions (or to the end)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection] or \
                env.truncations[env.agent_selection]:
            return
        legal = env.unwrapped.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("env_id", GAMES)
def test_same_size_at_every_player_count(env_id):
    info = envs.make(env_id).unwrapped.game.info
    sizes = set()
    for n in range(info.min_players, info.max_players + 1):
        env = envs.make(env_id, num_players=n)
        env.reset(seed=n)
        state = env.state()
        assert state.dtype == np.float32 and state.ndim == 1
        assert env.state_space.shape == state.shape
        assert env.state_space.contains(state)
        sizes.add(state.size)
    assert len(sizes) == 1


@pytest.mark.parametrize("env_id", GAMES)
def test_readme_has_the_layout(env_id):
    game = envs.make(env_id).unwrapped.game
    readme = Path(__file__).parents[2] / "envs" / game.info.name / "README.md"
    assert game.full_state.markdown() in readme.read_text(encoding="utf-8"), (
        f"the 'Full state' table of {readme} is stale: replace it with "
        f"otrio.envs.make({env_id!r}).unwrapped.game.full_state.markdown()")


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_layout_rows_are_each_seats_observation(env_id, n):
    env = envs.make(env_id, num_players=n)
    game = env.unwrapped.game
    views_of = game.full_state.layout.views
    for seed, steps in ((0, 0), (1, 40), (2, 400)):
        _play(env, seed, steps)
        views = views_of(env.state())
        assert views["seats"].tolist() == [1.0] * n + [0.0] * (game.info.max_players - n)
        acting = env.unwrapped.state_.current_player()
        expected = np.zeros(game.info.max_players)
        if acting >= 0:
            expected[acting] = 1.0
        assert views["to_act"].tolist() == expected.tolist()
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(views["observations"][seat],
                                          env.observe(agent)["observation"])
        assert not views["observations"][n:].any()


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_state_holds_what_a_seat_cannot_see(env_id, n):
    """Re-drawing what seat 0 cannot know leaves its observation as it was, and in some
    positions of a game changes the full state (others' hands, secret orders)."""
    env = envs.make(env_id, num_players=n)
    game = env.unwrapped.game
    scratch = np.zeros(game.info.observation_size, np.float32)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    changed = 0
    for step in range(300):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        if step % 3 == 0:
            state = env.unwrapped.state_
            other = game.resample_hidden(state, 0, np.random.default_rng(step))
            np.testing.assert_array_equal(game.observation(state, 0, scratch),
                                          game.observation(other, 0, scratch))
            before = game.full_state.vector(game, state, scratch)
            after = game.full_state.vector(game, other, scratch)
            changed += not np.array_equal(before, after)
        legal = env.unwrapped.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    assert changed > 0


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_same_seed_same_states(env_id, n):
    first, second = envs.make(env_id, num_players=n), envs.make(env_id, num_players=n)
    _play(first, 7, 60)
    _play(second, 7, 60)
    np.testing.assert_array_equal(first.state(), second.state())


def test_state_before_reset_is_an_order_error():
    from otrio.envs.core.errors import OrderError

    with pytest.raises(OrderError):
        envs.make("oceanos_v0").state()


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_pettingzoo_state_test(env_id, n):
    """PettingZoo's own state test. It steps unmasked random actions, which the env
    ends the game on with ``illegal_action="terminate"``; its parallel half runs on
    PettingZoo's turn-based conversion. The state's space is finite, so it warns of no
    infinite bound; its warning for an illegal move is expected, no other warning is."""
    from pettingzoo.test import state_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    env = envs.make(env_id, num_players=n, illegal_action="terminate")
    parallel = turn_based_aec_to_parallel(
        envs.make(env_id, num_players=n, illegal_action="terminate"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(env, parallel, num_cycles=30)
    unexpected = [str(w.message) for w in caught if "Illegal move" not in str(w.message)]
    assert unexpected == []
