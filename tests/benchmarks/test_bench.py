"""A smoke run of ``otrio bench`` (no speed assertions: shared machines are noisy)."""

import json

import envs
from otrio_cli import main


def test_bench_smoke(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "--steps", "200", "--obs-samples", "20", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["reference"]["steps_per_s"] > 0
    measured = {(r["game"], r["players"]) for r in result["games"]}
    for env_id in envs.available():
        info = envs.make(env_id).unwrapped.game.info
        assert {(env_id, info.min_players), (env_id, info.max_players)} <= measured
    for row in result["games"]:
        assert row["aec_ratio"] == row["aec_steps_per_s"] / result["reference"]["steps_per_s"]
        assert row["observe_us"] > 0 and row["engine_steps_per_s"] > 0
    assert "× ref" in capsys.readouterr().out
