"""File safety, in one place: files opened without following a link, replaced whole, and
read with bounds.

Everything the suite writes -- a run's records and side files, an exported agent, a
value model, a report -- and every side file it reads back goes through this module:

- **files** are opened with ``O_NOFOLLOW`` (:func:`open_read`, :func:`open_append`): a
  symbolic link, a FIFO, a device or (for a file that is written) a file with other
  hard links is refused with a :class:`StateError` naming it, and what it points to is
  never read, truncated or written;
- **replacing** a file (:func:`write_atomic`, :func:`write_text_atomic`,
  :func:`save_figure`) writes a new file beside it, created with ``O_EXCL`` (never
  through a link), and renames it into place: a crash or a full disk leaves the old
  file or the new one, never a torn one, and a link at the target is refused, never
  followed;
- **sub-folders** (``round_1/``, ``checkpoints/``, ``tb/``) are checked component by
  component from a root folder down (:func:`real_dir`): each must be a real folder, not
  a link to one elsewhere, and a missing one is made with ``mkdir`` (which never
  follows a link either). Given ``root``, :func:`write_atomic`, :func:`open_append` and
  :func:`read_json` check the folders between it and the file first. Libraries that
  open their own files (TensorBoard's writer, matplotlib) are handed a folder only once
  it is checked (:func:`no_links_under`), and figures are drawn into memory then
  written here;
- **reads** are bounded (:func:`read_json`: at most :data:`MAX_SIDE_BYTES`, nested at
  most :data:`MAX_DEPTH` deep, strict UTF-8 JSON): a side file that is ``/dev/zero``,
  garbage, a list where an object goes or nested 100,000 deep is one error line naming
  it, never a ``MemoryError``, ``RecursionError`` or ``UnicodeDecodeError``.

The limits on values themselves (JSON depth and size, quoting a value in a message) are
:mod:`otrio.envs.core.bounded`; which folders a run may write into is
:mod:`otrio.arena.run_folder`.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .bounded import parse_json
from .bounded import read_bytes as _read_bytes
from .errors import StateError

MAX_SIDE_BYTES = 16 << 20  # a side file: a config, an eval summary, a fit log
MAX_DEPTH = 32  # its nesting (the suite writes at most 5 levels)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


# ------------------------------------------------------------------ files
def _link_error(path: Path) -> StateError:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return StateError(f"{path} is a symbolic link (to {str(target)[:200]}): run files are "
                      "never read or written through a link; replace it with the file itself")


def open_fd(path: Path, flags: int, write: bool) -> int:
    """``os.open`` of ``path`` without following a final symbolic link, refusing anything
    but a regular file (and, when ``write``, a file with other hard links)."""
    if not _NOFOLLOW and path.is_symlink():  # a platform without O_NOFOLLOW
        raise _link_error(path)
    try:
        fd = os.open(path, flags | _NOFOLLOW | _CLOEXEC | _NONBLOCK, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP or (err.errno == errno.EMLINK and path.is_symlink()):
            raise _link_error(path) from None
        if err.errno == errno.EEXIST and path.is_symlink():  # O_EXCL on a link
            raise _link_error(path) from None
        raise StateError(f"cannot open {path}: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StateError(f"{path} is not a regular file (a run file must be one)")
        if write and info.st_nlink > 1:
            raise StateError(f"{path} has {info.st_nlink} hard links: writing it would change "
                             "a file outside the run folder; replace it with a copy of its own")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _under(path: Path, root: Path) -> tuple[str, ...]:
    """The components of ``path`` below ``root`` (a StateError if it is not below)."""
    try:
        return Path(path).relative_to(root).parts
    except ValueError:
        raise StateError(f"{path} is not inside the run folder {root}") from None


def real_dir(path: Path, root: Path, make: bool = True) -> Path:
    """``path``, a folder inside the run folder ``root``, after checking each component
    from ``root`` down: a real folder, not a symbolic link (to a folder or anything
    else). Missing ones are made when ``make`` (``mkdir`` follows no link; a link put
    there meanwhile is found by the check after it). StateError naming the component."""
    path, root = Path(path), Path(root)
    here = root
    for part in _under(path, root):
        here = here / part
        try:
            info = os.lstat(here)
        except FileNotFoundError:
            if not make:
                return path
            try:
                os.mkdir(here)
            except FileExistsError:
                pass
            except OSError as err:
                raise StateError(f"cannot make {here}: {err.strerror or err}") from None
            info = os.lstat(here)
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(here)
            except OSError:
                target = "?"
            raise StateError(f"{here} is a symbolic link (to {str(target)[:200]}): a run's "
                             "folders are never followed through a link; replace it with a "
                             "folder of its own")
        if not stat.S_ISDIR(info.st_mode):
            raise StateError(f"{here} is not a folder (the run keeps a folder there)")
    return path


def no_links_under(folder: Path, root: Path) -> Path:
    """``folder`` checked by :func:`real_dir` (made if missing), and everything already
    in it, at any depth, checked for links: for a folder handed to a library that opens
    its own files and may reuse those it finds (TensorBoard's writers)."""
    real_dir(folder, root)
    for here, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            if os.path.islink(os.path.join(here, name)):
                raise _link_error(Path(here) / name)
    return Path(folder)


def _parent(path: Path, root: Path | None, make: bool = True) -> None:
    if root is not None:
        real_dir(Path(path).parent, root, make)


def open_read(path: Path, root: Path | None = None):
    """``path`` opened for reading in binary, refusing a link or a special file (and,
    given the run folder ``root``, a linked folder between it and the file)."""
    _parent(path, root, make=False)
    return os.fdopen(open_fd(Path(path), os.O_RDONLY, write=False), "rb")


def open_append(path: Path, binary: bool = False, root: Path | None = None):
    """``path`` opened to append text (or bytes; created if missing), refusing a link, a
    special file or a file with other hard links (and, given ``root``, a linked folder
    on the way; missing folders are made)."""
    _parent(path, root)
    fd = open_fd(Path(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, write=True)
    return os.fdopen(fd, "ab") if binary else os.fdopen(fd, "a", encoding="utf-8")


def truncate(path: Path, size: int, root: Path | None = None) -> None:
    """Cut ``path`` to its first ``size`` bytes (opened as :func:`open_append` opens)."""
    _parent(path, root, make=False)
    fd = open_fd(Path(path), os.O_WRONLY, write=True)
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)


def new_file(path: Path):
    """A fresh ``path`` (a stale one, or a link there, removed first) for writing bytes;
    created with ``O_EXCL``, so never through a link."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as err:
        raise StateError(f"cannot replace {path}: {err.strerror or err}") from None
    fd = open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, write=True)
    return os.fdopen(fd, "wb")


def write_with(path: Path, write: Callable[[Any], None], root: Path | None = None) -> None:
    """Replace ``path`` by what ``write(fh)`` writes into a new binary file ``fh``
    beside it, renamed into place: a link at ``path`` is refused (StateError), never
    followed nor replaced (a stale temporary, or a link there, is removed), and a failure (a full disk) or a crash leaves the old file or the new one, and no
    temporary. Given the run folder ``root``, the folders between it and ``path`` are
    checked (and made) first."""
    path = Path(path)
    _parent(path, root)
    if os.path.islink(path):  # never replaced silently either: the user put it there
        raise _link_error(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with new_file(tmp) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes, root: Path | None = None) -> None:
    """Write ``data`` to ``path`` as :func:`write_with` does (a link there refused; a
    crash leaves the old file or the new one)."""
    write_with(path, lambda fh: fh.write(data), root)


def write_text(path: Path, text: str, root: Path | None = None) -> None:
    """:func:`write_atomic` of ``text`` as UTF-8."""
    write_atomic(path, text.encode("utf-8"), root)


def exists(path: Path) -> bool:
    """Whether anything is at ``path``, a link included (a dangling one too): a file a
    run would read or replace, which its checks then judge."""
    return os.path.lexists(path)


# ------------------------------------------------------------------ reading
def read_bytes(path: Path, root: Path | None = None, error: type[Exception] = StateError,
               limit: int = MAX_SIDE_BYTES, what: str | None = None) -> bytes:
    """The bytes of the side file ``path`` (at most ``limit``), read without following a
    link (nor a linked folder below ``root``); one ``error`` line naming it otherwise."""
    path = Path(path)
    _parent(path, root, make=False)
    if os.path.islink(path):
        raise error(str(_link_error(path)))
    return _read_bytes(path, limit, what or str(path), error, follow_symlinks=False)


def read_json(path: Path, what: str | None = None, root: Path | None = None,
              error: type[Exception] = StateError, limit: int = MAX_SIDE_BYTES,
              kind: type | None = dict) -> Any:
    """The JSON value of the side file ``path``, read as untrusted data: not through a
    link (nor a linked folder below ``root``), a regular file of at most ``limit``
    bytes, strict UTF-8 JSON nested at most :data:`MAX_DEPTH` deep, and of type
    ``kind`` (None: any). Anything else is one ``error`` line naming the file."""
    path = Path(path)
    what = what or str(path)
    value = parse_json(read_bytes(path, root, error, limit, what), what, error,
                       max_depth=MAX_DEPTH)
    if kind is not None and not isinstance(value, kind):
        want = {dict: "a JSON object", list: "a JSON list"}.get(kind, kind.__name__)
        raise error(f"{what} is corrupt: {want} was expected, not {_kind(value)}")
    return value


def read_json_lines(path: Path, what: str | None = None, root: Path | None = None,
                    error: type[Exception] = StateError, limit: int = MAX_SIDE_BYTES) -> list[dict]:
    """The JSON objects of a small JSON-lines side file (a fit log, an eval log), read
    as :func:`read_json` reads: one ``error`` line naming the file and the line for a
    line that is not a JSON object."""
    path = Path(path)
    what = what or str(path)
    data = read_bytes(path, root, error, limit, what)
    out = []
    for number, line in enumerate(data.splitlines(), 1):
        value = parse_json(line, f"{what} line {number}", error, max_depth=MAX_DEPTH)
        if not isinstance(value, dict):
            raise error(f"{what} line {number} is corrupt: a JSON object was expected, not "
                        f"{_kind(value)}")
        out.append(value)
    return out


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number", dict: "an object"}.get(type(value), "a value")


# ------------------------------------------------------------------ whole files
def finite(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinity) made None, at any
    depth: what the suite writes is strict JSON, which a strict reader takes back."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps_json(value: Any, indent: int | None = 1) -> str:
    """``value`` as strict JSON text (a number that is not finite written as null)."""
    return json.dumps(finite(value), indent=indent, sort_keys=True, allow_nan=False) + "\n"


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8",
                      newline: str | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed into place
    (:func:`write_atomic`: created without following a link, and a
    link at ``path`` is replaced, never written through): on any failure (a full disk)
    the old file stays as it was and no temporary is left. ``newline``: as ``open``'s
    (None writes ``\n`` line ends, as on POSIX)."""
    if newline not in (None, "", "\n"):
        text = text.replace("\n", newline)
    write_atomic(Path(path), text.encode(encoding))


def save_figure(fig, path: str | Path, **savefig_kwargs) -> None:
    """``fig.savefig`` to ``path`` (the format taken from ``path``'s suffix) through a
    temporary file renamed into place (:func:`write_with`: opened
    without following a link and handed to matplotlib as an open file): a full disk
    leaves the old picture or none, never an empty or torn one."""
    path = Path(path)
    savefig_kwargs.setdefault("format", path.suffix.lstrip(".") or "png")
    write_with(path, lambda fh: fig.savefig(fh, **savefig_kwargs))


__all__ = ["MAX_DEPTH", "MAX_SIDE_BYTES", "dumps_json", "exists", "finite", "new_file", "no_links_under", "open_append",
           "open_fd", "open_read", "read_bytes", "read_json", "read_json_lines", "real_dir",
           "save_figure", "truncate", "write_atomic", "write_text", "write_text_atomic",
           "write_with"]
