"""Teacher hints: greedy's opinion as features, for the learner, its snapshots and ppo:PATH."""

import json

import numpy as np
import pytest

from otrio import agents, envs
from otrio.agents.hints import GreedyHints, hint_size, make_hints
from otrio.envs.core.errors import ConfigError
from otrio.training.imitation import collect
from otrio.training.selfplay import SelfPlayEnv
from otrio.training.train import train

from .test_training import DEFAULT_PLAYERS, tiny

GAMES = sorted(DEFAULT_PLAYERS)


@pytest.mark.parametrize("game", GAMES)
def test_hints_mark_greedys_choice_and_how_far_each_action_falls_short(game):
    env = envs.make(game, num_players=DEFAULT_PLAYERS[game])
    env.reset(seed=4)
    obs = env.last()[0]
    hints = GreedyHints(env)
    n = env.unwrapped.game.info.num_actions
    values = agents.make("greedy", env).action_values(obs)
    features = hints.features(obs)
    assert features.shape == (hint_size(n),) == (2 * n,)
    best = max(values.values())
    for action in range(n):
        if action in values:
            assert features[action] == (values[action] >= best - 1e-9)
            assert features[n + action] == pytest.approx(1 / (1 + best - values[action]))
        else:  # illegal: both zero
            assert obs["action_mask"][action] == 0
            assert features[action] == features[n + action] == 0
    # greedy's own choice is always among the marked best
    greedy = agents.make("greedy", env)
    greedy.reset(0)
    assert features[greedy.act(obs)] == 1


def test_hints_for_a_hand_made_set_of_values():
    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=0)
    hints = GreedyHints(env)
    hints.greedy.action_values = lambda observation: {3: 2.0, 5: 1.0, 7: 2.0}
    f = hints.features(env.last()[0])
    n = hints.num_actions
    assert f[[3, 5, 7]].tolist() == [1, 0, 1] and f[:n].sum() == 2
    assert f[[n + 3, n + 5, n + 7]].tolist() == [1.0, 0.5, 1.0] and f[n:].sum() == 2.5


def test_unknown_hints_are_refused():
    env = envs.make("otys_v0", num_players=2)
    assert make_hints(None, env) is None
    with pytest.raises(ValueError, match="unknown hints"):
        make_hints("oracle", env)


def test_the_learner_observes_the_game_then_its_hints():
    view = SelfPlayEnv("otys_v0", {"num_players": 2}, {"random": 1.0}, seed=2, hints="greedy")
    plain = SelfPlayEnv("otys_v0", {"num_players": 2}, {"random": 1.0}, seed=2)
    size = envs.make("otys_v0").unwrapped.game.info.observation_size
    assert view.observation_space.shape == (size + hint_size(view.action_space.n),)
    obs, info = view.reset(seed=1)
    base, _ = plain.reset(seed=1)
    assert np.array_equal(obs[:size], base)
    expected = GreedyHints(view.aec).features({"observation": base, "action_mask": plain.action_masks()})
    assert np.array_equal(obs[size:], expected)
    assert obs[size:][np.flatnonzero(view.action_masks())].max() == 1  # a legal best


def test_hinted_demonstrations_carry_the_hints():
    demos = collect("otys_v0", {"num_players": 2}, "greedy", games=1, seed=3, hints="greedy")
    n = envs.make("otys_v0").unwrapped.game.info.num_actions
    size = envs.make("otys_v0").unwrapped.game.info.observation_size
    assert demos.observations.shape[1] == size + 2 * n
    # the teacher (greedy) always plays one of the actions its hints mark best
    best = demos.observations[np.arange(len(demos)), size + demos.actions]
    assert (best == 1).all()
    with pytest.raises(ValueError, match="not exact as float16"):
        collect("otys_v0", {"num_players": 2}, "greedy", games=1, seed=3, hints="greedy",
                storage="float16")


def test_a_hinted_checkpoint_computes_its_hints_when_it_plays(tmp_path):
    cfg = tiny(tmp_path, "otys_v0", hints="greedy", encoder="hinted", net_arch=[],
               imitation={"games": 3, "epochs": 1})
    final = train(cfg, progress=False)
    meta = json.loads(final.with_suffix(".json").read_text())
    assert meta["hints"] == "greedy"
    env = envs.make("otys_v0", num_players=2)
    agent = agents.make(f"ppo:{final}", env)
    agent.reset(0)
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1
    # metadata that names unknown hints, or hints the policy does not read, is refused
    final.with_suffix(".json").write_text(json.dumps({**meta, "hints": "oracle"}))
    with pytest.raises(ConfigError, match="unknown hints"):
        agents.make(f"ppo:{final}", env)
    final.with_suffix(".json").write_text(json.dumps({**meta, "hints": None}))
    with pytest.raises(ConfigError, match="metadata promises"):
        agents.make(f"ppo:{final}", env)


def test_the_hinted_encoder_needs_hints_and_hints_must_be_known():
    from otrio.envs.core.config import validate
    from otrio.training.config import TrainConfig

    with pytest.raises(ConfigError, match="reads hints"):
        validate(TrainConfig, {"game": "otys_v0", "encoder": "hinted"})
    with pytest.raises(ConfigError, match="unknown hints"):
        validate(TrainConfig, {"game": "otys_v0", "hints": "oracle"})
