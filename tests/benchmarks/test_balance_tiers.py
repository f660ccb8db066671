"""Skill tiers in balance sweeps: lineups of tiers and matchups, common seeds across
tiers, planted skill effects found (and null ones not), outputs, resume, 1 = 2
workers, shipped tier configs and config errors."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.balance.config import BalanceConfig, load_config
from otrio.benchmarks.balance.summary import analyze
from otrio.benchmarks.balance.sweep import build_setups, build_tasks, run, setup_lineups
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "balance"
SMALL = [{"name": "small", "path": "kraken.values.0", "values": [0, -1, -2]}]


def config(tmp_path, **kw) -> BalanceConfig:
    base = dict(
        game="oceanos_v0",
        game_config={"num_players": 2, "kraken": {"mode": "fixed", "values": [0, -1, -2]}},
        agents={"random2": "random"}, tiers=["random", "random2", "greedy"],
        games_per_setup=4, seed=3, sweeps=[{"name": "k", "factors": SMALL[:1]}],
        output=str(tmp_path / "run"),
    )
    base.update(kw)
    return BalanceConfig(**base)


def strip(records, keys=("wall_time",)):
    return [{k: v for k, v in r.items() if k not in keys} for r in records]


# ---------------------------------------------------------------- lineups and seeds
def test_tiers_make_lineups_and_matchups(tmp_path):
    cfg = config(tmp_path, game_config={"num_players": 3, "kraken": {"mode": "random"}},
                 sweeps=[{"name": "k", "setups": [{"label": "x"}]}],
                 lineups={"one_greedy": ["greedy", "random"]}, fill_lineup=True)
    names = dict(setup_lineups(cfg, cfg.sweeps[0], 3))
    assert list(names) == [
        "random", "random2", "greedy", "random2 among random", "random among random2",
        "greedy among random", "random among greedy", "greedy among random2",
        "random2 among greedy", "one_greedy"]
    assert names["greedy among random"] == ("greedy", "random", "random")
    assert names["random among greedy"] == ("random", "greedy", "greedy")
    assert names["one_greedy"] == ("greedy", "random", "greedy")  # cycled to the seats
    two = dict(setup_lineups(cfg, cfg.sweeps[0], 2))  # at 2 players a reverse is the same game
    assert "random among greedy" not in two and two["greedy among random"] == ("greedy", "random")
    stronger = config(tmp_path, matchups="stronger")
    assert [n for n, _ in setup_lineups(stronger, stronger.sweeps[0], 3)] == [
        "random", "random2", "greedy", "random2 among random", "greedy among random",
        "greedy among random2"]
    assert cfg.agents["random"] == "random" and cfg.agents["greedy"] == "greedy"  # specs as names


def test_every_lineup_plays_the_same_seeds_and_rotations(tmp_path):
    cfg = config(tmp_path, game_config={"num_players": 3, "kraken": {"mode": "fixed",
                                                                     "values": [0, -1, -2]}},
                 tiers=["random", "random2"], sweeps=[{"name": "k", "factors": [
                     {"name": "small", "path": "kraken.values.0", "values": [0, -2]}]}])
    setups = build_setups(cfg)
    tasks = build_tasks(cfg, setups)
    assert [t.game for t in tasks] == list(range(len(tasks)))
    by = {}
    for t in tasks:
        by.setdefault((t.tags["setup_index"], t.tags["rotation"], t.seed), []).append(t)
    assert all(len(v) == 4 for v in by.values())  # 4 lineups share each (setup, j)
    folder = run(cfg, progress=False)
    records = read_records(folder / RECORDS_FILE)
    assert {r["lineup"] for r in records} == {"random", "random2", "random2 among random",
                                             "random among random2"}
    game = ("game", "lineup", "seating", "wall_time")
    for setup in range(2):
        plays = {name: strip([r for r in records if r["setup_index"] == setup
                              and r["lineup"] == name], game) for name in
                 ("random", "random2", "random2 among random", "random among random2")}
        # identical agents on the same seed and rotation: identical games, actions included
        assert plays["random"] == plays["random2"] == plays["random2 among random"] \
            == plays["random among random2"]
        assert len({r["seed"] for r in plays["random"]}) == len(plays["random"])


# ---------------------------------------------------------------- planted effects
def made_records(setups, games, winner_of):
    """Records of a 2-player study, ``games`` a lineup and setup on seeds common to the
    lineups: ``winner_of(k, name, lineup, seating, j)`` is game ``j``'s winning seat."""
    records = []
    for k, setup in enumerate(setups):
        for name, lineup in setup.lineups:
            for j in range(games):
                rotation = j % 2
                seating = lineup[rotation:] + lineup[:rotation]
                winner = winner_of(k, name, lineup, seating, j)
                records.append({
                    "game": len(records), "seed": 1000 * k + j, "seating": list(seating),
                    "scores": [float(s == winner) for s in range(2)], "winners": [winner],
                    "decisions": 1, "truncated": False, "sweep": setup.sweep,
                    "setup": setup.label, "setup_index": k, "env": setup.env_id,
                    "players": 2, "rotation": rotation, "features": setup.features,
                    "lineup": name})
    return records


def planted_records(setups, lineup_win, games, seed):
    """Records of a 2-player study drawn from a planted table: ``lineup_win[name][k]`` is
    the chance that seat 0 wins (a tier) or that the lone tier wins (a matchup)."""
    rng = np.random.default_rng(seed)

    def winner_of(k, name, lineup, seating, j):
        target = 0 if len(set(lineup)) == 1 else seating.index(lineup[0])
        return target if rng.random() < lineup_win[name][k] else 1 - target

    return made_records(setups, games, winner_of)


def planted(tmp_path, tiers):
    cfg = config(tmp_path, tiers=tiers, matchups="stronger")
    return cfg, build_setups(cfg)


@pytest.mark.parametrize("strong_in, found", [([0.5, 0.5, 0.8], [2]), ([0.5, 0.5, 0.5], [])])
def test_a_tier_strong_in_one_setup_only_is_found_and_a_null_one_is_not(
        tmp_path, strong_in, found):
    cfg, setups = planted(tmp_path, ["weak", "strong"])
    table = {"weak": [0.5] * 3, "strong": [0.5] * 3, "strong among weak": strong_in}
    analysis = analyze(planted_records(setups, table, 600, seed=11), setups, cfg)
    (group,) = analysis["skill"]
    rows = group["matchups"]["per_setup"]
    assert [k for k, r in enumerate(rows) if r["depth"]["p_holm"] < 0.05] == found
    assert (group["matchups"]["homogeneity"]["p"] < 0.05) == bool(found)
    assert rows[0]["depth"]["edge"] == pytest.approx(2 * rows[0]["depth"]["share"] - 1)
    if found:
        assert rows[2]["depth"]["edge_low"] > 0.4


@pytest.mark.parametrize("weak_seat0, interacts", [([0.5, 0.5, 0.5], True),
                                                   ([0.5, 0.56, 0.62], False)])
def test_a_setup_effect_that_changes_with_skill_is_found_and_a_shared_one_is_not(
        tmp_path, weak_seat0, interacts):
    cfg, setups = planted(tmp_path, ["weak", "strong"])
    strong_seat0 = [0.5, 0.56, 0.62]  # small = 0, -1, -2: seat 0 gains 6 points a unit less
    table = {"weak": weak_seat0, "strong": strong_seat0, "strong among weak": [0.7] * 3}
    analysis = analyze(planted_records(setups, table, 3000, seed=5), setups, cfg)
    (group,) = analysis["skill"]
    (inter,) = group["seat_tests"]["interactions"]  # seat 0 and small (seat 1 mirrors it)
    assert inter["feature"] == "small" and inter["seat"] == 0
    assert (inter["p_holm"] < 0.05) == interacts
    if interacts:
        assert inter["estimates"][0]["estimate"] == pytest.approx(-0.06, abs=0.02)
    # each tier's own regression sees its own effect, whether or not the tiers differ
    for g in analysis["groups"]:
        if g.get("lineup_name") == "strong":
            (e,) = [e for e in g["regression"]["effects"]
                    if e["outcome"] == "win_share" and e["seat"] == 0]
            assert e["p"] < 1e-4
    main = group["seat_tests"]["main"][0]
    assert (main["p_holm"] < 0.05) == interacts  # strong is ahead on average only then


def test_luck_per_setup_is_one_where_the_seed_decides_and_zero_where_the_agents_do(
        tmp_path):
    """Setup 0: the seed alone picks the winner (every lineup alike): no swap changes it,
    luck share 1. Setup 1: the agents alone decide (the strong tier always wins; among
    the weak the seat after the focal one does): every swap changes the winner, exactly
    as fresh luck would, luck share 0. Setup 2: the seed decides games 0-3 of every 8, the
    agents the rest: the winner changes in half the games, against 0.625 with fresh
    luck (per seating: 1 - 0.25 x 0.75 - 0.75 x 0.25), luck share 0.2."""
    from otrio.benchmarks.balance.skill import LUCK_COLUMNS, luck_rows

    cfg, setups = planted(tmp_path, ["weak", "strong"])

    def winner_of(k, name, lineup, seating, j):
        by_seed = j // 2 % 2
        focal = (2 - j % 2) % 2  # where the lineup's first entry sits
        by_agents = focal if name == "strong among weak" else 1 - focal
        return [by_seed, by_agents, by_seed if j // 4 % 2 == 0 else by_agents][k]

    analysis = analyze(made_records(setups, 400, winner_of), setups, cfg)
    (group,) = analysis["skill"]
    luck = [r["luck"] for r in group["matchups"]["per_setup"]]
    assert all(x["base"] == "weak" and x["swapped"] == "strong among weak" and x["pairs"] == 400
               for x in luck)
    assert luck[0]["changed"] == 0 and luck[0]["luck_share"] == 1
    assert luck[1]["changed"] == 1 and luck[1]["luck_share"] == pytest.approx(0, abs=1e-12)
    assert luck[1]["gained"] == 1 and luck[1]["lost"] == 0
    assert luck[2]["changed"] == 0.5 and luck[2]["luck_share"] == pytest.approx(0.2)
    pooled = group["matchups"]["luck"]
    assert pooled["pairs"] == 1200 and luck[1]["luck_share"] < pooled["luck_share"] < 1
    rows = luck_rows(analysis["skill"])
    assert [r["setup"] for r in rows] == [s.label for s in setups] + ["all setups"]
    assert set(rows[0]) == set(LUCK_COLUMNS)


def test_a_planted_agent_strong_only_in_one_setup_is_found_in_real_games(tmp_path, monkeypatch):
    """A fake tier that plays greedy when the small kraken token is 0 and random
    otherwise: its skill depth is found in that setup and not in the other."""
    from otrio import agents

    real_make = agents.make

    def make(spec, env):
        if spec != "planted":
            return real_make(spec, env)
        strong = env.unwrapped.config.kraken.values[0] == 0
        agent = real_make("greedy" if strong else "random", env)
        agent.spec = spec
        return agent

    monkeypatch.setattr(agents, "make", make)
    cfg = config(tmp_path, tiers=["random", "planted"], games_per_setup=40,
                 sweeps=[{"name": "k", "factors": [
                     {"name": "small", "path": "kraken.values.0", "values": [0, -2]}]}])
    folder = run(cfg, progress=False)
    summary = json.loads((folder / "summary.json").read_text())
    rows = summary["skill"][0]["matchups"]["per_setup"]
    assert rows[0]["depth"]["p_holm"] < 0.01 and rows[0]["depth"]["share"] > 0.75
    assert rows[1]["depth"]["p_holm"] > 0.05
    assert summary["skill"][0]["matchups"]["homogeneity"]["p"] < 0.01
    report = (folder / "report.md").read_text()
    assert "## Skill depth" in report and "The depth differs between setups" in report


# ---------------------------------------------------------------- runs
def _tier_cfg(tmp_path, name, **kw):
    return config(tmp_path, tiers=["random", "greedy"], games_per_setup=4,
                  game_config={"num_players": 3, "kraken": {"mode": "fixed",
                                                            "values": [0, -1, -2]}},
                  sweeps=[{"name": "k", "factors": [
                      {"name": "small", "path": "kraken.values.0", "values": [0, -2]}]}],
                  output=str(tmp_path / name), **kw)


OUTPUTS = ("results.csv", "effects.csv", "summary.json", "matchups.csv", "luck.csv")


def test_tier_sweep_outputs_and_one_and_two_workers_identical(tmp_path):
    one = run(_tier_cfg(tmp_path, "w1"), progress=False)
    two = run(_tier_cfg(tmp_path, "w2", workers=2), progress=False)
    assert strip(read_records(one / RECORDS_FILE)) == strip(read_records(two / RECORDS_FILE))
    for name in OUTPUTS:
        assert (one / name).read_text() == (two / name).read_text(), name
    for name in ("heatmap_k.png", "matchups_k_3p.png", "depth_k_3p.png", "luck_k_3p.png",
                 "effects_k_3p_greedy_among_random.png", "report.md"):
        assert (one / name).exists(), name
    assert not list(one.glob("*.tmp"))  # plots are renamed into place
    rows = list(csv.DictReader((one / "matchups.csv").open()))
    assert {(r["lone"], r["others"]) for r in rows} == {("greedy", "random"),
                                                        ("random", "greedy")}
    report = (one / "report.md").read_text()
    for text in ("## Skill tiers", "tiers `random` < `greedy`", "## Skill depth",
                 "lineup `greedy among random`", "Matchup matrix", "seat 0 % `greedy`",
                 "**Luck share** (one seat swapped from `random` to `greedy`",
                 "![luck share by setup](luck_k_3p.png)"):
        assert text in report, text


def test_tier_sweep_resumes_to_the_same_records(tmp_path):
    full = run(_tier_cfg(tmp_path, "full"), progress=False)
    part = tmp_path / "part"
    cfg = _tier_cfg(tmp_path, "part")
    part.mkdir()
    (part / "run.json").write_text(json.dumps(cfg.identity()))
    lines = (full / RECORDS_FILE).read_text().splitlines(keepends=True)
    (part / RECORDS_FILE).write_text("".join(lines[:13]) + lines[13][:40])
    run(cfg, progress=False)
    assert strip(read_records(part / RECORDS_FILE)) == strip(read_records(full / RECORDS_FILE))
    assert (part / "matchups.csv").read_text() == (full / "matchups.csv").read_text()


def test_shipped_tier_configs_build_their_setups():
    kraken = build_setups(load_config(CONFIGS / "oceanos_kraken_tiers.yaml"))
    assert len({s.label for s in kraken if s.sweep == "kraken"}) == 27
    assert kraken[0].tiers == ("greedy", "mcts16")
    otys = build_setups(load_config(CONFIGS / "otys_sponsors_tiers.yaml"))
    assert {s.sweep for s in otys} >= {"sides", "orders"}
    depth = build_setups(load_config(CONFIGS / "skill_depth.yaml"))
    assert sorted({(s.env_id, s.players) for s in depth}) == [
        ("oceanos_v0", 2), ("oceanos_v0", 4), ("otontin_v0", 3), ("otontin_v0", 5),
        ("otys_v0", 2), ("otys_v0", 3)]
    assert all(len(s.tiers) >= (3 if s.env_id == "otys_v0" else 4) for s in depth)
    strong = build_setups(load_config(CONFIGS / "oceanos_kraken_strong.yaml"))
    assert [len([s for s in strong if s.sweep == w]) for w in ("kraken", "depth")] == [27, 3]
    assert {len(s.lineups) for s in strong} == {3, 16}  # 4 tiers, every ordered pair
    sponsors = build_setups(load_config(CONFIGS / "otys_sponsors_strong.yaml"))
    assert [s.label for s in sponsors] == ["basic", "advanced"]
    assert [name for name, _ in sponsors[0].lineups] == ["greedy", "mcts", "mcts among greedy"]
    demo = build_setups(load_config(CONFIGS / "tiers_demo.yaml"))
    assert [(s.sweep, len(s.lineups)) for s in demo] == [("otys_sides", 4)] * 4 + [
        ("oceanos_depth", 6)]


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("change, message", [
    ({"tiers": []}, "no tiers: list at least one agent"),
    ({"tiers": ["random", "random"]}, "a tier is listed twice"),
    ({"lineup": ["random", "random"]}, "lineup and tiers/lineups exclude each other"),
    ({"lineups": {"random": ["greedy"]}}, "have the names of tiers"),
    ({"lineups": {"x": []}}, "lineup 'x' is empty"),
    ({"tiers": ["a among b"]}, "cannot name a tier"),
    ({"tiers": None, "lineup": ["random", "random"],
      "sweeps": [{"name": "k", "tiers": ["random"], "factors": SMALL}]},
     "names tiers but the config has a single lineup"),
])
def test_bad_tier_configs_are_one_line_errors(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message) as err:
        _validate(tmp_path, change)
    assert "\n" not in str(err.value)


def _validate(tmp_path, change):
    from otrio.envs.core.config import validate

    base = dict(game="oceanos_v0", game_config={"num_players": 2},
                tiers=["random", "greedy"], sweeps=[{"name": "k", "factors": SMALL}],
                output=str(tmp_path / "run"))
    base.update(change)
    return validate(BalanceConfig, base)


def test_an_unknown_tier_agent_is_named_before_any_game(tmp_path, capsys):
    path = tmp_path / "t.yaml"
    path.write_text("game: oceanos_v0\ngame_config: {num_players: 2}\n"
                    "tiers: [random, gredy]\nsweeps: [{name: k, setups: [{label: x}]}]\n"
                    f"output: {tmp_path / 'out'}\n")
    assert main(["balance", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "tier or lineup agent 'gredy': unknown agent spec 'gredy'" in err
    assert not (tmp_path / "out" / RECORDS_FILE).exists()
