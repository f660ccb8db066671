"""Imitation warm start: teacher demonstrations, behaviour cloning, and the train hook."""

import json

import numpy as np
import pytest

from otrio import agents, envs
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.rng import derive_seed
from otrio.training.config import TrainConfig
from otrio.training.imitation import clone, collect, evaluate_clone
from otrio.training.train import train

from .test_training import DEFAULT_PLAYERS, tiny


def _final_rewards(game: str, config: dict, seed: int) -> dict[str, float]:
    """Each seat's whole-game reward when greedy plays every seat (the collect seeding)."""
    env = envs.make(game, **config)
    seat_agents = [agents.make("greedy", env) for _ in env.possible_agents]
    game_seed = derive_seed(seed, "imitation", 0)
    env.reset(seed=game_seed)
    for s, agent in enumerate(seat_agents):
        agent.reset(derive_seed(game_seed, "teacher", s))
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward  # the accumulated reward since the seat's last turn
        env.step(None if term or trunc else seat_agents[env.possible_agents.index(agent)].act(obs))
    return total


@pytest.mark.parametrize("game", ["oceanos_v0", "otys_v0"])
def test_first_decision_return_is_the_seats_whole_game_reward(game):
    config = {"num_players": DEFAULT_PLAYERS[game], "dense_reward": True}
    demos = collect(game, config, "greedy", games=1, seed=3)
    env = envs.make(game, **config)
    expected = _final_rewards(game, config, seed=3)
    # replay the recorded actions to find each seat's first decision
    env.reset(seed=derive_seed(3, "imitation", 0))
    first_index: dict[str, int] = {}
    for i, action in enumerate(demos.actions):
        agent = env.agent_selection
        first_index.setdefault(agent, i)
        assert demos.masks[i][action], "the teacher's action is legal under the stored mask"
        env.step(int(action))
    assert set(first_index) == set(env.possible_agents)
    for agent, i in first_index.items():
        assert demos.returns[i] == pytest.approx(expected[agent], abs=1e-5)


def test_demonstrations_are_deterministic():
    a = collect("oceanos_v0", {"num_players": 2}, "greedy", games=2, seed=7)
    b = collect("oceanos_v0", {"num_players": 2}, "greedy", games=2, seed=7)
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.observations, b.observations)
    assert list(np.unique(a.game_index)) == [0, 1]


def test_cloning_learns_the_teacher():
    from sb3_contrib import MaskablePPO

    from otrio.training.selfplay import SelfPlayEnv

    demos = collect("oceanos_v0", {"num_players": 2}, "greedy", games=40, seed=1)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv("oceanos_v0", {"num_players": 2}),
                        policy_kwargs={"net_arch": [64]}, seed=0, device="cpu")
    _, held_out = demos.split(2)
    before = evaluate_clone(model.policy, held_out)["accuracy"]
    history = clone(model.policy, demos, epochs=3, batch_size=64, learning_rate=3e-3,
                    value_weight=0.5, seed=0)
    assert [h["epoch"] for h in history] == [1, 2, 3]
    assert history[-1]["loss"] < history[0]["loss"]
    assert history[-1]["accuracy"] > before + 0.2  # a random net agrees rarely with greedy


def test_training_with_a_warm_start_writes_the_clone_and_its_evaluation(tmp_path):
    cfg = tiny(tmp_path, imitation={"games": 4, "epochs": 1, "batch_size": 32},
               eval={"interval": 10**9, "games": 2, "opponents": ["random"]})
    final = train(cfg, progress=False)
    run = tmp_path / "run"
    lines = [json.loads(x) for x in (run / "imitation.jsonl").read_text().splitlines()]
    assert lines[0]["decisions"] > 0 and 0.0 <= lines[0]["accuracy"] <= 1.0
    assert (run / "imitation.json").exists() and final.exists()
    evals = [json.loads(x) for x in (run / "eval.jsonl").read_text().splitlines()]
    assert evals[0]["timesteps"] == 0 and evals[0]["random"]["games"] == 2


def test_unknown_imitation_key_and_teacher_are_clear_errors(tmp_path):
    from otrio.envs.core.config import validate

    with pytest.raises(ConfigError, match="epoch"):
        validate(TrainConfig, {"game": "oceanos_v0", "imitation": {"epoch": 3}})
    with pytest.raises(ConfigError, match="unknown agent spec"):
        train(tiny(tmp_path, imitation={"teacher": "wizard", "games": 2}), progress=False)


# the flat MLP with sb3's shared (parameter-free) extractor; the hinted encoder split in two
WARMUP_POLICIES = {"shared": {}, "split": {"share_features_extractor": False, "hints": "greedy",
                                           "encoder": "hinted", "net_arch": []}}


@pytest.mark.parametrize("policy", WARMUP_POLICIES)
def test_value_warmup_fits_the_value_head_and_leaves_the_policy_as_cloned(tmp_path, policy):
    import torch

    from otrio.agents.weights import load_policy
    from otrio.training.train import policy_parameters

    cfg = tiny(tmp_path, total_timesteps=128, **WARMUP_POLICIES[policy],
               imitation={"games": 4, "epochs": 1, "batch_size": 32, "value_warmup_timesteps": 128},
               eval={"interval": 10**9, "games": 2, "opponents": ["random"]})
    train(cfg, progress=False)
    run = tmp_path / "run"
    clone, _ = load_policy(run / "imitation.json")
    warmed, manifest = load_policy(run / "checkpoints" / "last.json")
    assert manifest.timesteps >= 128  # the warm-up steps count towards the total
    for before, after in zip(policy_parameters(clone), policy_parameters(warmed), strict=True):
        assert torch.equal(before, after)
    assert not torch.equal(clone.value_net.weight, warmed.value_net.weight)
    if policy == "split":  # the value head's own encoder is fitted too
        assert warmed.vf_features_extractor is not warmed.pi_features_extractor
        assert not all(torch.equal(a, b) for a, b in zip(
            clone.vf_features_extractor.parameters(),
            warmed.vf_features_extractor.parameters(), strict=True))


def test_value_warmup_unfreezes_the_policy_afterwards():
    from sb3_contrib import MaskablePPO

    from otrio.training.selfplay import SelfPlayEnv
    from otrio.training.train import _value_warmup

    model = MaskablePPO("MlpPolicy", SelfPlayEnv("oceanos_v0", {"num_players": 2}), n_steps=32,
                        batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]}, device="cpu")
    _value_warmup(model, 32, progress=False)
    assert model.num_timesteps == 32
    assert all(p.requires_grad for p in model.policy.parameters())  # PPO proper trains them all


def test_float16_storage_holds_the_same_otys_demonstrations():
    config = {"num_players": 2}
    wide = collect("otys_v0", config, "greedy", games=2, seed=5)
    half = collect("otys_v0", config, "greedy", games=2, seed=5, storage="float16")
    assert half.observations.dtype == np.float16
    assert np.array_equal(half.observations.astype(np.float32), wide.observations)
    assert np.array_equal(half.actions, wide.actions) and np.array_equal(half.returns, wide.returns)


def test_float16_storage_refuses_a_value_it_would_change():
    from otrio.training.imitation import _stored

    rows = np.array([[1.0, 2049.0]], np.float32)  # 2049 is not a float16 number
    with pytest.raises(ValueError, match="not exact as float16"):
        _stored(rows, np.dtype("float16"))
    assert np.array_equal(_stored(rows[:, :1], np.dtype("float16")), [[1.0]])
