"""``otrio dossier GAME`` (benchmarks/balance/dossier.py): the page builds from a tiny results
folder (a tier sweep, a skill-ceiling report and a top-up of its clairvoyant gap), with its sections, plots and the
commands that reproduce them and its summary at a glance (the pooled seat table read back,
a run's effects Holm-corrected as its report does); a game without results says so."""

import json

import pytest

from otrio.benchmarks.balance import dossier, skill_ceiling, sweep
from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.balance.dossier import pooled_seats, write_dossier
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

TINY = "iterations=2,depth=2,rollout=random,prior=none,top=0,gap=0"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    sweep.run(BalanceConfig(
        game="oceanos_v0", game_config={"num_players": 2, "kraken": {
            "mode": "fixed", "values": [0, -1, -2]}},
        tiers=["random", "greedy"], games_per_setup=4, seed=1,
        sweeps=[{"name": "k", "factors": [
            {"name": "small", "path": "kraken.values.0", "values": [0, -1]}]}],
        output=str(root / "tiny_sweep")), progress=False, command="otrio balance tiny.yaml")
    skill_ceiling.run(skill_ceiling.SkillCeilingConfig(
        reference=True, games_per_lineup=2, seed=1, output=str(root / "skill_ceiling"),
        games=[{"game": "oceanos_v0", "players": [2], "agents": {
            "random": "random", "clairvoyant": f"mcts:{TINY},clairvoyant=1"}}]),
        progress=False, command="otrio skill-ceiling tiny.yaml")
    skill_ceiling.run(skill_ceiling.SkillCeilingConfig(  # a top-up of the clairvoyant gap
        reference=True, games_per_lineup=2, seed=2, output=str(root / "skill_ceiling_gap"),
        pool_with=str(root / "skill_ceiling" / "summary.json"),
        games=[{"game": "oceanos_v0", "players": [2], "agents": {
            "clairvoyant": f"mcts:{TINY},clairvoyant=1"}}]),
        progress=False, command="otrio skill-ceiling gap.yaml")
    return root


def test_the_dossier_builds_from_a_tiny_sweep(results, tmp_path, monkeypatch):
    monkeypatch.setattr(dossier, "GLANCE_MIN_GAMES", 1)  # the tiny sweep's 8 games a tier
    page = write_dossier("oceanos", results, tmp_path / "docs")
    text = page.read_text()
    for part in ("# Balance dossier: Oceanos", "## `tiny_sweep`", "Seat advantage by skill tier",
                 "Setup effects on the seats' win shares", "| k | random | 2 | 0 | small |",
                 "Skill depth", "## Skill ceiling and luck share", "| 2 | clairvoyant |",
                 "### Luck per setup", "| k | 2 | all setups | random → greedy among random | 8 |",
                 "Reproduce: `otrio balance tiny.yaml`", "`otrio skill-ceiling tiny.yaml`",
                 "gap over the fair share", "| the report above |",
                 "| gap run `otrio skill-ceiling gap.yaml` |", "| the two pooled |",
                 f"| 2 | `mcts:{TINY},clairvoyant=1` | 4 |",  # the pooled games
                 "## At a glance", "**How much skill pays**", "**Seat order**",
                 "| 2 | random | 8 |", "| 2 | greedy | 8 |",  # seat order, a row per tier
                 "| 2 | random | `tiny_sweep` | k | 1 |",  # seat 1 mirrors seat 0 at 2 players
                 "Agents: `greedy` = `greedy`; `random` = `random`."):
        assert part in text, part
    images = sorted(p.name for p in (tmp_path / "docs").glob("*.png"))
    assert "oceanos_skill_ceiling.png" in images and "oceanos_tiny_sweep_effects.png" in images
    for name in images:
        assert f"]({name})" in text  # every plot is on the page


def test_a_game_without_results_says_so_and_errors_are_one_line(results, tmp_path, capsys):
    assert "No balance results cover this game yet." in write_dossier(
        "otys", results, tmp_path).read_text()
    with pytest.raises(ConfigError, match="unknown game"):
        write_dossier("chess", results, tmp_path)
    assert main(["dossier", "otys", "--results", str(tmp_path / "none"),
                 "--output", str(tmp_path)]) == 2
    assert "no balance results folder" in capsys.readouterr().err


def test_glance_reads_the_pooled_table_and_holm_corrects_a_runs_effects(tmp_path):
    report = ("Win share of each seat pooled over the setups of a sweep (95% intervals):\n\n"
              "| sweep | players | decided games | seat 0 % | seat 1 % | seat 2 % | uniformity p |\n"
              "|---|---|---|---|---|---|---|\n"
              "| k, lineup `net` | 2 | 300 | 52.0 [46.4, 57.6] | 48.0 [42.4, 53.6] |  | 0.49 |\n"
              "| k, lineup `net` | 3 | 301 | 30.0 [25.0, 35.4] | 40.0 [34.6, 45.6] | 30.0 [25.0, "
              "35.4] | 0.01 |\n\n## Power\n")
    rows = pooled_seats(report)
    assert [(r["lineup"], r["players"], r["games"], r["uniformity"]) for r in rows] == [
        ("net", 2, 300, "0.49"), ("net", 3, 301, "0.01")]
    assert rows[0]["seats"] == [(52.0, 46.4, 57.6), (48.0, 42.4, 53.6)]  # no empty seat 2
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"agents": {"net": "net:x.json"}}))
    head = "sweep,env,players,outcome,seat,feature,estimate,se,low,high,p,n,lineup\n"
    body = "".join(f"k,oceanos_v0,3,win_share,{seat},small,{est},0.01,{est - 0.02},{est + 0.02},"
                   f"{p},300,net\n" for seat, est, p in ((0, 0.05, 0.001), (1, -0.01, 0.5),
                                                          (2, 0.0, 0.9)))
    (folder / "effects.csv").write_text(head + body + "k,oceanos_v0,3,score,0,small,1,0.1,"
                                        "0.8,1.2,0.0001,300,net\n")  # a score row: not tested
    [(agent, spec, line, found)] = dossier._feature_rows(
        folder, {"agents": {"net": "net:x.json"}}, "oceanos_v0")
    # Holm over the 3 seats: 3 x 0.001 = 0.003 for seat 0; the others are not significant.
    assert (agent, spec) == ("net", "net:x.json")
    assert "| 3 | net | `run` | k | 3 | small on seat 0 +5.0 ± 2.0 (Holm p 0.003) | +5.0 ± 2.0 " \
           "(small, seat 0) |" == line
    assert found == {"moved": 1, "largest": pytest.approx(5.0),
                     "largest_ci": pytest.approx(2.0), "players": 3,
                     "where": "small, seat 0, `run`"}
    assert dossier.feature_verdict([found]).startswith(
        "**In a word**: 1 effect of a setup feature on a seat passes the Holm level")
