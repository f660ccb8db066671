"""The numpy forward pass of exported networks (agents/net.py) equals torch's; the
``net:PATH`` agent plays them; the search's network options load, refuse what they
cannot use, and keep the search honest. Strength is measured in benchmarks."""

from pathlib import Path

import numpy as np
import pytest
import torch

from otrio import agents, envs
from otrio.agents.hints import GreedyHints
from otrio.agents.net import NetForward, forward_of, load_net
from otrio.agents.weights import load_policy, save_policy
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.rng import make_rng
from otrio.envs.core.testing import check_search_sees_only_its_seat, play_random
from otrio.training.config import TrainConfig
from otrio.training.distill import new_network

PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"
GAMES = [("oceanos_v0", 2), ("otys_v0", 2), ("otontin_v0", 3)]


def tiny_net(tmp_path: Path, env_id: str, players: int, trunk=(24, 16), seed=0) -> Path:
    """A fresh (untrained) trunk network for ``env_id``, exported to ``tmp_path``."""
    cfg = TrainConfig(game=env_id, game_config={"num_players": players},
                      distill={"rounds": [{"games": {players: 1}}], "trunk": list(trunk)})
    policy = new_network(cfg, seed)
    info = envs.make(env_id, num_players=players).unwrapped.game.info
    return save_policy(policy, tmp_path / f"{env_id}_net", {
        "env_id": env_id, "observation_size": info.observation_size,
        "num_actions": info.num_actions, "game_config": {"num_players": players}})


def _torch(policy, obs: np.ndarray):
    with torch.no_grad():
        x = torch.as_tensor(obs)
        x = x[None] if x.ndim == 1 else x
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(x, policy.features_extractor))
        return policy.action_net(latent_pi).numpy(), policy.value_net(latent_vf).numpy()[:, 0]


def _observations(env_id: str, players: int, count: int = 40) -> np.ndarray:
    env = envs.make(env_id, num_players=players)
    env.reset(seed=7)
    rows = [obs["observation"].copy() for _, obs in play_random(env, make_rng(7))]
    return np.stack(rows[:: max(1, len(rows) // count)][:count])


@pytest.mark.parametrize(("env_id", "players"), GAMES)
def test_numpy_forward_equals_torch_for_a_trunk_network(tmp_path, env_id, players):
    policy, _ = load_policy(tiny_net(tmp_path, env_id, players))
    forward = NetForward(policy)
    batch = _observations(env_id, players)
    logits, values = _torch(policy, batch)
    for row, want_logits, want_value in zip(batch, logits, values):
        got_logits, got_value = forward.policy_value(row)  # one observation: sparse path
        np.testing.assert_allclose(got_logits, want_logits, rtol=1e-5, atol=1e-5)
        assert got_value == pytest.approx(float(want_value), abs=1e-5)
        np.testing.assert_allclose(forward.logits(row), want_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(forward.values(batch), values, rtol=1e-5, atol=1e-5)


def test_numpy_forward_equals_torch_for_the_shipped_two_tower_mlp():
    policy, _ = load_policy(PRETRAINED / "oceanos_ppo.json")  # mlp encoder, Tanh towers
    forward = NetForward(policy)
    batch = _observations("oceanos_v0", 2)
    logits, values = _torch(policy, batch)
    for row, want in zip(batch, logits):
        np.testing.assert_allclose(forward.logits(row), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(forward.values(batch), values, rtol=1e-5, atol=1e-5)


def test_a_mask_leaves_only_legal_actions_a_chance(tmp_path):
    forward = NetForward(load_policy(tiny_net(tmp_path, "oceanos_v0", 2))[0])
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=1)
    obs = env.last()[0]
    logits = forward.logits(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][int(np.argmax(logits))] == 1
    assert (logits[obs["action_mask"] == 0] < -1e8).all()


def test_numpy_forward_equals_torch_for_a_hinted_network():
    """The shipped Otys PPO agent reads greedy's hints after the observation; its
    numpy twin hands the hints on beside the MLP as the hinted encoder does."""
    policy, manifest = load_policy(PRETRAINED / "otys_ppo.json")
    assert manifest.hints == "greedy"
    forward = forward_of(policy)
    env = envs.make("otys_v0", num_players=2)
    hints = GreedyHints(env)
    env.reset(seed=7)
    rows = [hints.hinted(obs) for _, obs in play_random(env, make_rng(7))][::25]
    batch = np.stack(rows).astype(np.float32)
    logits, values = _torch(policy, batch)
    assert batch[:, -hints.size:].any()  # the hints are there, not zeros
    for row, want in zip(batch, logits):
        np.testing.assert_allclose(forward.logits(row), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(forward.values(batch), values, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("env_id", "players"), [("oceanos_v0", 5), ("otontin_v0", 8)])
def test_the_net_agent_plays_legal_moves_at_the_most_players(tmp_path, env_id, players):
    path = tiny_net(tmp_path, env_id, 3)  # one network serves every player count
    env = envs.make(env_id, num_players=players)
    seat_agents = [agents.make(f"net:{path}", env) for _ in range(players)]
    env.reset(seed=2)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = seat_agents[env.possible_agents.index(name)].act(obs)
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.state_.is_terminal()


def test_net_refuses_a_zip_and_another_games_network(tmp_path):
    env = envs.make("otys_v0", num_players=2)
    zipped = tmp_path / "model.zip"
    zipped.write_bytes(b"PK")
    with pytest.raises(ConfigError, match="SB3 zip"):
        agents.make(f"net:{zipped}", env)
    oceanos = tiny_net(tmp_path, "oceanos_v0", 2)
    with pytest.raises(ConfigError, match="env_id"):
        agents.make(f"net:{oceanos}", env)
    with pytest.raises(ConfigError, match="env_id"):
        load_net(oceanos, env)
    with pytest.raises(ConfigError, match="hints"):
        load_net(PRETRAINED / "otys_ppo.json", env)


@pytest.mark.parametrize(("spec", "named"), [
    ("mcts:rollout=net", "rollout=net needs the network"),
    ("mcts:prior=net,top=2", "prior=net needs the network"),
    ("mcts:leaf=net,depth=3", "leaf=net needs the network"),
    ("mcts:net=NET", "used by none"),
    ("mcts:net=NET,leaf=net,depth=-1", "depth"),
    ("mcts:net=missing.json,rollout=net", "does not exist"),
    ("mcts:iterations=100000000000000000000", "iterations"),
    ("mcts:seconds=1e9", "seconds"),
    ("mcts:depth=10000000", "depth"),
    ("mcts:leaf=oracle", "leaf"),
    ("mcts:seconds=inf", "seconds"),
])
def test_network_options_are_checked_naming_the_option(tmp_path, spec, named):
    env = envs.make("oceanos_v0", num_players=2)
    path = tiny_net(tmp_path, "oceanos_v0", 2)
    with pytest.raises(ConfigError, match=named):
        agents.make(spec.replace("NET", str(path)), env)


def _game(env, players: list) -> list[int]:
    for s, p in enumerate(players):
        p.reset(11 + s)
    env.reset(seed=11)
    actions = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        player = players[env.possible_agents.index(name)]
        action = player.act(obs)
        assert obs["action_mask"][action] == 1
        stats = getattr(player, "last_search", None)
        if stats is not None:  # what a teacher hands on: legal candidates, the move among them
            assert action in stats.candidates
            assert all(obs["action_mask"][a] for a in stats.candidates)
            assert stats.values is None or len(stats.values) == len(stats.candidates)
        actions.append(action)
        env.step(action)
    return actions


NET_SPECS = ["rollout=net,depth=6", "prior=net,rollout=random,depth=4",
             "leaf=net,depth=2,rollout=net", "prior=net,leaf=net,depth=0,rollout=net,crn=0"]


@pytest.mark.parametrize("options", NET_SPECS)
@pytest.mark.parametrize(("env_id", "players"), [("oceanos_v0", 2), ("otys_v0", 4),
                                                 ("otontin_v0", 8)])
def test_search_with_the_network_plays_legally_and_repeats_itself(tmp_path, env_id, players,
                                                                  options):
    path = tiny_net(tmp_path, env_id, 3)
    env = envs.make(env_id, num_players=players)
    spec = f"mcts:iterations=4,net={path},{options}"
    first = _game(env, [agents.make(spec, env)] + [agents.make("random", env)
                                                   for _ in range(players - 1)])
    again = _game(env, [agents.make(spec, env)] + [agents.make("random", env)
                                                   for _ in range(players - 1)])
    assert first == again


@pytest.mark.parametrize("crn", [0, 1], ids=["tree", "flat"])
@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_search_with_the_network_sees_only_what_its_seat_may_know(tmp_path, env_id, crn):
    """As for greedy rollouts (test_mcts.py): a state and its twin that differs only in
    what the acting seat cannot see get the same move from the same seeded agent, with
    the network as rollout policy, prior and leaf value."""
    env = envs.make(env_id, num_players=3)
    path = tiny_net(tmp_path, env_id, 3)
    agent = agents.make(f"mcts:iterations=12,net={path},rollout=net,prior=net,leaf=net,"
                        f"depth=6,top=0,gap=0,crn={crn}", env)
    assert check_search_sees_only_its_seat(env, agent, every=5) > 3


@pytest.mark.parametrize("crn", [0, 1], ids=["tree", "flat"])
def test_a_hinted_network_ranks_the_search_honestly(crn):
    """A network that reads greedy's hints (the shipped Otys PPO agent) serves as the
    search's prior, at the root and in the tree; it plays legal moves, repeats itself,
    and a twin differing only in what the seat cannot see gets the same move."""
    env = envs.make("otys_v0", num_players=3)
    spec = (f"mcts:iterations=6,net={PRETRAINED / 'otys_ppo.json'},prior=net,gap=0,top=3,"
            f"depth=4,crn={crn}")
    agent = agents.make(spec, env)
    assert agent.hinted and agent.greedy is not None
    assert check_search_sees_only_its_seat(env, agent, every=9, max_step=200) > 3


@pytest.mark.parametrize("options", ["rollout=net,depth=4", "leaf=net,depth=2,prior=net"])
def test_a_hinted_network_is_refused_for_rollouts_and_leaves(options):
    env = envs.make("otys_v0", num_players=2)
    with pytest.raises(ConfigError, match="prior=net alone"):
        agents.make(f"mcts:net={PRETRAINED / 'otys_ppo.json'},{options}", env)
