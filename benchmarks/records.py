"""Append-only JSONL result files that survive interruption.

A run folder holds ``run.json`` (the validated config that made it) and
``games.jsonl`` (one record per finished game, flushed as it lands). Re-running the
same config resumes after the last complete record; a torn last line from a crash
is dropped; a run folder made by another config is refused. Where the caller names
the fields that identify a game (``unique_by``), a record whose identity is already in
the file (two writers on one folder, before folders were locked) is dropped, the first
one kept, with a warning.

One writer per folder: :class:`RunLock` (``run.lock``, holding the owner's pid and
host) refuses a second tournament, sweep or training run on a folder while the first
lives, takes over the lock of a process that died, and is released at the end, on an
error and on Ctrl-C.
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
from typing import Any

from envs.core.errors import ConfigError, StateError

RUN_FILE = "run.json"
RECORDS_FILE = "games.jsonl"
LOCK_FILE = "run.lock"
UNREADABLE_LOCK_GRACE_S = 10.0  # an empty or torn lock younger than this is being written


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (a reaped process does not)."""
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
    run is gone. Leaving removes the lock, whatever ended the block.
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.token = uuid.uuid4().hex
        self.held = False

    def _owner(self) -> dict | None:
        try:
            owner = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None
        return owner if isinstance(owner, dict) and isinstance(owner.get("pid"), int) else None

    def _stale(self, owner: dict | None) -> bool:
        if owner is None:  # empty or torn: being written now, or its writer died at once
            try:
                age = time.time() - self.path.stat().st_mtime
            except OSError:
                return False
            return age > UNREADABLE_LOCK_GRACE_S
        if owner.get("host") != socket.gethostname():
            return False
        return not _pid_alive(owner["pid"])

    def acquire(self) -> RunLock:
        """Take the lock or raise :class:`ConfigError` naming the run that holds it."""
        self.folder.mkdir(parents=True, exist_ok=True)
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
                        f"{owner.get('host')}, since {owner.get('started')}); wait for it to "
                        f"end or use another output folder (if that run is gone, delete "
                        f"{self.path})") from None
                if self._owner() == owner:  # still the same stale lock: take it over
                    try:
                        self.path.unlink()
                    except FileNotFoundError:
                        pass
                    who = f"pid {owner['pid']}" if owner else "an unreadable lock"
                    warnings.warn(f"{self.path}: took over the lock of a run that is gone "
                                  f"({who})", stacklevel=2)
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
            owner = self._owner()
            if owner is not None and owner.get("token") == self.token:
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def run_identity(config: dict[str, Any]) -> dict[str, Any]:
    """What makes a run of agents the same run: its config, plus the content of every
    ``ppo:PATH`` checkpoint it names (a checkpoint retrained in place is another agent,
    so its old records must not be resumed as its own)."""
    import hashlib

    digests = {}
    for spec in sorted(set(config.get("agents", {}).values())):
        kind, _, path = spec.partition(":")
        if kind == "ppo" and Path(path).is_file():
            digests[spec] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return {**config, "checkpoints": digests} if digests else config


def open_run(folder: Path, config: dict[str, Any], resume_keys_ignored: tuple[str, ...] = (),
             unique_by: tuple[str, ...] = ()) -> list[dict]:
    """Create or reopen a run folder; return the records already there.

    ``resume_keys_ignored`` are config keys that may differ on resume (e.g. workers).
    The config is compared with the checkpoints' content (:func:`run_identity`).
    ``unique_by``: the record fields that identify a game (``("game",)`` for
    tournaments); records repeating an identity are dropped (:func:`drop_duplicates`).
    """
    config = run_identity(config)
    folder.mkdir(parents=True, exist_ok=True)
    run_file = folder / RUN_FILE
    comparable = {k: v for k, v in config.items() if k not in resume_keys_ignored}
    if run_file.exists():
        try:
            saved = json.loads(run_file.read_text())
        except ValueError as err:
            raise StateError(f"{run_file} is corrupt: {err}") from None
        saved_cmp = {k: v for k, v in saved.items() if k not in resume_keys_ignored}
        if saved_cmp != comparable:
            changed = sorted(k for k in set(saved_cmp) | set(comparable)
                             if saved_cmp.get(k) != comparable.get(k))
            raise ConfigError(
                f"{folder} holds a run of another config (differs in: {', '.join(changed)}); "
                "use a new output folder or the same config to resume"
            )
    else:
        run_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    records = read_records(folder / RECORDS_FILE, repair=True)
    if unique_by:
        records = drop_duplicates(folder / RECORDS_FILE, records, unique_by)
    return records


def drop_duplicates(path: Path, records: list[dict], unique_by: tuple[str, ...]) -> list[dict]:
    """``records`` (all of ``path``) with the first record of each identity (the values
    of the ``unique_by`` fields) only; if any were dropped, ``path`` is rewritten without
    them (atomically) and a warning says so."""
    seen: set = set()
    keep = []
    for record in records:
        identity = json.dumps([record.get(k) for k in unique_by], sort_keys=True)
        if identity not in seen:
            keep.append(record)
            seen.add(identity)
    if len(keep) == len(records):
        return records
    dropped = len(records) - len(keep)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for record in keep:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)
    warnings.warn(f"{path}: dropped {dropped} duplicate record(s) of games already recorded "
                  f"(the first record of each {', '.join(unique_by)} is kept)", stacklevel=3)
    return keep


def read_records(path: Path, repair: bool = False) -> list[dict]:
    """The complete records of a JSONL file; with ``repair`` a torn tail is cut off."""
    if not path.exists():
        return []
    records, good_bytes = [], 0
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                records.append(json.loads(raw))
            except ValueError:
                if repair:
                    break
                raise StateError(f"{path}: corrupt record after {len(records)} good ones") from None
            good_bytes += len(raw)
    if repair and good_bytes != path.stat().st_size:
        with path.open("r+b") as fh:
            fh.truncate(good_bytes)
    return records


class RecordWriter:
    """Appends one JSON record per line and flushes it to disk at once."""

    def __init__(self, path: Path):
        self.fh = path.open("a", encoding="utf-8")

    def write(self, record: dict) -> None:
        self.fh.write(json.dumps(record, sort_keys=True) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
