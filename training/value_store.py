"""The files of a value-data run (``training/value_data.py``): numpy shards and the
manifest.

A shard is one ``.npz`` (numpy's zip of arrays; never an object array, so it loads
without pickle) holding :data:`ROW_FIELDS` (one row per seat at each kept position)
and :data:`GAME_FIELDS` (what re-plays its games); :func:`content_digest` names its
arrays' content (a zip's own bytes carry a time stamp). The manifest (``manifest.json``)
holds the run's config, the digests of the value models it seats, and each written
shard's player count, rows and digest. Every file is written atomically through the
run-folder module (a link is never written through) and read without following a link;
a shard is refused before it is unpacked when its arrays would exceed a bound.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from otrio.arena.records import read_run_file
from otrio.envs.core.errors import StateError
from otrio.envs.core.files import open_read, write_atomic

FORMAT = "otrio-value-data/1"
MANIFEST = "manifest.json"
MAX_SHARD_BYTES = 1 << 31  # uncompressed arrays of one shard (2 GiB)
GAME_FIELDS = ("seeds", "policies", "actions", "offsets", "scores", "steps", "kept")
ROW_FIELDS = ("obs", "seat", "acting", "players", "game", "progress", "now", "win", "margin")

# the rows are split by game, never inside one: a game's index mod SPLIT says its part
SPLIT, TEST, VALID = 10, 0, 1  # test: ending in 0; validation: in 1; the rest trains

DTYPES = {"obs": np.float32, "seat": np.int8, "acting": np.bool_, "players": np.int8,
          "game": np.int32, "progress": np.float32, "now": np.float32, "win": np.float32,
          "margin": np.float32}
# what re-plays a shard's games: dtype and number of dimensions of each array
GAME_DTYPES = {"seeds": (np.uint64, 1), "policies": (np.int8, 2), "actions": (np.int16, 1),
               "offsets": (np.int64, 1), "scores": (np.int32, 2), "steps": (np.int32, 1),
               "kept": (np.int32, 1)}


def split_tail(game: np.ndarray) -> np.ndarray:
    """Each row's game index mod :data:`SPLIT` (:data:`TEST`: a test game)."""
    return game % SPLIT


def content_digest(arrays: dict[str, np.ndarray]) -> str:
    """sha256 of a shard's arrays (names, dtypes, shapes and bytes), wall time aside."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == "seconds":
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def shard_path(folder: Path, index: int) -> Path:
    """The file of shard ``index`` in a run folder."""
    return Path(folder) / f"shard_{index:05d}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """The arrays as one compressed ``.npz``, written atomically (a link is replaced)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    write_atomic(path, buf.getvalue())


def read_shard(path: Path, max_bytes: int = MAX_SHARD_BYTES) -> dict[str, np.ndarray]:
    """A shard's arrays, read without following a link, without pickle, and refused
    (StateError) before decompressing when they would exceed ``max_bytes``."""
    try:
        with open_read(path) as fh:
            data = fh.read()
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            declared = sum(info.file_size for info in zf.infolist())
        if declared > max_bytes:
            raise StateError(f"{path} would unpack to {declared} bytes (limit {max_bytes})")
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except StateError:
        raise
    except Exception as err:  # noqa: BLE001 -- zipfile and numpy raise a dozen kinds on
        # broken bytes (BadZipFile, zlib.error, EOFError, NotImplementedError for a flag
        # bit, RuntimeError for "encryption", struct.error, ...): all mean "not a shard"
        raise StateError(f"{path} is not a value-data shard: {str(err)[:120]}") from None
    missing = [k for k in (*ROW_FIELDS, *GAME_FIELDS) if k not in arrays]
    if missing:
        raise StateError(f"{path} is not a value-data shard: no {missing[0]!r} array")
    check_layout(path, arrays)
    return arrays


def check_layout(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Each array of a shard has the dtype and the number of dimensions a run writes, and
    the rows' arrays one length (the observations one row each): a StateError naming the
    shard and the array otherwise, before any of them is indexed."""
    want = {**{k: (DTYPES[k], 2 if k == "obs" else 1) for k in ROW_FIELDS}, **GAME_DTYPES}
    for key, (dtype, ndim) in want.items():
        a = arrays[key]
        if a.dtype != np.dtype(dtype) or a.ndim != ndim:
            raise StateError(f"{path} is not a value-data shard: its {key!r} array is "
                             f"{a.dtype} of {a.ndim} dimensions, not {np.dtype(dtype)} of "
                             f"{ndim}")
    rows = {len(arrays[k]) for k in ROW_FIELDS}
    if len(rows) != 1:
        raise StateError(f"{path} is not a value-data shard: its row arrays have "
                         f"{len(rows)} lengths ({', '.join(map(str, sorted(rows)))})")


_ENTRY_COUNTS = ("players", "games", "rows", "positions")


def _bad_entry(key: Any, entry: Any) -> str | None:
    """What is wrong with one ``shards`` entry of a manifest (None: nothing)."""
    if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) < 10):
        return f"shard key {str(key)[:20]!r} is not a shard index"
    if not isinstance(entry, dict):
        return f"shard {key} is not an object"
    for name in _ENTRY_COUNTS:
        value = entry.get(name)
        if type(value) is not int or not 0 <= value < 2**40:
            return f"shard {key} has no {name} count"
    seconds = entry.get("seconds")
    if type(seconds) not in (int, float) or not 0 <= seconds < 1e12:
        return f"shard {key} has no seconds"
    if not isinstance(entry.get("digest"), str):
        return f"shard {key} has no digest"
    return None


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The run's manifest (None: a new run); StateError if it is not one: its config,
    models and each shard's entry are checked before anything reads them."""
    path = Path(folder) / MANIFEST
    if not path.exists() and not path.is_symlink():
        return None
    saved = read_run_file(path)
    if (saved.get("format") != FORMAT or not isinstance(saved.get("shards"), dict)
            or not isinstance(saved.get("config"), dict)
            or not isinstance(saved.get("models", {}), dict)):
        raise StateError(f"{path} is not a value-data manifest ({FORMAT})")
    for key, entry in saved["shards"].items():
        bad = _bad_entry(key, entry)
        if bad:
            raise StateError(f"{path} is not a value-data manifest: {bad}")
    return saved


def write_manifest(folder: Path, config: dict[str, Any], models: dict[str, str],
                   shards: dict[str, dict]) -> None:
    """The run's manifest: its config, the value models' digests and its shards."""
    data = {"format": FORMAT, "config": config, "models": models, "shards": shards}
    write_atomic(Path(folder) / MANIFEST, json.dumps(data, indent=1, sort_keys=True).encode())


__all__ = ["DTYPES", "FORMAT", "GAME_FIELDS", "MANIFEST", "ROW_FIELDS", "SPLIT", "TEST", "VALID",
           "content_digest", "split_tail",
           "read_manifest", "read_shard", "shard_path", "write_manifest", "write_shard"]
