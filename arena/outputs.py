"""Output paths checked before a run starts, and folders made without surprises.

- :func:`check_output_folder` / :func:`check_output_file` look at an output path
  without changing anything and raise :class:`OutputError` (one line) for a path that
  cannot work: a file where a folder goes (or a folder where a file goes), a place
  under ``/proc``, ``/sys`` or ``/dev``, a read-only place, or a missing parent folder.
  The commands call them before any game is played, so a bad path fails at once
  rather than after the whole run.
- :func:`make_output_folder` creates an output folder itself, and its missing parents
  only where they lie inside the current directory (``runs/tournament/x`` from a
  fresh checkout): a missing parent anywhere else is refused, never created (a typo
  like ``/nonexistent/x`` does not make ``/nonexistent`` at the filesystem root). An
  output file's folder must exist in the same way: a file makes no folder outside the
  current directory.
- :func:`os_error_message` is the one-line account of an ``OSError`` the command line
  prints (a full disk is named as such).

Files are then written whole, never through a link, by :mod:`otrio.envs.core.files`.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from otrio.envs.core.errors import ConfigError

SYSTEM_ROOTS = ("/proc", "/sys", "/dev")  # pseudo-filesystems: never an output place


class OutputError(ConfigError):
    """An output path that cannot be written (named, with the reason, in one line)."""


def _system_root(path: Path) -> str | None:
    """The pseudo-filesystem ``path`` lies in (symlinks followed), or None."""
    if os.name == "nt":
        return None
    real = os.path.realpath(path)
    for root in SYSTEM_ROOTS:
        if real == root or real.startswith(root + "/"):
            return root
    return None


def _inside_cwd(path: Path) -> bool:
    """Whether ``path`` lies inside the current directory (symlinks followed)."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(os.getcwd()))
    except ValueError:
        return False
    return True


def _writable(folder: Path) -> bool:
    """Whether new files can be made in the existing folder ``folder`` (a read-only
    filesystem says no even to root)."""
    return os.access(folder, os.W_OK | os.X_OK)


def check_output_folder(path: str | Path, what: str = "output folder") -> Path:
    """``path`` as a :class:`Path` if it is, or can be made into, a folder that takes
    new files; else :class:`OutputError` saying why. Nothing is created or changed.

    A missing folder can be made when its parent exists, or when it lies inside the
    current directory (missing parents there are made too: see :func:`make_output_folder`).
    """
    folder = Path(path)
    if str(path) == "":
        raise OutputError(f"the {what} is empty; name a folder")
    root = _system_root(folder)
    if root is not None:
        raise OutputError(f"the {what} {folder} is under {root}, a system folder; "
                          "choose another place")
    if folder.exists():
        if not folder.is_dir():
            raise OutputError(f"the {what} {folder} is a file, not a folder")
        if not _writable(folder):
            raise OutputError(f"the {what} {folder} is read-only")
        return folder
    ancestor = folder.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"the {what} {folder} cannot be made: {ancestor} is a file, "
                          "not a folder")
    parent = folder.absolute().parent
    if ancestor != parent and not _inside_cwd(folder):
        raise OutputError(f"the {what} {folder} cannot be made: its parent folder {parent} "
                          "does not exist (make it first; only the output folder itself is "
                          "made, or missing folders inside the current directory)")
    if not _writable(ancestor):
        raise OutputError(f"the {what} {folder} cannot be made: {ancestor} is read-only")
    return folder


def check_output_file(path: str | Path, what: str = "output file") -> Path:
    """``path`` as a :class:`Path` if a file can be written there (replacing one
    already there); else :class:`OutputError`. Its folder must exist, unless it lies
    inside the current directory (:func:`make_output_folder` makes it then): a file
    makes no folder elsewhere. Nothing is created or changed."""
    file = Path(path)
    if str(path) == "":
        raise OutputError(f"the {what} is empty; name a file")
    root = _system_root(file)
    if root is not None:
        raise OutputError(f"the {what} {file} is under {root}, a system folder; "
                          "choose another place")
    if file.is_dir():
        raise OutputError(f"the {what} {file} is a folder, not a file")
    folder = file.absolute().parent
    if not folder.exists() and not _inside_cwd(folder):
        raise OutputError(f"the {what} {file} cannot be written: its folder {folder} does "
                          "not exist (make it first; folders are made only inside the "
                          "current directory)")
    check_output_folder(folder, f"folder of the {what} {file}")
    return file


def make_output_folder(path: str | Path, what: str = "output folder") -> Path:
    """Create the folder ``path`` (checked by :func:`check_output_folder`: its missing
    parents are made only inside the current directory) and return it."""
    folder = check_output_folder(path, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot make the {what} {folder}: {os_error_message(err)}") from None
    return folder


def prepare_output_file(path: str | Path, what: str = "output file") -> Path:
    """``path``, a single file a command writes (a replay page, a saved game, a JSON of
    measurements: not a run folder, which :class:`otrio.arena.run_folder.RunFolder` opens),
    checked by :func:`check_output_file`, its folder made if missing (only inside the
    current directory)."""
    file = check_output_file(path, what)
    make_output_folder(file.absolute().parent, f"folder of the {what}")
    return file


def pyplot():
    """matplotlib's ``pyplot`` on its file-only backend (Agg), for the reports' figures
    (written with :func:`otrio.envs.core.files.save_figure`). matplotlib is imported here,
    on the first figure: it costs about half a second, which a command that draws nothing
    (``otrio --help``, a tournament asked for its records only) does not pay."""
    import matplotlib  # deferred: matplotlib (~0.5 s)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: matplotlib (~0.5 s)

    return plt


DISK_FULL = {errno.ENOSPC} | ({errno.EDQUOT} if hasattr(errno, "EDQUOT") else set())


def os_error_message(err: OSError) -> str:
    """One line for an ``OSError``: what failed and on which file; a full disk (or a
    quota) says so, and that what was written before it stays."""
    where = f" ({err.filename})" if err.filename else ""
    if err.errno in DISK_FULL:
        return (f"no space left on the device{where}; what was written before stays (a "
                "run resumes from its records): free some space and run the command again")
    if err.errno == errno.EROFS:
        return f"read-only file system{where}"
    if err.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied{where}"
    reason = err.strerror or str(err) or type(err).__name__
    return f"{reason}{where}"


__all__ = ["OutputError", "check_output_file", "check_output_folder", "make_output_folder",
           "os_error_message", "prepare_output_file", "pyplot"]
