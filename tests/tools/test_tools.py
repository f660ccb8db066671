"""The measurement tools run and print what their docs say (tiny budgets; no speed or
strength assertions: those are measured, not tested)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from otrio.envs.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def run_tool(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _module(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_aec_phases_reports_per_game_costs():
    out = run_tool("tools/aec_phases.py", "oceanos_v0", "2", "--games", "3")
    assert re.search(r"per game, µs: reset \d+, first \d+, end \d+", out)
    assert "of the loop's time" in out


def test_step_work_counts_bytecodes_and_steps():
    out = run_tool("tools/step_work.py", "otontin_v0", "3", "--steps", "100", "--opcodes")
    assert re.search(r"otontin_v0: [\d,]+ bytecodes a step", out)
    steps = int(run_tool("tools/step_work.py", "connect_four", "2", "--steps", "50").split()[-1])
    assert steps >= 50


def test_interleaved_ratio_prints_blocks_and_median():
    out = run_tool("tools/interleaved_ratio.py", "otontin_v0", "3", "--blocks", "2",
                   "--pairs", "1", "--chunk", "60")
    assert len(re.findall(r"^block \d: reference [\d,]+ steps/s", out, re.M)) == 2
    assert re.search(r"otontin_v0 3p: median ratio [\d.]+ over 2 blocks", out)


def test_widen_checkpoint_keeps_the_layer_blind_to_the_new_inputs():
    import torch

    widen = _module("widen_checkpoint")
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 4)
    wide = widen.widen_linear(layer, at=2, count=3)
    x = torch.randn(5, 6)
    new_inputs = torch.randn(5, 3)  # whatever the new piece holds
    widened_x = torch.cat([x[:, :2], new_inputs, x[:, 2:]], dim=1)
    assert wide.in_features == 9
    assert torch.allclose(wide(widened_x), layer(x))


def test_verify_cost_times_a_resume_of_every_record(tmp_path):
    out_file = tmp_path / "cost.json"
    out = run_tool("tools/verify_cost.py", "--records", "4", "--games", "oceanos_v0:2",
                   "--json", str(out_file))
    assert re.search(r"oceanos_v0 2p: 4 records \([\d,]+ decisions\) re-played in [\d.]+ s: "
                     r"[\d,]+ records/s", out), out
    written = json.loads(out_file.read_text())
    assert written["command"].startswith("python tools/verify_cost.py --records 4")
    assert written["games"][0]["replayed"] == written["games"][0]["records"] == 4


def test_paired_runs_counts_discordant_games_and_mcnemar(tmp_path):
    def run(folder, winners):  # game g: seat 0 'value', seat 1 'greedy'; winner seat
        folder.mkdir()
        lines = [json.dumps({"game": g, "seed": 100 + g, "seating": ["value", "greedy"],
                             "winners": [w]}) for g, w in enumerate(winners)]
        (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
        return folder

    a = run(tmp_path / "a", [0, 0, 0, 0, 0, 0, 1])  # value wins 6 of 7
    b = run(tmp_path / "b", [0, 1, 1, 1, 1, 1, 1])  # 1 of 7: 5 games won in a only
    out = run_tool("tools/paired_runs.py", str(a), str(b), "--agent", "value")
    assert "7 paired games: value won 6 (0.857)" in out
    assert "5 won in the first only, 0 in the second only, exact McNemar p = 0.0625" in out
    other = run(tmp_path / "c", [0] * 7)
    (other / "games.jsonl").write_text((other / "games.jsonl").read_text().replace(
        '"seed": 100,', '"seed": 9,'))
    result = subprocess.run([sys.executable, "tools/paired_runs.py", str(a), str(other),
                             "--agent", "value"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0 and "game 0 does not pair" in result.stderr
    renamed = run(tmp_path / "d", [0, 1, 1, 1, 1, 1, 1])  # b's games, its agent named 'net'
    (renamed / "games.jsonl").write_text((renamed / "games.jsonl").read_text().replace(
        '"value"', '"net"'))
    out = run_tool("tools/paired_runs.py", str(a), str(renamed), "--agent", "value",
                   "--agent-b", "net")
    assert "value won 6 (0.857)" in out and "net 1 (0.143)" in out
    assert "5 won in the first only, 0 in the second only" in out


def test_teacher_agreement_of_a_student_that_is_its_teacher_is_total():
    net = "net:agents/pretrained/oceanos_net.json"
    out = _module("teacher_agreement").measure("oceanos_v0", 2, 2, net, [net, "random"])
    assert out["decisions"] > 20 and out["teacher_self_agreement"] == 1.0
    assert out["students"][net] == {"with_first": 1.0, "with_either": 1.0}
    assert out["students"]["random"]["with_first"] < 0.8


def test_distill_curve_fits_a_student_per_size_and_plays_it(tmp_path):
    from tests.attacks.tiny_runs import distillation

    distillation(tmp_path / "run")
    lines = _module("distill_curve").curve(tmp_path / "run", 1, [1, 2], 2, 5, tmp_path / "c",
                                           progress=False)
    assert [line["games"] for line in lines] == [1, 2]
    # one game: all of it learnt from, no agreement to report; two: one held out
    assert lines[0]["labels"] > 0 and lines[0]["held_out_agreement"] is None
    assert lines[1]["labels"] > 0 and lines[1]["held_out_agreement"] is not None
    assert all(0 <= line["eval"]["random"]["win_rate"] <= 1 for line in lines)
    assert "| 2 |" in (tmp_path / "c" / "curve.md").read_text()
    assert (tmp_path / "c" / "curve.png").stat().st_size > 0


def test_distill_labels_reports_the_teacher_beside_greedy_and_each_student(tmp_path):
    from tests.attacks.tiny_runs import distillation

    distillation(tmp_path / "run")
    student = str(tmp_path / "run" / "round_1" / "net.json")
    out = _module("distill_labels").measure(tmp_path / "run", 1, [student])
    assert out["decisions"] > 5 and out["searched"] > 5
    shares = [out["teacher_is_greedy"], out["target_top_over_0.9"], out["best_is_first"],
              *(out[f"best_beats_first_by_{m}"] for m in (0.02, 0.05, 0.1, 0.2))]
    assert all(0 <= share <= 1 for share in shares)
    # a larger margin is beaten no more often than a smaller one
    assert out["best_beats_first_by_0.02"] >= out["best_beats_first_by_0.2"]
    assert set(out["students"][student]) == {
        "agreement", "teacher_departs_follows_teacher", "teacher_departs_plays_greedy",
        "teacher_is_greedy_plays_it"}


def test_the_distill_tools_read_a_round_only_when_all_its_games_are_recorded(tmp_path):
    from tests.attacks.tiny_runs import distillation

    distillation(tmp_path / "run")
    records = tmp_path / "run" / "round_1" / "games.jsonl"
    records.write_text(records.read_text().splitlines(keepends=True)[0])
    with pytest.raises(ConfigError, match="holds 1 of its 2 games"):
        _module("distill_labels").measure(tmp_path / "run", 1, [])
    assert len(records.read_text().splitlines()) == 1  # nothing played to fill it
    with pytest.raises(ConfigError, match="the run has 1 round"):
        _module("distill_curve").curve(tmp_path / "run", 2, [1], 1, 5, tmp_path / "c",
                                       progress=False)


def test_distill_curve_changes_the_student_and_never_the_labels(tmp_path):
    from tests.attacks.tiny_runs import distillation

    distillation(tmp_path / "run")
    tool = _module("distill_curve")
    cfg = tool.student_config(tmp_path / "run", ["distill.trunk=[8]", "distill.epochs=1"])
    assert cfg.distill.trunk == [8] and cfg.distill.epochs == 1
    for bad in ("seed=3", "distill.rounds.0.games={2: 9}", "game=otys_v0"):
        with pytest.raises(ConfigError, match="changes the student"):
            tool.student_config(tmp_path / "run", [bad])
    lines = tool.curve(tmp_path / "run", 1, [2], 2, 5, tmp_path / "c", progress=False,
                       sets=["distill.trunk=[8]"])
    assert len(lines) == 1
    assert "distill.trunk=[8]" in (tmp_path / "c" / "curve.md").read_text()


def test_zoo_from_ladders_reads_a_cell_and_not_a_ladder_of_another_player(tmp_path):
    from otrio.cli import main

    zoo = _module("zoo_from_ladders")
    folder = tmp_path / "oceanos_2p"
    assert main(["ladder", "oceanos", "--players", "2", "--tiers", "greedy,fast", "--against",
                 "greedy", "--games", "2", "--output", str(folder), "--quiet"]) == 0
    summary = json.loads((folder / "summary.json").read_text())
    won = summary["lineups"][0]["agents"]["fast"]["wins"]
    raw, lines = zoo.regenerate([folder])
    fast = next(e for e in raw["entries"]
                if (e["game"], e["players"], e["tier"]) == ("oceanos", 2, "fast"))
    assert fast["strength"]["games"] == 2 and fast["strength"]["share"] == won / 2
    assert fast["strength"]["runs"] == [{"run": str(folder.resolve()), "agent": "fast"}]
    assert any(line.startswith("| oceanos 2p fast |") and "| 2 | 1 |" in line for line in lines)
    assert zoo.dump(json.loads(zoo.ZOO_FILE.read_text())) == zoo.ZOO_FILE.read_text()
    named = tmp_path / "named"  # the cell's spec named outright counts for the cell too
    assert main(["ladder", "oceanos", "--players", "2", "--tiers", "greedy", "--agents",
                 fast["spec"], "--against", "greedy", "--games", "2", "--output", str(named),
                 "--quiet"]) == 0
    raw, _ = zoo.regenerate([folder, named])
    fast = next(e for e in raw["entries"]
                if (e["game"], e["players"], e["tier"]) == ("oceanos", 2, "fast"))
    assert fast["strength"]["games"] == 4
    assert fast["strength"]["runs"][1] == {"run": str(named.resolve()), "agent": fast["spec"]}
    run = json.loads((folder / "run.json").read_text())
    run["agents"]["fast"] = "random"  # as if the zoo's fast player had been replaced since
    (folder / "run.json").write_text(json.dumps(run))
    raw, lines = zoo.regenerate([folder])
    fast = next(e for e in raw["entries"]
                if (e["game"], e["players"], e["tier"]) == ("oceanos", 2, "fast"))
    assert fast["strength"] == json.loads(zoo.ZOO_FILE.read_text())["entries"][0]["strength"]
    assert any(line.startswith("| oceanos 2p `random` (no cell's player)") for line in lines)
