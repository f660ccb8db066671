"""Append-only JSONL result files that survive interruption, read as untrusted data.

A run folder holds ``run.json`` (the validated config that made it) and
``games.jsonl`` (one record per finished game, flushed as it lands). Re-running the
same config resumes after the records already there; a run folder made by another
config is refused.

**Files are opened without following links.** ``run.json``, ``games.jsonl``, its
temporary copy and its side file are opened with ``O_NOFOLLOW``: a symbolic link, a
FIFO, a device or (for a file that is written) a file with other hard links is refused
with a :class:`StateError` naming it, and what it points to is never read, truncated or
written. ``run.json`` is written to a new file then renamed into place.

**Every record is checked before it counts.** Each kind of run declares what its
records are, next to the code that writes them, as a :class:`RecordSchema`: a strict
pydantic model of the fields (types, ranges, cross-field facts such as winners within
the player count or ranks re-derived from scores), the fields that identify a game
(``unique_by``), the games of the run with the fields each one's task fixes (seed,
seating, tags, the replay's env and config: a game id outside the run, ``"3"`` for
``3``, or a record of another seed is refused) and a ``context`` its validators read.
The reader here applies it to every line: a line that is not JSON, is nested deeper
than :data:`MAX_DEPTH`, is longer than :data:`MAX_LINE_BYTES`, holds ``NaN``/``Infinity``
or fails its schema is *bad*, named by file and line number. Where records keep their
actions (``replay``, :mod:`otrio.arena.replay`), a resume also re-plays every one of them
through the engine (``verify="all"``, the default: no agent runs, so it costs seconds
per thousand games, measured in ``benchmarks/results/verify/``); a record whose replay
does not reach its recorded result is bad too, and a record without actions (written
before records kept them) is refused. ``verify="sample"``, only on the user's word,
re-plays :data:`VERIFY_SAMPLE` of them (drawn afresh each time, the last record always
among them) and counts records without actions unchecked: an edited record outside the
sample counts. ``verify="none"`` re-plays nothing. What was re-played, and how long it
took, comes back with the records (:class:`Verification`) for the run's report.

**What happens to bad lines.** Nothing is deleted: :func:`open_run` stops with one line
naming the first bad line (and how many there are), unless ``repair`` is given, which
moves every bad line, byte for byte, to ``games.rejected.jsonl`` beside it and goes on
with the rest. A record whose identity is already in the file (two writers on one
folder, before folders were locked) is never counted twice: the first one stays and the
later ones are moved to the side file, with a warning naming their lines. Only a torn
final line (no newline: a crash mid-write) is cut off silently.

One writer per folder: :class:`otrio.arena.run_lock.RunLock` (``run.lock``) locks a run
folder while a tournament, sweep or training run writes it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from tqdm import tqdm

from otrio.agents.zoo import RESOLVED, ZOO_FILE
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import new_file, open_append, open_read, truncate, write_atomic
from otrio.envs.core.paths import find_file

from .replay import ReplayError, replay_record
from .run_folder import RunFile

RUN_FILE = "run.json"
RECORDS_FILE = "games.jsonl"
REJECTED_FILE = "games.rejected.jsonl"  # bad lines moved aside by a repair, byte for byte
# the files every run of seeded games keeps (its kind adds its reports: otrio.arena.run_folder)
GAME_RUN_FILES = (
    RunFile(RUN_FILE, "marker", "the run's config, with the digests of the agent files it names"),
    RunFile(RECORDS_FILE, "record", "one line a game, re-played through the engine before it "
            "counts"),
    RunFile(REJECTED_FILE, "aside", "lines a repair moved aside, byte for byte; never read"),
)
MAX_LINE_BYTES = 8 << 20  # one record (a distillation game with its labels is ~100 kB)
MAX_RUN_FILE_BYTES = 16 << 20
MAX_DEPTH = 32  # nesting of a record (the deepest written today is 4)
VERIFY_SAMPLE = 8  # records re-played on a resume under verify="sample" (opt-in)
Verify = Literal["all", "sample", "none"]
VERIFY_MODES = ("all", "sample", "none")  # the first is the default
_SHOWN = 60  # characters of a bad value shown in a message



class RecordModel(BaseModel):
    """Base of record models: strict types (``"3"`` is not ``3``, ``true`` is not ``1``),
    no unknown field, finite numbers. Validators read the run's facts from
    ``info.context`` (:attr:`RecordSchema.context`)."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


@dataclass(frozen=True)
class RecordSchema:
    """What the records of one kind of run must be (see the module docstring).

    - ``name``: how messages call a record ("tournament record");
    - ``model``: a :class:`RecordModel` of the fields, or None (any JSON object);
    - ``unique_by``: the fields that identify a game (``("game",)``);
    - ``games``: the run's games, by identity (the tuple of the ``unique_by`` values),
      each with the fields its task fixes (compared whole, or key by key inside a
      :class:`Fields`; a field the record lacks is left to the model); None: any
      identity;
    - ``context``: facts of the run that the model's validators read;
    - ``replay``: whether records may carry a ``replay`` field to re-play them by.
    """

    name: str = "record"
    model: type[BaseModel] | None = None
    unique_by: tuple[str, ...] = ("game",)
    games: Mapping[tuple, Mapping[str, Any]] | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    replay: bool = False


@dataclass(frozen=True)
class Verification:
    """What a resume re-played of the records already in a run folder (:func:`open_run`):
    the ``mode``, how many ``records`` counted, how many of them were ``replayed``
    through the engine, and the ``seconds`` the replays took."""

    mode: str = "all"
    records: int = 0
    replayed: int = 0
    seconds: float = 0.0

    def describe(self) -> str:
        """One sentence for a run's report or log, e.g. "480 recorded games checked, every
        one re-played through the engine in 3.1 s (--verify all)"."""
        if not self.records:
            return "no recorded games to check (a fresh run)"
        counted = f"{self.records} recorded game{'s' * (self.records != 1)} checked"
        if self.mode == "none":
            return f"{counted} against the run's schema, none re-played (--verify none)"
        took = f"in {self.seconds:.1f} s (--verify {self.mode})"
        if self.mode == "all" and self.replayed == self.records:
            return f"{counted}, every one re-played through the engine {took}"
        return (f"{counted}, {self.replayed} of them re-played through the engine {took}; "
                "the others counted unchecked")


class Records(list):
    """The records :func:`open_run` found (a list, in file order), with what was
    re-played of them (:attr:`verification`)."""

    def __init__(self, records=(), verification: Verification | None = None):
        super().__init__(records)
        self.verification = verification or Verification(records=len(self))


class Fields(dict):
    """In :attr:`RecordSchema.games`, a mapping compared key by key (the record may hold
    more keys there, e.g. a replay's actions); any other value is compared whole."""


class ReplayField(RecordModel):
    """The ``replay`` field of a record as the reader checks it: the shape
    :func:`otrio.arena.replay.replay_field` writes, before anything is re-played."""

    format: Literal[1]
    env_id: str = Field(max_length=200)
    config: dict[str, Any]
    width: int = Field(ge=1, le=4)
    actions: str = Field(pattern=r"^[A-Za-z0-9_-]*$")

    @model_validator(mode="after")
    def _whole_actions(self):
        if len(self.actions) % self.width:
            raise ValueError(f"{len(self.actions)} action digits are not a multiple of the "
                             f"width {self.width}")
        return self


def plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


# ------------------------------------------------------------------ opening files
# The files of a run folder are opened by otrio.envs.core.files (no link followed, bounded
# reads, atomic replace); its functions are re-exported here for the callers of old.


# ------------------------------------------------------------------ run folder
def _agent_files(text: str) -> list[tuple[str, str]]:
    """The files an agent spec or an mcts option string names, as (how it is named,
    path): ``ppo:PATH``, ``net:PATH``, ``value:PATH[,options]`` (its manifest, which
    holds its weights' hash) and mcts's ``net=PATH`` and ``value=PATH`` (e.g. in
    ``mcts:prior=net,net=PATH`` or search-bench's ``options``)."""
    kind, _, rest = text.partition(":")
    if kind in ("ppo", "net") and rest:
        return [(text, rest)]
    if kind == "value" and rest:
        return [(text, rest.split(",")[0])]
    options = rest if kind == "mcts" else text
    return [(part, part.partition("=")[2]) for part in options.split(",")
            if part.partition("=")[0] in ("net", "value") and part.partition("=")[2]]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def run_identity(config: dict[str, Any]) -> dict[str, Any]:
    """What makes a run of agents the same run: its config, plus the content of every
    agent file it names (``ppo:PATH``, ``net:PATH``, mcts's ``net=PATH``, in its agents,
    tiers, opponent or search options): a network retrained or replaced in place is
    another agent, so its old records must not be resumed as its own."""

    digests = {}
    strings = sorted(set(_strings(config)))
    for text in strings:
        for name, path in _agent_files(text):
            file = find_file(path)  # where the agent will read it: here, or the package's
            if file.is_file():
                digests[name] = hashlib.sha256(file.read_bytes()).hexdigest()
    agents = config.get("agents")
    names = set(agents) - set(agents.values()) if isinstance(agents, dict) else set()
    # a zoo tier played as a spec (not a name for an explicit one): the player the zoo names now
    if any(text in RESOLVED and text not in names for text in strings):
        digests["zoo"] = hashlib.sha256(ZOO_FILE.read_bytes()).hexdigest()
    return {**config, "checkpoints": digests} if digests else config


def read_run_file(path: Path) -> dict[str, Any]:
    """The config saved in a ``run.json`` (StateError if it is not a JSON object)."""
    with open_read(path) as fh:
        data = fh.read(MAX_RUN_FILE_BYTES + 1)
    if len(data) > MAX_RUN_FILE_BYTES:
        raise StateError(f"{path} is corrupt: larger than {MAX_RUN_FILE_BYTES >> 20} MB")
    try:
        saved = _parse(data)
    except _Bad as bad:
        raise StateError(f"{path} is corrupt: {bad}") from None
    return saved


def open_run(folder: Path, config: dict[str, Any], resume_keys_ignored: tuple[str, ...] = (),
             unique_by: tuple[str, ...] = (), schema: RecordSchema | None = None,
             repair: bool = False, verify: Verify = "all", progress: bool = False) -> Records:
    """Create or reopen a run folder; return the records already there, each checked.

    ``resume_keys_ignored`` are config keys that may differ on resume (e.g. workers).
    The config is compared with the checkpoints' content (:func:`run_identity`).
    ``schema``: what a record of this run is (:class:`RecordSchema`); without one, any
    JSON object. ``unique_by``: the record fields that identify a game, where no schema
    names them; a record repeating an identity is moved to the side file. ``verify``:
    re-play every record through the engine (``"all"``, the default), a sample of those
    that keep their actions (``"sample"``, opt-in), or none; ``progress`` shows a bar
    while they replay. A bad line stops the run (StateError naming it; nothing is
    changed) unless ``repair`` moves it to ``games.rejected.jsonl``. The records come
    back as :class:`Records`, whose ``verification`` says what was re-played and how
    long it took.
    """
    if verify not in VERIFY_MODES:
        raise ConfigError(f"verify must be one of {', '.join(VERIFY_MODES)}, got {verify!r}")
    config = run_identity(config)
    folder.mkdir(parents=True, exist_ok=True)
    run_file = folder / RUN_FILE
    comparable = {k: v for k, v in config.items() if k not in resume_keys_ignored}
    if run_file.exists() or run_file.is_symlink():
        saved = read_run_file(run_file)
        saved_cmp = {k: v for k, v in saved.items() if k not in resume_keys_ignored}
        if saved_cmp != comparable:
            changed = sorted(k for k in set(saved_cmp) | set(comparable)
                             if saved_cmp.get(k) != comparable.get(k))
            shown = ", ".join(_cut(k) for k in changed[:10])
            more = f" and {len(changed) - 10} more" if len(changed) > 10 else ""
            raise ConfigError(
                f"{folder} holds a run of another config (differs in: {shown}{more}); "
                "use a new output folder or the same config to resume"
            )
    else:
        write_atomic(run_file, (json.dumps(config, indent=2, sort_keys=True) + "\n").encode())
    schema = schema or RecordSchema(unique_by=unique_by)
    if unique_by and tuple(unique_by) != schema.unique_by:
        raise ValueError(f"unique_by {unique_by} differs from the schema's {schema.unique_by}")
    return _resume(folder / RECORDS_FILE, schema, repair, verify, progress)


# ------------------------------------------------------------------ reading
class _Bad(Exception):
    """Why one line is not a record of the run."""


def _cut(value: Any, limit: int = _SHOWN) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a record may hold")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{_cut(text)} is out of range")
    return value


def _depth_over(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children
                         if isinstance(child, (dict, list)))
    return False


def _parse(raw: bytes) -> dict:
    """One JSON object, or :class:`_Bad` saying why not."""
    try:
        value = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise _Bad(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError among them
        raise _Bad(f"not JSON ({_cut(str(err), 120)})") from None
    if not isinstance(value, dict):
        raise _Bad(f"not a JSON object but {_json_kind(value)}")
    if _depth_over(value, MAX_DEPTH):
        raise _Bad(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _json_kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _model_problem(err: ValidationError) -> str:
    problems = err.errors()
    first = problems[0]
    key = ".".join(str(p) for p in first["loc"]) or "the record"
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        text = f"no '{key}' field"
    elif first["type"] == "extra_forbidden":
        text = f"unknown field '{key}'"
    elif first["loc"]:
        text = f"bad '{key}': {msg} (got {_cut(repr(first.get('input')))})"
    else:
        text = msg
    more = len(problems) - 1
    return text + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


def _differs(record: Mapping, fixed: Mapping, where: str = "") -> str | None:
    for key, want in fixed.items():
        if key not in record:
            continue
        got = record[key]
        name = f"{where}{key}"
        if isinstance(want, Fields) and isinstance(got, Mapping):
            found = _differs(got, want, name + ".")
            if found:
                return found
        elif json.dumps(got, sort_keys=True) != json.dumps(want, sort_keys=True):
            return f"'{name}' is {_cut(json.dumps(got))} where this run's game has " \
                   f"{_cut(json.dumps(want))}"
    return None


def _identity(record: Mapping, unique_by: tuple[str, ...]) -> tuple:
    return tuple(record.get(k) for k in unique_by)


def _check(record: dict, schema: RecordSchema) -> tuple:
    """The record's identity, or :class:`_Bad` saying why it is not a record of the run."""
    if schema.model is not None:
        try:
            schema.model.model_validate(record, context=dict(schema.context))
        except ValidationError as err:
            raise _Bad(_model_problem(err)) from None
    identity = _identity(record, schema.unique_by)
    if schema.games is not None:
        try:
            fixed = schema.games.get(identity)
        except TypeError:  # an unhashable value: no model checked its type
            fixed = None
        if fixed is None:
            names = ", ".join(schema.unique_by)
            raise _Bad(f"{names} {_cut(_show(identity))} is not one of this run's "
                       f"{len(schema.games)} games")
        found = _differs(record, fixed)
        if found:
            raise _Bad(found)
    return identity


def _show(identity: tuple) -> str:
    return json.dumps(identity[0] if len(identity) == 1 else list(identity))


@dataclass
class _Scan:
    """What a pass over a records file found."""

    good: list[tuple[int, dict]] = field(default_factory=list)  # (line, record)
    bad: dict[int, str] = field(default_factory=dict)  # line -> why
    duplicate: dict[int, str] = field(default_factory=dict)  # line -> which game it repeats
    spans: list[tuple[int, int]] = field(default_factory=list)  # each complete line's bytes
    torn: bool = False  # a final line without its newline


def _lines(fh) -> Iterator[tuple[int, int, bytes | None, bool]]:
    """``(start, end, bytes or None when too long, ends with a newline)`` of each line."""
    offset = 0
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        start = offset
        offset += len(raw)
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of an overlong line
                raw = fh.readline(1 << 20)
                offset += len(raw)
            yield start, offset, None, raw.endswith(b"\n")
        else:
            yield start, offset, raw, raw.endswith(b"\n")


def _scan(path: Path, schema: RecordSchema) -> _Scan:
    found = _Scan()
    seen: dict[str, int] = {}
    with open_read(path) as fh:
        for number, (start, end, raw, complete) in enumerate(_lines(fh), 1):
            if not complete:
                found.torn = True  # the last line, cut off by a crash mid-write
                break
            found.spans.append((start, end))
            try:
                if raw is None:
                    raise _Bad(f"longer than {MAX_LINE_BYTES >> 20} MB")
                record = _parse(raw)
                identity = _check(record, schema)
            except _Bad as bad:
                found.bad[number] = str(bad)
                continue
            if schema.unique_by:
                key = json.dumps(identity, sort_keys=True)
                if key in seen:
                    found.duplicate[number] = (f"repeats {', '.join(schema.unique_by)} "
                                               f"{_cut(_show(identity))} of line {seen[key]}")
                    continue
                seen[key] = number
            found.good.append((number, record))
    return found


def _verify(found: _Scan, schema: RecordSchema, verify: Verify, progress: bool) -> int:
    """Re-play the records chosen by ``verify`` (with a progress bar when ``progress``);
    a record that does not replay is bad. Returns how many replayed as recorded."""
    if verify == "none" or not schema.replay or not found.good:
        return 0
    if verify == "all":
        chosen = list(found.good)
    else:
        keeping = [item for item in found.good[:-1] if "replay" in item[1]]
        chosen = random.SystemRandom().sample(keeping, min(VERIFY_SAMPLE - 1, len(keeping)))
        if "replay" in found.good[-1][1]:
            chosen.append(found.good[-1])
    failed = set()
    bar = None
    if progress and chosen:
        bar = tqdm(total=len(chosen), unit="record", desc=f"verifying {schema.name}s")
    for number, record in chosen:
        if bar:
            bar.update(1)
        if "replay" not in record:
            found.bad[number] = ("keeps no actions ('replay'), so it cannot be checked: resume "
                                 "with --verify sample to count it unchecked")
        else:
            try:
                replay_record(record)
                continue
            except (ReplayError, StateError, ConfigError) as err:
                found.bad[number] = f"its replay does not match: {_cut(str(err), 300)}"
        failed.add(number)
    if bar:
        bar.close()
    if failed:
        found.good = [item for item in found.good if item[0] not in failed]
    return len(chosen) - len(failed)


def _summary(path: Path, lines: dict[int, str], what: str = "bad line") -> str:
    first = min(lines)
    others = sorted(lines)[1:]
    shown = ", ".join(str(n) for n in others[:10]) + (", ..." if len(others) > 10 else "")
    more = f" ({len(others)} more {what}{'s' * (len(others) > 1)}: {shown})" if others else ""
    return f"{path} line {first}: {lines[first]}{more}"


def _resume(path: Path, schema: RecordSchema, repair: bool, verify: Verify,
            progress: bool = False) -> Records:
    if not (path.exists() or path.is_symlink()):
        return Records(verification=Verification(mode=verify))
    found = _scan(path, schema)
    start = time.perf_counter()
    replayed = _verify(found, schema, verify, progress)
    seconds = time.perf_counter() - start
    if found.bad and not repair:
        sampled = (" (a sample of the records was re-played: --verify all, the default, "
                   "checks every one)"
                   if verify == "sample" and any("replay does not" in v for v in
                                                 found.bad.values()) else "")
        raise StateError(f"{_summary(path, found.bad)}{sampled}; nothing was changed: fix or "
                         f"remove the line, or rerun with --repair to move bad lines to "
                         f"{REJECTED_FILE}")
    moved = {**found.bad, **found.duplicate}
    if moved:
        _move_aside(path, found, set(moved))
        if found.duplicate:
            warnings.warn(f"{path}: dropped {len(found.duplicate)} duplicate record(s) of "
                          f"games already recorded, moved to {REJECTED_FILE} (the first record "
                          f"of each {', '.join(schema.unique_by)} is kept): "
                          f"{_summary(path, found.duplicate, 'duplicate')}", stacklevel=3)
        if found.bad:
            warnings.warn(f"{path}: moved {len(found.bad)} bad line(s) to {REJECTED_FILE}: "
                          f"{_summary(path, found.bad)}", stacklevel=3)
    elif found.torn:
        end = found.spans[-1][1] if found.spans else 0
        truncate(path, end)
    return Records((record for _, record in found.good),
                   Verification(verify, len(found.good), replayed, seconds))


def _move_aside(path: Path, found: _Scan, lines: set[int]) -> None:
    """Append ``lines`` of ``path`` to the side file, then rewrite ``path`` without them
    (a new file renamed into place; a torn final line is left out too)."""
    rejected = path.with_name(REJECTED_FILE)
    tmp = path.with_name(path.name + ".tmp")
    with open_read(path) as src:
        with open_append(rejected, binary=True) as side:
            for number, (start, end) in enumerate(found.spans, 1):
                if number in lines:
                    _copy(src, start, end, side)
            side.flush()
            os.fsync(side.fileno())
        with new_file(tmp) as out:
            for number, (start, end) in enumerate(found.spans, 1):
                if number not in lines:
                    _copy(src, start, end, out)
            out.flush()
            os.fsync(out.fileno())
    os.replace(tmp, path)


def _copy(src, start: int, end: int, out) -> None:
    src.seek(start)
    left = end - start
    while left:
        chunk = src.read(min(left, 1 << 20))
        if not chunk:
            break
        out.write(chunk)
        left -= len(chunk)


def read_records(path: Path, schema: RecordSchema | None = None) -> list[dict]:
    """The records of a JSONL file, each checked against ``schema`` (any JSON object
    without one); a torn final line is left out. Reads only: any bad line (or, with a
    schema, a repeated identity) raises :class:`StateError` naming it."""
    path = Path(path)
    if not (path.exists() or path.is_symlink()):
        return []
    schema = schema or RecordSchema(unique_by=())
    found = _scan(path, schema)
    problems = {**found.bad, **found.duplicate}
    if problems:
        raise StateError(_summary(path, problems))
    return [record for _, record in found.good]


def load_record(source: str | Path, game: int | None = None) -> dict[str, Any]:
    """Record number ``game`` of a run folder (its ``games.jsonl``) or of a file of
    records (a ``games.jsonl``, or the one-game file ``otrio play --save`` writes);
    ``game`` None: the only record there (a :class:`StateError` if there are more)."""
    path = Path(source)
    if path.is_dir() or not path.exists():
        path = path / RECORDS_FILE
        if not path.is_file():
            raise StateError(f"{source} holds no {RECORDS_FILE} (not a tournament or balance "
                             "run, nor a file of game records such as otrio play --save writes)")
    records = read_records(path)
    known = sorted(r["game"] for r in records if isinstance(r.get("game"), int))
    shown = f"{known[0]}..{known[-1]}" if known else "none"
    if game is None:
        if len(records) == 1:
            return records[0]
        raise StateError(f"{path} holds {len(records)} games: name one with --game K (games "
                         f"recorded: {shown})")
    for record in records:
        if record.get("game") == game:
            return record
    raise StateError(f"{path} has no game {game} (games recorded: {shown}, {len(known)} in all)")


class RecordWriter:
    """Appends one JSON record per line and flushes it to disk at once (the file is
    opened without following a link: see :func:`open_append`)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fh = open_append(self.path)

    def write(self, record: dict) -> None:
        try:
            self.fh.write(json.dumps(record, sort_keys=True) + "\n")
            self.fh.flush()
            os.fsync(self.fh.fileno())
        except OSError as err:  # a write through a descriptor names no file: name it
            if err.filename is None:
                raise OSError(err.errno, err.strerror, str(self.path)) from None
            raise

    def close(self) -> None:
        self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


__all__ = ["RUN_FILE", "RECORDS_FILE", "REJECTED_FILE", "RecordModel", "RecordSchema",
           "RecordWriter", "open_run", "read_records", "read_run_file", "run_identity",
           "write_atomic", "open_read", "open_append", "plain", "Fields", "VERIFY_MODES",
           "Records", "Verification", "ReplayField", "load_record"]
