"""Value models (training/value_data.py, value_fit.py, value_report.py; agents/value.py,
value_agent.py; the search's leaf=value): a tiny end-to-end run (self-play data -> fit
-> export -> gate -> play), resume equal to an uninterrupted run, one worker or two give
the same data, data verified before it counts, loading without code, honesty of the
agents that use a model. Strength is measured in benchmarks, never here."""

import json
import shutil

import numpy as np
import pytest

from otrio import agents, envs
from otrio.agents.value import load_value_model
from otrio.arena.play import play_seated
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.testing import check_search_sees_only_its_seat
from otrio.training.value_data import (
    ValueDataConfig,
    generate,
    load_rows,
    shard_tasks,
    verify_shard,
    win_shares,
)
from otrio.training.value_fit import ValueFitConfig, fit_and_export, split
from otrio.training.value_report import auc, brier, gate, log_loss, logistic_1d, write_gate
from otrio.training.value_store import content_digest, read_shard, shard_path, write_shard

TINY = dict(env="otys_v0", players=[2, 3], games=24, shard_games=6, positions=4,
            mixture={"greedy": 1.0, "explore": 1.0})


def digests(folder):
    return {k: v["digest"] for k, v in json.loads((folder / "manifest.json").read_text())
            ["shards"].items()}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny value-data run and a model fitted on it."""
    folder = tmp_path_factory.mktemp("values") / "data"
    summary = generate(ValueDataConfig(**TINY), folder, progress=False)
    model = fit_and_export([folder], folder.parent / "model" / "otys_value",
                           ValueFitConfig(hidden=[8], epochs=2, batch=64), progress=False)
    return folder, model, summary


def test_a_run_keeps_every_seat_at_each_sampled_position_with_its_outcome(run):
    folder, _, summary = run
    assert summary["games"] == 24 and summary["positions"] == 24 * 4
    rows = load_rows(folder)
    assert len(rows["win"]) == summary["rows"] == 12 * 4 * 2 + 12 * 4 * 3
    for g in np.unique(rows["game"]):  # each game's rows: its win shares sum to 1 a position
        at = rows["game"] == g
        n = int(rows["players"][at][0])
        shares = rows["win"][at].reshape(-1, n)
        assert np.allclose(shares.sum(axis=1), 1.0) and (shares == shares[0]).all()
        assert rows["acting"][at].reshape(-1, n).sum(axis=1).tolist() == [1] * len(shares)
        margins = rows["margin"][at].reshape(-1, n)[0]
        assert (margins >= 0).sum() >= 1  # the leader's margin over its best rival
    assert rows["progress"].min() >= 0 and rows["progress"].max() < 1


def test_win_shares_split_a_tie():
    assert win_shares([1], 3) == [0.0, 1.0, 0.0]
    assert win_shares([0, 2], 3) == [0.5, 0.0, 0.5]
    assert win_shares([], 2) == [0.0, 0.0]


def test_one_worker_or_two_write_the_same_shards(run, tmp_path):
    folder, _, _ = run
    generate(ValueDataConfig(**TINY), tmp_path / "two", workers=2, progress=False)
    assert digests(tmp_path / "two") == digests(folder)


def test_an_interrupted_run_resumes_to_the_same_shards(run, tmp_path):
    folder, _, _ = run
    cut = tmp_path / "cut"
    shutil.copytree(folder, cut)
    manifest = json.loads((cut / "manifest.json").read_text())
    del manifest["shards"]["3"]  # killed before shard 3 was recorded; shard 2 half-written
    (cut / "manifest.json").write_text(json.dumps(manifest))
    shard_path(cut, 3).unlink()
    shard_path(cut, 2).write_bytes(b"PK\x03\x04 torn")
    manifest["shards"]["2"]["digest"] = "0" * 64
    (cut / "manifest.json").write_text(json.dumps(manifest))
    with pytest.warns(UserWarning, match="shard 2 is played again"):
        summary = generate(ValueDataConfig(**TINY), cut, progress=False)
    assert summary["played_now"] == 2 and digests(cut) == digests(folder)


def test_a_run_of_another_config_is_refused(run):
    folder, _, _ = run
    with pytest.raises(ConfigError, match="another config"):
        generate(ValueDataConfig(**{**TINY, "seed": 1}), folder, progress=False)


def test_a_manifest_that_is_not_one_is_a_one_line_error_and_its_counts_come_from_shards(
        run, tmp_path):
    """Found by tests/attacks/run_folder_attack.py: a manifest without its config was a KeyError,
    and a shard's entry was believed as written (its rows, a stray shard of no task)."""
    folder, _, summary = run
    for change in (lambda m: m.pop("config"), lambda m: m.update(config=[1]),
                   lambda m: m["shards"].update({"0": [1]}),
                   lambda m: m["shards"].update({"x": m["shards"]["0"]}),
                   lambda m: m["shards"]["0"].update(rows="8"),
                   lambda m: m["shards"]["0"].pop("digest")):
        copy = tmp_path / f"c{len(list(tmp_path.iterdir()))}"
        shutil.copytree(folder, copy)
        manifest = json.loads((copy / "manifest.json").read_text())
        change(manifest)
        (copy / "manifest.json").write_text(json.dumps(manifest))
        for read in (lambda c: generate(ValueDataConfig(**TINY), c, progress=False),
                     load_rows):
            with pytest.raises(StateError, match="manifest") as caught:
                read(copy)
            assert "\n" not in str(caught.value)
    copy = tmp_path / "counts"
    shutil.copytree(folder, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["shards"]["0"]["rows"] = 10**9  # a count no shard holds
    manifest["shards"]["99"] = manifest["shards"]["1"]  # a shard of no task
    (copy / "manifest.json").write_text(json.dumps(manifest))
    again = generate(ValueDataConfig(**TINY), copy, progress=False)
    assert again["rows"] == summary["rows"] and again["games"] == summary["games"]
    assert json.loads((copy / "manifest.json").read_text()) == json.loads(
        (folder / "manifest.json").read_text())


def test_a_tampered_label_is_refused_even_with_a_matching_digest(run, tmp_path):
    folder, _, _ = run
    task = shard_tasks(ValueDataConfig(**TINY))[0]
    arrays = read_shard(shard_path(folder, 0))
    verify_shard(task, arrays)  # the real shard passes
    for key, change in (("win", lambda a: 1.0 - a), ("obs", lambda a: a + 1.0),
                        ("actions", lambda a: a[::-1].copy()), ("steps", lambda a: a + 1)):
        bad = dict(arrays)
        bad[key] = change(arrays[key])
        with pytest.raises(StateError):
            verify_shard(task, bad)
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    bad = dict(arrays, win=1.0 - arrays["win"])
    write_shard(shard_path(copy, 0), bad)  # the digest in the manifest now differs
    with pytest.raises(StateError, match="digest"):
        load_rows(copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["shards"]["0"]["digest"] = content_digest(bad)  # and a self-consistent manifest
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StateError, match="'win' rows"):
        load_rows(copy)


def test_a_shard_that_would_unpack_too_large_or_is_not_numpy_is_refused(run, tmp_path):
    folder, _, _ = run
    with pytest.raises(StateError, match="would unpack"):
        read_shard(shard_path(folder, 0), max_bytes=1000)
    (tmp_path / "x.npz").write_bytes(b"not a zip")
    with pytest.raises(StateError, match="not a value-data shard"):
        read_shard(tmp_path / "x.npz")
    np.savez(tmp_path / "p.npz", obs=np.array([{"a": 1}], dtype=object))
    with pytest.raises(StateError):  # object arrays would need pickle: refused
        read_shard(tmp_path / "p.npz")


def test_a_shard_broken_anywhere_is_a_state_error(run, tmp_path):
    """Found by tests/attacks/run_folder_attack.py: a shard whose compressed bytes were broken
    raised zlib's own error; a byte changed anywhere is now the reader's StateError."""
    folder, _, _ = run
    data = shard_path(folder, 0).read_bytes()
    for at in range(0, len(data), max(1, len(data) // 60)):
        broken = tmp_path / f"s{at}.npz"
        broken.write_bytes(data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1:])
        try:
            read_shard(broken)
        except StateError:
            pass  # the reader's one error (a change it cannot see fails the digest later)


def test_bad_configs_are_clear_errors():
    for bad, named in (({"players": [1]}, "num_players"), ({"mixture": {"smart": 1.0}}, "smart"),
                       ({"mixture": {"greedy": 0.0}}, "weight"), ({"games": 0}, "games"),
                       ({"config": {"num_players": 2}}, "players"), ({"colour": 1}, "colour")):
        with pytest.raises((ConfigError, ValueError), match=named):
            ValueDataConfig(**{**TINY, **bad})


def test_the_split_is_by_game(run):
    rows = load_rows(run[0])
    masks = split(rows)
    assert sum(m.sum() for m in masks.values()) == len(rows["game"])
    for name, mask in masks.items():
        others = np.logical_or.reduce([m for k, m in masks.items() if k != name])
        assert not set(rows["game"][mask]) & set(rows["game"][others])


def test_the_exported_model_loads_without_code_and_matches_its_fit(run, tmp_path):
    _, model_path, _ = run
    env = envs.make("otys_v0", num_players=2)
    model = load_value_model(model_path, env)
    rows = load_rows(run[0])
    p = model.win(rows["obs"][:7])
    assert p.shape == (7,) and ((p > 0) & (p < 1)).all()
    one = np.array([model.win(row) for row in rows["obs"][:7]])  # the sparse one-row path
    assert np.allclose(one, p, atol=1e-6)
    with pytest.raises(ConfigError, match="fitted for env_id"):
        load_value_model(model_path, envs.make("oceanos_v0", num_players=2))
    copy = tmp_path / "m"
    shutil.copytree(model_path.parent, copy)
    weights = copy / "otys_value.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="do not match"):
        load_value_model(copy / "otys_value.json", env)
    manifest = json.loads((copy / "otys_value.json").read_text())
    manifest["hidden"] = [9]
    (copy / "otys_value.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError):
        load_value_model(copy / "otys_value.json", env)


def test_the_fit_device_is_where_it_runs_not_what_it_makes(run, tmp_path, monkeypatch):
    """device: auto on a machine without CUDA fits on the CPU, to the same bytes and the
    same manifest's fit settings; cuda where torch sees none is a one-line error."""
    import torch

    auto = fit_and_export([run[0]], tmp_path / "auto" / "otys_value",
                          ValueFitConfig(hidden=[8], epochs=2, batch=64, device="auto"),
                          progress=False)
    if not torch.cuda.is_available():
        assert (auto.with_suffix(".safetensors").read_bytes()
                == run[1].with_suffix(".safetensors").read_bytes())
        made = [json.loads(p.read_text())["made"] for p in (auto, run[1])]
        assert made[0]["fit"] == made[1]["fit"] and "device" not in made[0]["fit"]
        assert made[0]["log"]["device"] == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match="value fit device is cuda"):
        fit_and_export([run[0]], tmp_path / "cuda" / "otys_value",
                       ValueFitConfig(hidden=[8], epochs=2, batch=64, device="cuda"),
                       progress=False)


def test_a_model_is_refused_at_a_player_count_its_data_never_held(run):
    """The tiny model learned 2- and 3-player games: at 4 players the value agent and the
    value-leaf search refuse it in one line; the gate may still measure it there."""
    _, model_path, _ = run
    assert load_value_model(model_path, envs.make("otys_v0", num_players=3)).manifest.made[
        "players"] == [2, 3]
    four = envs.make("otys_v0", num_players=4)
    for load in (lambda: load_value_model(model_path, four),
                 lambda: agents.make(f"value:{model_path}", four),
                 lambda: agents.make(f"mcts:leaf=value,value={model_path}", four)):
        with pytest.raises(ConfigError, match="games of 2, 3 players only, this game has 4"):
            load()
    assert load_value_model(model_path, four, any_players=True).win(
        np.zeros(four.unwrapped.game.info.observation_size, np.float32)).shape == ()


def test_gate_metrics_on_known_answers():
    label = np.array([False, False, True, True])
    assert auc(np.array([0.1, 0.2, 0.3, 0.4]), label) == 1.0
    assert auc(np.array([0.4, 0.3, 0.2, 0.1]), label) == 0.0
    assert auc(np.array([0.5, 0.5, 0.5, 0.5]), label) == 0.5
    assert brier(np.array([1.0, 0.0]), np.array([1.0, 1.0])) == 0.5
    assert log_loss(np.array([0.5]), np.array([1.0])) == pytest.approx(np.log(2))
    rng = np.random.default_rng(0)
    x = rng.normal(size=20000)
    y = (rng.random(20000) < 1 / (1 + np.exp(-(2.0 * x - 0.5)))).astype(float)
    a, b = logistic_1d(x, y)
    assert a == pytest.approx(2.0, abs=0.1) and b == pytest.approx(-0.5, abs=0.1)


def test_the_gate_reports_every_quarter_and_writes_its_files(run, tmp_path):
    folder, model_path, _ = run
    result = write_gate([folder], model_path, tmp_path / "gate")
    assert {(e["players"], e["quarter"]) for e in result["table"]} <= {
        (n, q) for n in (2, 3) for q in (1, 2, 3, 4)}
    assert isinstance(result["passes"], bool)
    for name in ("gate.json", "gate.md", "reliability.png"):
        assert (tmp_path / "gate" / name).stat().st_size > 0
    rows = load_rows(folder)
    perfect = type("Oracle", (), {"win": staticmethod(lambda obs: np.zeros(len(obs)))})
    zero = gate(rows, perfect, 5.0)
    assert all(e["model"]["auc"] in (0.5,) or np.isnan(e["model"]["auc"]) for e in zero["table"])


@pytest.mark.parametrize("spec", ["value:{m}", "value:{m},top=2,margin=0.05,worlds=3,depth=4",
                                  "value:{m},depth=2,judge=turn",
                                  # a network (here a hinted one) ranks the candidates
                                  "value:{m},net=agents/pretrained/otys_ppo.json",
                                  "mcts:iterations=6,crn=1,top=3,depth=2,leaf=value,value={m}",
                                  "mcts:iterations=8,crn=1,top=4,depth=0,leaf=value,value={m},"
                                  "halving=1"])
def test_agents_with_the_model_play_legal_games_and_see_only_their_seat(run, spec):
    env = envs.make("otys_v0", num_players=2)
    agent = agents.make(spec.format(m=run[1]), env)
    assert check_search_sees_only_its_seat(env, agent, every=25, max_step=150) > 1
    env.reset(seed=1)
    players = [agent, agents.make("greedy", env)]
    for k, p in enumerate(players):
        p.reset(k)
    assert play_seated(env, players) > 0  # an illegal move would raise in the env
    assert env.unwrapped.state_.is_terminal()


def test_value_options_are_checked():
    env = envs.make("otys_v0", num_players=2)
    for spec, named in (("mcts:leaf=value", "value=PATH"), ("mcts:value=x.json", "value=PATH"),
                        ("mcts:leaf=value,value=x.json,depth=-1", "depth"),
                        ("mcts:halving=1,crn=0", "crn=1"), ("value:", "value:PATH"),
                        ("value:x.json,top=0", "top"), ("value:x.json,speed=2", "speed"),
                        ("value:x.json,net=", "net"), ("value:x.json,worlds=0", "worlds"),
                        ("value:x.json,depth=-1", "depth"),
                        ("value:x.json,judge=some", "judge"),
                        ("value:missing.json", "does not exist")):
        with pytest.raises(ConfigError, match=named):
            agents.make(spec, env)


def test_a_run_killed_by_sigkill_resumes_to_the_same_shards(run, tmp_path):
    """The engine killed (SIGKILL) after its first shards, then resumed from the
    command line: the same shards as the uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import yaml

    folder, _, _ = run
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({"kind": "value_data", **TINY}))
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "otrio.cli", "value", "data", str(config), "--output",
               str(out), "--quiet"]
    proc = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": os.getcwd()})
    deadline = time.monotonic() + 120
    while not shard_path(out, 1).exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
                   capture_output=True)
    assert digests(out) == digests(folder)


def test_seats_of_the_value_agent_play_and_a_refitted_model_is_another_run(run, tmp_path):
    _, model_path, _ = run
    model = tmp_path / "m" / "v.json"
    shutil.copytree(model_path.parent, model.parent)
    (model.parent / "otys_value.json").rename(model)
    (model.parent / "otys_value.safetensors").rename(model.with_suffix(".safetensors"))
    manifest = json.loads(model.read_text())
    manifest["weights"]["file"] = "v.safetensors"
    model.write_text(json.dumps(manifest))
    cfg = ValueDataConfig(**{**TINY, "players": [2], "games": 2, "shard_games": 2,
                             "mixture": {f"value:{model}": 1.0, "greedy": 1.0}})
    generate(cfg, tmp_path / "r2", progress=False)
    assert len(load_rows(tmp_path / "r2")["win"]) == 2 * 4 * 2
    manifest["made"] = {"fitted": "again"}
    model.write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="other value models"):
        generate(cfg, tmp_path / "r2", progress=False)


def test_one_command_makes_the_data_fits_and_judges_and_resumes(tmp_path):
    """``otrio value all``: data, fit and gate in one folder; a second start resumes the
    data (nothing replayed anew) and refits the same model."""
    from otrio.training.value_pipeline import run_all

    fit = ValueFitConfig(hidden=[], epochs=2, batch=64)
    first = run_all(ValueDataConfig(**TINY), fit, tmp_path / "all", progress=False)
    assert first["model"] == tmp_path / "all" / "model.json"
    assert (tmp_path / "all" / "gate" / "gate.md").stat().st_size > 0
    assert first["data"]["games"] == TINY["games"]
    weights = (tmp_path / "all" / "model.safetensors").read_bytes()
    before = digests(tmp_path / "all" / "data")
    again = run_all(ValueDataConfig(**TINY), fit, tmp_path / "all", progress=False)
    assert digests(tmp_path / "all" / "data") == before
    assert (tmp_path / "all" / "model.safetensors").read_bytes() == weights
    assert again["gate"]["table"] == first["gate"]["table"]


def test_a_run_too_big_for_memory_is_refused_before_it_is_read(run, monkeypatch):
    """The bound is checked from the manifest's counts: nothing is read, and the error
    says how to read less."""
    from otrio.training import value_data

    folder, _, _ = run
    everything = load_rows(folder, verify=False)
    size = sum(a.nbytes for a in everything.values())
    assert value_data.row_bytes(ValueDataConfig(**TINY)) * len(everything["win"]) == size

    def no_read(path):
        raise AssertionError(f"read {path}")

    monkeypatch.setattr(value_data, "read_shard", no_read)
    with pytest.raises(ConfigError, match="max_games"):
        load_rows(folder, verify=False, max_bytes=size - 1)
    monkeypatch.undo()
    first = load_rows(folder, verify=False, max_games=12)  # the first two shards: 2p, 3p
    assert sorted(np.unique(first["game"]).tolist()) == list(range(12))
    assert set(np.unique(first["players"]).tolist()) == {2, 3}


def test_with_a_network_and_no_room_to_overrule_the_agent_plays_the_networks_favourite(run):
    """``net=``: the network's favourite is the candidate kept unless the model is sure
    (margin 1: never), so the agent plays the network's argmax over the legal moves."""
    from otrio.agents.net import load_net

    env = envs.make("oceanos_v0", num_players=2)
    data = run[0].parent / "oceanos"
    generate(ValueDataConfig(env="oceanos_v0", players=[2], games=10, shard_games=10,
                             positions=4), data, progress=False)
    model = fit_and_export([data], data.parent / "oceanos_model",
                           ValueFitConfig(hidden=[], epochs=1, batch=64), progress=False)
    net_path = "agents/pretrained/oceanos_net.json"
    agent = agents.make(f"value:{model},margin=1,net={net_path}", env)
    net, _ = load_net(net_path, env)
    agent.reset(0)
    env.reset(seed=3)
    checked = 0
    for name in env.agent_iter(max_iter=120):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = agent.act(obs)
        if len(legal) > 1 and name == env.possible_agents[0]:
            logits = net.logits(obs["observation"])
            assert action == legal[np.argmax(logits[legal])]
            checked += 1
        env.step(action)
    assert checked > 5


def test_a_network_seats_in_the_mixture_and_is_part_of_the_runs_identity(tmp_path):
    from otrio.training.value_data import model_digests

    cfg = ValueDataConfig(env="oceanos_v0", players=[2], games=6, shard_games=6, positions=4,
                          mixture={"net:agents/pretrained/oceanos_net.json": 1.0,
                                   "greedy": 1.0})
    summary = generate(cfg, tmp_path / "nets", progress=False)
    assert summary["games"] == 6
    assert set(model_digests(cfg)) == {"net:agents/pretrained/oceanos_net.json"}
    with pytest.raises(ValueError, match="net:PATH"):
        ValueDataConfig(env="oceanos_v0", mixture={"nett:x": 1.0})


def test_more_worlds_average_the_chances_of_the_same_candidates(run):
    """worlds=W judges every candidate in each of W re-drawn worlds and averages: the
    mean of W one-world judgements made from the same generator's draws."""
    from otrio.agents.value_agent import ValueAgent

    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=3)
    one, three = (ValueAgent(env, f"{run[1]},worlds={w}") for w in (1, 3))
    state = env.unwrapped.state_
    seat = state.current_player()
    ranked = one._ranked(state, seat, state.legal_actions())[:3]
    rng = np.random.default_rng(5)
    mean = np.mean([one._judge(one.game.resample_hidden(state, seat, rng), seat, ranked, 0)
                    for _ in range(3)], axis=0)
    best = int(np.argmax(mean))
    expected = ranked[best] if mean[best] > mean[0] + three.margin else ranked[0]
    assert three.choose_state(state, seat, state.legal_actions(),
                              np.random.default_rng(5)) == expected


def _play_seat0_against_greedy(env, seed: int, move) -> None:
    """Play one game of ``env`` (2 seats): seat 0 by ``move(obs, legal, first)``, where
    ``first`` says the decision is the first of seat 0's turn, seat 1 by greedy."""
    other = agents.make("greedy", env)
    other.reset(1)
    env.reset(seed=seed)
    previous = None
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = move(obs, legal, previous != 0) if seat == 0 else other.act(obs)
        previous = seat
        env.step(action)


def _spy_on_judge(agent) -> list[int]:
    """The depth of each of ``agent``'s judgements, appended as it judges."""
    depths: list[int] = []
    judge = agent._judge
    agent._judge = lambda world, seat, ranked, depth: depths.append(depth) or judge(
        world, seat, ranked, depth)
    return depths


def test_judging_only_turn_starts_leaves_the_rest_of_the_turn_to_greedy(run):
    """judge=turn: the model judges only a seat's first decision after another seat's
    (or the game's first); at every other decision the agent plays greedy's favourite."""
    from otrio.agents.value_agent import ValueAgent

    env = envs.make("otys_v0", num_players=2)
    agent = ValueAgent(env, f"{run[1]},margin=0,judge=turn")
    judged = _spy_on_judge(agent)
    agent.reset(0)
    counts = {"starts": 0, "kept": 0}

    def move(obs, legal, first):
        before = len(judged)
        favourite = agent._ranked(env.unwrapped.state_, 0, legal)[0]
        action = agent.act(obs)
        if len(legal) > 1 and first:
            counts["starts"] += 1
            assert len(judged) == before + 1
        elif len(legal) > 1:
            counts["kept"] += 1
            assert len(judged) == before and action == favourite
        return action

    _play_seat0_against_greedy(env, 4, move)
    assert counts["starts"] > 5 and counts["kept"] > 5


def test_mixed_judging_looks_further_only_at_turn_starts(run):
    """judge=mixed: every decision with a choice is judged, with the look-ahead (depth)
    at a turn's first decision only and none at the others."""
    from otrio.agents.value_agent import ValueAgent

    env = envs.make("otys_v0", num_players=2)
    agent = ValueAgent(env, f"{run[1]},depth=3,judge=mixed")
    depths = _spy_on_judge(agent)
    agent.reset(0)
    expected = []

    def move(obs, legal, first):
        if len(legal) > 1:
            expected.append(3 if first else 0)
        return agent.act(obs)

    _play_seat0_against_greedy(env, 6, move)
    assert depths == expected and 3 in depths and 0 in depths


def test_every_shipped_value_config_is_a_data_or_a_fit_config():
    """configs/values holds self-play configs (kind: value_data) and fit configs; each
    validates with its own loader (a fit config's unknown key is refused)."""
    from pathlib import Path

    from otrio.envs.core.config import load_yaml, validate

    kinds = {}
    for path in sorted((Path(__file__).parents[2] / "configs" / "values").glob("*.yaml")):
        raw = load_yaml(path)
        model = ValueDataConfig if raw.get("kind") == "value_data" else ValueFitConfig
        validate(model, raw)
        kinds[path.name] = model
    assert kinds["otys_gpu.yaml"] is ValueDataConfig and kinds["otys_fit_gpu.yaml"] is ValueFitConfig


def test_the_gate_command_reads_its_memory_bound_from_the_fit_config(run, tmp_path, capsys):
    """``otrio value gate MODEL DATA --config FIT`` takes the fit config's max_gib: a bound
    too small for the run is refused before anything is read; without it the gate runs."""
    from otrio.cli import main

    tiny = tmp_path / "fit.yaml"
    tiny.write_text("max_gib: 0.000001\n")
    args = ["value", "gate", str(run[1]), str(run[0]), "--output", str(tmp_path / "gate")]
    assert main([*args, "--config", str(tiny)]) != 0
    assert "GiB" in capsys.readouterr().err and not (tmp_path / "gate").exists()
    assert main(args) == 0 and (tmp_path / "gate" / "gate.md").exists()
