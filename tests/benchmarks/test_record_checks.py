"""Records are data, verified: a resumed tournament, balance sweep or search study reads
its run folder as untrusted input. Links are refused, every record is checked against
its run's schema (and every one re-played), a bad line stops the run naming it and
deletes nothing, ``--repair`` moves bad lines aside, and every such failure is one line
and exit code 2 on the command line."""

import json
import os
import re
from pathlib import Path

import pytest

from otrio.arena.records import RECORDS_FILE, RUN_FILE, read_records
from otrio.arena.stats import ranks
from otrio.benchmarks.balance import config as balance_config
from otrio.benchmarks.balance import sweep
from otrio.benchmarks.speed import search
from otrio.benchmarks.tournament import tournament
from otrio.cli import main
from otrio.envs.core.errors import StateError

REJECTED_FILE = "games.rejected.jsonl"  # where --repair moves bad lines


def strip(records):
    return [{k: v for k, v in r.items() if k != "wall_time"} for r in records]


def tournament_config(folder: Path, **kw) -> tournament.TournamentConfig:
    base = dict(game="oceanos_v0", game_config={"num_players": 2},
                agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random"],
                games_per_seating=3, seed=5, output=str(folder))
    return tournament.TournamentConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished 6-game tournament: (its config as YAML, its games.jsonl lines)."""
    folder = tmp_path_factory.mktemp("full") / "run"
    tournament.run(tournament_config(folder), progress=False)
    return (folder / RECORDS_FILE).read_text().splitlines(keepends=True)


def prepare(tmp_path: Path, lines: list[str],
            **kw) -> tuple[tournament.TournamentConfig, Path]:
    """A run folder of the tournament (``kw``: changes to its config) holding ``lines`` as
    its games file."""
    folder = tmp_path / "run"
    folder.mkdir(parents=True)
    cfg = tournament_config(folder, **kw)
    (folder / RUN_FILE).write_text(json.dumps(cfg.identity()))
    (folder / RECORDS_FILE).write_text("".join(lines))
    return cfg, folder


def changed(line: str, **fields) -> str:
    record = json.loads(line)
    record.update(fields)
    return json.dumps(record, sort_keys=True) + "\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ------------------------------------------------------------------ links
def test_a_symlinked_games_file_is_refused_and_its_target_untouched(tmp_path, finished):
    cfg, folder = prepare(tmp_path, finished[:2])
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"not a record\nkeep me")
    (folder / RECORDS_FILE).unlink()
    (folder / RECORDS_FILE).symlink_to(outside)
    with pytest.raises(StateError, match=rf"{RECORDS_FILE} is a symbolic link \(to {outside}"):
        tournament.run(cfg, progress=False)
    assert outside.read_bytes() == b"not a record\nkeep me"
    assert (folder / RECORDS_FILE).is_symlink()
    # a link to nowhere (a fresh run) is refused too, and creates nothing there
    (folder / RECORDS_FILE).unlink()
    (folder / RECORDS_FILE).symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(StateError, match="symbolic link"):
        tournament.run(cfg, progress=False)
    assert not (tmp_path / "elsewhere.jsonl").exists()


def test_a_symlinked_run_file_is_refused(tmp_path, finished):
    cfg, folder = prepare(tmp_path, finished)
    outside = tmp_path / "config.json"
    outside.write_text(json.dumps(cfg.identity()))
    (folder / RUN_FILE).unlink()
    (folder / RUN_FILE).symlink_to(outside)
    with pytest.raises(StateError, match=rf"{RUN_FILE} is a symbolic link"):
        tournament.run(cfg, progress=False)
    assert outside.read_text() == json.dumps(cfg.identity())


def test_special_and_hard_linked_files_are_refused(tmp_path, finished):
    cfg, folder = prepare(tmp_path, finished[:2])
    other = tmp_path / "other.jsonl"
    os.link(folder / RECORDS_FILE, other)  # writing would change a file outside the run
    with pytest.raises(StateError, match="2 hard links"):
        tournament.run(cfg, progress=False)
    assert other.read_text() == "".join(finished[:2])
    (folder / RECORDS_FILE).unlink()
    os.mkfifo(folder / RECORDS_FILE)  # reading a FIFO would hang
    with pytest.raises(StateError, match="not a regular file"):
        tournament.run(cfg, progress=False)


# ------------------------------------------------------------------ corrupt lines
def test_a_corrupt_middle_line_stops_the_run_and_deletes_nothing(tmp_path, finished):
    lines = finished[:2] + ['{"game": 2, "seed"\n'] + finished[3:]
    cfg, folder = prepare(tmp_path, lines)
    before = snapshot(folder)
    with pytest.raises(StateError, match=rf"{RECORDS_FILE} line 3: not JSON .*nothing was "
                                         r"changed.*--repair"):
        tournament.run(cfg, progress=False)
    assert snapshot(folder) == before


def test_repair_moves_bad_lines_aside_and_the_run_goes_on(tmp_path, finished):
    bad = ['{"game": 2, "seed"\n', changed(finished[4], game="4")]
    lines = finished[:2] + [bad[0]] + finished[3:4] + [bad[1]] + finished[5:]
    cfg, folder = prepare(tmp_path, lines)
    with pytest.warns(UserWarning, match=r"moved 2 bad line\(s\) to games.rejected.jsonl.*"
                                         r"line 3: not JSON .*\(1 more bad line: 5\)"):
        tournament.run(cfg, progress=False, repair=True)
    assert (folder / REJECTED_FILE).read_text() == "".join(bad)  # byte for byte
    records = read_records(folder / RECORDS_FILE)
    assert strip(sorted(records, key=lambda r: r["game"])) == \
        strip(json.loads(line) for line in finished)  # games 2 and 4 played again
    assert json.loads((folder / "summary.json").read_text())["games"] == 6


def test_only_a_torn_final_line_is_cut_silently(tmp_path, finished):
    cfg, folder = prepare(tmp_path, finished[:3] + [finished[3][:25]])
    tournament.run(cfg, progress=False)
    assert not (folder / REJECTED_FILE).exists()
    assert strip(read_records(folder / RECORDS_FILE)) == strip(json.loads(x) for x in finished)


# ------------------------------------------------------------------ tampered records
def _rescored(line: str) -> str:
    record = json.loads(line)
    record["scores"][0] += 5  # ranks made to agree: only a replay can tell
    record["ranks"] = ranks(record["scores"], record["winners"])
    return json.dumps(record, sort_keys=True) + "\n"


TAMPERED = {
    "scores changed": (_rescored, "its replay does not match: game 1 diverged at its end"),
    "game 10**30": (lambda x: changed(x, game=10**30),
                    f"game {10**30} is not one of this run's 6 games"),
    'game "3"': (lambda x: changed(x, game="3"), "bad 'game': Input should be a valid integer"),
    "no game": (lambda x: json.dumps({k: v for k, v in json.loads(x).items() if k != "game"})
                + "\n", "no 'game' field"),
    "scores x": (lambda x: changed(x, scores="x"), "bad 'scores': Input should be a valid list"),
    "a list": (lambda x: "[1, 2, 3]\n", "not a JSON object but a list"),
    "deep": (lambda x: "[" * 100_000 + "]" * 100_000 + "\n", "nested deeper than"),
    "NaN score": (lambda x: x.replace('"scores": [', '"scores": [NaN, '),
                  r"not JSON \(NaN is not a number"),
    "winner seat 9": (lambda x: changed(x, winners=[9]), r"winners \[9\] are not distinct seats 0..1"),
    "another seed": (lambda x: changed(x, seed=json.loads(x)["seed"] + 1),
                     "'seed' is .* where this run's game has"),
    "ranks": (lambda x: changed(x, ranks=[1, 1]), r"ranks \[1, 1\] are not those of the scores"),
    "unknown field": (lambda x: changed(x, cheat=1), "unknown field 'cheat'"),
}


@pytest.mark.parametrize("kind", list(TAMPERED))
def test_a_tampered_record_is_refused_naming_its_line(tmp_path, finished, kind):
    tamper, message = TAMPERED[kind]
    lines = list(finished)
    lines[1] = tamper(lines[1])
    cfg, folder = prepare(tmp_path, lines)
    before = snapshot(folder)
    with pytest.raises(StateError, match=rf"{RECORDS_FILE} line 2: {message}"):
        tournament.run(cfg, progress=False, verify="all")
    assert snapshot(folder) == before


def test_a_duplicate_record_is_never_counted_twice(tmp_path, finished):
    cfg, folder = prepare(tmp_path, finished + [finished[1]])
    with pytest.warns(UserWarning, match="dropped 1 duplicate.*line 7: repeats game 1 of line 2"):
        tournament.run(cfg, progress=False)
    assert (folder / REJECTED_FILE).read_text() == finished[1]
    assert json.loads((folder / "summary.json").read_text())["games"] == 6


def test_a_resume_replays_a_sample_of_the_records_on_request(tmp_path, finished):
    cfg, folder = prepare(tmp_path, [_rescored(line) for line in finished])
    with pytest.raises(StateError, match=r"its replay does not match.*a sample of the records "
                                         r"was re-played: --verify all, the default, checks"):
        tournament.run(cfg, progress=False, verify="sample")
    tournament.run(cfg, progress=False, verify="none")  # schema checks only: they pass
    assert json.loads((folder / "summary.json").read_text())["games"] == 6


def _winner_raised(line: str, by: int = 100) -> str:
    """The record with its (sole) winner's score raised: winners and ranks unchanged."""
    record = json.loads(line)
    (winner,) = record["winners"]
    record["scores"][winner] += by
    assert ranks(record["scores"], record["winners"]) == record["ranks"]
    return json.dumps(record, sort_keys=True) + "\n"


def _mean_score(folder: Path, agent: str) -> float:
    board = json.loads((folder / "summary.json").read_text())["leaderboard"]
    return next(row["mean_score"] for row in board if row["agent"] == agent)


LONGER = {"games_per_seating": 10}


@pytest.fixture(scope="module")
def longer(tmp_path_factory):
    """A finished 20-game tournament (more records than a sample re-plays)."""
    folder = tmp_path_factory.mktemp("longer") / "run"
    tournament.run(tournament_config(folder, **LONGER), progress=False)
    return (folder / RECORDS_FILE).read_text().splitlines(keepends=True)


def test_a_raised_winning_score_is_refused_by_default(tmp_path, longer, monkeypatch):
    """Issue 38, point 4: under the old default (a sample), a record whose winner's score
    was raised by 100 counted and moved mean_score; every record is re-played now."""
    from otrio.arena import records

    lines = longer
    k = next(i for i, line in enumerate(lines[:-1]) if len(json.loads(line)["winners"]) == 1)
    tampered = list(lines)
    tampered[k] = _winner_raised(lines[k])
    winner = json.loads(lines[k])
    agent = winner["seating"][winner["winners"][0]]
    cfg, folder = prepare(tmp_path / "clean", lines, **LONGER)
    tournament.run(cfg, progress=False)
    honest = _mean_score(folder, agent)
    cfg, folder = prepare(tmp_path / "sampled", tampered, **LONGER)
    monkeypatch.setattr(records, "VERIFY_SAMPLE", 1)  # the sample misses the edited record
    tournament.run(cfg, progress=False, verify="sample")
    assert _mean_score(folder, agent) == pytest.approx(honest + 100 / 20)  # it counted
    cfg, folder = prepare(tmp_path / "default", tampered, **LONGER)
    before = snapshot(folder)
    with pytest.raises(StateError, match=rf"{RECORDS_FILE} line {k + 1}: its replay does not "
                                         r"match: game \d+ diverged at its end .*scores"):
        tournament.run(cfg, progress=False)
    assert snapshot(folder) == before


def test_the_report_says_what_the_resume_replayed_and_how_long_it_took(tmp_path, longer,
                                                                        capsys):
    cfg, folder = prepare(tmp_path, longer[:12], **LONGER)
    tournament.run(cfg, progress=True)
    err = capsys.readouterr().err
    assert "verifying tournament records" in err and "12/12" in err  # the progress bar
    report = (folder / "report.md").read_text()
    assert re.search(r"Resumed: 12 recorded games checked, every one re-played through the "
                     r"engine in \d+\.\d s \(--verify all\)\.", report), report
    tournament.run(cfg, progress=False, verify="none")
    assert ("Resumed: 20 recorded games checked against the run's schema, none re-played "
            "(--verify none).") in (folder / "report.md").read_text()


# ------------------------------------------------------------------ balance and search
def test_a_balance_sweep_stops_on_a_bad_line_and_repairs_it(tmp_path):
    cfg = balance_config.BalanceConfig(
        game="oceanos_v0", game_config={"num_players": 2}, agents={"r": "random"},
        lineup=["r", "r"], games_per_setup=2, output=str(tmp_path / "run"),
        sweeps=[{"name": "tw", "factors": [{"name": "t", "path": "two_player_variant",
                                            "values": [True, False]}]}])
    folder = sweep.run(cfg, progress=False)
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    lines[2] = changed(lines[2], setup_index=0)  # a game claimed for another setup
    (folder / RECORDS_FILE).write_text("".join(lines))
    with pytest.raises(StateError, match=r"line 3: 'setup_index' is 0 where this run's game "
                                         r"has 1"):
        sweep.run(cfg, progress=False)
    with pytest.warns(UserWarning, match="moved 1 bad line"):
        sweep.run(cfg, progress=False, repair=True)
    assert len(read_records(folder / RECORDS_FILE)) == 4


def test_a_search_study_checks_its_records(tmp_path):
    cfg = search.SearchBenchConfig(game="otys_v0", num_players=2, budgets=[2],
                                   options="depth=4,rollout=random", games=2, seed=3,
                                   output=str(tmp_path / "run"))
    folder = search.run(cfg, progress=False)
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    record = json.loads(lines[0])
    lines[0] = changed(lines[0], win=not record["win"])
    (folder / RECORDS_FILE).write_text("".join(lines))
    with pytest.raises(StateError, match="line 1: win is .* but the winners are"):
        search.run(cfg, progress=False)
    with pytest.raises(StateError, match="line 1: win is"):
        search.run(cfg, progress=False, play=False)  # a report of bad records neither
    with pytest.warns(UserWarning, match="moved 1 bad line"):
        search.run(cfg, progress=False, repair=True)
    assert len(read_records(folder / RECORDS_FILE, search.record_schema(cfg))) == 2


# ------------------------------------------------------------------ the command line
def _yaml(tmp_path: Path) -> Path:
    path = tmp_path / "t.yaml"
    cfg = tournament_config(tmp_path / "run")
    path.write_text(json.dumps(cfg.model_dump(mode="json", exclude={"lineups"})))
    return path


CLI_CASES = {
    "records [1,2,3]": (lambda lines: ["[1,2,3]\n"] + lines[1:], "line 1: not a JSON object"),
    "no game": (lambda lines: lines[:2] + [json.dumps({"seed": 1}) + "\n"] + lines[3:],
                "line 3: no 'game' field"),
    'scores "x"': (lambda lines: [changed(lines[0], scores="x")] + lines[1:],
                   "line 1: bad 'scores'"),
    'game "3"': (lambda lines: lines[:3] + [changed(lines[3], game="3")] + lines[4:],
                 "line 4: bad 'game'"),
    "game 10**30": (lambda lines: lines + [changed(lines[0], game=10**30)],
                    "line 7: game 1000000000000000000000000000000 is not one of"),
    "100k-deep line": (lambda lines: lines[:1] + ["[" * 100_000 + "]" * 100_000 + "\n"]
                       + lines[1:], "line 2: nested deeper than"),
    "corrupt middle line": (lambda lines: lines[:2] + ["{oops\n"] + lines[2:],
                            "line 3: not JSON"),
}


@pytest.mark.parametrize("case", list(CLI_CASES) + ["a list run.json"])
def test_every_bad_record_is_one_line_and_exit_2(tmp_path, finished, capsys, case):
    config = _yaml(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / RUN_FILE).write_text(json.dumps(tournament_config(folder).identity()))
    if case == "a list run.json":
        (folder / RUN_FILE).write_text("[1, 2]\n")
        (folder / RECORDS_FILE).write_text("".join(finished))
        needle = "run.json is corrupt: not a JSON object but a list"
    else:
        edit, needle = CLI_CASES[case]
        (folder / RECORDS_FILE).write_text("".join(edit(list(finished))))
    before = snapshot(folder)
    assert main(["tournament", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("otrio: error: ") and "\n" not in err and "Traceback" not in err, err
    assert needle in err, err
    assert len(err) < 1000, err
    assert snapshot(folder) == before


def test_the_cli_repairs_and_verifies_on_request(tmp_path, finished, capsys):
    config = _yaml(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / RUN_FILE).write_text(json.dumps(tournament_config(folder).identity()))
    (folder / RECORDS_FILE).write_text("".join(finished[:2] + ["{oops\n"] + finished[2:]))
    with pytest.warns(UserWarning, match="moved 1 bad line"):
        assert main(["tournament", str(config), "--quiet", "--repair"]) == 0
    assert (folder / REJECTED_FILE).read_text() == "{oops\n"
    capsys.readouterr()
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    (folder / RECORDS_FILE).write_text("".join(lines[:4] + [_rescored(lines[4])] + lines[5:]))
    assert main(["tournament", str(config), "--quiet"]) == 2  # every record, by default
    assert "line 5: its replay does not match" in capsys.readouterr().err
    assert main(["tournament", str(config), "--quiet", "--verify", "none"]) == 0  # on request
