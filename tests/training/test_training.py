"""PPO training: smoke runs per game, resume, reward accounting, checkpoint checks.

A run writes exported agents (safetensors + JSON), so its agents play, score and
export with no trust flag: these tests run with ``OTRIO_TRUST_CHECKPOINTS`` unset
(``untrusted``). The user's own SB3 zips of older runs are made with
``save_checkpoint`` where a test needs one, and trusted there.
"""

import json

import numpy as np
import pytest

from otrio import agents, envs
from otrio.envs.core.errors import ConfigError
from otrio.training.config import TrainConfig
from otrio.training.selfplay import SelfPlayEnv
from otrio.training.train import train

GAMES = envs.available()
DEFAULT_PLAYERS = {"oceanos_v0": 2, "otys_v0": 2, "otontin_v0": 3}


@pytest.fixture(autouse=True)
def untrusted(monkeypatch):
    monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)


def tiny(tmp_path, game="oceanos_v0", **kw):
    base = dict(
        game=game, game_config={"num_players": DEFAULT_PLAYERS[game]},
        opponents={"random": 1.0, "self": 1.0}, total_timesteps=256,
        ppo={"n_steps": 64, "batch_size": 32, "n_epochs": 1}, net_arch=[32],
        snapshot_interval=64, checkpoint_interval=64, eval={"interval": 10**9, "games": 2},
        output=str(tmp_path / "run"),
    )
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.parametrize("game", GAMES)
def test_smoke_training_per_game(tmp_path, game):
    final = train(tiny(tmp_path, game), progress=False)
    assert final == tmp_path / "run" / "final.json"
    meta = json.loads(final.read_text())
    assert meta["env_id"] == game and meta["timesteps"] >= 256
    assert not list((tmp_path / "run").rglob("*.zip"))  # nothing pickled
    env = envs.make(game, num_players=DEFAULT_PLAYERS[game])
    agent = agents.make(f"ppo:{final}", env)  # plugs into tournaments as ppo:PATH
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1


def test_resume_continues_from_the_last_checkpoint(tmp_path):
    train(tiny(tmp_path, total_timesteps=128), progress=False)
    first = json.loads((tmp_path / "run" / "checkpoints" / "last.json").read_text())
    assert first["timesteps"] == 128
    train(tiny(tmp_path, total_timesteps=256), progress=False)
    second = json.loads((tmp_path / "run" / "checkpoints" / "last.json").read_text())
    assert second["timesteps"] == 256  # 128 more, not 256 from scratch
    with pytest.raises(ConfigError, match="another config"):
        train(tiny(tmp_path, seed=5), progress=False)


def test_resume_accepts_a_run_saved_before_a_setting_existed(tmp_path):
    train(tiny(tmp_path, total_timesteps=128), progress=False)
    config_file = tmp_path / "run" / "config.json"
    saved = json.loads(config_file.read_text())
    del saved["learner_seat"]  # as a run written before the setting was added (at its default)
    config_file.write_text(json.dumps(saved))
    train(tiny(tmp_path, total_timesteps=256), progress=False)
    last = json.loads((tmp_path / "run" / "checkpoints" / "last.json").read_text())
    assert last["timesteps"] == 256


def test_subprocess_vector_env_with_masks(tmp_path):
    final = train(tiny(tmp_path, num_envs=2, vec_env="subproc", total_timesteps=128), progress=False)
    assert final.exists()


@pytest.mark.parametrize("game", GAMES)
def test_learner_return_equals_its_final_reward(game):
    n = DEFAULT_PLAYERS[game]
    env = SelfPlayEnv(game, {"num_players": n}, {"random": 1.0}, seed=3)
    rng = np.random.default_rng(0)
    outcomes = set()
    for episode in range(12):
        obs, info = env.reset()
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, term, trunc, _ = env.step(int(rng.choice(legal)))
            total += reward
            done = term or trunc
        state = env.state
        seat = info["learner_seat"]
        winners = state.winners()
        expected = 0.0 if len(winners) == n else (1.0 if seat in winners else -1.0)
        assert total == pytest.approx(expected), (episode, total, expected)
        outcomes.add(expected)
    assert -1.0 in outcomes, "no lost game seen: the loser's final reward went untested"


def test_checkpoint_for_another_game_is_rejected(tmp_path):
    others = [g for g in GAMES if g != "oceanos_v0"]
    final = train(tiny(tmp_path, total_timesteps=64), progress=False)
    for other in others:
        with pytest.raises(ConfigError, match="trained for env_id='oceanos_v0'"):
            agents.make(f"ppo:{final}", envs.make(other))
    meta = json.loads(final.with_suffix(".json").read_text())
    meta["observation_size"] += 1
    final.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match="observation_size"):
        agents.make(f"ppo:{final}", envs.make("oceanos_v0"))


def test_corrupt_checkpoint_is_a_clear_error(tmp_path):
    final = train(tiny(tmp_path, total_timesteps=64), progress=False)
    final.with_suffix(".safetensors").write_bytes(b"garbage")
    with pytest.raises(ConfigError, match="a damaged or replaced file"):
        agents.make(f"ppo:{final}", envs.make("oceanos_v0"))
    final.write_bytes(b"garbage")
    with pytest.raises(ConfigError, match="corrupt"):
        agents.make(f"ppo:{final}", envs.make("oceanos_v0"))


def test_bad_training_config_names_the_key():
    from otrio.envs.core.config import validate

    with pytest.raises(ConfigError, match="unknown key 'ppo.learning_rat'"):
        validate(TrainConfig, {"game": "oceanos_v0", "ppo": {"learning_rat": 1}})
    with pytest.raises(ConfigError, match="opponents"):
        validate(TrainConfig, {"game": "oceanos_v0", "opponents": {"minimax": 1.0}})


def test_a_runs_agents_export_without_trust_and_play_the_same(tmp_path, capsys):
    from otrio.cli import main

    final = train(tiny(tmp_path, total_timesteps=128, net_arch=[64, 64]), progress=False)
    snapshot = tmp_path / "run" / "snapshots" / "step_64.json"
    for source, name in ((final, "model"), (snapshot, "snap")):
        (tmp_path / "ship").mkdir(exist_ok=True)  # an export makes no folder outside the current one
        assert main(["export-checkpoint", str(source), str(tmp_path / "ship" / f"{name}.json")]) == 0
        shipped = json.loads((tmp_path / "ship" / f"{name}.json").read_text())
        assert shipped["env_id"] == "oceanos_v0" and shipped["exported_from"] == str(source)
        assert shipped["timesteps"] == json.loads(source.read_text())["timesteps"]
    assert json.loads(snapshot.read_text())["timesteps"] == 64
    env = envs.make("oceanos_v0", num_players=2)
    a = agents.make(f"ppo:{final}", env)
    b = agents.make(f"ppo:{tmp_path / 'ship' / 'model.json'}", env)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert a.act(obs) == b.act(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_an_old_runs_zip_exports_with_trust_and_a_stray_zip_is_refused(tmp_path, monkeypatch):
    """A user's own zip of an older run (snapshots saved bare, the run's last.zip beside)
    exports with its run's metadata; a zip tied to no run is refused."""
    import shutil

    from sb3_contrib import MaskablePPO

    from otrio.training.train import export_checkpoint, save_checkpoint

    monkeypatch.setenv("OTRIO_TRUST_CHECKPOINTS", "1")  # this test's own zips
    cfg = tiny(tmp_path)
    model = MaskablePPO("MlpPolicy", SelfPlayEnv("oceanos_v0", {"num_players": 2}),
                        policy_kwargs={"net_arch": [8]}, n_steps=32, batch_size=32, device="cpu")
    old = tmp_path / "old"
    save_checkpoint(model, old / "checkpoints" / "last.zip", cfg)
    snapshot = old / "snapshots" / "step_64.zip"
    snapshot.parent.mkdir()
    model.save(str(snapshot))  # saved bare, as old runs did
    shipped = export_checkpoint(snapshot, tmp_path / "ship" / "snap.json")
    meta = json.loads(shipped.read_text())
    assert meta["env_id"] == "oceanos_v0" and meta["timesteps"] == 64
    agents.make(f"ppo:{shipped}", envs.make("oceanos_v0", num_players=2))  # plays as ppo:PATH
    stray = tmp_path / "elsewhere" / "model.zip"
    stray.parent.mkdir()
    shutil.copy(snapshot, stray)
    with pytest.raises(ConfigError, match="cannot be tied to a game"):
        export_checkpoint(stray, tmp_path / "ship" / "stray.json")
    assert not list((tmp_path / "ship").glob("stray*"))  # nothing half-written


def test_random_opponents_play_from_the_legal_list_alone():
    """Self-play builds neither observation nor mask for random opponents; their moves
    are the ones they make from the full observation."""
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=4)
    full, legal_only = agents.make("random", env), agents.make("random", env)
    full.reset(9)
    legal_only.reset(9)
    assert not legal_only.reads_observation and agents.make("greedy", env).reads_observation
    with pytest.raises(NotImplementedError, match="reads its observation"):
        agents.make("greedy", env).act_legal([0])
    for _ in range(20):
        obs = env.last()[0]
        action = full.act(obs)
        assert legal_only.act_legal(env.unwrapped.legal_actions()) == action
        env.step(action)


def test_evaluation_plays_the_checkpoint_as_it_is_now(tmp_path):
    """A training run evaluates a checkpoint rewritten at one path (in the safe format,
    so without trust); each evaluation must play the file as it is then, not a policy
    cached from an earlier evaluation."""
    from types import SimpleNamespace

    import torch

    from otrio.agents.weights import load_policy
    from otrio.arena.play import GameTask, env_and_agents
    from otrio.training.train import save_agent

    cfg = tiny(tmp_path, total_timesteps=64)
    final = train(cfg, progress=False)
    model = SimpleNamespace(policy=load_policy(final)[0], num_timesteps=64)
    path = save_agent(model, tmp_path / "eval_current.json", cfg)
    task = GameTask(game=0, env_id="oceanos_v0", config={"num_players": 2},
                    seating=("ppo", "r"), specs={"ppo": f"ppo:{path}", "r": "random"}, seed=0)
    first = env_and_agents(task)[1][0]
    assert env_and_agents(task)[1][0] is first  # an unchanged file is not loaded again

    with torch.no_grad():
        for p in model.policy.action_net.parameters():
            p.add_(1.0)
    save_agent(model, path, cfg)  # rewritten in place, as the training loop does
    second = env_and_agents(task)[1][0]
    assert second is not first
    assert not np.array_equal(second.policy.action_net.bias.detach().numpy(),
                              first.policy.action_net.bias.detach().numpy())


def test_evaluate_run_scores_every_snapshot_without_trust_and_resumes(tmp_path, capsys):
    from otrio.cli import main

    train(tiny(tmp_path, total_timesteps=128, eval={"interval": 10**9, "games": 2,
                                                    "opponents": ["random"]}), progress=False)
    run = tmp_path / "run"
    assert main(["evaluate-run", str(run)]) == 0  # the run's own agents: no trust flag
    lines = [json.loads(x) for x in (run / "eval_snapshots.jsonl").read_text().splitlines()]
    snapshots = sorted(p.name for p in (run / "snapshots").glob("step_*.json"))
    assert snapshots == ["step_128.json", "step_64.json"]
    assert [x["checkpoint"] for x in lines] == ["step_64.json", "step_128.json", "final.json"]
    assert [x["timesteps"] for x in lines] == [64, 128, 128]
    assert all(x["random"]["games"] == 2 for x in lines)
    assert main(["evaluate-run", str(run)]) == 0  # nothing left to add
    assert len((run / "eval_snapshots.jsonl").read_text().splitlines()) == len(lines)
    assert not (run / "run.lock").exists()  # the lock goes at the end
    capsys.readouterr()
    assert main(["evaluate-run", str(tmp_path / "nowhere")]) == 2
    assert "not a training run folder" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()  # no lock, no folder made


@pytest.mark.parametrize("encoder", ["otys_pairs", "otys_board"])
def test_otys_encoders_train_clone_and_play(tmp_path, encoder):
    """The structured Otys encoders: a tiny run with a clone, then the checkpoint plays
    as ppo:PATH; the pair features follow the observation's contracts and levels."""
    import torch

    from otrio.agents.encoders import ENCODERS, _contracts, _seat0_levels
    from otrio.envs.otys.observe import CONTRACT_FEATS, LAYOUT

    final = train(tiny(tmp_path, "otys_v0", encoder=encoder, total_timesteps=64,
                       imitation={"games": 2, "epochs": 1}), progress=False)
    env = envs.make("otys_v0", num_players=2)
    agent = agents.make(f"ppo:{final}", env)
    assert type(agent.policy.features_extractor) is ENCODERS[encoder]
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1
    # the pairs read the right slices: hand slot 0 is contract 3 (after 3 public ones);
    # the observer's resources on level 2 are level row 2
    base = torch.as_tensor(obs["observation"])[None]
    edited = base.clone()
    hand = LAYOUT.offsets["hand"][0]
    edited[0, hand : hand + CONTRACT_FEATS] += 1.0
    changed = (_contracts(edited) != _contracts(base)).any(dim=2)[0]
    assert changed.tolist() == [i == 3 for i in range(len(changed))]
    assert torch.equal(_seat0_levels(edited), _seat0_levels(base))
    edited = base.clone()
    edited[0, LAYOUT.offsets["resources"][0] + 2 * 4 + 1] += 1.0  # level 2, colour 1
    changed = (_seat0_levels(edited) != _seat0_levels(base)).any(dim=2)[0]
    assert changed.tolist() == [False, False, True, False, False]


def test_otys_board_reads_each_levels_offer_in_level_order():
    """A change to level 3's sponsor tile, or to the opponent's diver on level 4, moves
    only that level's row of the board features."""
    import torch

    from otrio.agents.encoders import LEVEL_SLOT, _level_board
    from otrio.envs.otys import data as D
    from otrio.envs.otys.observe import LAYOUT

    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=1)
    base = torch.as_tensor(env.last()[0]["observation"])[None]
    seat_divers = D.NUM_SLOTS * D.NUM_DIVERS
    for at, level in ((LAYOUT.offsets["sponsor_tile"][0] + 2 * D.NUM_SPONSORS + 4, 2),
                      (LAYOUT.offsets["divers"][0] + seat_divers
                       + (LEVEL_SLOT + 3) * D.NUM_DIVERS + 5, 3)):
        edited = base.clone()
        edited[0, at] += 1.0
        changed = (_level_board(edited) != _level_board(base)).any(dim=2)[0]
        assert changed.tolist() == [lv == level for lv in range(D.NUM_LEVELS)]


def test_an_encoder_for_another_game_is_a_clear_error():
    from otrio.envs.core.config import validate

    with pytest.raises(ConfigError, match="reads otys_v0 observations, not oceanos_v0"):
        validate(TrainConfig, {"game": "oceanos_v0", "encoder": "otys_pairs"})
    with pytest.raises(ConfigError, match="unknown encoder 'cnn'"):
        validate(TrainConfig, {"game": "otys_v0", "encoder": "cnn"})
