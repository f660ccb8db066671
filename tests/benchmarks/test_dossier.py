"""``otrio dossier GAME`` (benchmarks/balance/dossier.py): the page builds from a tiny results
folder (a tier sweep, a skill-ceiling report and a top-up of its clairvoyant gap), with its sections, plots and the
commands that reproduce them; a game without results says so."""

import pytest

from otrio.benchmarks.balance import skill_ceiling, sweep
from otrio.benchmarks.balance.dossier import write_dossier
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

TINY = "iterations=2,depth=2,rollout=random,prior=none,top=0,gap=0"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    sweep.run(sweep.BalanceConfig(
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


def test_the_dossier_builds_from_a_tiny_sweep(results, tmp_path):
    page = write_dossier("oceanos", results, tmp_path / "docs")
    text = page.read_text()
    for part in ("# Balance dossier: Oceanos", "## `tiny_sweep`", "Seat advantage by skill tier",
                 "Setup effects on the seats' win shares", "| k | random | 2 | 0 | small |",
                 "Skill depth", "## Skill ceiling and luck share", "| 2 | clairvoyant |",
                 "### Luck per setup", "| k | 2 | all setups | random → greedy among random | 8 |",
                 "Reproduce: `otrio balance tiny.yaml`", "`otrio skill-ceiling tiny.yaml`",
                 "gap over the fair share", "| the report above |",
                 "| gap run `otrio skill-ceiling gap.yaml` |", "| the two pooled |",
                 f"| 2 | `mcts:{TINY},clairvoyant=1` | 4 |"):  # the pooled games
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
