"""A smoke run of ``otrio bench`` (no speed assertions: shared machines are noisy)."""

import json

import numpy as np

from otrio import envs
from otrio.cli import main


def test_bench_smoke(tmp_path, capsys):
    out_file = tmp_path / "bench.json"
    assert main(["bench", "--steps", "200", "--obs-samples", "20", "--rounds", "3",
                 "--json", str(out_file)]) == 0
    result = json.loads(out_file.read_text())
    assert result["reference"]["steps_per_s"] > 0
    measured = {(r["game"], r["players"]) for r in result["games"]}
    for env_id in envs.available():
        info = envs.make(env_id).unwrapped.game.info
        assert {(env_id, info.min_players), (env_id, info.max_players)} <= measured
    # the reference runs before every setup and after the last, in each of 3 rounds
    refs = result["reference"]["steps_per_s_measured"]
    assert len(refs) == 3 * (len(result["games"]) + 1)
    assert result["reference"]["steps_per_s"] == float(np.median(refs))
    for row in result["games"]:
        # each round's ratio is against the reference either side; the figure is their median
        assert len(row["aec_ratio_by_round"]) == 3
        assert row["aec_ratio"] == sorted(row["aec_ratio_by_round"])[1]
        assert row["observe_us"] > 0 and row["engine_steps_per_s"] > 0
        # a clone's cost, in microseconds and in engine steps on the same states
        assert row["clone_us"] > 0 and row["clone_step_us"] > 0
        assert len(row["clone_steps_by_round"]) == 3
        assert row["clone_steps"] == sorted(row["clone_steps_by_round"])[1]
    captured = capsys.readouterr()
    out = captured.out
    assert "× ref" in out and "clone µs (engine steps)" in out
    # where it writes, said first; progress as it goes (stderr), and where it wrote
    assert out.startswith(f"otrio bench: 3 round(s) of 200 AEC steps a measurement; "
                          f"the results go to {out_file.resolve()} (--json FILE to change)")
    assert f"written to {out_file}" in out
    assert "round 1/3: oceanos_v0, 2 players ..." in captured.err
    assert "round 3/3:" in captured.err and "observation cost" in captured.err


def test_clone_cost_times_clones_and_steps_on_the_same_games():
    from otrio.benchmarks.speed.throughput import clone_cost, engine_random_play
    from otrio.envs.core.rng import make_rng

    env = envs.make("otontin_v0", num_players=3).unwrapped

    def new_state(seed):
        return env.game.new_state(env.config, make_rng(seed))

    result = clone_cost(new_state, 300)
    # the same games as the engine loop plays (one per seed, the same actions)
    engine = engine_random_play(new_state, 300)
    assert (result["steps"], result["games"]) == (engine["steps"], engine["games"])
    assert result["clone_steps"] == result["clone_us"] / result["step_us"]


def test_bench_rejects_zero_rounds():
    import pytest

    from otrio.benchmarks.speed.bench import run_bench

    with pytest.raises(ValueError, match="rounds"):
        run_bench(steps=10, obs_samples=2, rounds=0)


def test_tournament_speedup_times_both_worker_counts():
    from otrio.benchmarks.speed.bench import tournament_speedup

    result = tournament_speedup(1, rounds=3)
    assert result["one_worker_s"] > 0 and result["two_workers_s"] > 0
    assert len(result["speedup_by_round"]) == 3
    assert result["speedup"] == sorted(result["speedup_by_round"])[1]


def test_ppo_env_share_is_measured_in_a_fresh_process():
    from otrio.benchmarks.speed.bench import fresh_process_env_share

    result = fresh_process_env_share("otontin_v0", 512)
    assert 0 < result["env_seconds"] < result["train_seconds"]
    assert result["env_share"] == result["env_seconds"] / result["train_seconds"]
