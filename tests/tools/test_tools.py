"""The measurement tools run and print what their docs say (tiny budgets; no speed or
strength assertions: those are measured, not tested)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_tool(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_aec_phases_reports_per_game_costs():
    out = run_tool("tools/aec_phases.py", "oceanos_v0", "2", "--games", "3")
    assert re.search(r"per game, µs: reset \d+, first \d+, end \d+", out)
    assert "of the loop's time" in out


def test_step_work_counts_bytecodes_and_steps():
    out = run_tool("tools/step_work.py", "otontin_v0", "3", "--steps", "100", "--opcodes")
    assert re.search(r"otontin_v0: [\d,]+ bytecodes a step", out)
    steps = int(run_tool("tools/step_work.py", "connect_four", "2", "--steps", "50").split()[-1])
    assert steps >= 50


def test_otys_teachers_weight_variant_and_rollout():
    out = run_tool("tools/otys_teachers.py", "weights", "--games", "2", "--workers", "1",
                   "--set", "PUBLIC_RISK=1.0")
    lines = out.strip().splitlines()
    assert {line.split()[1] for line in lines} == {"stock", "set"}
    assert all(0.0 <= float(line.split()[0]) <= 1.0 for line in lines)
    out = run_tool("tools/otys_teachers.py", "rollout", "--games", "1", "--workers", "1",
                   "--k", "1", "--margin", "0.01", "--top", "2")
    assert re.search(r"rollout k=1 margin=0.01: [\d.]+ against greedy in 1 games", out)


def test_otys_teachers_refuses_an_unknown_weight():
    result = subprocess.run([sys.executable, "tools/otys_teachers.py", "weights", "--games", "2",
                             "--workers", "1", "--set", "NO_SUCH_WEIGHT=1"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "no weight 'NO_SUCH_WEIGHT'" in result.stderr


def test_interleaved_ratio_prints_blocks_and_median():
    out = run_tool("tools/interleaved_ratio.py", "otontin_v0", "3", "--blocks", "2",
                   "--pairs", "1", "--chunk", "60")
    assert len(re.findall(r"^block \d: reference [\d,]+ steps/s", out, re.M)) == 2
    assert re.search(r"otontin_v0 3p: median ratio [\d.]+ over 2 blocks", out)


def test_rollout_probe_reports_both_players():
    out = run_tool("tools/rollout_probe.py", "otontin_v0", "3", "--games", "1", "--workers", "1",
                   "--k", "1", "--top", "2", "--final-only")
    for name in ("rollout greedy", "greedy"):
        assert re.search(rf"^{name} +[\d.]+ \[[\d.]+, [\d.]+\] against random \(1 games, 3 players\)",
                         out, re.M)
    assert re.search(r"[\d.]+ close calls and [\d.]+ changed choices a game", out)


def test_greedy_weights_scales_each_named_weight():
    out = run_tool("tools/greedy_weights.py", "otontin_v0", "3", "--games", "2", "--workers", "1",
                   "--weights", "WIN_VALUE", "--scales", "0.5,2")
    names = {line.split()[3] for line in out.strip().splitlines()[1:]}
    assert names == {"stock", "WIN_VALUE*0.5", "WIN_VALUE*2"}
    assert "{'WIN_VALUE': 20.0}" in out  # the stock 10.0, doubled


def test_greedy_weights_scales_a_field_of_the_weights_dataclass():
    out = run_tool("tools/greedy_weights.py", "oceanos_v0", "2", "--games", "2", "--workers", "1",
                   "--weights", "upgrade", "--scales", "2")
    assert "{'upgrade': 6.0}" in out  # Oceanos' Weights.upgrade, 3.0, doubled


def test_greedy_weights_refuses_an_unknown_weight():
    result = subprocess.run([sys.executable, "tools/greedy_weights.py", "otontin_v0", "3",
                             "--set", "NO_SUCH_WEIGHT=1"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0
    assert "no weight 'NO_SUCH_WEIGHT' in the otontin greedy modules" in result.stderr


def test_otontin_losses_sorts_every_loss():
    out = run_tool("tools/otontin_losses.py", "--games", "12")
    found = re.search(r"greedy against two random players: [\d.]+ \[[\d.]+, [\d.]+\] in 12 games; "
                      r"(\d+) losses", out)
    assert found
    kinds = [int(n) for n in re.findall(r"^  (?:stripped in the final war|a rival ended richer): "
                                        r"(\d+)", out, re.M)]
    assert sum(kinds) == int(found.group(1))


def test_widen_checkpoint_keeps_the_layer_blind_to_the_new_inputs():
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location("widen", ROOT / "tools" / "widen_checkpoint.py")
    widen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(widen)
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 4)
    wide = widen.widen_linear(layer, at=2, count=3)
    x = torch.randn(5, 6)
    new_inputs = torch.randn(5, 3)  # whatever the new piece holds
    widened_x = torch.cat([x[:, :2], new_inputs, x[:, 2:]], dim=1)
    assert wide.in_features == 9
    assert torch.allclose(wide(widened_x), layer(x))
