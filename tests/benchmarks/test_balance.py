"""Balance sweeps end to end: setups, seeds, tags, outputs, resume, parallel equality,
shipped configs and errors raised before any game."""

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.balance.config import BalanceConfig, load_config
from otrio.benchmarks.balance.sweep import build_setups, build_tasks, run
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "balance"
KRAKEN = [
    {"name": "small", "path": "kraken.values.0", "values": [0, -2]},
    {"name": "medium", "path": "kraken.values.1", "values": [-1]},
    {"name": "big", "path": "kraken.values.2", "values": [-2, -4]},
]


def config(tmp_path, **kw) -> BalanceConfig:
    base = dict(
        game="oceanos_v0", game_config={"num_players": 3, "kraken": {"mode": "fixed"}},
        agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random", "random"],
        games_per_setup=6, seed=5, sweeps=[{"name": "kraken", "factors": KRAKEN}],
        output=str(tmp_path / "run"),
    )
    base.update(kw)
    return BalanceConfig(**base)


def strip(records):
    return [{k: v for k, v in r.items() if k != "wall_time"} for r in records]


def test_setups_features_seats_and_seeds(tmp_path):
    cfg = config(tmp_path, games_per_setup=7)  # rounded up to 9: every rotation equally often
    setups = build_setups(cfg)
    assert [s.label for s in setups] == ["0 -1 -2", "0 -1 -4", "-2 -1 -2", "-2 -1 -4"]
    assert setups[3].config["kraken"] == {"mode": "fixed", "values": [-2, -1, -4]}
    assert setups[3].features == {"small": -2.0, "medium": -1.0, "big": -4.0}
    assert all(s.games == 9 for s in setups)
    tasks = build_tasks(cfg, setups)
    assert [t.game for t in tasks] == list(range(36))
    first = [t for t in tasks if t.tags["setup_index"] == 0]
    assert [Counter(t.seating[s] for t in first) for s in range(3)] == [
        {"greedy": 3, "random": 6}] * 3
    seeds = [t.seed for t in tasks]
    assert len(set(seeds)) == len(seeds)
    again = build_tasks(config(tmp_path, sweeps=[{"name": "kraken", "factors": KRAKEN},
                                                 {"name": "extra", "factors": KRAKEN[:1]}]),
                        build_setups(cfg))
    assert [t.seed for t in again] == seeds  # seeds depend on sweep, setup and game only
    assert tasks[0].tags["features"] == {"small": 0.0, "medium": -1.0, "big": -2.0}


def test_categorical_and_position_codings(tmp_path):
    cfg = config(tmp_path, sweeps=[{"name": "p", "fill_lineup": True,
                                    "game_config": {"kraken": {"mode": "random"}}, "factors": [
        {"name": "players", "path": "num_players", "values": [2, 3], "coding": "categorical"}]}])
    setups = build_setups(cfg)
    assert [s.lineup for s in setups] == [("greedy", "random"), ("greedy", "random", "random")]
    assert setups[1].features == {"players=3": 1.0}
    from otrio.benchmarks.balance.config import Factor
    from otrio.benchmarks.balance.sweep import factor_features

    order = Factor(name="order", path="sponsors.order", permutations_of=[1, 2, 3])
    assert len(order.levels()) == 6 and order.resolved_coding() == "position"
    assert factor_features(order, [3, 1, 2]) == {"order[3]": 1.0, "order[1]": 2.0, "order[2]": 3.0}


def test_tiny_sweep_end_to_end(tmp_path):
    folder = run(config(tmp_path), progress=False)
    for name in ("report.md", "summary.json", "results.csv", "effects.csv", "setups.json",
                 "heatmap_kraken.png", "effects_kraken_3p.png", "run.json", RECORDS_FILE):
        assert (folder / name).exists(), name
    records = read_records(folder / RECORDS_FILE)
    assert len(records) == 24
    assert {r["setup"] for r in records} == {"0 -1 -2", "0 -1 -4", "-2 -1 -2", "-2 -1 -4"}
    assert all(r["summary"]["kraken"] == [r["features"][k] for k in ("small", "medium", "big")]
               for r in records)
    rows = list(csv.DictReader((folder / "results.csv").open()))
    shares = [r for r in rows if r["measure"] == "win_share" and r["setup"] == "0 -1 -4"]
    assert len(shares) == 3 and abs(sum(float(r["value"]) for r in shares) - 1) < 1e-4
    assert {r["measure"] for r in rows} >= {"metric:kraken_loss", "metric:eyes_avoided",
                                            "uniformity_p_holm", "agent_win_share", "margin_mean"}
    effects = list(csv.DictReader((folder / "effects.csv").open()))
    assert {e["feature"] for e in effects} == {"small", "big"}  # medium is constant: aliased
    report = (folder / "report.md").read_text()
    assert "`greedy` = `greedy`, `random` = `random`" in report
    assert "holds for these agents" in report and "## Power" in report
    assert "Not estimable in this design" in report and "medium" in report


def test_resume_after_interruption_gives_the_same_records(tmp_path):
    full = run(config(tmp_path, output=str(tmp_path / "full")), progress=False)
    expected = strip(read_records(full / RECORDS_FILE))
    part = tmp_path / "part"
    part.mkdir()
    cfg = config(tmp_path, output=str(part))
    (part / "run.json").write_text(json.dumps(cfg.identity()))
    lines = (full / RECORDS_FILE).read_text().splitlines(keepends=True)
    (part / RECORDS_FILE).write_text("".join(lines[:7]) + lines[7][:30])  # torn 8th record
    run(cfg, progress=False)
    records = read_records(part / RECORDS_FILE)
    assert strip(records) == expected
    # the session that played the first 7 games was killed before it timed itself: the
    # report counts all 24 games, their own play time summed, and says which part the
    # clock of a finished session covers (issue 38: it said "17 games in 1 s")
    play = sum(r["wall_time"] for r in records)
    play = f"{play:.1f}" if play < 10 else f"{play:.0f}"
    report = (part / "report.md").read_text()
    assert (f"24 games over 4 setups, seats rotated through the lineup, master seed 5. "
            f"Time: 24 games took {play} s of play (each game's own wall time, summed; "
            "on several workers the clock ran shorter); clock time of the sessions that ran "
            "to their end: 17 games in ") in report, report
    assert ("7 games were played by sessions stopped before they timed themselves, so only "
            "their play time is known.") in report
    assert "Resumed: 7 recorded games checked, every one re-played through the engine" in report
    with pytest.raises(ConfigError, match="differs in: seed"):
        run(config(tmp_path, output=str(part), seed=6), progress=False)


def _same_outputs(a: Path, b: Path) -> None:
    assert strip(read_records(a / RECORDS_FILE)) == strip(read_records(b / RECORDS_FILE))
    for name in ("results.csv", "effects.csv", "summary.json"):
        assert (a / name).read_text() == (b / name).read_text(), name


def test_one_and_two_workers_give_identical_results(tmp_path):
    one = run(config(tmp_path, output=str(tmp_path / "w1")), progress=False)
    two = run(config(tmp_path, output=str(tmp_path / "w2"), workers=2), progress=False)
    _same_outputs(one, two)


def test_ray_backend_gives_identical_results(tmp_path):
    import ray  # in the dev extra: the test starts a local Ray instance

    assert not ray.is_initialized()
    local = run(config(tmp_path, output=str(tmp_path / "local"), games_per_setup=3),
                progress=False)
    remote = run(config(tmp_path, output=str(tmp_path / "ray"), games_per_setup=3,
                        backend="ray", workers=2), progress=False)
    _same_outputs(local, remote)


def test_cli_runs_a_config_with_overrides(tmp_path, capsys):
    path = tmp_path / "b.yaml"
    path.write_text(
        "game: oceanos_v0\ngame_config: {num_players: 2}\nagents: {r: random}\nlineup: [r]\n"
        "fill_lineup: true\nsweeps:\n  - name: tw\n    games_per_setup: 500\n    factors:\n"
        "      - {name: troubled_waters, path: troubled_waters, values: [false]}\n"
        "      - {name: two_player_variant, path: two_player_variant, values: [false]}\n"
    )
    out = tmp_path / "out"
    assert main(["balance", str(path), "--games-per-setup", "4", "--output", str(out),
                 "--quiet"]) == 0
    assert len(read_records(out / RECORDS_FILE)) == 4  # the override replaced the sweep's 500
    assert "report.md" in capsys.readouterr().out


def test_shipped_configs_build_their_setups():
    kraken = build_setups(load_config(CONFIGS / "oceanos_kraken.yaml"))
    assert len(kraken) == 27 and len({tuple(s.config["kraken"]["values"]) for s in kraken}) == 27
    otys = build_setups(load_config(CONFIGS / "otys_sponsors.yaml"))
    sides = [s for s in otys if s.sweep == "sides"]
    orders = [s for s in otys if s.sweep == "orders"]
    assert len(sides) == 32 and len({tuple(s.config["sponsors"]["sides"]) for s in sides}) == 32
    assert all(s.config["sponsors"]["order"] == [1, 2, 3, 4, 5] for s in sides)
    assert len(orders) == 5 and all(s.config["sponsors"]["sides"] == "basic" for s in orders)
    # a Latin square: every tile sits once on every level
    levels = {t: sorted(s.config["sponsors"]["order"].index(t) for s in orders) for t in range(1, 6)}
    assert all(v == [0, 1, 2, 3, 4] for v in levels.values())
    assert all(s.features[f"tile{t}_level"] == s.config["sponsors"]["order"].index(t) + 1
               for s in orders for t in range(1, 5))
    seats = build_setups(load_config(CONFIGS / "seat_order.yaml"))
    assert sorted((s.env_id, s.players) for s in seats) == sorted(
        [("oceanos_v0", n) for n in range(2, 6)] + [("otys_v0", n) for n in range(2, 5)]
        + [("otontin_v0", n) for n in range(3, 9)])


@pytest.mark.parametrize("change, message", [
    ({"agents": {"greedy": "greedy", "random": "randm"}}, "unknown agent spec"),
    ({"lineup": ["greedy", "random"]}, "lineup has 2 seats"),
    ({"sweeps": [{"name": "k", "factors": [
        {"name": "small", "path": "kraken.values.0", "values": [0, -3]}] + KRAKEN[1:]}]},
     "-3 is not a small token"),
    ({"game": "chess_v0"}, "unknown env id"),
    ({"sweeps": [{"name": "k", "factors": [
        {"name": "x", "path": "kraken.colour", "values": [1, 2]}]}]}, "colour"),
    ({"sweeps": [{"name": "k", "factors": [
        {"name": "x", "path": "num_players", "values": ["two"], "coding": "linear"}]}]},
     "linear coding needs numbers"),
    ({"sweeps": [{"name": "k", "factors": [
        {"name": "x", "path": "num_players.deep", "values": [1]}]}]}, "needs a mapping"),
])
def test_bad_input_fails_before_any_game(tmp_path, change, message):
    # an unknown game fails sooner still: as the config is made (EnvId)
    with pytest.raises((ConfigError, ValidationError), match=message):
        run(config(tmp_path, **change), progress=False)
    assert not (tmp_path / "run" / RECORDS_FILE).exists()


def test_a_missing_agent_for_a_game_is_a_clear_error(tmp_path, monkeypatch):
    import otrio.agents.greedy as greedy

    monkeypatch.setitem(greedy.GREEDY, "oceanos", "otrio.agents.greedy.no_such_module:Greedy")
    with pytest.raises(ConfigError, match="'greedy' = 'greedy' cannot play oceanos_v0"):
        run(config(tmp_path), progress=False)


@pytest.mark.parametrize("text, message", [
    ("sweepz: []", "unknown key 'sweepz'"),
    ("sweeps: [{name: a, factors: [{name: x, path: p, values: [1], permutations_of: [1]}]}]",
     "exactly one of values / permutations_of"),
    ("sweeps: [{name: a, setups: [{label: x}], factors: [{name: x, path: p, values: [1]}]}]",
     "exactly one of factors / setups"),
    ("sweeps: [{name: a, setups: [{label: x}]}, {name: a, setups: [{label: y}]}]",
     "sweep names must be unique"),
    ("lineup: [nobody]\nsweeps: [{name: a, setups: [{label: x}]}]", "not in agents"),
    ("sweeps: [{name: a, setups: [{label: x, confg: {}}]}]", "confg"),
])
def test_yaml_config_errors_name_the_problem(tmp_path, text, message):
    path = tmp_path / "b.yaml"
    lineup = "" if text.startswith("lineup:") else "lineup: [r, r]\n"  # a key given once
    path.write_text("game: oceanos_v0\nagents: {r: random}\n" + lineup + text + "\n")
    with pytest.raises(ConfigError, match=message):
        load_config(path)
