"""The front door (issue 55): your own agent in the suite's runs, matches and overrides
from the command line, tiers by name, the ladder, the value pipeline's smoke run, and
what each agent kind takes."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml

from otrio import agents, envs
from otrio.agents.base import Agent
from otrio.agents.custom import TRUST_ENV
from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.tournament.tournament import TournamentConfig
from otrio.benchmarks.tournament.tournament import run as run_tournament
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

MY_AGENT = textwrap.dedent('''
    import numpy as np
    from otrio.agents.base import Agent

    class FirstLegal(Agent):
        """Plays the lowest legal action id."""

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])
''')


def _user_folder(tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(MY_AGENT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_python_agent_plays_a_tournament_from_the_users_folder(tmp_path, monkeypatch, capsys):
    _user_folder(tmp_path, monkeypatch)
    monkeypatch.delenv(TRUST_ENV, raising=False)
    argv = ["tournament", "--game", "oceanos", "--agents", "python:my_agents:FirstLegal,greedy",
            "--games", "4", "--output", "out", "--quiet"]
    assert main(argv) == 2  # importing a module runs code: not without --trust-code
    assert "--trust-code" in capsys.readouterr().err
    assert main([*argv, "--trust-code"]) == 0
    records = read_records(tmp_path / "out" / RECORDS_FILE)
    assert len(records) == 4
    assert {name for r in records for name in r["seating"]} == {
        "python:my_agents:FirstLegal", "greedy"}


def test_a_registered_agent_plays_by_its_name(tmp_path):
    class Mine(Agent):
        def act(self, observation):
            return int(observation["action_mask"].nonzero()[0][-1])

    agents.register("mine_last", Mine)
    cfg = TournamentConfig(game="otys_v0", game_config={"num_players": 2},
                           agents={"mine": "mine_last", "greedy": "greedy"},
                           lineup=["mine", "greedy"], games_per_seating=1,
                           output=str(tmp_path / "run"))
    folder = run_tournament(cfg, progress=False)
    assert len(read_records(folder / RECORDS_FILE)) == 2
    for bad in ("greedy", "Not-A-Name", "mcts"):
        with pytest.raises(ConfigError, match="cannot register"):
            agents.register(bad, Mine)
    with pytest.raises(ConfigError, match="not an otrio Agent"):
        agents.register("plain_object", lambda env: object())
        agents.make("plain_object", envs.make("otys_v0", num_players=2))


def test_a_bad_python_spec_is_one_line(tmp_path, monkeypatch):
    _user_folder(tmp_path, monkeypatch)
    monkeypatch.setenv(TRUST_ENV, "1")
    env = envs.make("oceanos_v0", num_players=2)
    for spec, message in (("python:nope_module:X", "cannot import"),
                          ("python:my_agents:Missing", "no Agent subclass"),
                          ("python:os:system", "no Agent subclass"),
                          ("python:not a target", "is not python:MODULE:CLASS")):
        with pytest.raises(ConfigError, match=message):
            agents.make(spec, env)


def test_a_match_from_the_command_line_needs_no_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--game", "oceanos", "--agents", "greedy,random,random",
                 "--games", "5", "--seed", "9", "--quiet"]) == 0
    (folder,) = (tmp_path / "runs" / "tournament").iterdir()
    assert folder.name == "oceanos_3p_greedy_vs_random"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["games"] == 6  # 5 rounded up to a multiple of 3 seats
    assert json.loads((folder / "run.json").read_text())["seed"] == 9


def test_set_and_seed_change_a_config_and_a_bad_key_names_the_schema(tmp_path, monkeypatch,
                                                                     capsys):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "t.yaml"
    config.write_text(yaml.safe_dump({
        "game": "oceanos_v0", "game_config": {"num_players": 2},
        "agents": {"greedy": "greedy", "random": "random"}, "lineup": ["greedy", "random"],
        "games_per_seating": 1, "seed": 0, "output": "t_out"}))
    assert main(["tournament", str(config), "--seed", "4", "--set", "games_per_seating=2",
                 "--set", "agents.random=mcts:iterations=2,depth=2", "--quiet"]) == 0
    saved = json.loads((tmp_path / "t_out" / "run.json").read_text())
    assert saved["seed"] == 4 and saved["games_per_seating"] == 2
    assert saved["agents"]["random"] == "mcts:iterations=2,depth=2"
    capsys.readouterr()
    assert main(["tournament", str(config), "--set", "nonsense=1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nonsense" in err and "TournamentConfig" in err
    assert main(["tournament", str(config), "--set", "seed", "--quiet"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["balance", "configs/balance/tiers_demo.yaml"],
    ["skill-ceiling", "configs/balance/skill_ceiling.yaml"],
    ["train", "configs/train/oceanos_ppo.yaml"],
    ["value", "data", "configs/values/otys.yaml"],
])
def test_every_yaml_command_takes_set_and_seed_validated_like_its_file(argv, capsys):
    """A key the config's schema does not know is refused before anything runs."""
    assert main([*argv, "--seed", "3", "--set", "no_such_key=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no_such_key" in err, err


def test_a_match_may_say_its_player_count_and_a_wrong_one_is_one_line(tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.chdir(tmp_path)
    match = ["tournament", "--game", "oceanos", "--agents", "greedy,random,random",
             "--games", "3", "--quiet"]
    assert main([*match, "--players", "2", "--output", "a"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--players 2" in err and "names 3" in err, err
    assert not (tmp_path / "a").exists()
    assert main([*match, "--players", "3", "--output", "b"]) == 0
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["games"] == 3


def test_tiers_resolve_in_a_match_and_the_ladder_rates_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--game", "otontin", "--agents", "fast,greedy,greedy",
                 "--games", "3", "--output", "m", "--quiet"]) == 0
    assert json.loads((tmp_path / "m" / "run.json").read_text())["checkpoints"]["zoo"]
    assert main(["ladder", "oceanos", "--players", "2", "--tiers", "random,greedy",
                 "--agents", "mcts:iterations=2,depth=2", "--games", "2", "--quiet"]) == 0
    summary = json.loads((tmp_path / "runs" / "ladder" / "oceanos_2p" / "summary.json")
                         .read_text())
    assert {r["agent"] for r in summary["leaderboard"]} == {
        "random", "greedy", "mcts:iterations=2,depth=2"}
    assert summary["games"] == 6  # three pairs, two games each


def test_a_ladder_against_greedy_seats_each_tier_once_among_greedy(tmp_path, monkeypatch,
                                                                   capsys):
    """``--against greedy``: each tier in one seat among greedy players only (the zoo's
    measurement), each tier written as the zoo's spec, a tier that is another's player
    left off with a line, and each lineup's share in the summary and the report."""
    from otrio.agents.zoo import load_zoo

    monkeypatch.chdir(tmp_path)
    assert main(["ladder", "otys", "--players", "3", "--tiers", "random,fast,strong",
                 "--against", "greedy", "--games", "3", "--output", "z", "--quiet"]) == 0
    out, err = capsys.readouterr()
    run = json.loads((tmp_path / "z" / "run.json").read_text())
    fast, _ = load_zoo().resolve("fast", "otys", 3)
    strong, _ = load_zoo().resolve("strong", "otys", 3)
    assert run["agents"] == {"greedy": "greedy", "random": "random", "fast": fast,
                             "strong": strong}
    assert run["lineups"] == [[name, "greedy", "greedy"] for name in ("random", "fast", "strong")]
    summary = json.loads((tmp_path / "z" / "summary.json").read_text())
    assert [(r["one"], r["games"], r["seats"]) for r in summary["lineups"]] == [
        (name, 3, {name: 1, "greedy": 2}) for name in ("random", "fast", "strong")]
    row = summary["lineups"][1]["agents"]["fast"]
    assert row["entries"] == 3 and row["win_rate"] == row["wins"] / 3
    assert "| fast + 2 x greedy | fast | 3 |" in out
    # at 2 players Otys' strong tier is its fast player: left off, and said so
    assert main(["ladder", "otys", "--players", "2", "--tiers", "fast,strong",
                 "--against", "greedy", "--games", "2", "--output", "y", "--quiet"]) == 0
    assert "strong left off: strong is fast here" in capsys.readouterr().err
    assert main(["ladder", "otys", "--players", "2", "--tiers", "greedy,fast", "--agents",
                 load_zoo().resolve("fast", "otys", 2)[0],
                 "--against", "greedy", "--games", "2", "--output", "w", "--quiet"]) == 0
    assert "left off: the same player as fast" in capsys.readouterr().err
    assert json.loads((tmp_path / "y" / "run.json").read_text())["lineups"] == [
        ["fast", "greedy"]]


def test_the_value_pipeline_has_a_smoke_run_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # an empty folder: the shipped config is looked up
    assert main(["value", "all", "configs/values/otys.yaml", "--smoke", "--quiet"]) == 0
    out = tmp_path / "runs" / "values" / "otys_all_smoke"
    assert (out / "model.json").is_file() and (out / "gate" / "gate.json").is_file()
    manifest = json.loads((out / "data" / "manifest.json").read_text())
    assert manifest["config"]["games"] <= 12


def test_describe_prints_every_option_of_a_kind(capsys):
    assert main(["agents", "--describe", "value"]) == 0
    out = capsys.readouterr().out
    for option in ("top", "margin", "net", "worlds", "depth", "judge"):
        assert f"`{option}`" in out
    assert main(["agents", "--describe", "mcts"]) == 0
    assert "`iterations`" in capsys.readouterr().out
    assert main(["agents", "--describe", "chess"]) == 2
    assert main(["agents", "otys", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "| 2 | fast |" in out and "| 2 | search |" in out
