"""An attack pass on the files of every run kind: for each kind the commands declare
(:data:`otrio.arena.run_folder.KINDS`), a tiny finished run (tests/attacks/tiny_runs.py)
whose files are broken one at a time, then resumed.

    python tests/attacks/run_folder_attack.py [--mutations 2000] [--seconds 900] [--seed 0]
                                      [--kinds tournament,balance sweep,...]

The kinds are read from the declarations, and so are their files: a new kind is attacked
without an edit here. For each kind, every file it declares (its marker, records, state
and derived files; not the sub-runs of other kinds, which their own kind covers, nor the
lines a repair set aside) that is JSON, JSON lines, a value-data shard or a safetensors
file is mutated in turn: text files by :func:`otrio.envs.core.testing.mutate_text` (a
character changed, a span cut, doubled or truncated, JSON punctuation, ``NaN``, huge
numbers or a lone surrogate spliced in, one JSON value made huge, negative, of another
type, nested or dropped) -- a JSON-lines file one random line of it, or now and then the
whole file (a torn tail) -- binary files by byte flips, cuts, splices and truncations.
One mutation in three of a file that a digest elsewhere vouches for is semantic instead,
with that digest recomputed so that only a deeper check can find it: a value-data shard
whose arrays change dtype or shape, lose rows or take NaN, infinite or huge values, its
digest in the manifest recomputed; a distillation round's network, weights, fit log or
evaluation changed, its sha256 in the round's record recomputed. A fresh copy of the
finished run holding the one mutated file is then resumed by the very call that made it
(a whole resume, in this process; a training run is extended by one rollout, so that it
reads its checkpoint, and a distillation is resumed with or without its round record, so
that it reads the round's files), and the outcome counted:

- ``clear error``: the suite's own error (``ConfigError``, ``StateError``: an
  ``OtrioError``) in one line (``clear error over one line`` otherwise; the longest
  message is reported: a bad record's is cut at a few hundred characters);
- ``identical``: the resume finished with the result of an unbroken resume (its
  records, summary, weights: :func:`result_files`) and left the broken file as it was (a file
  it does not need, or read as the same data: a changed space in a JSON file);
- ``recomputed``: the same result, and the broken file written again;
- ``different result``: no error, but another result -- a broken file taken as data
  (each is a defect unless explained);
- any other exception, by its type (a defect: its first traceback is kept), or
  ``timeout`` (a resume that ran past ``--timeout`` seconds).

Stops each kind after ``--mutations`` mutations or ``--seconds`` seconds. Prints one
JSON line per kind.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fnmatch
import hashlib
import io
import json
import os
import shutil
import signal
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

from otrio.arena.games import RESUME_IGNORES
from otrio.arena.records import RUN_FILE
from otrio.arena.run_folder import KINDS
from otrio.envs.core.errors import OtrioError
from otrio.envs.core.testing import mutate_text
from otrio.training.value_store import content_digest, read_shard, write_shard

try:
    from tests.attacks import tiny_runs
except ModuleNotFoundError:  # run as a script (python tests/attacks/run_folder_attack.py)
    import tiny_runs

TEXT = (".json", ".jsonl")
BINARY = (".npz", ".safetensors")

# A kind's result, compared with an unbroken resume's: by default its marker and the JSON,
# shards and safetensors its declaration calls record or state. Where those hold what a resume
# rewrites under other names (training checkpoints are named by their content), the files
# that are the result instead:
RESULTS_OF = {
    "training run": ["final.safetensors", "eval.jsonl", "snapshots/step_192.safetensors"],
    "distillation run": ["rounds.jsonl", "round_1/net.safetensors", "round_1/eval.json",
                         "round_1/games.jsonl"],
}


def _resume_training(folder: Path, rng: np.random.Generator, rel: str) -> None:
    tiny_runs.training(folder, total_timesteps=192)


def _resume_distillation(folder: Path, rng: np.random.Generator, rel: str) -> None:
    record = folder / "round_1" / "round.json"
    if rel != "round_1/round.json" and rng.integers(2):  # the round exported again
        record.unlink()
    tiny_runs.distillation(folder)


RESUME = {"training run": _resume_training, "distillation run": _resume_distillation}


def attacked(kind: str, rel: str) -> bool:
    """Whether the file at ``rel`` of a run of ``kind`` is broken by the pass."""
    role = KINDS[kind].role_of(rel)
    return role in ("marker", "record", "state", "derived") and Path(rel).suffix in TEXT + BINARY


def side_files(folder: Path, kind: str) -> list[str]:
    """The files of a finished run of ``kind`` that the pass breaks, relative to it."""
    return sorted(rel for rel in (p.relative_to(folder).as_posix() for p in folder.rglob("*")
                                  if p.is_file() and p.name != "run.lock")
                  if attacked(kind, rel))


def result_files(folder: Path, kind: str) -> list[str]:
    """The files whose content is the run's result (see :data:`RESULTS_OF`)."""
    if kind in RESULTS_OF:
        return RESULTS_OF[kind]
    return [rel for rel in side_files(folder, kind)  # the kind's own marker, not a sub-run's
            if KINDS[kind].role_of(rel) in ("record", "state") or rel == KINDS[kind].marker]


# ------------------------------------------------------------------ semantic tampering
def _tamper_shard(path: Path, rng: np.random.Generator) -> None:
    """A shard's arrays changed in meaning (a dtype, a shape, rows lost, NaN, infinite or
    huge values), written as a valid shard, and its digest in the manifest recomputed."""
    arrays = read_shard(path)
    key = str(rng.choice(sorted(arrays)))
    a = arrays[key]
    how = int(rng.integers(5))
    if how == 0:
        arrays[key] = a.astype(np.float64)
    elif how == 1:
        arrays[key] = a.reshape(-1, 1) if a.ndim == 1 else a.ravel()
    elif how == 2 and len(a) > 1:
        arrays[key] = a[: len(a) // 2]  # a count lowered
    elif a.size:
        arrays[key] = a.astype(np.float64)
        flat = arrays[key].reshape(-1)
        flat[int(rng.integers(flat.size))] = (np.nan, np.inf, 1e300)[int(rng.integers(3))]
    write_shard(path, arrays)
    manifest = path.parent / "manifest.json"
    data = json.loads(manifest.read_text())
    index = str(int(path.stem.split("_")[1]))
    if index in data.get("shards", {}):
        data["shards"][index]["digest"] = content_digest(arrays)
    manifest.write_text(json.dumps(data, indent=1, sort_keys=True))


def _tamper_round_file(path: Path, rng: np.random.Generator) -> None:
    """A file a distillation round's record vouches for, mutated, and its sha256 in the
    record recomputed."""
    mutate_file(path, rng)
    record_path = path.parent / "round.json"
    record = json.loads(record_path.read_text())
    key = {"net.json": "net", "net.safetensors": "weights", "fit.jsonl": "fit"}.get(path.name)
    if key in record:
        record[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    elif path.name == "eval.json" and isinstance(record.get("eval"), dict):
        record["eval"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True))


# a file pattern -> its semantic tampering (a digest elsewhere recomputed)
SEMANTIC = {"shard_*.npz": _tamper_shard, "round_*/net.json": _tamper_round_file,
            "round_*/net.safetensors": _tamper_round_file,
            "round_*/fit.jsonl": _tamper_round_file, "round_*/eval.json": _tamper_round_file}


def semantic(rel: str):
    """The semantic tampering of the file at ``rel``, or None."""
    return next((f for pattern, f in SEMANTIC.items() if fnmatch.fnmatchcase(rel, pattern)),
                None)


def mutate_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    """``data`` broken in one to three ways: a byte flipped, a span cut, doubled or
    replaced by random bytes, the tail cut off, or everything but a prefix zeroed."""
    for _ in range(int(rng.integers(1, 4))):
        n = len(data)
        at = int(rng.integers(n + 1))
        kind = int(rng.integers(6))
        if kind == 0 and n:
            at = min(at, n - 1)
            data = data[:at] + bytes([data[at] ^ (1 << int(rng.integers(8)))]) + data[at + 1:]
        elif kind == 1:
            data = data[:at] + data[at + int(rng.integers(1, 64)):]
        elif kind == 2:
            data = data[:at] + data[at:at + int(rng.integers(1, 400))] + data[at:]
        elif kind == 3:
            data = data[:at] + rng.bytes(int(rng.integers(1, 16))) + data[at + 8:]
        elif kind == 4:
            data = data[:at]
        else:
            data = data[:at] + bytes(n - at)
    return data


def mutate_file(path: Path, rng: np.random.Generator) -> bytes:
    """Break the file at ``path`` (see the module docstring); returns its new bytes."""
    data = path.read_bytes()
    if path.suffix in BINARY:
        broken = mutate_bytes(data, rng)
    else:
        text = data.decode()
        lines = text.splitlines(keepends=True)
        if path.suffix == ".jsonl" and lines and rng.integers(8):
            k = int(rng.integers(len(lines)))
            end = "\n" if lines[k].endswith("\n") else ""
            lines[k] = mutate_text(lines[k].rstrip("\n"), rng) + end
            text = "".join(lines)
        else:
            text = mutate_text(text, rng)
        broken = text.encode("utf-8", "surrogatepass")
    if broken == data:  # a mutation that undid itself: one byte flipped for sure
        broken = mutate_bytes(data, rng) if data else b"\x00"
    path.write_bytes(broken)
    return broken


def result(folder: Path, kind: str, files: list[str]) -> dict[str, object]:
    """The run's result (``files``), wall times aside: JSON by its values, a shard by its
    content digest, any other file by its bytes (None: missing)."""

    out: dict[str, object] = {}
    for rel in files:
        path = folder / rel
        if not path.is_file() or path.is_symlink():
            out[rel] = None
            continue
        data = path.read_bytes()
        try:
            if path.name == RUN_FILE:  # a run's identity: the keys a resume may change aside
                out[rel] = {k: v for k, v in tiny_runs.timeless(json.loads(data)).items()
                            if k not in RESUME_IGNORES}
            elif path.suffix == ".json":
                out[rel] = tiny_runs.timeless(json.loads(data))
            elif path.suffix == ".jsonl":
                out[rel] = [tiny_runs.timeless(json.loads(line)) for line in data.splitlines()]
            elif path.suffix == ".npz":
                out[rel] = content_digest(read_shard(path))
            else:
                out[rel] = data
        except (ValueError, OtrioError):
            out[rel] = data
    return out


def _paths(a, b, at: str = "") -> list[str]:
    """Where two JSON values differ (the first few places)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for k in sorted(a.keys() | b.keys(), key=str)
                for p in _paths(a.get(k), b.get(k), f"{at}.{k}")][:3]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for k, (x, y) in enumerate(zip(a, b)) for p in _paths(x, y, f"{at}[{k}]")][:3]
    return [] if a == b else [f"{at or '.'}: {str(a)[:40]} -> {str(b)[:40]}"]


def _changed(before: bytes, after: bytes, rel: str) -> str:
    """What a mutation changed in a JSON file (``bytes`` for any other)."""
    try:
        if rel.endswith(".jsonl"):
            return "; ".join(_paths([json.loads(x) for x in before.splitlines()],
                                    [json.loads(x) for x in after.splitlines()]))
        return "; ".join(_paths(json.loads(before), json.loads(after)))
    except ValueError:
        return "bytes"


def _difference(expected: dict, got: dict) -> str:
    """Where a result differs from the expected one: the file, and for records the
    first record that differs, by the fields that differ."""
    for rel in expected:
        want, have = expected[rel], got[rel]
        if want == have:
            continue
        if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
            for k, (a, b) in enumerate(zip(want, have)):
                if a != b and isinstance(a, dict) and isinstance(b, dict):
                    fields = sorted(f for f in a.keys() | b.keys() if a.get(f) != b.get(f))
                    return (f"{rel} record {k}: " + ", ".join(
                        f"{f} {str(a.get(f, '(none)'))[:60]} -> {str(b.get(f, '(none)'))[:60]}"
                        for f in fields))
        return f"{rel} differs"
    return "?"


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


@contextlib.contextmanager
def _inside(folder: str):
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def attack(kind: str, scratch: Path, mutations: int, seconds: float, seed: int,
           timeout: int) -> dict:
    """Outcomes of up to ``mutations`` broken side files of ``kind`` (the docstring)."""
    rng = np.random.default_rng([seed, sum(kind.encode())])
    make = tiny_runs.KIND_MAKERS[kind]
    resume = RESUME.get(kind, lambda folder, rng, rel: make(folder))
    pristine, folder = scratch / "pristine", scratch / "run"  # one path: a study's identity
    with _quiet():
        make(folder)
    shutil.copytree(folder, pristine, symlinks=True)
    with _quiet():
        resume(folder, np.random.default_rng(0), "round_1/round.json")
    results = result_files(folder, kind)
    expected = result(folder, kind, results)
    assert all(v is not None for v in expected.values()), kind
    files = side_files(pristine, kind)
    outcomes: collections.Counter = collections.Counter()
    per_file: dict[str, collections.Counter] = {rel: collections.Counter() for rel in files}
    by_mutation: dict[str, collections.Counter] = {"bytes": collections.Counter(),
                                                   "semantic": collections.Counter()}
    examples: dict[str, str] = {}
    start = time.perf_counter()
    done = longest = 0
    while done < mutations and time.perf_counter() - start < seconds:
        rel = files[done % len(files)]
        shutil.rmtree(folder)
        shutil.copytree(pristine, folder, symlinks=True)
        tamper = semantic(rel)
        if tamper is not None and rng.integers(3) == 0:
            tamper(folder / rel, rng)
            broken = (folder / rel).read_bytes()
            outcome_of = "semantic"
        else:
            broken = mutate_file(folder / rel, rng)
            outcome_of = "bytes"
        signal.alarm(timeout)
        try:
            with _quiet():
                resume(folder, rng, rel)
            signal.alarm(0)
        except OtrioError as err:
            signal.alarm(0)
            message = str(err)
            outcome = "clear error"
            longest = max(longest, len(message))
            if "\n" in message:
                outcome = "clear error over one line"
                examples.setdefault(outcome, f"{rel}: {message[:300]}")
        except _Timeout:
            outcome = "timeout"
            examples.setdefault(outcome, rel)
        except Exception as err:  # noqa: BLE001 -- counted: every other type is a defect
            signal.alarm(0)
            outcome = type(err).__name__
            examples.setdefault(outcome, f"{rel}: {err!s:.200}\n{traceback.format_exc()[-2500:]}")
        else:
            got = result(folder, kind, results)
            if got != expected:
                outcome = "different result"
                where = _changed((pristine / rel).read_bytes(), broken, rel)
                examples.setdefault(outcome, f"{rel} broken at {where} -> "
                                             f"{_difference(expected, got)}")
            elif (folder / rel).is_file() and (folder / rel).read_bytes() == broken:
                outcome = "identical"
            else:
                outcome = "recomputed"
        outcomes[outcome] += 1
        per_file[rel][outcome] += 1
        by_mutation[outcome_of][outcome] += 1
        done += 1
    return {"kind": kind, "mutations": done, "outcomes": dict(outcomes),
            "by_mutation": {k: dict(v) for k, v in by_mutation.items()},
            "files": {rel: dict(c) for rel, c in per_file.items()}, "examples": examples,
            "longest_error": longest, "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the pass on every kind asked for; print and return one result per kind."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=900.0)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default=",".join(tiny_runs.KIND_MAKERS))
    args = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    results = []
    with tempfile.TemporaryDirectory() as tmp, _inside(tmp):  # a stray relative write
        for kind in args.kinds.split(","):                     # would land in ``tmp``
            scratch = Path(tmp) / kind.replace(" ", "_")
            scratch.mkdir()
            out = attack(kind, scratch, args.mutations, args.seconds, args.seed, args.timeout)
            out["files_written"] = sorted(set(os.listdir(tmp)) - {
                k.replace(" ", "_") for k in tiny_runs.KIND_MAKERS})
            print(json.dumps(out), flush=True)
            results.append(out)
    return results

if __name__ == "__main__":
    main()
