"""The run-kind contract: every command that writes a folder declares its kind of run once,
and opens the folder through :class:`RunFolder`.

A :class:`RunKind` names the files a run keeps and what each is (:class:`RunFile`):

- ``marker``: the file that says the folder holds a run of this kind (its config, or its
  manifest); written first;
- ``record``: what the run measured or made, verified before it counts (games re-played,
  shards re-played or matched to their digest, a fit re-checked);
- ``state``: what a resume continues from (checkpoints, a fit's epochs), checked on load;
- ``derived``: reports, tables, figures and summaries, recomputed from the verified
  records on every call: never read back as a number to believe;
- ``aside``: lines a repair moved out of the records, kept byte for byte and never read;
- ``sub-run``: a folder that holds a run of another kind (a value run's ``data/``, a
  skill-ceiling report's groups), opened through its own kind.

:class:`RunFolder` is the one way in (a context manager): before anything is written it
checks the output path (:func:`otrio.arena.outputs.check_output_folder`: not a file, not
under ``/proc``, missing parents only inside the current folder) and refuses a folder
that is not empty and holds no run of this kind (the user's own files, or another kind's
run); entering makes the folder and takes its one-writer lock
(:class:`~otrio.arena.run_lock.RunLock`); :meth:`RunFolder.sub` hands out a declared
sub-folder after checking that neither it nor anything between it and the run folder is
a link. Files are read and written through :mod:`otrio.envs.core.files` (no link followed,
bounded reads, whole-file writes).

:data:`KINDS` lists every declared kind: the attack pass (``tests/attacks/``) breaks the
files of a tiny run of each, and a test fails when a command writes a folder another way.
The run folder itself may be reached through a link (``runs -> /data/runs``): the user
named it. What lies under it may not.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import real_dir

from .outputs import check_output_folder, make_output_folder
from .run_lock import LOCK_FILE, RunLock

Role = Literal["marker", "record", "state", "derived", "aside", "sub-run"]


@dataclass(frozen=True)
class RunFile:
    """One file (or a pattern of files, ``shard_*.npz``; or a folder) of a run."""

    pattern: str  # relative to the run folder; fnmatch patterns allowed
    role: Role
    what: str  # one line: what it holds


@dataclass(frozen=True)
class RunKind:
    """A kind of run: its name (as messages say it), the command that writes it, its
    marker file and every file and folder it keeps."""

    name: str
    command: str
    marker: str
    files: tuple[RunFile, ...]
    folders: tuple[str, ...] = ()  # sub-folders it makes (patterns allowed), never links

    def role_of(self, relative: str) -> Role | None:
        """The role of the file at ``relative`` (a path inside the folder), or None when
        the kind declares no such file."""
        for f in self.files:
            if fnmatch.fnmatchcase(relative, f.pattern):
                return f.role
        return None

    def declares(self, relative: str) -> bool:
        """Whether ``relative`` (a path inside the folder) is a file or folder the kind
        declares."""
        return self.role_of(relative) is not None or any(
            fnmatch.fnmatchcase(relative, f) for f in self.folders)

    def files_of(self, *roles: Role) -> list[RunFile]:
        """The declared files with one of ``roles``."""
        return [f for f in self.files if f.role in roles]


KINDS: dict[str, RunKind] = {}


def register(kind: RunKind) -> RunKind:
    """Declare ``kind`` (once; a second kind of the same name is a programming error)."""
    if kind.name in KINDS and KINDS[kind.name] != kind:
        raise ValueError(f"run kind {kind.name!r} is declared twice")
    if kind.role_of(kind.marker) != "marker":
        raise ValueError(f"run kind {kind.name!r}: its marker {kind.marker} is not declared "
                         "as one")
    KINDS[kind.name] = kind
    return kind


def check_run_folder(folder: Path, marker: str, kind: str) -> None:
    """Refuse to write into ``folder`` when it exists, is not empty and holds no run of
    this ``kind`` (no ``marker`` file, e.g. ``run.json`` or ``config.json``): a folder of
    the user's own files (a ``report.md``, a ``summary.json``) is never written over.
    A stale ``run.lock`` alone (a run killed before it wrote anything) is no content."""
    folder = Path(folder)
    if not folder.is_dir():
        return  # missing (made later), or a file: the output checks say so
    if os.path.lexists(folder / marker):
        return
    try:
        entries = sorted(name for name in os.listdir(folder) if name != LOCK_FILE)
    except OSError as err:
        raise ConfigError(f"cannot read the output folder {folder}: {err.strerror or err}") from None
    if entries:
        shown = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3
                                          else "")
        raise ConfigError(f"{folder} is not empty ({shown}) and holds no {kind} (no {marker}): "
                          "otrio writes only into a new or empty folder, or one of its own runs "
                          "of this kind; choose another output folder")


class RunFolder:
    """A run's folder opened under its kind's contract (see the module docstring)::

        with RunFolder(VALUE_GATE, out) as run:
            write_text(run.path / "gate.md", text, run.path)
    """

    def __init__(self, kind: RunKind, path: str | Path, what: str = "output folder"):
        if kind.name not in KINDS:
            raise ValueError(f"run kind {kind.name!r} is not declared (register it)")
        self.kind, self.what = kind, what
        self.path = Path(path)
        self._lock: RunLock | None = None

    def check(self) -> Path:
        """Everything that would refuse this folder, checked without writing anything:
        the output path, and a folder holding neither a run of this kind nor nothing."""
        check_output_folder(self.path, self.what)
        check_run_folder(self.path, self.kind.marker, self.kind.name)
        return self.path

    def holds_run(self) -> bool:
        """Whether the folder holds a run of this kind already (its marker is there)."""
        return os.path.lexists(self.path / self.kind.marker)

    def __enter__(self) -> RunFolder:
        self.check()
        make_output_folder(self.path, self.what)
        self._lock = RunLock(self.path).acquire()
        return self

    def __exit__(self, *exc) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def sub(self, name: str, make: bool = True) -> Path:
        """The declared sub-folder ``name``, each component checked: a real folder, not a
        link (made when missing and ``make``); a :class:`StateError` naming it otherwise."""
        if not any(fnmatch.fnmatchcase(name, f) for f in self.kind.folders):
            raise ValueError(f"run kind {self.kind.name!r} declares no folder {name!r}")
        return real_dir(self.path / name, self.path, make)

    def no_link_at(self, name: str) -> None:
        """Refuse a link at ``name`` in the folder (a file or folder the run replaces or
        hands to another kind of run), before anything is written there."""
        if (self.path / name).is_symlink():
            raise StateError(f"{self.path / name} is a symbolic link: a run's files and "
                             "folders are never followed through a link; replace it with "
                             "the file or folder itself")


__all__ = ["KINDS", "Role", "RunFile", "RunFolder", "RunKind", "check_run_folder", "register"]
