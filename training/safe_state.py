"""A network and its optimizer saved without pickle, for training that resumes exactly.

``STEM.<hash>.safetensors`` holds the tensors (the module's ``state_dict`` under
``module.``, the optimizer's per-parameter state under ``optimizer.<index>.<key>``, and
the caller's own ``extra`` tensors under ``extra.<name>``: a generator's state, a batch
of observations; ``<hash>`` is the first 16 hex digits of its sha256) and ``STEM.json``
everything else: the optimizer's hyper-parameters (``param_groups``), the caller's
``meta`` (epoch, history, ...), and the name, sha256 and size of the tensor file. The
tensors are written first under their own name, then the JSON replaces the old one in
one rename, then the old tensors go: a save interrupted at any point leaves the
previous state whole (or the new one). Loading checks the hash and the size before it
parses anything, then checks that every tensor matches the module's and the
optimizer's own shapes: a file that does not fit is a
:class:`~envs.core.errors.StateError`, and nothing in either file is executed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from envs.core.errors import StateError

FORMAT = "otrio-training-state"
MAX_JSON_BYTES = 16 * 2**20  # the JSON half: hyper-parameters and a history, never large


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def _json_safe(value):
    if isinstance(value, tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    return value


def save_state(stem: Path, module, optimizer, meta: dict[str, Any],
               extra: dict[str, Any] | None = None) -> None:
    """Write ``module``'s weights, ``optimizer``'s state, the ``extra`` tensors and
    ``meta`` (JSON-able) as ``stem.safetensors`` and ``stem.json`` (the JSON last: it
    names the tensors' hash, so a crash between the two leaves the old pair readable or
    none)."""
    import safetensors.torch
    import torch

    from agents.weights import tensor_aliases

    aliases = tensor_aliases(module)  # a shared encoder appears under several names
    tensors = {f"module.{k}": v.detach().cpu().contiguous()
               for k, v in module.state_dict().items() if k not in aliases}
    opt = optimizer.state_dict()
    plain_state: dict[str, dict] = {}
    for index, entry in opt["state"].items():
        for key, value in entry.items():
            if isinstance(value, torch.Tensor):
                tensors[f"optimizer.{index}.{key}"] = value.detach().cpu().contiguous()
            else:
                plain_state.setdefault(str(index), {})[key] = value
    for name, value in (extra or {}).items():
        tensors[f"extra.{name}"] = value.detach().cpu().contiguous()
    data = safetensors.torch.save(tensors, metadata={"format": FORMAT})
    digest = hashlib.sha256(data).hexdigest()
    data_file = stem.parent / f"{stem.name}.{digest[:16]}.safetensors"
    stem.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(data_file, data)
    doc = {"format": FORMAT, "file": data_file.name, "sha256": digest, "bytes": len(data),
           "param_groups": _json_safe(opt["param_groups"]), "plain_state": plain_state,
           "meta": meta}
    _write_atomic(stem.with_suffix(".json"), (json.dumps(doc, sort_keys=True) + "\n").encode())
    for old in [*stem.parent.glob(f"{stem.name}.*.safetensors"), stem.with_suffix(".safetensors")]:
        if old != data_file and _data_name(stem, old.name) and old.exists():
            old.unlink()  # the tensors of an earlier save (or of one that never finished)


def _data_name(stem: Path, name: str) -> bool:
    """Whether ``name`` is a tensor file name of ``stem`` (hashed, or the unhashed name
    of states saved before the hash was part of it)."""
    return name == f"{stem.name}.safetensors" or re.fullmatch(
        re.escape(stem.name) + r"\.[0-9a-f]{16}\.safetensors", name) is not None


def exists(stem: Path) -> bool:
    """Whether a saved state is there (its JSON half, written last)."""
    return stem.with_suffix(".json").is_file()


def load_state(stem: Path, module, optimizer, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Restore ``module`` and ``optimizer`` from :func:`save_state`'s files; return the
    ``meta`` saved with them (see the module docstring for the checks). The ``extra``
    tensors saved with them are put into the ``extra`` dict when one is given (their
    shapes are the caller's to check)."""
    import safetensors.torch

    doc_file = stem.with_suffix(".json")
    try:
        if doc_file.is_symlink():
            raise StateError(f"training state {stem}: a symbolic link is not a state file")
        if doc_file.stat().st_size > MAX_JSON_BYTES:
            raise StateError(f"training state {doc_file} is over {MAX_JSON_BYTES} bytes")
        doc = json.loads(doc_file.read_text())
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise StateError(f"{doc_file} is not a training state ({FORMAT})")
        name = doc.get("file", f"{stem.name}.safetensors")
        if not isinstance(name, str) or not _data_name(stem, name):
            raise StateError(f"{doc_file} names {str(name)[:80]!r}, not a tensor file of {stem.name}")
        data_file = stem.parent / name
        if data_file.is_symlink():
            raise StateError(f"training state {stem}: a symbolic link is not a state file")
        size = data_file.stat().st_size
        if size != doc.get("bytes"):
            raise StateError(f"training state {data_file} holds {size} bytes, its record says "
                             f"{doc.get('bytes')} (a damaged or replaced file)")
        data = data_file.read_bytes()
    except (OSError, ValueError) as err:
        raise StateError(f"training state {stem} cannot be read: {err}") from None
    if hashlib.sha256(data).hexdigest() != doc.get("sha256"):
        raise StateError(f"training state {data_file} does not match its record's sha256")
    try:
        tensors = safetensors.torch.load(data)
    except Exception as err:  # safetensors raises its own kinds on a bad header
        raise StateError(f"training state {data_file} is corrupt: {err}") from None
    from agents.weights import tensor_aliases

    weights = {k[len("module."):]: v for k, v in tensors.items() if k.startswith("module.")}
    aliases = tensor_aliases(module)
    if set(weights) & set(aliases):
        raise StateError(f"training state {data_file} does not fit the network being trained")
    weights.update({alias: weights[name] for alias, name in aliases.items() if name in weights})
    own = module.state_dict()
    if set(weights) != set(own) or any(weights[k].shape != own[k].shape
                                       or weights[k].dtype != own[k].dtype for k in own):
        raise StateError(f"training state {data_file} does not fit the network being trained")
    module.load_state_dict(weights, strict=True)
    state: dict[int, dict] = {}
    if extra is not None:
        extra.update({k[len("extra."):]: v for k, v in tensors.items() if k.startswith("extra.")})
    for name, value in tensors.items():
        if name.startswith("optimizer."):
            _, index, key = name.split(".", 2)
            state.setdefault(int(index), {})[key] = value
    for index, entry in (doc.get("plain_state") or {}).items():
        state.setdefault(int(index), {}).update(entry)
    groups = doc.get("param_groups")
    expected = optimizer.state_dict()["param_groups"]
    if (not isinstance(groups, list) or len(groups) != len(expected)
            or any(g.get("params") != e["params"] for g, e in zip(groups, expected))):
        raise StateError(f"training state {doc_file}: its optimizer is not this run's")
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for index, entry in state.items():
        if not 0 <= index < len(params):
            raise StateError(f"training state {doc_file}: optimizer entry {index} names no parameter")
        for key, value in entry.items():
            if key in ("exp_avg", "exp_avg_sq") and value.shape != params[index].shape:
                raise StateError(f"training state {doc_file}: optimizer {key} of parameter "
                                 f"{index} does not fit it")
    try:
        optimizer.load_state_dict({"state": state, "param_groups": groups})
    except (ValueError, KeyError, TypeError) as err:
        raise StateError(f"training state {doc_file}: optimizer state does not load: {err}") from None
    return doc.get("meta") or {}


__all__ = ["exists", "load_state", "save_state"]
