"""The strength-against-budget study: records, report and plot, resume, and the same
results on one worker or two (the search's seconds aside)."""

import json

from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.speed.search import SearchBenchConfig, run


def config(tmp_path, name: str, **kw) -> SearchBenchConfig:
    base = dict(game="otys_v0", num_players=2, budgets=[2, 3], options="depth=4,rollout=random",
                games=2, seed=3, output=str(tmp_path / name))
    base.update(kw)
    return SearchBenchConfig(**base)


def results(folder):
    return [{k: v for k, v in r.items() if k != "seconds"}
            for r in read_records(folder / RECORDS_FILE)]


def test_a_study_writes_its_table_and_plot_and_repeats_on_two_workers(tmp_path):
    one = run(config(tmp_path, "one"), progress=False)
    two = run(config(tmp_path, "two", workers=2), progress=False)
    assert results(one) == results(two)
    assert len(results(one)) == 4 and {r["seat"] for r in results(one)} == {0, 1}
    summary = json.loads((one / "summary.json").read_text())
    assert [row["budget"] for row in summary["budgets"]] == [2, 3]
    assert all(row["games"] == 2 and row["seconds_per_decision"] > 0 for row in summary["budgets"])
    assert "| 3 | 2 |" in (one / "report.md").read_text()
    assert (one / "strength.png").stat().st_size > 1000


def test_an_interrupted_study_resumes_where_it_stopped(tmp_path):
    cfg = config(tmp_path, "run")
    folder = run(cfg, progress=False)
    expected = results(folder)
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    # three finished games and a torn fourth line, as after a crash mid-write
    (folder / RECORDS_FILE).write_text("".join(lines[:3]) + lines[3][:15])
    run(cfg, progress=False)
    assert results(folder) == expected


def test_a_report_of_the_games_so_far_plays_nothing(tmp_path):
    cfg = config(tmp_path, "run")
    folder = run(cfg, progress=False)
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    (folder / RECORDS_FILE).write_text("".join(lines[:3]))
    run(cfg, progress=False, play=False)
    assert len(results(folder)) == 3
    rows = json.loads((folder / "summary.json").read_text())["budgets"]
    assert [(row["budget"], row["games"]) for row in rows] == [(2, 2), (3, 1)]


def test_two_studies_in_one_process_share_no_agents(tmp_path):
    """A study's games are its own whatever ran before it in the process: a study with
    other search options at the same budget does not lend it its searcher."""
    from otrio.benchmarks.speed import search

    search._ENVS.clear()
    alone = results(run(config(tmp_path, "alone", budgets=[2]), progress=False))
    search._ENVS.clear()
    run(config(tmp_path, "other", budgets=[2], options="depth=1,rollout=random"), progress=False)
    after = results(run(config(tmp_path, "after", budgets=[2]), progress=False))
    assert after == alone
