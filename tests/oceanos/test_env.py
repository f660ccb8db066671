"""PettingZoo's tests and the suite's generic checker at every player count and variant."""

import json

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import testing
from otrio.envs.core.errors import StateError

SETUPS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 2, "two_player_variant": False},
    {"num_players": 5, "troubled_waters": True},
    {"num_players": 3, "kraken": {"mode": "fixed", "values": [0, -3, -4]}, "dense_reward": True},
]
IDS = [json.dumps(s, sort_keys=True) for s in SETUPS]


def factory(config):
    return lambda: envs.make("oceanos_v0", **config)


@pytest.mark.parametrize("config", SETUPS, ids=IDS)
def test_pettingzoo_api_and_seed(config):
    testing.check_pettingzoo(factory(config), num_cycles=400)


@pytest.mark.parametrize("config", SETUPS, ids=IDS)
def test_masks_match_rules(config):
    assert testing.check_masks(factory(config), range(3)) > 100


@pytest.mark.parametrize("config", SETUPS, ids=IDS)
def test_no_hidden_information_leaks(config):
    assert testing.check_hidden_information(factory(config), range(2), every=4) > 0


SIMULTANEOUS = [
    {"num_players": 2},  # the two-player turn
    # (the Captain turn at two players has a single non-Captain chooser: nothing to hide)
    {"num_players": 4, "troubled_waters": True},
    {"num_players": 3},  # the example of the issue: seed 3000, the second non-Captain
    {"num_players": 5},
]


@pytest.mark.parametrize("config", SIMULTANEOUS, ids=[json.dumps(s) for s in SIMULTANEOUS])
def test_keeps_stay_secret_until_revealed(config):
    """A later chooser sees the others as they were when the keeps began."""
    seeds = range(3000, 3002) if config["num_players"] == 3 else range(2)
    assert testing.check_simultaneous_choices(factory(config), seeds) > 0


@pytest.mark.parametrize("config", SETUPS, ids=IDS)
def test_save_load_same_future(config):
    testing.check_save_load(factory(config), range(3))


@pytest.mark.parametrize("config", SETUPS, ids=IDS)
def test_same_seed_same_game(config):
    testing.check_determinism(factory(config), range(3))


def test_versioned_module_and_pettingzoo_registry():
    import pettingzoo

    from otrio.envs import oceanos_v0

    a = oceanos_v0.env(num_players=3)
    b = pettingzoo.make("aec", "otrio/oceanos_v0", num_players=3)
    a.reset(seed=5)
    b.reset(seed=5)
    assert np.array_equal(a.observe("player_1")["observation"], b.observe("player_1")["observation"])
    assert a.observation_space("player_0") is a.observation_space("player_0")


def test_spaces_same_size_for_every_player_count():
    sizes = {envs.make("oceanos_v0", num_players=n).observation_space("player_0")["observation"].shape
             for n in range(2, 6)}
    assert len(sizes) == 1


def test_last_reward_reaches_every_seat():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            seen[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winners = env.unwrapped.state_.winners()
    expected = {f"player_{s}": (1.0 if s in winners else -1.0) for s in range(3)}
    if len(winners) == 3:
        expected = dict.fromkeys(expected, 0.0)
    assert seen == expected


def test_render_ansi_shows_the_table():
    env = envs.make("oceanos_v0", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Oceanos — 3 players" in text and "player_2" in text and "Pending: player_1" in text


@pytest.mark.parametrize(
    "corrupt",
    [
        {},
        {"format": 2, "env_id": "otys_v0"},
        {"format": 1, "env_id": "oceanos_v0"},
        "not a dict",
    ],
)
def test_corrupt_saved_state_is_rejected(corrupt):
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    before = env.unwrapped.save_state()
    with pytest.raises(StateError):
        env.unwrapped.load_state(corrupt)
    assert env.unwrapped.save_state() == before  # nothing lost


def test_truncated_state_dict_is_rejected():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    saved = env.unwrapped.save_state()
    del saved["state"]["hands"]
    with pytest.raises(StateError, match="corrupt"):
        envs.make("oceanos_v0", num_players=3).unwrapped.load_state(saved)


def test_kraken_values_hidden_until_revealed():
    from otrio.envs.oceanos.observe import LAYOUT

    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    kraken = env.observe("player_0")["observation"][LAYOUT.slice("kraken")]
    assert not kraken.any()
    fixed = envs.make("oceanos_v0", num_players=3, kraken={"mode": "fixed", "values": [-1, -2, -3]})
    fixed.reset(seed=0)
    kraken = fixed.observe("player_0")["observation"][LAYOUT.slice("kraken")].reshape(3, 2)
    assert kraken[:, 0].tolist() == [1, 1, 1]
    assert kraken[:, 1].tolist() == pytest.approx([-0.25, -0.5, -0.75])


def test_readme_tables_match_the_code():
    from pathlib import Path

    from otrio.envs.oceanos.actions import TABLE
    from otrio.envs.oceanos.observe import LAYOUT

    readme = (Path(envs.__file__).parent / "oceanos" / "README.md").read_text()
    assert LAYOUT.markdown() in readme
    assert TABLE.markdown() in readme
