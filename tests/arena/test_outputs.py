"""Output paths are checked before a run, folders are made without surprises, and
files are written whole (issue 29, "Tracebacks instead of one line")."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from otrio.arena.outputs import (
    OutputError,
    check_output_file,
    check_output_folder,
    make_output_folder,
    os_error_message,
)
from otrio.arena.run_lock import RunLock
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import save_figure, write_text_atomic


def test_an_output_error_is_a_config_error():
    assert issubclass(OutputError, ConfigError)


@pytest.mark.parametrize("make, needle", [
    (lambda t: t / "a_file", "is a file, not a folder"),
    (lambda t: t / "a_file" / "run", "a_file is a file"),
    (lambda t: t / "missing" / "run", "its parent folder"),
    (lambda t: Path("/proc/otrio"), "under /proc"),
    (lambda t: Path("/sys/otrio/run"), "under /sys"),
    (lambda t: "", "is empty"),
])
def test_a_folder_that_cannot_work_is_refused_and_nothing_is_made(tmp_path, make, needle):
    (tmp_path / "a_file").write_text("x")
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(OutputError, match=needle):
        check_output_folder(make(tmp_path))
    with pytest.raises(OutputError, match=needle):
        make_output_folder(make(tmp_path))
    assert sorted(tmp_path.rglob("*")) == before


def test_a_symlink_into_proc_is_under_proc(tmp_path):
    (tmp_path / "link").symlink_to("/proc/self")
    with pytest.raises(OutputError, match="under /proc"):
        check_output_folder(tmp_path / "link" / "run")


def test_the_run_folder_itself_is_made_and_parents_only_inside_the_current_directory(
        tmp_path, monkeypatch):
    assert make_output_folder(tmp_path / "run").is_dir()
    assert make_output_folder(tmp_path / "run") == tmp_path / "run"  # already there
    with pytest.raises(OutputError, match="does not exist"):
        make_output_folder(tmp_path / "a" / "b" / "run")
    assert not (tmp_path / "a").exists()
    monkeypatch.chdir(tmp_path)
    assert make_output_folder("runs/tournament/x").is_dir()  # a fresh checkout's runs/
    assert (tmp_path / "runs" / "tournament" / "x").is_dir()


def test_an_output_file_needs_its_folder_outside_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    assert check_output_file(tmp_path / "here" / "b.json") == tmp_path / "here" / "b.json"
    with pytest.raises(OutputError, match="its folder .* does not exist"):
        check_output_file(tmp_path / "missing" / "b.json")
    with pytest.raises(OutputError, match="is a folder, not a file"):
        check_output_file(tmp_path / "here")
    with pytest.raises(OutputError, match="under /proc"):
        check_output_file("/proc/otrio.json")
    monkeypatch.chdir(tmp_path)
    assert check_output_file("results/b.json") == Path("results/b.json")


def test_a_read_only_folder_is_refused(tmp_path, monkeypatch):
    (tmp_path / "ro").mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == tmp_path / "ro"
                        else real_access(path, mode))
    for check in (lambda: check_output_folder(tmp_path / "ro"),
                  lambda: check_output_folder(tmp_path / "ro" / "run"),
                  lambda: check_output_file(tmp_path / "ro" / "b.json")):
        with pytest.raises(OutputError, match="read-only"):
            check()


def test_the_run_lock_makes_no_missing_parent(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        with RunLock(tmp_path / "missing" / "run"):
            pass
    assert not (tmp_path / "missing").exists()
    with RunLock(tmp_path / "run"):
        assert (tmp_path / "run" / "run.lock").exists()


# --------------------------------------------------------------- whole files
def _disk_full_after(limit: int, real_open=open):
    """An ``open`` (or, given ``real_open=os.fdopen``, an ``os.fdopen``: how run files
    are opened, envs/core/files.py) whose files take ``limit`` bytes, then fail with
    ENOSPC."""

    class Full:
        def __init__(self, fh):
            self.fh, self.written = fh, 0

        def write(self, text):
            if self.written + len(text) > limit:
                self.fh.write(text[:limit - self.written])
                self.fh.flush()
                raise OSError(errno.ENOSPC, "No space left on device", self.fh.name)
            self.written += len(text)
            return self.fh.write(text)

        def flush(self):
            self.fh.flush()

        def fileno(self):
            return self.fh.fileno()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    return lambda *args, **kwargs: Full(real_open(*args, **kwargs))


def test_a_text_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "report.md"
    write_text_atomic(path, "old report\n")
    monkeypatch.setattr(os, "fdopen", _disk_full_after(5, os.fdopen))
    with pytest.raises(OSError) as err:
        write_text_atomic(path, "a much longer new report\n")
    assert err.value.errno == errno.ENOSPC
    monkeypatch.undo()
    assert path.read_text() == "old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_a_figure_is_saved_whole_or_not_at_all(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    path = tmp_path / "ratings.png"
    save_figure(fig, path, dpi=50)
    good = path.read_bytes()
    assert good.startswith(b"\x89PNG")

    def fails(self, fname, *args, **kwargs):
        fname.write(good[:10])  # a torn picture, in the temporary file it was handed
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(type(fig), "savefig", fails)
    with pytest.raises(OSError):
        save_figure(fig, path, dpi=50)
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["ratings.png"]
    with pytest.raises(OSError):
        save_figure(fig, tmp_path / "new.png")
    assert [p.name for p in tmp_path.iterdir()] == ["ratings.png"]  # no 0-byte new.png
    plt.close(fig)


@pytest.mark.parametrize("err, needles", [
    (OSError(errno.ENOSPC, "No space left on device", "/x/games.jsonl"),
     ["no space left on the device", "/x/games.jsonl", "run the command again"]),
    (OSError(errno.EROFS, "Read-only file system", "/x"), ["read-only file system", "/x"]),
    (PermissionError(errno.EACCES, "Permission denied", "/x"), ["permission denied", "/x"]),
    (OSError("something odd"), ["something odd"]),
])
def test_os_errors_are_one_line(err, needles):
    text = os_error_message(err)
    assert "\n" not in text
    for needle in needles:
        assert needle in text
