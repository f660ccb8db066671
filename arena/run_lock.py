"""One writer per run folder: :class:`RunLock` (``run.lock``, holding the owner's pid and
host) refuses a second tournament, sweep or training run on a folder while the first
lives, takes over the lock of a process that died, and is released at the end, on an
error and on Ctrl-C.

It sits in agents/, below training/ and benchmarks/, which both lock their run folders.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import uuid
import warnings
from pathlib import Path

from otrio.envs.core.bounded import read_bytes
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.saves import show_value

from .outputs import make_output_folder

LOCK_FILE = "run.lock"
MAX_LOCK_BYTES = 4096  # a lock is one short line of JSON
UNREADABLE_LOCK_GRACE_S = 10.0  # an empty or torn lock younger than this is being written


PID_MAX = 2**31 - 1  # a pid is a positive C int (pid_t); anything else is no process


def _pid_in_range(pid) -> bool:
    """Whether ``pid`` can name a process: an integer (not a bool) in 1..PID_MAX. A
    lock holding 0, -1 (which ``os.kill`` reads as "the process group" and "every
    process") or 2**80 names none."""
    return isinstance(pid, int) and not isinstance(pid, bool) and 1 <= pid <= PID_MAX


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (a reaped process does not)."""
    if not _pid_in_range(pid):
        return False
    if pid == os.getpid():
        return True
    if os.name == "nt":  # os.kill would terminate it there: assume it lives
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return True
    return True


class RunLock:
    """The one-writer lock of a run folder (a context manager): ``run.lock`` in the
    folder holds the owner's pid, host and start time.

    Entering creates the folder if needed and the lock file atomically; a lock held by
    a live process (this one included: the lock is not re-entrant) is refused with a
    :class:`ConfigError` naming its owner. A lock left by a process of this host that
    no longer exists is taken over (with a warning); a lock from another host is never
    judged stale (its process cannot be seen from here): remove it by hand once that
    run is gone. A lock whose pid names no process (not an integer in 1..2**31-1: 0,
    -1, 2**80, text) is corrupt, and taken over with a warning too. Leaving removes the
    lock, whatever ended the block.

    The folder itself is made if missing, its parents only inside the current
    directory (:func:`otrio.arena.outputs.make_output_folder`).
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.token = uuid.uuid4().hex
        self.held = False

    def _owner(self) -> dict | None:
        if self.path.is_symlink():  # never read (or judged stale and removed) through a link
            raise ConfigError(f"{self.path} is a symbolic link, not a run's lock: remove it")
        try:  # bounded, and no link followed: a lock is a line of JSON
            owner = json.loads(read_bytes(self.path, MAX_LOCK_BYTES, str(self.path),
                                          follow_symlinks=False))
        except (ConfigError, ValueError):
            return None
        if not isinstance(owner, dict) or "pid" not in owner:
            return None
        return owner

    def _stale(self, owner: dict | None) -> bool:
        if owner is None:  # empty or torn: being written now, or its writer died at once
            try:
                age = time.time() - self.path.stat().st_mtime
            except OSError:
                return False
            return age > UNREADABLE_LOCK_GRACE_S
        if not _pid_in_range(owner["pid"]):  # corrupt: no process holds it, wherever
            return True
        if owner.get("host") != socket.gethostname():
            return False
        return not _pid_alive(owner["pid"])

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`ConfigError` naming the run that holds it."""
        make_output_folder(self.folder, "run folder")
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": time.strftime("%Y-%m-%d %H:%M:%S"), "token": self.token,
                  "command": " ".join(sys.argv)[:500]}
        for _ in range(50):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self._owner()
                if not self._stale(owner):
                    if owner is None:  # being written: look again in a moment
                        time.sleep(0.05)
                        continue
                    raise ConfigError(
                        f"{self.folder} is in use by another run (pid {owner['pid']} on "
                        f"{str(owner.get('host'))[:80]}, since {str(owner.get('started'))[:40]}); wait for it to "
                        f"end or use another output folder (if that run is gone, delete "
                        f"{self.path})") from None
                if self._owner() == owner:  # still the same stale lock: take it over
                    try:
                        self.path.unlink()
                    except FileNotFoundError:
                        pass
                    if owner is None:
                        what = "an unreadable lock"
                    elif not _pid_in_range(owner["pid"]):
                        what = f"a corrupt lock: pid {show_value(owner['pid'])} names no process"
                    else:
                        what = f"pid {owner['pid']}"
                    warnings.warn(f"{self.path}: took over the lock of a run that is gone "
                                  f"({what})", stacklevel=2)
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(record, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self.held = True
            return self
        raise ConfigError(f"could not take the lock {self.path}; remove it if no run uses "
                          f"{self.folder}")

    def release(self) -> None:
        """Remove the lock if this object still holds it."""
        if self.held:
            self.held = False
            try:
                owner = self._owner()
            except ConfigError:  # a link put in its place: left for the user to see
                return
            if owner is not None and owner.get("token") == self.token:
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


__all__ = ["LOCK_FILE", "RunLock"]
