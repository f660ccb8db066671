"""A flat float32 observation described by a layout of named pieces.

``ObservationLayout([("hand", (8, 20)), ("round", (3,))])`` gives each piece an offset
into one vector; ``layout.views(buffer)`` returns named numpy views (reshaped), so an
observation writer never uses a magic index. ``layout.markdown()`` prints the table
that each game's README carries.
"""

from __future__ import annotations

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
