"""The value curve (training/value_curve.py, ``otrio value curve``): each size is the
same fit on the run's first games, every size is judged on the same test games and
played on the same seeds, a second start reuses what is done and refits a model that was
changed, bad settings are clear errors. Strength is measured in benchmarks, never here."""

import json

import numpy as np
import pytest

from otrio.arena.stats import mcnemar_exact
from otrio.envs.core.errors import ConfigError
from otrio.training.value_curve import paired, prefix_cost, run_curve
from otrio.training.value_data import ValueDataConfig, generate, load_rows
from otrio.training.value_fit import ValueFitConfig

TINY = dict(env="otys_v0", players=[2, 3], games=40, shard_games=10, positions=3,
            mixture={"greedy": 1.0, "explore": 1.0})
FIT = ValueFitConfig(hidden=[], epochs=1, batch=64)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("curve") / "data"
    generate(ValueDataConfig(**TINY), folder, progress=False)
    return folder


@pytest.fixture(scope="module")
def curve(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("curve_out") / "out"
    record = run_curve(data, FIT, [15, 40], out, play="value:{model}", players=[2], games=2,
                       seed=5, progress=False)
    return out, record


def test_a_prefix_is_whole_shards_with_its_own_counts_and_cost(data):
    manifest = json.loads((data / "manifest.json").read_text())["shards"]
    cost = prefix_cost(data, 15)  # two shards of 10 games: 2 players, then 3
    assert cost["games"] == 20
    assert cost["positions"] == manifest["0"]["positions"] + manifest["1"]["positions"]
    assert cost["core_seconds"] == pytest.approx(manifest["0"]["seconds"] + manifest["1"]["seconds"], abs=0.1)
    assert prefix_cost(data, 40)["games"] == 40
    with pytest.raises(ConfigError, match="needs at least"):
        prefix_cost(data, 41)


def test_each_size_is_fitted_on_its_prefix_and_judged_on_the_same_test_games(data, curve):
    out, record = curve
    small, full = record["sizes"]["15"], record["sizes"]["40"]
    assert (small["games"], full["games"]) == (20, 40)
    made = json.loads((out / "models" / "games_20.json").read_text())["made"]
    assert made["fit"]["max_games"] == 20 and made["data"][0]["rows"] == len(
        load_rows(data, max_games=20)["win"])
    # the test games are the whole run's, for both sizes
    whole = load_rows(data)
    test_games = len(np.unique(whole["game"][whole["game"] % 10 == 0]))
    assert small["gate"]["test_games"] == full["gate"]["test_games"] == test_games == 4
    assert [e["rows"] for e in small["gate"]["table"]] == [e["rows"] for e in full["gate"]["table"]]


def test_every_size_plays_the_same_seeded_games_and_the_files_are_written(curve):
    out, record = curve
    plays = [record["play"][f"{s}_2p"] for s in (15, 40)]
    for entry in plays:
        assert len(entry["shares"]) == 2 and set(entry["shares"]) <= {0.0, 0.5, 1.0}
        assert "{model}" not in entry["spec"] and entry["spec"].startswith("value:")
    assert plays[0]["spec"] != plays[1]["spec"]
    assert (out / "curve.png").stat().st_size > 0
    text = (out / "curve.md").read_text()
    assert "| 2 | 20 |" in text and "| 2 | 40 |" in text and "score margin" in text


def test_a_second_start_reuses_the_steps_done_and_refits_a_changed_model(data, curve):
    out, record = curve
    stem = out / "models" / "games_40"
    before = {p.name: p.stat().st_mtime_ns for p in (out / "models").iterdir()}
    again = run_curve(data, FIT, [15, 40], out, play="value:{model}", players=[2], games=2,
                      seed=5, progress=False)
    assert again == record
    assert {p.name: p.stat().st_mtime_ns for p in (out / "models").iterdir()} == before
    weights = stem.with_suffix(".safetensors")
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\0")
    refit = run_curve(data, FIT, [15, 40], out, play="value:{model}", players=[2], games=2,
                      seed=5, progress=False)
    assert stem.with_suffix(".safetensors").stat().st_mtime_ns != before["games_40.safetensors"]
    assert refit["sizes"]["40"]["gate"] == record["sizes"]["40"]["gate"]  # the fit is seeded
    assert refit["play"] == record["play"]


def test_other_settings_start_afresh_and_a_corrupt_record_is_refused(data, curve, tmp_path):
    out, record = curve
    other = run_curve(data, FIT, [15], tmp_path / "other", play="value:{model}", players=[2],
                      games=2, seed=6, progress=False)
    assert other["settings"]["seed"] == 6 and set(other["sizes"]) == {"15"}
    bad = tmp_path / "bad"  # curve.json is derived: never read, written again whole
    bad.mkdir()
    (bad / "curve.json").write_text("[1, 2")
    again = run_curve(data, FIT, [15], bad, progress=False)
    assert json.loads((bad / "curve.json").read_text())["sizes"].keys() == again["sizes"].keys()
    mine = tmp_path / "mine"  # a folder of the user's own files is refused, left as it was
    mine.mkdir()
    (mine / "curve.md").write_text("my notes")
    with pytest.raises(ConfigError, match="not empty"):
        run_curve(data, FIT, [15], mine, progress=False)
    assert (mine / "curve.md").read_text() == "my notes"


def test_bad_settings_are_clear_errors(data, tmp_path):
    with pytest.raises(ConfigError, match="model"):
        run_curve(data, FIT, [15], tmp_path / "a", play="value:agents/x.json")
    with pytest.raises(ConfigError, match="sizes"):
        run_curve(data, FIT, [], tmp_path / "b")
    with pytest.raises(ConfigError, match="no value-data run"):
        run_curve(tmp_path, FIT, [15], tmp_path / "c")


def test_paired_counts_the_games_one_side_won_alone():
    a, b = [1.0, 0.0, 0.5, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0, 1.0]
    assert paired(a, b)[:2] == (2, 1)
    assert paired(a, b)[2] == pytest.approx(mcnemar_exact(2, 1)) == pytest.approx(1.0)
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 2**10)


def test_play_added_later_reuses_the_fits_and_keeps_the_other_sizes(data, tmp_path):
    out = tmp_path / "late"
    first = run_curve(data, FIT, [15, 40], out, progress=False)
    assert first["play"] == {}
    before = {p.name: p.stat().st_mtime_ns for p in (out / "models").iterdir()}
    later = run_curve(data, FIT, [40], out, play="value:{model}", players=[2], games=2, seed=5,
                      progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in (out / "models").iterdir()} == before
    assert later["sizes"] == first["sizes"]  # 15 kept, though not asked for
    assert set(later["play"]) == {"40_2p"}


def test_rows_with_the_test_observations_only_gate_as_the_whole_rows(data, curve):
    from otrio import envs
    from otrio.agents.value import load_value_model
    from otrio.training.value_report import gate

    whole = load_rows(data)
    lean = load_rows(data, obs_of="test")
    test = whole["game"] % 10 == 0
    assert np.array_equal(lean["obs"], whole["obs"][test]) and len(lean["obs"]) < len(whole["obs"])
    for key in whole:
        if key != "obs":
            assert np.array_equal(lean[key], whole[key])
    out, _ = curve
    env = envs.make("otys_v0")
    model = load_value_model(out / "models" / "games_40.json", env, any_players=True)
    scale = env.unwrapped.game.info.score_scale
    assert gate(lean, model, scale) == gate(whole, model, scale)
    with pytest.raises(ValueError, match="obs_of"):
        load_rows(data, obs_of="train")


def test_standardising_in_chunks_matches_the_whole_matrix(monkeypatch):
    from otrio.training import value_fit

    rng = np.random.default_rng(0)
    obs = (rng.normal(3.0, 2.0, (1000, 7)) * [1, 0, 1, 1, 0.001, 5, 1]).astype(np.float32)
    mask = rng.random(1000) < 0.7
    monkeypatch.setattr(value_fit, "CHUNK_ROWS", 64)  # many chunks, a ragged last one
    mean, spread = value_fit.standardise(obs, mask)
    np.testing.assert_allclose(mean, obs[mask].mean(axis=0, dtype=np.float64), rtol=1e-6, atol=1e-6)
    want = np.maximum(obs[mask].std(axis=0, dtype=np.float64), value_fit.SPREAD_FLOOR)
    np.testing.assert_allclose(spread, want, rtol=1e-5)
    assert spread[1] == spread[4] == np.float32(value_fit.SPREAD_FLOOR)  # constant, tiny: floored
    made = value_fit.standardised(obs, mask, mean, spread)
    np.testing.assert_allclose(made, (obs[mask] - mean) / spread, rtol=1e-6)
    assert made.dtype == np.float32 and not np.shares_memory(made, obs)
