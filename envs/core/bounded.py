"""Reading with limits: files, JSON and nested values bounded in size and depth, and
values quoted in error messages cut to a readable length.

Everything the suite reads from a file a user may have been handed -- an agent's
manifest, a training state, a saved game, a run's records, a YAML config
(:func:`otrio.envs.core.config.load_yaml`) -- goes through these, so that a hostile or
broken file is one short error line, never a hang, a ``MemoryError`` or a
``RecursionError``:

- :func:`read_bytes` opens only a regular file (a FIFO, a device such as
  ``/dev/zero`` or a folder is refused without blocking on it; with
  ``follow_symlinks=False`` a symbolic link is refused too) and reads at most
  ``limit`` bytes, checking the size it opened before reading;
- :func:`parse_json` parses strict UTF-8 JSON (``NaN``/``Infinity`` refused unless
  asked for) and refuses a document nested deeper than ``max_depth`` (never a
  ``RecursionError``, whatever the depth) or with more than ``max_nodes`` values;
- :func:`check_nesting` bounds a value already in memory the same way (a saved state
  handed to ``load_state``);
- :func:`short_repr` and :func:`clip` quote a value or a message in bounded time and
  length: a 200 MB string costs a few hundred characters, not 200 MB.

Each takes the error class to raise (:class:`ConfigError` for configs and agents,
:class:`StateError` for saves and records) and ``what`` the file is, for the message.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import ConfigError

MESSAGE_CHARS = 300  # the longest message part quoted from a file (a value, a parser's complaint)
MAX_JSON_DEPTH = 64  # arrays and objects inside each other (the suite's own files use < 10)
MAX_JSON_NODES = 10_000_000  # values in one document (a big records line holds thousands)
_REPR_DEPTH = 6  # containers inside containers that short_repr spells out
_BIG_INT_BITS = 1024  # an integer longer than this is described, not printed
_CONTAINERS = (dict, list, tuple)


# ------------------------------------------------------------------ messages
def clip(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` on one line (line breaks become spaces), cut to ``limit`` characters."""
    if len(text) > 4 * limit:  # cut before the replace: a huge text costs nothing more
        text = text[: 4 * limit]
    text = " ".join(text.split()) if ("\n" in text or "\r" in text) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (``...`` at the end), in time and
    memory bounded by ``limit``: strings and containers are cut before they are
    printed, nesting is spelled out ``_REPR_DEPTH`` levels deep, and a huge integer is
    described by its size. Values whose repr fits are shown exactly as ``repr``."""
    parts: list[str] = []
    budget = [limit + 1]  # characters still wanted; one more than fits says "cut"
    _repr_into(value, parts, budget, 0)
    text = "".join(parts)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _emit(parts: list[str], budget: list[int], text: str) -> None:
    parts.append(text)
    budget[0] -= len(text)


def _repr_into(value: Any, parts: list[str], budget: list[int], depth: int) -> None:
    if budget[0] <= 0:
        return
    if isinstance(value, (str, bytes, bytearray)):
        _emit(parts, budget, repr(value[: budget[0] + 2]))
    elif isinstance(value, bool) or value is None or isinstance(value, float):
        _emit(parts, budget, repr(value))
    elif isinstance(value, int):
        bits = value.bit_length()
        _emit(parts, budget, repr(value) if bits <= _BIG_INT_BITS
              else f"<an integer of {bits} bits>")
    elif type(value) in (list, tuple, dict):
        opening, closing = {list: "[]", tuple: "()", dict: "{}"}[type(value)]
        if depth >= _REPR_DEPTH and value:
            _emit(parts, budget, f"{opening}...{closing}")
            return
        _emit(parts, budget, opening)
        items = value.items() if isinstance(value, dict) else value
        for i, item in enumerate(items):
            if budget[0] <= 0:
                return
            if i:
                _emit(parts, budget, ", ")
            if isinstance(value, dict):
                _repr_into(item[0], parts, budget, depth + 1)
                _emit(parts, budget, ": ")
                _repr_into(item[1], parts, budget, depth + 1)
            else:
                _repr_into(item, parts, budget, depth + 1)
        if type(value) is tuple and len(value) == 1:
            _emit(parts, budget, ",")
        _emit(parts, budget, closing)
    else:
        try:
            size = len(value)
        except Exception:  # noqa: BLE001 -- anything without a length is printed as it is
            size = 0
        if size > 1000:
            _emit(parts, budget, f"<{type(value).__name__} of {size} items>")
        else:
            _emit(parts, budget, repr(value)[: budget[0] + 1])


# --------------------------------------------------------------------- files
def read_bytes(path: str | Path, limit: int, what: str, error: type[Exception] = ConfigError,
               follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    A missing or unreadable file, a symbolic link (with ``follow_symlinks=False``),
    anything but a regular file (``/dev/zero``, a FIFO, a folder: refused without
    reading or blocking) and a file over ``limit`` bytes (refused before reading)
    raise ``error`` naming ``what``."""
    fd = open_regular(path, what, error, follow_symlinks)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise error(f"{what} is {size} bytes, over the limit of {limit}")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as err:
        raise error(f"{what} cannot be read: {clip(str(err))}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while read
        raise error(f"{what} is over the limit of {limit} bytes")
    return data


def open_regular(path: str | Path, what: str, error: type[Exception] = ConfigError,
                 follow_symlinks: bool = True) -> int:
    """A read-only file descriptor of the regular file ``path`` (the caller closes it);
    ``error`` for a missing file, a link (unless followed) or anything not regular.

    The file is opened without blocking (a FIFO would wait for a writer) and checked
    on the descriptor itself, so what is checked is what is read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        if os.path.islink(path):
            raise error(f"{what} is a symbolic link; otrio reads it only as a regular file")
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise error(f"{what} cannot be read: {clip(err.strerror or str(err))}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as err:
        os.close(fd)
        raise error(f"{what} cannot be read: {clip(str(err))}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode)
                or stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a socket"
                if stat.S_ISSOCK(mode) else "not a regular file")
        raise error(f"{what} is {kind}, not a regular file")
    return fd


def decode_utf8(data: bytes, what: str, error: type[Exception] = ConfigError) -> str:
    """``data`` as UTF-8 text; ``error`` naming the first bad byte's offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{what} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                    f"{err.start})") from None


# ---------------------------------------------------------------------- JSON
def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str | bytes, what: str, error: type[Exception] = ConfigError,
               max_depth: int = MAX_JSON_DEPTH, max_nodes: int = MAX_JSON_NODES,
               allow_nan: bool = False, object_pairs_hook=None) -> Any:
    """The JSON value of ``text`` (bytes are read as strict UTF-8); ``error`` naming
    ``what`` for text that is not JSON, a ``NaN``/``Infinity`` (unless ``allow_nan``),
    nesting deeper than ``max_depth`` or more than ``max_nodes`` values."""
    if isinstance(text, (bytes, bytearray)):
        text = decode_utf8(bytes(text), what, error)
    kwargs: dict[str, Any] = {}
    if not allow_nan:
        kwargs["parse_constant"] = _refuse_constant
    if object_pairs_hook is not None:
        kwargs["object_pairs_hook"] = object_pairs_hook
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:  # json's C parser stops at Python's recursion limit, cleanly
        raise error(f"{what} is nested deeper than {max_depth} levels") from None
    except ValueError as err:
        raise error(f"{what} is corrupt (not JSON): {clip(str(err))}") from None
    check_nesting(value, what, error, max_depth, max_nodes)
    return value


def read_json(path: str | Path, limit: int, what: str, error: type[Exception] = ConfigError,
              follow_symlinks: bool = True, **parse: Any) -> Any:
    """:func:`read_bytes` then :func:`parse_json` (``parse``: its keyword arguments)."""
    return parse_json(read_bytes(path, limit, what, error, follow_symlinks), what, error, **parse)


def check_nesting(value: Any, what: str, error: type[Exception] = ConfigError,
                  max_depth: int = MAX_JSON_DEPTH, max_nodes: int = MAX_JSON_NODES,
                  max_text: int | None = None) -> None:
    """``error`` if ``value`` nests lists, tuples and dicts deeper than ``max_depth``,
    holds more than ``max_nodes`` values or (with ``max_text``) a string or key longer
    than ``max_text`` characters (the message names where: ``players[1].name``). Walked
    without recursion, so any depth is safe; a container met twice, as in a cycle,
    counts again until a limit stops it."""
    if max_text is not None and isinstance(value, str) and len(value) > max_text:
        raise error(f"{what} holds a text of more than {max_text} characters")
    if not isinstance(value, _CONTAINERS):
        return
    stack: list[tuple[Any, int, tuple]] = [(value, 1, ())]
    nodes = 1
    while stack:
        item, depth, path = stack.pop()
        if depth > max_depth:
            raise error(f"{what} is nested deeper than {max_depth} levels")
        if isinstance(item, dict):
            if max_text is not None:
                for k in item:
                    if isinstance(k, str) and len(k) > max_text:
                        raise error(f"{what} holds a key of more than {max_text} characters "
                                    f"in {_where(path)}")
            children = list(item.items())
        else:
            children = list(enumerate(item))
        nodes += len(children)
        if nodes > max_nodes:
            raise error(f"{what} holds more than {max_nodes} values")
        if max_text is not None:
            for k, c in children:
                if isinstance(c, str) and len(c) > max_text:
                    raise error(f"{what} holds a text of more than {max_text} characters "
                                f"at {_where((*path, k))}")
        stack.extend([(c, depth + 1, (*path, k)) for k, c in children
                      if isinstance(c, _CONTAINERS)])


def _where(path: tuple) -> str:
    """A path of keys and indices as ``players[1].name`` (``<root>`` when empty)."""
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{clip(str(k), 40)}" if out else clip(str(k), 40))
    return out or "<root>"


__all__ = ["MAX_JSON_DEPTH", "MAX_JSON_NODES", "MESSAGE_CHARS", "check_nesting", "clip",
           "decode_utf8", "open_regular", "parse_json", "read_bytes", "read_json",
           "short_repr"]
