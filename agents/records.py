"""Append-only JSONL result files that survive interruption.

A run folder holds ``run.json`` (the validated config that made it) and
``games.jsonl`` (one record per finished game, flushed as it lands). Re-running the
same config resumes after the last complete record; a torn last line from a crash
is dropped; a run folder made by another config is refused. Where the caller names
the fields that identify a game (``unique_by``), a record whose identity is already in
the file (two writers on one folder, before folders were locked) is dropped, the first
one kept, with a warning.

One writer per folder: :class:`agents.run_lock.RunLock` (``run.lock``) locks a run
folder while a tournament, sweep or training run writes it.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

from envs.core.errors import ConfigError, StateError

RUN_FILE = "run.json"
RECORDS_FILE = "games.jsonl"


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
