"""Replayable records: tournament and balance records replay exactly to what they
recorded; a tampered record is refused naming the step; records written before the
replay field still load for reports but are refused for replay."""

import json
import re

import pytest

from otrio.arena.records import RECORDS_FILE, load_record, read_records
from otrio.arena.replay import (
    DIGITS,
    ReplayError,
    action_width,
    decode_actions,
    encode_actions,
    record_actions,
    replay_record,
)
from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.balance.sweep import run as run_balance
from otrio.benchmarks.tournament.tournament import TournamentConfig, run, summarize
from otrio.envs.core.errors import StateError

GAMES = [
    ("oceanos_v0", {"num_players": 2}, ["greedy", "random"]),
    ("otys_v0", {"num_players": 2}, ["greedy", "random"]),
    ("otontin_v0", {"num_players": 3}, ["greedy", "random", "random"]),
]


def tournament(folder, game, game_config, lineup, games=1):
    return TournamentConfig(game=game, game_config=game_config,
                            agents={"greedy": "greedy", "random": "random"}, lineup=lineup,
                            games_per_seating=games, seed=3, output=str(folder))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A tiny tournament of every game: its folder and its records."""
    out = {}
    for game, game_config, lineup in GAMES:
        folder = tmp_path_factory.mktemp(game)
        run(tournament(folder, game, game_config, lineup), progress=False)
        out[game] = (folder, read_records(folder / RECORDS_FILE))
    return out


@pytest.mark.parametrize("game", [g for g, _, _ in GAMES])
def test_every_record_replays_to_its_recorded_result(runs, game):
    folder, records = runs[game]
    for record in records:
        env_id, config, seed, actions = record_actions(record)
        assert (env_id, seed, len(actions)) == (game, record["seed"], record["decisions"])
        assert config == dict(GAMES[[g for g, _, _ in GAMES].index(game)][1])
        env = replay_record(record)
        state = env.unwrapped.state_
        assert list(state.scores()) == record["scores"]
        assert ([] if record["truncated"] else list(state.winners())) == record["winners"]
        assert load_record(folder, record["game"]) == record


def test_the_replay_field_costs_its_width_per_decision(runs):
    for game, (_, records) in runs.items():
        for record in records:
            field = record["replay"]
            width = field["width"]
            assert len(field["actions"]) == width * record["decisions"]
            fixed = len(json.dumps({**field, "actions": ""}))
            assert fixed < 120 + len(json.dumps(field["config"])), game


def test_encoding_round_trip_and_bad_digits():
    assert [action_width(n) for n in (1, 34, 64, 65, 207, 4096, 4097)] == [1, 1, 1, 2, 2, 2, 3]
    for width, top in ((1, 64), (2, 4096)):
        values = list(range(top))
        assert decode_actions(encode_actions(values, width), width) == values
    with pytest.raises(ValueError, match="does not fit"):
        encode_actions([64], 1)
    with pytest.raises(ReplayError, match="action 1 holds '!'"):
        decode_actions("A!", 1)
    with pytest.raises(ReplayError, match="not a multiple"):
        decode_actions("ABC", 2)
    assert len(DIGITS) == 64 and len(set(DIGITS)) == 64


def _with_actions(record, actions):
    field = record["replay"]
    return {**record, "replay": {**field, "actions": encode_actions(actions, field["width"])}}


def _legal_sets(record):
    legal = []
    replay_record(record, lambda step, env, action: legal.append(
        set(env.unwrapped.legal_actions()) if action is not None else set()))
    return legal


@pytest.mark.parametrize("game", [g for g, _, _ in GAMES])
def test_an_illegal_action_is_refused_naming_its_step(runs, game):
    record = runs[game][1][0]
    actions = record_actions(record)[3]
    legal = _legal_sets(record)
    num_actions = 64 ** record["replay"]["width"]
    step = next(k for k in range(len(actions)) if len(legal[k]) < min(num_actions, 34))
    bad = next(a for a in range(num_actions) if a not in legal[step])
    tampered = _with_actions(record, actions[:step] + [bad] + actions[step + 1:])
    with pytest.raises(ReplayError, match=rf"diverged at step {step}: action {bad} ") as err:
        replay_record(tampered)
    assert err.value.step == step
    assert isinstance(err.value, StateError)


@pytest.mark.parametrize("game", [g for g, _, _ in GAMES])
def test_missing_or_extra_actions_and_a_changed_score_are_refused(runs, game):
    record = runs[game][1][0]
    actions = record_actions(record)[3]
    n = len(actions)
    with pytest.raises(ReplayError, match=rf"step {n - 1}: the record's actions end there "
                                          r"but the game goes on"):
        replay_record(_with_actions(record, actions[:-1]))
    with pytest.raises(ReplayError, match=rf"step {n}: the game is already over"):
        replay_record(_with_actions(record, actions + [actions[-1]]))
    changed = {**record, "scores": [s + 1 for s in record["scores"]]}
    with pytest.raises(ReplayError, match=rf"at its end \(step {n}\): the replay gives scores"):
        replay_record(changed)
    other_seed = {**record, "seed": record["seed"] + 1}
    with pytest.raises(ReplayError, match="diverged"):
        replay_record(other_seed)


def test_old_records_load_for_reports_but_are_not_replayable(runs, tmp_path):
    game, game_config, lineup = GAMES[0]
    records = runs[game][1]
    folder = tmp_path / "old"
    folder.mkdir()
    old = [{k: v for k, v in r.items() if k != "replay"} for r in records]
    cfg = tournament(folder, game, game_config, lineup)
    (folder / "run.json").write_text(json.dumps(cfg.identity(), sort_keys=True))
    (folder / RECORDS_FILE).write_text("".join(json.dumps(r) + "\n" for r in old))
    with pytest.raises(StateError, match="line 1: keeps no actions .*resume with --verify "
                                         "sample to count it unchecked"):
        run(cfg, progress=False)  # every record is re-played by default: these cannot be
    run(cfg, progress=False, verify="sample")  # resumes: every game is recorded, so it only reports
    assert read_records(folder / RECORDS_FILE) == old
    assert (folder / "report.md").exists()
    assert summarize(old, 2)["games"] == len(old)
    with pytest.raises(ReplayError, match="recorded before records kept their actions"):
        replay_record(load_record(folder, old[0]["game"]))


def test_load_record_names_the_games_there(runs):
    folder, records = runs["oceanos_v0"]
    with pytest.raises(StateError, match=re.escape(f"has no game 99 (games recorded: 0..{len(records) - 1}")):
        load_record(folder, 99)
    with pytest.raises(StateError, match="holds no games.jsonl"):
        load_record(folder / "nowhere", 0)


def test_balance_records_replay(tmp_path):
    cfg = BalanceConfig(
        game="oceanos_v0",
        game_config={"num_players": 2, "kraken": {"mode": "fixed", "values": [0, -1, -2]}},
        agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random"],
        games_per_setup=2, seed=1, output=str(tmp_path / "run"),
        sweeps=[{"name": "kraken", "factors": [
            {"name": "small", "path": "kraken.values.0", "values": [0, -2]}]}])
    folder = run_balance(cfg, progress=False)
    records = read_records(folder / RECORDS_FILE)
    assert len(records) == 4
    configs = {json.dumps(r["replay"]["config"], sort_keys=True) for r in records}
    assert len(configs) == 2  # each setup's own config
    for record in records:
        replay_record(record)
