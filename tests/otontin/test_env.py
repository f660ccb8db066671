"""The env through the shared adapter: PettingZoo's tests, the suite's generic checks,
config handling, rewards, rendering, save/load and the golden playthroughs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import ConfigError, IllegalActionError, StateError, make_rng, testing
from otrio.envs.core.playthrough import load, record
from otrio.envs.otontin.env import GAME
from otrio.envs.otontin.rules import State

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
COUNTS = [3, 5, 8]


def maker(num_players: int, **config):
    return lambda: envs.make("otontin_v0", num_players=num_players, **config)


@pytest.mark.parametrize("n", COUNTS)
def test_pettingzoo_api_and_seed(n):
    """PettingZoo's api_test and seed_test."""
    testing.check_pettingzoo(maker(n), num_cycles=100)


@pytest.mark.parametrize("n", COUNTS)
def test_masks(n):
    """Mask == the rules' legal set for the actor, zeros for the others."""
    assert testing.check_masks(maker(n), range(2)) > 0


@pytest.mark.parametrize("n", COUNTS)
def test_hidden_information(n):
    """Re-drawing what a seat cannot know never changes its observation."""
    assert testing.check_hidden_information(maker(n), range(2), every=4) > 0


@pytest.mark.parametrize("n", [3, 8])
def test_secret_orders_stay_secret(n):
    """A later leader's view of the commit step is the same whatever earlier ones laid."""
    assert testing.check_simultaneous_choices(maker(n), range(2)) > 0


@pytest.mark.parametrize("n", COUNTS)
def test_save_load(n):
    """Save mid-game through JSON, load into a fresh env: the same future."""
    testing.check_save_load(maker(n), range(3), cut_steps=70)


@pytest.mark.parametrize("n", COUNTS)
def test_determinism(n):
    """Same seed, same game; another seed, another game."""
    testing.check_determinism(maker(n), range(3))


def test_default_players_is_five():
    env = envs.make("otontin_v0")
    assert env.num_players == 5 and env.possible_agents[-1] == "player_4"


@pytest.mark.parametrize(
    "config,word",
    [
        ({"bogus": 1}, "bogus"),
        ({"num_players": 9}, "num_players"),
        ({"num_players": 2}, "num_players"),
        ({"bean_target": 0}, "bean_target"),
        ({"round_cap": 0}, "round_cap"),
        ({"dice": [{"colour": "blue", "count": 1, "faces": ["gold"]}]}, "faces"),
        ({"dice": [{"colour": "blue", "count": 1, "faces": ["bean"], "x": 1}]}, "x"),
    ],
)
def test_bad_config_rejected(config, word):
    """Unknown keys and bad values are refused with the key named."""
    with pytest.raises(ConfigError, match=word):
        envs.make("otontin_v0", **config)


def test_dice_override():
    """A config dice table replaces data.DICE: one colour, warriors only."""
    env = envs.make(
        "otontin_v0", num_players=3, dice=[{"colour": "gold", "count": 3, "faces": ["warrior"]}]
    )
    env.reset(seed=0)
    state = env.unwrapped.state_
    assert state.rolled == [3, 0, 0, 0] and state.bag == [0] and state.colours == ("gold",)


def test_illegal_action_raises():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    illegal = next(a for a in range(GAME.info.num_actions) if a not in env.legal_actions())
    with pytest.raises(IllegalActionError):
        env.step(illegal)


def test_render_ansi():
    env = envs.make("otontin_v0", num_players=4, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert text.startswith("Otontin round 1") and "player_3" in text and "pending" in text


def _play_to_end(env, seed):
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = make_rng(seed)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(env.legal_actions())))
    return totals


@pytest.mark.parametrize("seed", range(4))
def test_end_rewards(seed):
    """+1 to the winners, -1 to the others (0 to all if all share); with dense
    rewards the beans / 10 are added on top."""
    for dense in (False, True):
        env = envs.make("otontin_v0", num_players=4, dense_reward=dense)
        env.reset(seed=seed)
        totals = _play_to_end(env, seed)
        state = env.unwrapped.state_
        assert state.is_terminal()
        winners = state.winners()
        for seat, agent in enumerate(env.possible_agents):
            want = 0.0 if len(winners) == 4 else (1.0 if seat in winners else -1.0)
            if dense:
                want += state.beans[seat] / GAME.info.score_scale
            assert totals[agent] == pytest.approx(want)


def test_state_round_trip_and_bad_data():
    env = envs.make("otontin_v0", num_players=6)
    env.reset(seed=2)
    state = env.unwrapped.state_
    data = json.loads(json.dumps(state.to_dict()))
    assert State.from_dict(data).to_dict() == state.to_dict()
    broken = dict(data, attack="many")
    with pytest.raises(StateError):
        State.from_dict(broken)
    with pytest.raises(StateError):
        State.from_dict({k: v for k, v in data.items() if k != "bag"})


def test_observation_is_relative():
    """Row 0 is the observer, row 1 its left neighbour."""
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    state = env.unwrapped.state_
    state.attack[:] = [1, 2, 3]
    views = GAME.layout.views(env.observe("player_1")["observation"])
    assert views["attack"][:4].tolist() == pytest.approx([0.2, 0.3, 0.1, 0.0])
    assert views["seat_present"].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("name", ["otontin_3p", "otontin_8p"])
def test_golden_playthrough(name):
    """Replaying the recorded game gives the same actions, rewards and observations.
    Regenerate on purpose: ``python -m otrio.envs.core.playthrough <file> --env otontin_v0
    --config '{"num_players": N}' --seed 0``."""
    golden = load(PLAYTHROUGHS / f"{name}.json")
    assert record(golden["env_id"], golden["config"], golden["seed"]) == golden


def test_observation_dtype_and_size():
    env = envs.make("otontin_v0", num_players=8)
    env.reset(seed=1)
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.float32
    assert obs["observation"].shape == (GAME.layout.size,)


def test_custom_dice_save_load_and_masks():
    """A two-colour config dice table plays, saves and loads like the default."""
    dice = [
        {"colour": "gold", "count": 5, "faces": ["warrior", "saboteur", "priest"]},
        {"colour": "jade", "count": 4, "faces": ["bean", "bean", "priest"]},
    ]
    make = maker(4, dice=dice, split_spoils=True, bean_target=10)
    testing.check_save_load(make, range(2))
    assert testing.check_masks(make, range(1)) > 0


def test_readme_tables_match_the_code():
    """The README's action and observation tables are the code's own (no drift)."""
    from otrio.envs.otontin.env import MAX_DECISIONS

    text = (Path(envs.__file__).parent / "otontin" / "README.md").read_text()
    assert GAME.actions.markdown() in text
    assert GAME.layout.markdown() in text
    assert f"{MAX_DECISIONS:,}".replace(",", " ") in text
    assert f"({GAME.layout.size} float32" in text


def test_game_summary_is_json():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    _play_to_end(env, 0)
    summary = GAME.game_summary(env.unwrapped.state_)
    assert json.loads(json.dumps(summary)) == summary and summary["rounds"] >= 1
