"""A flat float32 observation described by a layout of named pieces.

``ObservationLayout([("hand", (8, 20)), ("round", (3,))])`` gives each piece an offset
into one vector; ``layout.views(buffer)`` returns named numpy views (reshaped), so an
observation writer never uses a magic index. ``layout.markdown()`` prints the table
that each game's README carries. :class:`StateCache` is the base of the incremental
observation caches that games hang on their states.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from math import prod

import numpy as np


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
