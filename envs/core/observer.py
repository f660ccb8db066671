"""A flat float32 observation described by a layout of named pieces.

``ObservationLayout([("hand", (8, 20)), ("round", (3,))])`` gives each piece an offset
into one vector; ``layout.views(buffer)`` returns named numpy views (reshaped), so an
observation writer never uses a magic index. ``layout.markdown()`` prints the table
that each game's README carries.

Each game defines its observation once, by a plain writer (``write_plain`` in
``envs/<game>/observe.py``) that fills the named views from the state. The env uses a
cached writer (``envs/<game>/observe_cache.py``) built the same way in every game:

* a cache (a :class:`StateCache`) hangs on the state and keeps the pieces that do not
  depend on the observer, the per-seat rows in absolute seat order;
* each part of it is rewritten only when the state values it is made of differ from
  the copy taken when it was last written (compared by value, so a state edited by
  hand is seen too);
* the writer rotates the seat rows to the observer, by one gather of the cache's
  vector (:func:`seat_gather`) or, for wide rows, by copying contiguous runs of a
  :class:`SeatRows`, then adds the observer's private pieces.

A test per game holds the cached writer to ``write_plain`` at every decision of
random and greedy games.
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Sequence
from math import prod

import numpy as np

FLOAT_BYTES = np.dtype(np.float32).itemsize


class ObservationLayout:
    """Named, shaped slices of one flat vector."""

    def __init__(self, pieces: Sequence[tuple[str, tuple[int, ...], str]]):
        """``pieces`` are ``(name, shape, description)`` in vector order."""
        self.pieces = [(name, tuple(shape), doc) for name, shape, doc in pieces]
        self.offsets: dict[str, tuple[int, int, tuple[int, ...]]] = {}
        start = 0
        for name, shape, _ in self.pieces:
            if name in self.offsets:
                raise ValueError(f"observation piece {name!r} defined twice")
            size = prod(shape)
            self.offsets[name] = (start, start + size, shape)
            start += size
        self.size = start

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into ``buffer`` (which must have length ``size``)."""
        return {
            name: buffer[a:b].reshape(shape) for name, (a, b, shape) in self.offsets.items()
        }

    def slice(self, name: str) -> slice:
        """The flat slice of one piece."""
        a, b, _ = self.offsets[name]
        return slice(a, b)

    def markdown(self) -> str:
        """The layout as a markdown table (offsets, shapes, meaning)."""
        rows = ["| offset | size | name | shape | meaning |", "|---|---|---|---|---|"]
        for name, shape, doc in self.pieces:
            a, b, _ = self.offsets[name]
            rows.append(f"| {a} | {b - a} | `{name}` | {shape} | {doc} |")
        return "\n".join(rows)


class StateCache:
    """Base of a cache that hangs on a game state (``state._obs_cache``) and serves
    only the state that built it: a copied, deep-copied, pickled or cloned state
    carries no cache of its own (copying one gives ``None``) or one whose owner is the
    original, so :func:`owned_cache` makes it build a fresh one on first use."""

    __slots__ = ("owner",)

    def __init__(self, state) -> None:
        self.owner = weakref.ref(state)

    def __reduce__(self):
        """A copy (``copy``, ``pickle``) is no cache: the state builds one on first use."""
        return _no_cache, ()


def _no_cache() -> None:
    """What a copied cache becomes."""
    return None


def owned_cache(state):
    """The state's observation cache if that state built it, else ``None``."""
    cache = getattr(state, "_obs_cache", None)
    return cache if cache is not None and cache.owner() is state else None


def zeros(size: int) -> array:
    """A float32 ``array`` of ``size`` zeros."""
    return array("f", bytes(FLOAT_BYTES * size))


def seat_gather(layout: ObservationLayout, seat_pieces: tuple[str, ...], n: int,
                seat: int) -> np.ndarray:
    """For each value of ``seat``'s observation: its index in a vector laid out like
    ``layout`` but with the rows of ``seat_pieces`` (first axis: seats) in absolute seat
    order, plus one zero at index ``layout.size``. Relative row ``k`` reads absolute
    seat ``(seat + k) % n``; rows past ``n`` read the zero; other pieces stay in place.
    Read-only; a game builds it once per (player count, seat)."""
    index = np.arange(layout.size, dtype=np.intp)
    for name in seat_pieces:
        a, b, shape = layout.offsets[name]
        width = (b - a) // shape[0]
        for k in range(shape[0]):
            row = index[a + k * width : a + (k + 1) * width]
            row[:] = layout.size if k >= n else np.arange(width) + a + (seat + k) % n * width
    index.flags.writeable = False
    return index


class SeatRows:
    """One float32 row per seat, stored twice (seat ``p`` at rows ``p`` and ``p + n``)
    so that the ``n`` rows from any seat on, in turn order, are one contiguous run,
    ``runs[seat]``: rotating wide rows is then one copy instead of a gather."""

    __slots__ = ("n", "width", "data", "floats", "raw", "runs")

    def __init__(self, n: int, width: int):
        self.n, self.width = n, width
        self.data = zeros(2 * n * width)
        floats = self.floats = memoryview(self.data)  # float32 items, written as Python floats
        self.raw = floats.cast("B")
        self.runs = [floats[seat * width : (seat + n) * width] for seat in range(n)]

    def set(self, p: int, i: int, value: float) -> None:
        """Value ``i`` of seat ``p``'s row."""
        w = self.width
        self.floats[p * w + i] = self.floats[(p + self.n) * w + i] = value

    def put(self, p: int, i: int, raw: bytes) -> None:
        """Raw float32 bytes into seat ``p``'s row from value ``i`` on."""
        at = (p * self.width + i) * FLOAT_BYTES
        twin = at + self.n * self.width * FLOAT_BYTES
        self.raw[at : at + len(raw)] = self.raw[twin : twin + len(raw)] = raw
