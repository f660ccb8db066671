"""One writer per run folder (run.lock), and resumes that drop duplicate game ids."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from otrio.arena.records import RECORDS_FILE, REJECTED_FILE, read_records
from otrio.arena.run_lock import LOCK_FILE, RunLock
from otrio.arena.stats import ranks
from otrio.benchmarks.balance import sweep
from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.tournament import tournament
from otrio.envs.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def tournament_config(folder: Path, **kw) -> tournament.TournamentConfig:
    base = dict(game="oceanos_v0", game_config={"num_players": 2},
                agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random"],
                games_per_seating=2, seed=3, output=str(folder))
    return tournament.TournamentConfig(**{**base, **kw})


def balance_config(folder: Path) -> BalanceConfig:
    return BalanceConfig(
        game="oceanos_v0", game_config={"num_players": 2},
        agents={"r": "random"}, lineup=["r", "r"], games_per_setup=2, output=str(folder),
        sweeps=[{"name": "tw", "factors": [{"name": "troubled", "path": "two_player_variant",
                                            "values": [True, False]}]}])


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def holder(tmp_path):
    """Another live process holding the lock of tmp_path / 'run'."""
    folder = tmp_path / "run"
    code = ("import sys, time\nfrom pathlib import Path\nfrom otrio.arena.run_lock import RunLock\n"
            "with RunLock(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(120)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(folder)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        yield folder, child
    finally:
        child.kill()
        child.wait()


def test_the_lock_names_its_owner_and_goes_at_the_end(tmp_path):
    folder = tmp_path / "run"
    with RunLock(folder) as lock:
        owner = json.loads((folder / LOCK_FILE).read_text())
        assert owner["pid"] == os.getpid() and owner["host"] == socket.gethostname()
        assert lock.held
        with pytest.raises(ConfigError, match=rf"in use by another run \(pid {os.getpid()}"):
            RunLock(folder).acquire()  # not re-entrant: a second run in this process
    assert not (folder / LOCK_FILE).exists()


def test_a_second_run_on_a_folder_in_use_is_refused(holder):
    folder, child = holder
    for run, cfg in ((tournament.run, tournament_config(folder)),
                     (sweep.run, balance_config(folder))):
        with pytest.raises(ConfigError, match=rf"in use by another run \(pid {child.pid} on"):
            run(cfg, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_FILE]  # nothing written
    # once the holder is gone, its lock is stale and the next run takes it over
    child.kill()
    child.wait()
    with pytest.warns(UserWarning, match="took over the lock"):
        tournament.run(tournament_config(folder), progress=False)
    assert not (folder / LOCK_FILE).exists()
    assert len(read_records(folder / RECORDS_FILE)) == 4


def test_a_lock_of_a_dead_process_is_taken_over(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / LOCK_FILE).write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname(),
                                                "started": "earlier"}))
    with pytest.warns(UserWarning, match="took over the lock"):
        tournament.run(tournament_config(folder), progress=False)
    assert not (folder / LOCK_FILE).exists()


def test_a_lock_of_another_host_is_never_taken(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / LOCK_FILE).write_text(json.dumps({"pid": dead_pid(), "host": "elsewhere"}))
    with pytest.raises(ConfigError, match="on elsewhere"):
        RunLock(folder).acquire()


def test_an_unreadable_lock_is_stale_only_once_old(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    lock = folder / LOCK_FILE
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with pytest.warns(UserWarning, match="unreadable lock"), RunLock(folder):
        assert json.loads(lock.read_text())["pid"] == os.getpid()


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_the_lock_is_released_on_an_error_or_ctrl_c(tmp_path, monkeypatch, error):
    def broken(*args, **kwargs):
        raise error("stopped")
        yield

    import otrio.arena.games as play

    monkeypatch.setattr(play, "run_tasks", broken)
    folder = tmp_path / "run"
    with pytest.raises(error):
        tournament.run(tournament_config(folder), progress=False)
    assert not (folder / LOCK_FILE).exists()
    assert (folder / "run.json").exists()  # the run resumes later, lock-free


def test_training_refuses_a_folder_in_use(holder):
    from otrio.training.config import TrainConfig
    from otrio.training.train import train

    folder, child = holder
    with pytest.raises(ConfigError, match=rf"in use by another run \(pid {child.pid}"):
        train(TrainConfig(game="oceanos_v0", output=str(folder)), progress=False)
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_FILE]


def test_a_resume_drops_duplicate_game_ids_and_counts_each_game_once(tmp_path):
    folder = tmp_path / "run"
    cfg = tournament_config(folder)
    tournament.run(cfg, progress=False)
    first = json.loads((folder / "summary.json").read_text())
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    assert len(lines) == 4
    # two writers once appended the same games: a later copy of games 0 and 2, one of
    # them with another result (the first record of each id is the one kept)
    other = json.loads(lines[2])
    other["winners"] = [1 - other["winners"][0]] if other["winners"] else [0]
    other["ranks"] = ranks(other["scores"], other["winners"])  # a consistent record
    (folder / RECORDS_FILE).write_text(
        "".join(lines) + lines[0] + json.dumps(other, sort_keys=True) + "\n")
    with pytest.warns(UserWarning, match="dropped 2 duplicate record"):
        tournament.run(cfg, progress=False)
    assert (folder / RECORDS_FILE).read_text() == "".join(lines)
    moved = lines[0] + json.dumps(other, sort_keys=True) + "\n"
    assert (folder / REJECTED_FILE).read_text() == moved  # set aside, not deleted
    again = json.loads((folder / "summary.json").read_text())
    assert again["games"] == 4 and again == first


def test_only_records_of_the_same_identity_are_duplicates(tmp_path):
    from otrio.arena.records import open_run

    folder = tmp_path / "run"
    folder.mkdir()
    rows = [{"budget": 1, "game": 0, "won": 1}, {"budget": 2, "game": 0, "won": 0},
            {"budget": 1, "game": 0, "won": 0}]
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    (folder / RECORDS_FILE).write_text(text)
    # a study whose games are told apart by more than the game id keeps them all
    assert open_run(folder, {"study": 1}) == rows
    assert (folder / RECORDS_FILE).read_text() == text
    with pytest.warns(UserWarning, match="dropped 1 duplicate record.*budget, game"):
        assert open_run(folder, {"study": 1}, unique_by=("budget", "game")) == rows[:2]
    assert read_records(folder / RECORDS_FILE) == rows[:2]
