"""A distillation round's own record (``round_K/round.json``): what the run wrote there,
each file bound by its sha256.

A round's side files summarise work that is costly to redo: the fit's log
(``fit.jsonl``), the exported network (``net.json`` + ``net.safetensors``) and the
evaluation (``eval.json``). The run records the sha256 of each as it writes it, and on
a resume believes a file only if it is still what the record names:

- a file the record names whose bytes have changed since (an ``eval.json`` edited to a
  self-consistent 0.99, a network swapped in) is refused, in one line naming it;
- a network, fit log or evaluation the record does not name (a file put there, or one
  written just before a crash, ahead of its record) is never used: the round is
  exported again from its fit state, or evaluated again, and the file replaced.

The record is written last, after the files it names (a new file renamed into place),
so a crash leaves the previous record or the new one. It is read as untrusted data
(:func:`otrio.envs.core.files.read_json`): a record that is not one is a one-line
:class:`StateError`. The record binds files to each other, not to a secret: someone who
rewrites a file *and* its digest here makes a run that the suite cannot tell from its
own (the threat model on the safety page).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from otrio.envs.core.errors import StateError
from otrio.envs.core.files import exists, open_read, read_json, write_text

ROUND_FILE = "round.json"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_KEYS = {"fit": str, "net": str, "weights": str, "eval": dict}


def digest(path: Path, root: Path) -> str:
    """The sha256 of ``path``, read without following a link (nor a linked folder
    between the run folder ``root`` and it)."""

    sha = hashlib.sha256()
    with open_read(path, root) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def read_round(here: Path, root: Path) -> dict[str, Any]:
    """The round's record (empty if it has none yet), each entry checked for shape."""

    path = here / ROUND_FILE
    if not exists(path):
        return {}
    record = read_json(path, f"the round's record {path}", root)
    for key, value in record.items():
        kind = _KEYS.get(key)
        if kind is None:
            raise StateError(f"the round's record {path} is corrupt: unknown entry {key[:40]!r}")
        if not isinstance(value, kind) or (kind is str and not _SHA256.fullmatch(value)):
            raise StateError(f"the round's record {path} is corrupt: its {key!r} entry is not "
                             "a sha256")
    evaluation = record.get("eval")
    if evaluation is not None and not (
            isinstance(evaluation.get("sha256"), str) and _SHA256.fullmatch(evaluation["sha256"])
            and isinstance(evaluation.get("games"), int)
            and isinstance(evaluation.get("opponents"), list)):
        raise StateError(f"the round's record {path} is corrupt: its 'eval' entry is not "
                         "{sha256, games, opponents}")
    return record


def write_round(here: Path, root: Path, record: dict[str, Any]) -> None:
    """Replace the round's record (after the files it names are written)."""

    write_text(here / ROUND_FILE, json.dumps(record, indent=1, sort_keys=True) + "\n", root)


def bound(path: Path, root: Path, want: str | None) -> bool:
    """Whether ``path`` is the file of sha256 ``want`` that its round's record names:
    False if the record names none or the file is missing (the run computes it again),
    True if it is the one; a :class:`StateError` if it is there but has changed."""

    if want is None or not exists(path):
        return False
    if digest(path, root) != want:
        raise StateError(f"{path} has changed since the run wrote it (its sha256 is not the "
                         f"one {path.parent / ROUND_FILE} recorded): the run believes only "
                         "its own files; restore it, or remove it to compute it again")
    return True


__all__ = ["ROUND_FILE", "bound", "digest", "read_round", "write_round"]
