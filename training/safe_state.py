"""A network and its optimizer saved without pickle, for training that resumes exactly.

``STEM.<hash>.safetensors`` holds the tensors (the module's ``state_dict`` under
``module.``, the optimizer's per-parameter state under ``optimizer.<index>.<key>``, and
the caller's own ``extra`` tensors under ``extra.<name>``: a generator's state, a batch
of observations; ``<hash>`` is the first 16 hex digits of its sha256) and ``STEM.json``
everything else: the optimizer's hyper-parameters (``param_groups``), the caller's
``meta`` (epoch, history, ...), and the name, sha256 and size of the tensor file. The
tensors are written first under their own name, then the JSON replaces the old one in
one rename, then the old tensors go: a save interrupted at any point leaves the
previous state whole (or the new one).

Loading reads with bounds (``agents/tensor_file.py``, ``envs/core/bounded.py``): the JSON
half is a regular file (no symbolic link) of at most :data:`MAX_JSON_BYTES`, nested at
most :data:`MAX_JSON_DEPTH` deep; the tensor file is a regular file (no link) whose
size is the recorded one and at most :data:`MAX_STATE_BYTES`, hashed in chunks, and
whose safetensors header is checked against the module's and the optimizer's own
shapes before its tensors are read; tensors holding NaN or infinity are refused. A file
that does not fit is one :class:`~otrio.envs.core.errors.StateError` line, and nothing in
either file is executed.
"""


from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import safetensors.torch
import torch

from otrio.agents.tensor_file import TensorFile, compare, non_finite, specs
from otrio.agents.weights import tensor_aliases
from otrio.envs.core.bounded import clip, read_json
from otrio.envs.core.errors import StateError
from otrio.envs.core.files import write_atomic

FORMAT = "otrio-training-state"
MAX_JSON_BYTES = 16 * 2**20  # the JSON half: hyper-parameters and a history, never large
MAX_JSON_DEPTH = 32  # its nesting (the suite writes 4 levels)
MAX_STATE_BYTES = 1 << 30  # the tensors: a network and two moment estimates of each weight


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
    write_atomic(data_file, data)
    doc = {"format": FORMAT, "file": data_file.name, "sha256": digest, "bytes": len(data),
           "param_groups": _json_safe(opt["param_groups"]), "plain_state": plain_state,
           "meta": meta}
    write_atomic(stem.with_suffix(".json"), (json.dumps(doc, sort_keys=True) + "\n").encode())
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
    doc_file = stem.with_suffix(".json")
    if doc_file.is_symlink():
        raise StateError(f"training state {doc_file} is a symbolic link: a link is not a state file")
    doc = read_json(doc_file, MAX_JSON_BYTES, f"training state {doc_file}", StateError,
                    follow_symlinks=False, max_depth=MAX_JSON_DEPTH, allow_nan=True)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StateError(f"{doc_file} is not a training state ({FORMAT})")
    name = doc.get("file", f"{stem.name}.safetensors")
    if not isinstance(name, str) or not _data_name(stem, name):
        raise StateError(f"{doc_file} names {clip(str(name), 80)!r}, not a tensor file of "
                         f"{stem.name}")
    data_file = stem.parent / name
    if data_file.is_symlink():
        raise StateError(f"training state {data_file} is a symbolic link: a link is not a state file")
    sha256 = doc.get("sha256")
    if not isinstance(sha256, str):
        raise StateError(f"training state {doc_file} names no sha256 of its tensors")
    aliases = tensor_aliases(module)  # a shared encoder appears under several names
    own = {f"module.{k}": spec for k, spec in specs(module.state_dict()).items()
           if k not in aliases}
    against = "the network being trained"
    with TensorFile(data_file, doc.get("bytes"), MAX_STATE_BYTES, f"training state {data_file}",
                    StateError) as source:
        if source.sha256() != sha256:
            raise StateError(f"training state {data_file} does not match its record's sha256")
        header = source.header()
        compare({k: v for k, v in header.items() if k.startswith("module.")}, own,
                f"training state {data_file}", against, StateError)
        params = [p for group in optimizer.param_groups for p in group["params"]]
        for tensor, (shape, _) in header.items():
            if not tensor.startswith(("module.", "extra.")):  # extra: the caller checks them
                _check_optimizer_tensor(tensor, shape, params, doc_file)
        data = source.read(sha256)
    try:
        tensors = safetensors.torch.load(data)
    except Exception as err:  # safetensors raises its own kinds on a bad header
        raise StateError(f"training state {data_file} is corrupt: {clip(str(err))}") from None
    del data
    if specs(tensors) != header:
        raise StateError(f"training state {data_file} does not parse as its header says")
    bad = non_finite(tensors)
    if bad:
        raise StateError(f"training state {data_file} holds NaN or infinite values (tensor "
                         f"{clip(bad[0], 80)}{f' and {len(bad) - 1} more' if len(bad) > 1 else ''})")
    weights = {k[len("module."):]: v for k, v in tensors.items() if k.startswith("module.")}
    weights.update({alias: weights[k] for alias, k in aliases.items() if k in weights})
    if extra is not None:
        extra.update({k[len("extra."):]: v for k, v in tensors.items() if k.startswith("extra.")})
    state = _optimizer_state(tensors, doc.get("plain_state"), len(params), doc_file)
    groups = doc.get("param_groups")
    expected = _json_safe(optimizer.state_dict()["param_groups"])
    if (not isinstance(groups, list) or len(groups) != len(expected)
            or any(not isinstance(g, dict) or g.keys() != e.keys()
                   or not all(_fits(g[k], e[k]) for k in e)
                   for g, e in zip(groups, expected))):
        raise StateError(f"training state {doc_file}: its optimizer is not this run's")
    module.load_state_dict(weights, strict=True)
    try:
        optimizer.load_state_dict({"state": state, "param_groups": groups})
    except (ValueError, KeyError, TypeError) as err:
        raise StateError(f"training state {doc_file}: optimizer state does not load: "
                         f"{clip(str(err))}") from None
    meta = doc.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise StateError(f"training state {doc_file}: its meta is not a JSON object")
    return meta or {}


def _fits(saved: Any, own: Any) -> bool:
    """Whether a saved optimizer setting can stand for this optimizer's own: a
    hyper-parameter (the learning rate, betas, eps, weight decay: numbers) as a finite
    number >= 0 of the same shape; a switch of the code (capturable, fused, foreach,
    amsgrad, the parameter indices: anything else) as the very same value -- a saved
    ``capturable: true`` made the first step of a CPU run an AssertionError."""
    if isinstance(own, float):
        return type(saved) in (int, float) and 0 <= saved < float("inf")
    if isinstance(own, list) and own and all(isinstance(v, float) for v in own):
        return isinstance(saved, list) and len(saved) == len(own) and all(
            _fits(s, o) for s, o in zip(saved, own))
    return type(saved) is type(own) and saved == own


def _check_optimizer_tensor(name: str, shape: tuple[int, ...], params: list, doc_file: Path):
    """A header's ``optimizer.<index>.<key>`` tensor names a parameter of this optimizer
    and, for a moment estimate, has its shape (checked before the tensors are read)."""
    parts = name.split(".", 2)
    if len(parts) != 3 or parts[0] != "optimizer" or not parts[1].isdigit():
        raise StateError(f"training state {doc_file}: tensor {clip(name, 80)!r} is neither the "
                         f"network's nor the optimizer's")
    index = int(parts[1])
    if not 0 <= index < len(params):
        raise StateError(f"training state {doc_file}: optimizer entry {index} names no parameter")
    if parts[2] in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") and shape != tuple(params[index].shape):
        raise StateError(f"training state {doc_file}: optimizer {parts[2]} of parameter "
                         f"{index} does not fit it")
    if parts[2] not in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") and len(shape) > 0:
        raise StateError(f"training state {doc_file}: optimizer {clip(parts[2], 40)} of parameter "
                         f"{index} is not a number")


def _optimizer_state(tensors: dict, plain: Any, count: int, doc_file: Path) -> dict[int, dict]:
    """The optimizer's per-parameter state: its tensors and the plain values of the
    JSON half (``plain_state``: parameter index -> key -> number)."""
    state: dict[int, dict] = {}
    for name, value in tensors.items():
        if name.startswith("optimizer."):
            _, index, key = name.split(".", 2)
            state.setdefault(int(index), {})[key] = value
    if plain is None:
        return state
    if not isinstance(plain, dict):
        raise StateError(f"training state {doc_file}: plain_state is not a JSON object")
    for index, entry in plain.items():
        if not index.isdigit() or not int(index) < count or not isinstance(entry, dict):
            raise StateError(f"training state {doc_file}: plain_state {clip(index, 40)!r} names "
                             f"no optimizer entry")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in entry.values()):
            raise StateError(f"training state {doc_file}: plain_state {index} holds a value "
                             f"that is not a number")
        state[int(index)].update(entry)
    return state


__all__ = ["exists", "load_state", "save_state"]
