"""Distillation from search (training/distill.py, distill_data.py): a tiny end-to-end
run (teacher games -> fit -> export -> play), its resume after an interruption, the same
teacher games on one worker or two, records checked before they are learned from,
policy targets, config errors. Strength is measured in benchmarks, never here."""

import json

import numpy as np
import pytest

from otrio import agents, envs
from otrio.arena.records import RECORDS_FILE
from otrio.arena.replay import ReplayError, record_actions
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, StateError
from otrio.training import distill as distill_module
from otrio.training import safe_state
from otrio.training.config import TrainConfig
from otrio.training.distill import distill, generate, round_tasks
from otrio.training.distill_data import audit, examples, policy_target, teacher_game

TEACHER = "mcts:iterations=2,depth=3,rollout=random,prior=none,top=0,crn=1"


def tiny(tmp_path, name="run", **distill_kw):
    params = {"rounds": [{"teacher": TEACHER, "games": {2: 3, 3: 1}},
                         {"teacher": "mcts:iterations=2,depth=2,net={previous},rollout=net,"
                                     "prior=net,top=2", "games": {2: 2}}],
              "epochs": 2, "trunk": [16], "batch_size": 32, "held_out": 0.2}
    params.update(distill_kw)
    return validate(TrainConfig, {
        "game": "oceanos_v0", "game_config": {"num_players": 2}, "seed": 4,
        "output": str(tmp_path / name), "eval": {"games": 2, "opponents": ["random"]},
        "distill": params})


def _records(folder, k):
    """Round k's records without wall times, the run folder's name made neutral."""
    text = (folder / f"round_{k}" / RECORDS_FILE).read_text().replace(str(folder), "RUN")
    return [{key: v for key, v in json.loads(line).items() if key != "wall_time"}
            for line in text.splitlines()]


def test_a_tiny_run_teaches_exports_and_plays(tmp_path):
    cfg = tiny(tmp_path)
    net = distill(cfg, progress=False)
    folder = tmp_path / "run"
    assert net == folder / "round_2" / "net.json"
    # round 2's teacher searched with round 1's network
    assert _records(folder, 2)[0]["teacher"].startswith(
        "mcts:iterations=2,depth=2,net=RUN/round_1/net.json,")
    lines = [json.loads(x) for x in (folder / "rounds.jsonl").read_text().splitlines()]
    assert [line["round"] for line in lines] == [1, 2]
    assert lines[0]["games"] == 4 and lines[0]["decisions"] > 0
    assert "vs random" in (folder / "report.md").read_text()
    assert (folder / "strength.png").stat().st_size > 0
    assert not list(folder.rglob("*.zip")) and not list(folder.rglob("*.pkl"))
    env = envs.make("oceanos_v0", num_players=3)  # one network for every player count
    agent = agents.make(f"net:{net}", env)
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1


def test_labels_name_legal_candidates_and_the_move_played(tmp_path):
    task = round_tasks(tiny(tmp_path), 1, TEACHER)[0]
    record = teacher_game(task)
    assert record["labels"] and all(len(label) == 4 for label in record["labels"])
    rows = examples([record], temperature=0.1, margin=0.25)
    assert len(rows) == len(record["labels"])
    assert np.allclose(rows.policy.sum(axis=1), 1.0)
    assert not (rows.policy * ~rows.masks).any()  # no weight on an illegal action
    assert (np.abs(rows.value) <= 1.25 + 1e-6).all()  # an outcome plus a squashed margin
    seats = [label[1] for label in record["labels"]]
    winner = record["winners"][0]
    if len(record["winners"]) == 1:  # the winner's decisions carry +1 plus its margin
        assert all(v > 0.75 for v, s in zip(rows.value, seats) if s == winner)
        assert all(v < -0.75 for v, s in zip(rows.value, seats) if s != winner)


def test_one_worker_or_two_play_the_same_teacher_games(tmp_path):
    cfg = tiny(tmp_path)
    one = generate(cfg, 1, TEACHER, tmp_path / "one", 1, "local", None, False)
    two = generate(cfg, 1, TEACHER, tmp_path / "two", 2, "local", None, False)
    strip = [{k: v for k, v in r.items() if k != "wall_time"} for r in one]
    assert strip == [{k: v for k, v in r.items() if k != "wall_time"} for r in two]


def test_ray_plays_the_same_teacher_games(tmp_path):
    import ray  # in the dev extra: the test starts a local Ray instance

    cfg = tiny(tmp_path)
    local = generate(cfg, 1, TEACHER, tmp_path / "local", 1, "local", None, False)
    remote = generate(cfg, 1, TEACHER, tmp_path / "ray", 2, "ray", None, False)
    assert not ray.is_initialized()  # the run shut down the instance it started
    assert [{k: v for k, v in r.items() if k != "wall_time"} for r in local] == \
        [{k: v for k, v in r.items() if k != "wall_time"} for r in remote]


def test_an_interrupted_run_resumes_to_the_same_network(tmp_path, monkeypatch):
    whole = distill(tiny(tmp_path, "whole"), progress=False)
    calls = {"games": 0, "saves": 0}
    real_game, real_save = distill_module.teacher_game, safe_state.save_state

    def game_then_stop(task):
        calls["games"] += 1
        if calls["games"] == 3:
            raise KeyboardInterrupt
        return real_game(task)

    def save_then_stop(*args, **kw):
        real_save(*args, **kw)
        calls["saves"] += 1
        if calls["saves"] == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(distill_module, "teacher_game", game_then_stop)
    with pytest.raises(KeyboardInterrupt):  # stopped during round 1's games
        distill(tiny(tmp_path, "cut"), progress=False)
    assert len(_records(tmp_path / "cut", 1)) == 2
    monkeypatch.setattr(distill_module, "teacher_game", real_game)
    monkeypatch.setattr(safe_state, "save_state", save_then_stop)
    with pytest.raises(KeyboardInterrupt):  # stopped after round 1's first epoch
        distill(tiny(tmp_path, "cut"), progress=False)
    monkeypatch.setattr(safe_state, "save_state", real_save)
    resumed = distill(tiny(tmp_path, "cut"), progress=False)
    for k in (1, 2):
        assert _records(tmp_path / "cut", k) == _records(tmp_path / "whole", k)
    assert resumed.with_suffix(".safetensors").read_bytes() == \
        whole.with_suffix(".safetensors").read_bytes()


def test_rounds_may_be_added_but_the_config_may_not_change(tmp_path):
    both = tiny(tmp_path).distill.model_dump()
    distill(tiny(tmp_path, rounds=both["rounds"][:1]), progress=False)
    distill(tiny(tmp_path), progress=False)  # a second round appended: resumes
    with pytest.raises(ConfigError, match="another config"):
        distill(tiny(tmp_path, temperature=0.5), progress=False)


def test_a_tampered_record_is_refused_before_it_counts(tmp_path):
    record = teacher_game(round_tasks(tiny(tmp_path), 1, TEACHER)[0])
    scores = dict(record, scores=[s + 5 for s in record["scores"]])
    with pytest.raises(ReplayError, match="scores"):
        examples([scores], 0.1, 0.25)
    seat = dict(record, labels=[[record["labels"][0][0], 1 - record["labels"][0][1],
                                 *record["labels"][0][2:]], *record["labels"][1:]])
    with pytest.raises(ReplayError, match="names seat"):
        examples([seat], 0.1, 0.25)
    for label in ([0, 0, [99], None], [0, 0, [1], [float("nan")]], [0, 0, [], None], "x"):
        with pytest.raises(StateError, match="label 0"):
            examples([dict(record, labels=[label])], 0.1, 0.25)


def test_policy_targets_follow_the_search_values():
    assert policy_target([3, 1], [0.2, 0.5], 5, 0).tolist() == [0, 1, 0, 0, 0]
    assert policy_target([3, 1], None, 5, 0.1).tolist() == [0, 0, 0, 1, 0]
    soft = policy_target([3, 1], [0.2, 0.5], 5, 0.1)
    assert soft[1] / soft[3] == pytest.approx(np.exp(3.0), rel=1e-5) and soft.sum() == pytest.approx(1)


def test_an_overrule_target_keeps_the_first_candidate_unless_another_is_clearly_better():
    # first candidate 3 (the prior's favourite): 1 beats it by 0.3 > 0.1 -> 1
    assert policy_target([3, 1, 4], [0.2, 0.5, 0.1], 5, 0.1, 0.1).tolist() == [0, 1, 0, 0, 0]
    # by 0.05, not more than 0.1 -> the first candidate, whatever the temperature
    assert policy_target([3, 1, 4], [0.2, 0.25, 0.1], 5, 0.1, 0.1).tolist() == [0, 0, 0, 1, 0]
    # exactly the margin is not more than it
    assert policy_target([3, 1], [0.25, 0.5], 5, 0.0, 0.25).tolist() == [0, 0, 0, 1, 0]
    # overrule 0: the best, ties to the first
    assert policy_target([3, 1], [0.5, 0.5], 5, 0.1, 0.0).tolist() == [0, 0, 0, 1, 0]


def test_config_errors_name_the_problem(tmp_path):
    with pytest.raises(ConfigError, match="previous"):
        distill(tiny(tmp_path, rounds=[{"teacher": "mcts:net={previous},rollout=net",
                                        "games": {2: 1}}]), progress=False)
    with pytest.raises(ConfigError, match="unknown agent spec"):
        distill(tiny(tmp_path, rounds=[{"teacher": "oracle", "games": {2: 1}}]), progress=False)
    with pytest.raises(ConfigError, match="num_players"):
        distill(tiny(tmp_path, rounds=[{"teacher": TEACHER, "games": {9: 1}}]), progress=False)
    with pytest.raises(ConfigError, match="games"):
        tiny(tmp_path, rounds=[{"teacher": TEACHER, "games": {}}])
    assert not (tmp_path / "run").exists()  # nothing made before the config was checked


def test_value_mix_moves_the_target_towards_the_search_estimate(tmp_path):
    record = teacher_game(round_tasks(tiny(tmp_path), 1, TEACHER)[0])
    searched = [k for k, label in enumerate(record["labels"]) if label[3] is not None]
    assert searched
    outcome = examples([record], 0.1, 0.25).value
    own = examples([record], 0.1, 0.25, value_mix=1.0).value
    half = examples([record], 0.1, 0.25, value_mix=0.5).value
    for k in searched:
        assert own[k] == pytest.approx(max(record["labels"][k][3]), abs=1e-6)
        assert half[k] == pytest.approx((outcome[k] + own[k]) / 2, abs=1e-6)


def test_select_best_exports_the_epoch_with_the_lowest_held_out_loss(tmp_path):
    cfg = tiny(tmp_path, epochs=3, select="best", learning_rate=0.05,
               rounds=[{"teacher": TEACHER, "games": {2: 6}}])
    distill(cfg, progress=False)
    lines = [json.loads(x) for x in (tmp_path / "run" / "round_1" / "fit.jsonl").read_text().splitlines()]
    losses = [line["held_out_loss"] for line in lines]
    assert lines[-1]["selected_epoch"] == losses.index(min(losses)) + 1


def test_a_fit_with_every_game_held_out_is_a_clear_error(tmp_path):
    cfg = tiny(tmp_path, rounds=[{"teacher": TEACHER, "games": {2: 1}}])
    record = teacher_game(round_tasks(cfg, 1, TEACHER)[0])
    rows = examples([record], 0.1, 0.25)
    policy = distill_module.new_network(cfg, 1)
    with pytest.raises(ConfigError, match="no training rows"):
        distill_module.fit(policy, rows.subset(np.zeros(len(rows), bool)), rows, cfg.distill, 1,
                           tmp_path / "state")


def test_a_cuda_fit_without_cuda_is_a_clear_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(ConfigError, match="no CUDA device"):
        distill(tiny(tmp_path, device="cuda"), progress=False)
    assert not (tmp_path / "run").exists()


def test_held_out_games_are_spread_over_the_game_order():
    from otrio.training.distill import held_out_games

    aside = held_out_games(40, 4)  # every tenth game
    assert aside.sum() == 4
    assert np.flatnonzero(aside).tolist() == [9, 19, 29, 39]
    # a round's games come by player count, ascending: each count keeps games aside
    counts = np.repeat([3, 5], [30, 10])
    assert set(counts[held_out_games(40, 4)]) == {3, 5}
    assert not held_out_games(40, 0).any() and held_out_games(5, 5).all()


def test_a_hinted_distillation_fits_and_plays_with_greedy_hints(tmp_path):
    """hints: greedy: the rows carry greedy's hints of each observation and the exported
    network reads them, computed by the agent that plays it (agents/hints.py)."""
    from otrio.agents.hints import hint_size

    cfg = tiny(tmp_path, rounds=[{"teacher": TEACHER, "games": {2: 2}}])
    cfg = cfg.model_copy(update={"hints": "greedy"})
    record = teacher_game(round_tasks(cfg, 1, TEACHER)[0])
    plain = examples([record], 0.1, 0.25)
    hinted = examples([record], 0.1, 0.25, hints="greedy")
    num_actions = plain.masks.shape[1]
    assert hinted.observations.shape[1] == plain.observations.shape[1] + hint_size(num_actions)
    assert np.array_equal(hinted.observations[:, :plain.observations.shape[1]], plain.observations)
    best = hinted.observations[:, plain.observations.shape[1]:][:, :num_actions]
    assert (best.sum(axis=1) >= 1).all() and not (best * ~hinted.masks).any()  # a legal best
    net = distill(cfg, progress=False)
    assert json.loads(net.read_text())["hints"] == "greedy"
    env = envs.make("oceanos_v0", num_players=2)
    agent = agents.make(f"net:{net}", env)
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agent.act(obs)] == 1


def test_a_hinted_network_started_from_the_hints_plays_greedys_choice(tmp_path):
    """distill.encoder: hinted with hint_start: the fresh network's heads read each
    action's own hints, so before any fit it plays what greedy values highest (where
    greedy has one best), and exports and loads as any network does."""
    from otrio.agents.hints import GreedyHints
    from otrio.agents.weights import save_policy
    from otrio.training.distill import net_meta, new_network

    cfg = validate(TrainConfig, {
        "game": "otys_v0", "game_config": {"num_players": 2}, "hints": "greedy",
        "output": str(tmp_path / "run"), "distill": {
            "rounds": [{"teacher": TEACHER, "games": {2: 2}}], "trunk": [16],
            "encoder": "hinted", "hint_start": 5.0}})
    path = tmp_path / "start.json"
    save_policy(new_network(cfg, 1), path, net_meta(cfg, 1))
    env = envs.make("otys_v0", num_players=2)
    student, hints = agents.make(f"net:{path}", env), GreedyHints(env)
    compared = 0
    for seed in range(2):
        env.reset(seed=seed)
        student.reset(seed)
        hints.reset(seed)
        for _ in range(60):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            values = hints.greedy.action_values(obs)
            best = max(values.values())
            favourites = [a for a, v in values.items() if best - v <= 1e-9]
            action = student.act(obs)
            if len(favourites) == 1:
                assert action == favourites[0]
                compared += 1
            env.step(action)
    assert compared > 20


def test_a_hint_start_needs_a_hinted_encoder_reading_hints(tmp_path):
    base = tiny(tmp_path).model_dump(mode="json")
    with pytest.raises(ConfigError, match="set distill.encoder: hinted"):
        validate(TrainConfig, {**base, "hints": "greedy",
                               "distill": {**base["distill"], "hint_start": 5.0}})
    with pytest.raises(ConfigError, match="reads hints: set hints: greedy"):
        validate(TrainConfig, {**base, "distill": {**base["distill"], "encoder": "hinted"}})


def test_round_one_starts_from_init_and_a_network_of_another_observation_is_refused(tmp_path):
    """distill.init: round 1 fits the exported agent's own weights (here a run's first
    network, the second run one epoch on from it), not fresh ones; a network that reads
    another observation (hints, game) is a ConfigError before any folder is made."""
    import torch

    from otrio.agents.weights import load_policy

    first = distill(tiny(tmp_path, "first", rounds=[{"teacher": TEACHER, "games": {2: 2}}]),
                    progress=False)
    start, _ = load_policy(first)
    cfg = tiny(tmp_path, "second", init=str(first), learning_rate=1e-6, epochs=1,
               rounds=[{"teacher": TEACHER, "games": {2: 2}}])
    second, _ = load_policy(distill(cfg, progress=False))
    fresh = distill_module.new_network(cfg, 0)
    gap = {k: float((v - start.state_dict()[k]).abs().max()) for k, v in second.state_dict().items()}
    assert max(gap.values()) < 1e-4  # a tiny step away from init's weights
    assert any(not torch.equal(v, start.state_dict()[k]) for k, v in fresh.state_dict().items())
    hinted = cfg.model_copy(update={"hints": "greedy", "output": str(tmp_path / "third")})
    with pytest.raises(ConfigError, match="distill.init .* has hints=None, this run has hints='greedy'"):
        distill(hinted, progress=False)
    with pytest.raises(ConfigError, match="distill.init .* has env_id='oceanos_v0', this run has env_id='otontin_v0'"):
        other = hinted.model_dump(mode="json")
        other["distill"]["rounds"] = [{"teacher": TEACHER, "games": {3: 1}}]
        distill(validate(TrainConfig, {**other, "hints": None, "game": "otontin_v0",
                                       "game_config": {"num_players": 3}}), progress=False)
    assert not (tmp_path / "third").exists()


# ---------------------------------------------------------------- DAgger rounds
def dagger(tmp_path, name="run"):
    """Round 1 the teacher's own games; round 2 round 1's network plays every seat and the
    teacher labels its positions."""
    return tiny(tmp_path, name, rounds=[
        {"teacher": TEACHER, "games": {2: 3}},
        {"teacher": TEACHER, "player": "net:{previous}", "games": {2: 2, 3: 1}}])


def test_a_dagger_round_labels_the_players_positions_with_the_teacher(tmp_path):
    net = distill(dagger(tmp_path), progress=False)
    folder = tmp_path / "run"
    second = _records(folder, 2)
    assert all(r["player"] == "net:RUN/round_1/net.json" and r["teacher"] == TEACHER
               for r in second)
    assert "player" not in _records(folder, 1)[0]  # the teacher's own games name none
    record = json.loads((folder / "round_2" / RECORDS_FILE).read_text().splitlines()[0])
    task = round_tasks(dagger(tmp_path), 2, TEACHER, f"net:{folder / 'round_1' / 'net.json'}")[0]
    assert teacher_game(task) | {"wall_time": 0} == record | {"wall_time": 0}  # deterministic
    # the moves played are the player's: at some label the teacher's candidates miss the
    # move played, or rank it below their best
    actions = record_actions(record)[3]
    assert any(actions[s] not in c or (v and v[c.index(actions[s])] < max(v))
               for s, _, c, v in record["labels"])
    rows = examples([record], temperature=0.1, margin=0.25)
    assert len(rows) == len(record["labels"]) and np.allclose(rows.policy.sum(axis=1), 1.0)
    lines = [json.loads(x) for x in (folder / "rounds.jsonl").read_text().splitlines()]
    assert lines[1]["player"] == f"net:{folder / 'round_1' / 'net.json'}"
    assert net == folder / "round_2" / "net.json"


def test_a_dagger_record_whose_labels_were_edited_is_refused_by_the_audit(tmp_path):
    cfg = dagger(tmp_path)
    distill(tiny(tmp_path, rounds=cfg.distill.model_dump()["rounds"][:1]), progress=False)
    net = tmp_path / "run" / "round_1" / "net.json"
    record = teacher_game(round_tasks(cfg, 2, TEACHER, f"net:{net}")[0])
    label = record["labels"][0]
    edited = dict(record, labels=[[label[0], label[1], label[2][::-1],
                                   None if label[3] is None else label[3][::-1]],
                                  *record["labels"][1:]])
    assert edited != record
    with pytest.raises(StateError, match="another record"):
        audit([edited], every=1)
    assert audit([record], every=1) == 1


KILLED_CHILD = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {here!r})
from otrio.training import distill as D
from test_distill import dagger
real, calls = D.teacher_game, []
def game_then_kill(task):
    if task.player is not None:
        calls.append(task.game)
        if len(calls) == 2:  # round 2's first game is written; this one never is
            os.kill(os.getpid(), signal.SIGKILL)
    return real(task)
D.teacher_game = game_then_kill
D.distill(dagger(Path(sys.argv[1])), progress=False)
"""


def test_a_dagger_round_sigkilled_mid_round_resumes_to_the_same_bytes(tmp_path):
    import signal
    import subprocess
    import sys
    from pathlib import Path

    whole = distill(dagger(tmp_path, "whole"), progress=False)
    child = subprocess.run(
        [sys.executable, "-c", KILLED_CHILD.format(here=str(Path(__file__).parent)),
         str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    cut = tmp_path / "run"
    assert len(_records(cut, 2)) == 1 and not (cut / "round_2" / "net.json").exists()
    resumed = distill(dagger(tmp_path), progress=False)  # the lock left behind is stale
    for k in (1, 2):
        assert _records(cut, k) == _records(tmp_path / "whole", k)
    assert resumed.with_suffix(".safetensors").read_bytes() == \
        whole.with_suffix(".safetensors").read_bytes()
