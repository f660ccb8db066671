"""A save's terminations and truncations must be the ends the transition rule
(``otrio.envs.core.rewards.settle``) gives its state: a save whose ends were tampered with is
refused with a StateError that says how the game stands."""

import json

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.errors import StateError
from otrio.envs.core.rewards import TERMINATED, TRUNCATED, settle


def _play(env, rng, steps=None):
    """Random legal decisions: ``steps`` of them, or until every agent is done."""
    count = 0
    while env.agents and (steps is None or count < steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
        count += 1


def _ended(env_id, seed, **config):
    """An env whose game has just ended (every agent still there, before any dead
    step), and its save through JSON."""
    env = envs.make(env_id, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        _play(env, rng, steps=1)
    return env, json.loads(json.dumps(env.unwrapped.save_state()))


def _rule_end(env):
    """The end the transition rule gives the env's state now."""
    raw = env.unwrapped
    return settle(raw.state_, [], False, 1.0, raw.decisions, raw._max_decisions)[3]


def _refused(env_id, saved, message, **config):
    env = envs.make(env_id, **config)
    with pytest.raises(StateError, match=message):
        env.unwrapped.load_state(saved)


def _set_ends(saved, terminated, truncated):
    for agent in saved["terminations"]:
        saved["terminations"][agent] = terminated
        saved["truncations"][agent] = truncated


def test_a_game_on_with_ended_agents_is_refused():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=1)
    _play(env, np.random.default_rng(1), steps=8)
    assert _rule_end(env) is None
    saved = json.loads(json.dumps(env.unwrapped.save_state()))
    for ends in ((True, False), (False, True)):
        _set_ends(saved, *ends)
        _refused("oceanos_v0", saved, r"terminations/truncations .* the game is on",
                 num_players=3)


# random Otys play rarely reaches 18 PP before the round cap: a lower goal ends it
SHORT = {"oceanos_v0": {}, "otontin_v0": {}, "otys_v0": {"components": {"end_pp": 4}}}


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otontin_v0", "otys_v0"])
def test_a_finished_game_saved_as_truncated_or_still_on_is_refused(env_id):
    config = {"num_players": 3, **SHORT[env_id]}
    for seed in range(20):  # the first seed whose random game ends by the rules, not a cap
        env, saved = _ended(env_id, seed, **config)
        if _rule_end(env) == TERMINATED:
            break
    assert _rule_end(env) == TERMINATED and all(saved["terminations"].values())
    envs.make(env_id, **config).unwrapped.load_state(saved)  # the true save loads
    for ends in ((False, True), (False, False), (True, True)):
        _set_ends(saved, *ends)
        _refused(env_id, saved, r"the game is over \(terminated\)", **config)


def test_a_game_stopped_by_its_round_cap_must_be_truncated():
    env, saved = _ended("otontin_v0", seed=4, num_players=3, round_cap=1)
    assert env.unwrapped.state_.capped and _rule_end(env) == TRUNCATED
    assert all(saved["truncations"].values()) and not any(saved["terminations"].values())
    envs.make("otontin_v0", num_players=3, round_cap=1).unwrapped.load_state(saved)
    _set_ends(saved, True, False)
    _refused("otontin_v0", saved, r"the game is over \(truncated\)", num_players=3,
             round_cap=1)


def test_a_game_at_the_decision_cap_must_be_truncated():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=5)
    _play(env, np.random.default_rng(5), steps=6)
    saved = json.loads(json.dumps(env.unwrapped.save_state()))
    saved["decisions"] = env.unwrapped._max_decisions  # the cap, but the ends say "on"
    _refused("otontin_v0", saved, r"at the decision cap \(truncated\)", num_players=3)
    _set_ends(saved, True, False)
    _refused("otontin_v0", saved, r"at the decision cap \(truncated\)", num_players=3)
