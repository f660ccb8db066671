"""Safetensors files read with bounds, for exported agents (``agents/weights.py``) and
training states (``training/safe_state.py``).

A safetensors file is an 8-byte little-endian header length N, N bytes of a JSON
header (``name: {dtype, shape, data_offsets}`` and an optional ``__metadata__`` of
strings), then the tensors' bytes. :class:`TensorFile` opens one so that nothing is
read before it is known to be bounded:

1. the path must be a regular file, not a symbolic link (``/dev/zero``, a FIFO or a
   link to anything is refused without reading it), whose size equals the size its
   record promises and is at most ``limit`` bytes (an 8 GB sparse file is refused from
   its size alone);
2. :meth:`TensorFile.check_sha256` hashes it in 1 MiB chunks (memory stays bounded);
3. :meth:`TensorFile.header` reads only the length and the header (at most
   :data:`MAX_HEADER_BYTES`) and checks it: known dtypes, shapes of non-negative
   integers, each tensor's byte range the size its shape and dtype give, the ranges
   tiling the data exactly; no duplicate names. The caller compares the tensors it
   promises with what it expects *before* it builds or allocates anything from them;
4. :meth:`TensorFile.read` reads the whole file (its size already checked) and checks
   its hash again, on the very bytes that are then parsed;
5. :func:`non_finite` names the floating tensors that hold a NaN or an infinity.

Every refusal is one line of the error class the caller names.
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path
from typing import Any

from otrio.envs.core.bounded import clip, open_regular, parse_json

MAX_HEADER_BYTES = 1 << 20  # the JSON header (a network of hundreds of tensors needs ~50 KB)
MAX_TENSORS = 10_000
MAX_RANK = 8
_CHUNK = 1 << 20
# safetensors dtype codes -> (bytes per element, torch dtype name)
DTYPES = {"BOOL": (1, "bool"), "U8": (1, "uint8"), "I8": (1, "int8"), "I16": (2, "int16"),
          "U16": (2, "uint16"), "I32": (4, "int32"), "U32": (4, "uint32"), "I64": (8, "int64"),
          "U64": (8, "uint64"), "F16": (2, "float16"), "BF16": (2, "bfloat16"),
          "F32": (4, "float32"), "F64": (8, "float64"), "F8_E5M2": (1, "float8_e5m2"),
          "F8_E4M3": (1, "float8_e4m3fn")}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate name {clip(key, 80)!r}")
        out[key] = value
    return out


class TensorFile:
    """A safetensors file opened for bounded reading (see the module docstring); use
    it as a context manager. ``what`` names it in messages (``corrupt`` says it is
    corrupt), ``expected_bytes`` is the size its record gives, ``limit`` the most bytes
    it may have."""

    def __init__(self, path: str | Path, expected_bytes: Any, limit: int, what: str,
                 error: type[Exception], corrupt: str | None = None):
        self.path, self.what, self.error = Path(path), what, error
        self.corrupt = corrupt or f"{what} is corrupt (not safetensors)"
        if not _is_int(expected_bytes) or not 0 <= expected_bytes <= limit:
            raise error(f"{what}: its record gives its size as {clip(repr(expected_bytes), 40)}, "
                        f"not a number of bytes in 0..{limit}")
        self.fd = open_regular(self.path, what, error, follow_symlinks=False)
        try:
            self.size = os.fstat(self.fd).st_size
        except OSError as err:
            self.close()
            raise error(f"{what} cannot be read: {clip(str(err))}") from None
        if self.size != expected_bytes:
            self.close()
            raise error(f"{what}: {self.size} bytes on disk, its record says {expected_bytes} "
                        f"(a damaged or replaced file)")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> TensorFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _pread(self, count: int, offset: int) -> bytes:
        chunks, left = [], count
        try:
            while left > 0:
                chunk = os.pread(self.fd, min(left, _CHUNK), offset + count - left)
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        except OSError as err:
            raise self.error(f"{self.what} cannot be read: {clip(str(err))}") from None
        data = b"".join(chunks)
        if len(data) != count:
            raise self.error(f"{self.what} changed while it was read")
        return data

    def sha256(self) -> str:
        """The file's sha256, read in chunks."""
        digest = hashlib.sha256()
        for offset in range(0, self.size, _CHUNK):
            digest.update(self._pread(min(_CHUNK, self.size - offset), offset))
        return digest.hexdigest()

    def header(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        """The tensors the header promises, name -> (shape, torch dtype), checked (a
        clear error for a corrupt header); ``__metadata__`` is left out."""
        import torch  # deferred: torch (~1 s)

        corrupt = self.corrupt
        if self.size < 8:
            raise self.error(f"{corrupt}: {self.size} bytes, shorter than a header")
        (length,) = struct.unpack("<Q", self._pread(8, 0))
        if length > min(MAX_HEADER_BYTES, self.size - 8):
            raise self.error(f"{corrupt}: a header of {length} bytes in a file of {self.size} "
                             f"(at most {MAX_HEADER_BYTES})")
        raw = self._pread(length, 8)
        try:
            header = parse_json(raw, "its header", ValueError, max_depth=4,
                                object_pairs_hook=_unique_pairs)
        except ValueError as err:
            raise self.error(f"{corrupt}: {clip(str(err))}") from None
        if not isinstance(header, dict):
            raise self.error(f"{corrupt}: the header is not a JSON object")
        metadata = header.pop("__metadata__", None)
        if metadata is not None and not (isinstance(metadata, dict) and all(
                isinstance(v, str) for v in metadata.values())):
            raise self.error(f"{corrupt}: __metadata__ is not a table of strings")
        if len(header) > MAX_TENSORS:
            raise self.error(f"{corrupt}: {len(header)} tensors, more than {MAX_TENSORS}")
        data_bytes = self.size - 8 - length
        out, spans = {}, []
        for name, entry in header.items():
            where = f"{corrupt}: tensor {clip(name, 80)!r}"
            if not (isinstance(entry, dict) and set(entry) == {"dtype", "shape", "data_offsets"}):
                raise self.error(f"{where} is not {{dtype, shape, data_offsets}}")
            dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
            if not isinstance(dtype, str) or dtype not in DTYPES:
                raise self.error(f"{where} has an unknown dtype {clip(repr(dtype), 40)}")
            if (not isinstance(shape, list) or len(shape) > MAX_RANK
                    or not all(_is_int(n) and 0 <= n <= data_bytes for n in shape)):
                raise self.error(f"{where} has a bad shape {clip(repr(shape), 80)}")
            if (not isinstance(offsets, list) or len(offsets) != 2
                    or not all(_is_int(n) for n in offsets)
                    or not 0 <= offsets[0] <= offsets[1] <= data_bytes):
                raise self.error(f"{where} lies outside the file's {data_bytes} data bytes")
            count = 1
            for n in shape:
                count *= n
            if offsets[1] - offsets[0] != count * DTYPES[dtype][0]:
                raise self.error(f"{where}: its shape {tuple(shape)} of {dtype} needs "
                                 f"{count * DTYPES[dtype][0]} bytes, its range holds "
                                 f"{offsets[1] - offsets[0]}")
            out[name] = (tuple(shape), getattr(torch, DTYPES[dtype][1]))
            spans.append((offsets[0], offsets[1]))
        end = 0
        for start, stop in sorted(spans):
            if start != end:
                raise self.error(f"{corrupt}: its tensors overlap or leave gaps in the data")
            end = stop
        if end != data_bytes:
            raise self.error(f"{corrupt}: its tensors cover {end} of the {data_bytes} data bytes")
        return out

    def read(self, sha256: str | None = None) -> bytes:
        """The whole file (its size checked when it was opened); with ``sha256``, the
        bytes read must have that hash."""
        data = self._pread(self.size, 0)
        if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
            raise self.error(f"{self.what} changed while it was read (its sha256 differs)")
        return data


def non_finite(tensors: dict[str, Any]) -> list[str]:
    """The names of the floating-point tensors that hold a NaN or an infinity."""
    import torch  # deferred: torch (~1 s)

    bad = []
    for name, tensor in tensors.items():
        if tensor.dtype.is_floating_point:
            values = tensor if tensor.dtype in (torch.float16, torch.bfloat16, torch.float32,
                                                torch.float64) else tensor.float()
            if not bool(torch.isfinite(values).all()):
                bad.append(name)
    return sorted(bad)


def specs(tensors: dict[str, Any]) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Tensors as :func:`compare` reads them: name -> (shape, dtype)."""
    return {name: (tuple(t.shape), t.dtype) for name, t in tensors.items()}


def compare(found: dict[str, tuple[tuple[int, ...], Any]],
            expected: dict[str, tuple[tuple[int, ...], Any]],
            what: str, against: str, error: type[Exception]) -> None:
    """``error`` unless ``found`` (a header's tensors, or the parsed ones: name -> shape
    and torch dtype) are exactly ``expected``: the missing and unexpected names (five
    of each), or the first tensor whose shape or dtype differs."""
    missing = sorted(set(expected) - set(found))
    unexpected = sorted(set(found) - set(expected))
    if missing or unexpected:
        def few(names: list[str]) -> str:
            return f"{[clip(n, 80) for n in names[:5]]}{' ...' if len(names) > 5 else ''}"

        raise error(f"{what} do not fit {against}: missing tensors {few(missing)}, "
                    f"unexpected tensors {few(unexpected)}")
    for name, (shape, dtype) in found.items():
        want_shape, want_dtype = expected[name]
        if tuple(shape) != tuple(want_shape) or dtype != want_dtype:
            raise error(f"{what}: tensor {name} is {tuple(shape)} {dtype}, "
                        f"{against} needs {tuple(want_shape)} {want_dtype}")


__all__ = ["DTYPES", "MAX_HEADER_BYTES", "TensorFile", "compare", "non_finite", "specs"]
