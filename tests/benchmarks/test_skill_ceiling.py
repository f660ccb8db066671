"""The skill-ceiling runner (benchmarks/balance/skill_ceiling.py): a tiny report plays through
the balance runner on paired seeds, writes its summary and README, and refuses the
clairvoyant search without ``reference: true``; the shipped config builds."""

import json
from pathlib import Path

import pytest

from otrio.arena.stats import wilson
from otrio.benchmarks.balance import skill_ceiling
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "balance" / "skill_ceiling.yaml"
TINY = "iterations=2,depth=2,rollout=random,prior=none,top=0,gap=0"


def tiny(tmp_path, **kw) -> skill_ceiling.SkillCeilingConfig:
    base = dict(
        reference=True, games_per_lineup=3, seed=2, output=str(tmp_path / "ceiling"),
        games=[{"game": "otontin_v0", "players": [3], "agents": {
            "random": "random", "search": f"mcts:{TINY}",
            "clairvoyant": f"mcts:{TINY},clairvoyant=1"}}])
    base.update(kw)
    return skill_ceiling.SkillCeilingConfig(**base)


def test_a_tiny_report_plays_paired_seeds_and_summarises(tmp_path):
    folder = skill_ceiling.run(tiny(tmp_path), progress=False, command="otrio skill-ceiling x")
    data = json.loads((folder / skill_ceiling.SUMMARY_FILE).read_text())
    (group,) = data["groups"]
    assert (group["game"], group["players"], group["folder"]) == ("otontin_v0", 3, "otontin_3p")
    assert set(group["shares"]) == {"greedy", "random", "search", "clairvoyant"}
    assert all(s["n"] == 3 for s in group["shares"].values())
    assert group["paired_seeds"] == 3 and group["clairvoyant"] == "clairvoyant"
    assert set(group["headroom"]) == {"random", "search"}
    assert [s["swapped"] for s in group["luck"]["swaps"]] == ["random", "search", "clairvoyant"]
    assert (folder / "otontin_3p" / "report.md").exists()
    text = (folder / "README.md").read_text()
    assert "otrio skill-ceiling x" in text and "| otontin_v0 | 3 | clairvoyant |" in text
    records = [json.loads(line) for line in (folder / "otontin_3p" / "games.jsonl").open()]
    seeds = {}
    for r in records:  # every lineup plays the same seeds and rotations
        seeds.setdefault(r["lineup"], []).append((r["seed"], r["rotation"]))
    assert len({tuple(v) for v in seeds.values()}) == 1


def test_the_report_refuses_the_cheat_without_reference(tmp_path):
    with pytest.raises(ConfigError, match="reference: true"):
        skill_ceiling.run(tiny(tmp_path, reference=False), progress=False)
    assert not (tmp_path / "ceiling").exists()


def test_a_game_needs_exactly_one_reference_agent(tmp_path):
    with pytest.raises(ValueError, match="exactly one reference"):
        tiny(tmp_path, games=[{"game": "otontin_v0", "players": [3],
                               "agents": {"search": f"mcts:{TINY}"}}])


def test_a_game_and_player_count_is_named_once(tmp_path):
    agents = {"search": f"mcts:{TINY}", "clairvoyant": f"mcts:{TINY},clairvoyant=1"}
    with pytest.raises(ValueError, match="named twice: otontin_3p"):
        tiny(tmp_path, games=[{"game": "otontin_v0", "players": [3, 4], "agents": agents},
                              {"game": "otontin_v0", "players": [3], "agents": agents}])


def test_the_shipped_config_builds_every_group():
    cfg = skill_ceiling.load_config(CONFIG)
    assert cfg.reference
    groups = [skill_ceiling.group_config(cfg, g, n) for g in cfg.games for n in g.players]
    assert [(g.game, g.game_config["num_players"]) for g in groups] == [
        ("oceanos_v0", 2), ("oceanos_v0", 5), ("otys_v0", 2), ("otys_v0", 3), ("otys_v0", 4),
        ("otontin_v0", 3), ("otontin_v0", 8)]
    assert "core-hours" in CONFIG.read_text().split("reference:")[0]


def test_the_command_line_runs_a_config(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    cfg = tiny(tmp_path).model_dump(mode="json")
    cfg["games"][0]["agents"] = {"random": "random", "clairvoyant": f"mcts:{TINY},clairvoyant=1"}
    path.write_text(json.dumps(cfg))
    assert main(["skill-ceiling", str(path), "--games-per-lineup", "3", "--quiet"]) == 0
    assert "README.md" in capsys.readouterr().out


def test_slices_of_a_config_build_one_report(tmp_path):
    agents = {"random": "random", "clairvoyant": f"mcts:{TINY},clairvoyant=1"}
    cfg = tiny(tmp_path, games_per_lineup=2, games=[
        {"game": "otontin_v0", "players": [3, 4], "agents": agents}])
    with pytest.raises(ConfigError, match="no group otys_2p .*otontin_3p, otontin_4p"):
        skill_ceiling.run(cfg, progress=False, only=["otys_2p"])
    folder = skill_ceiling.run(cfg, progress=False, command="first", only=["otontin_4p"])
    assert not (folder / "otontin_3p").exists()
    skill_ceiling.run(cfg, progress=False, command="second", only=["otontin_3p"])
    data = json.loads((folder / skill_ceiling.SUMMARY_FILE).read_text())
    assert [(g["folder"], g["command"]) for g in data["groups"]] == [  # the config's order
        ("otontin_3p", "second"), ("otontin_4p", "first")]
    text = (folder / "README.md").read_text()
    assert "- otontin_v0, 4 players: `first`" in text and "3 players: `second`" in text
    skill_ceiling.run(cfg, progress=False, command="again", only=["otontin_4p"])  # resumes
    data = json.loads((folder / skill_ceiling.SUMMARY_FILE).read_text())
    assert [(g["folder"], g["command"]) for g in data["groups"]] == [
        ("otontin_3p", "second"), ("otontin_4p", "again")]


def test_a_corrupt_earlier_summary_is_refused_not_overwritten(tmp_path):
    cfg = tiny(tmp_path, games_per_lineup=1)
    out = tmp_path / "ceiling"
    out.mkdir()
    (out / skill_ceiling.SUMMARY_FILE).write_text('{"groups": [{"no folder": 1}]}')
    with pytest.raises(ConfigError, match="not a skill-ceiling summary"):
        skill_ceiling.run(cfg, progress=False)
    assert (out / skill_ceiling.SUMMARY_FILE).read_text() == '{"groups": [{"no folder": 1}]}'
    (out / skill_ceiling.SUMMARY_FILE).unlink()
    (tmp_path / "elsewhere.json").write_text('{"groups": []}')
    (out / skill_ceiling.SUMMARY_FILE).symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(ConfigError, match="link"):
        skill_ceiling.run(cfg, progress=False)
    assert (tmp_path / "elsewhere.json").read_text() == '{"groups": []}'


def test_the_gap_is_the_clairvoyant_over_the_fair_share_and_pools_a_matching_run(tmp_path):
    first = skill_ceiling.run(tiny(tmp_path), progress=False)
    (early,) = json.loads((first / skill_ceiling.SUMMARY_FILE).read_text())["groups"]
    clair = early["shares"]["clairvoyant"]
    gap = skill_ceiling.clairvoyant_gap(early)
    assert gap["n"] == 3 and gap["value"] == pytest.approx(clair["share"] - 1 / 3)
    assert (gap["low"], gap["high"]) == pytest.approx((clair["low"] - 1 / 3,
                                                        clair["high"] - 1 / 3))
    summary = str(first / skill_ceiling.SUMMARY_FILE)
    top_up = tiny(tmp_path, seed=5, output=str(tmp_path / "gap"), pool_with=summary,
                  games=[{"game": "otontin_v0", "players": [3],
                          "agents": {"clairvoyant": f"mcts:{TINY},clairvoyant=1"}}])
    folder = skill_ceiling.run(top_up, progress=False)
    (group,) = json.loads((folder / skill_ceiling.SUMMARY_FILE).read_text())["groups"]
    assert set(group["shares"]) == {"greedy", "clairvoyant"}
    pooled, late = group["pooled_gap"], group["shares"]["clairvoyant"]
    total = clair["share"] * 3 + late["share"] * 3  # the two runs' games, counted once each
    assert pooled["n"] == 6 and pooled["value"] == pytest.approx(total / 6 - 1 / 3)
    low, high = wilson(total, 6)
    assert (pooled["low"], pooled["high"]) == pytest.approx((low - 1 / 3, high - 1 / 3))
    assert pooled["pooled_with"]["n"] == 3 and pooled["pooled_with"]["folder"] == "otontin_3p"
    text = (folder / "README.md").read_text()
    assert "| otontin_v0 | 3 |" in text and "| - | - (no honest agent) |" in text
    other = tiny(tmp_path, seed=5, output=str(tmp_path / "other"), pool_with=summary,
                 games=[{"game": "otontin_v0", "players": [3], "agents": {
                     "clairvoyant": "mcts:iterations=3,depth=2,rollout=random,prior=none,"
                                    "top=0,gap=0,clairvoyant=1"}}])
    (unmatched,) = json.loads((skill_ceiling.run(other, progress=False)
                               / skill_ceiling.SUMMARY_FILE).read_text())["groups"]
    assert unmatched["pooled_gap"] is None  # another clairvoyant: nothing to pool with


def test_a_missing_or_corrupt_pool_summary_is_refused_before_any_game(tmp_path):
    with pytest.raises(ConfigError, match="pool_with: no summary"):
        skill_ceiling.run(tiny(tmp_path, pool_with=str(tmp_path / "none.json")), progress=False)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"groups": [{"folder": "otontin_3p", "game": "otontin_v0",
                                           "players": 3, "baseline": "greedy",
                                           "clairvoyant": "clairvoyant", "shares": {
                                               "clairvoyant": {"spec": "x", "share": 7,
                                                               "n": 3}}}]}))
    with pytest.raises(ConfigError, match="7 over 3 games of 'x' is not a share"):
        skill_ceiling.run(tiny(tmp_path, pool_with=str(bad)), progress=False)
    assert not (tmp_path / "ceiling").exists()
