"""The fixed action table: id = index, every id with a readable name.

A game builds its table once at import time from named blocks::

    table = ActionTable()
    KEEP = table.block("keep", [f"slot{i}" for i in range(8)])   # range(0, 8)
    PASS = table.single("pass")                                   # 8

``KEEP[i]`` is then the id of "keep:slot{i}"; the arithmetic (id = block start + index)
is the only encoding, written down by the block itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import UnknownActionError, is_integer_action


class ActionTable:
    """An append-only list of action names with named contiguous blocks."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._blocks: dict[str, range] = {}
        self._ids: dict[str, int] = {}

    def block(self, kind: str, labels: Sequence[object]) -> range:
        """Append one action per label, named ``kind:label``; return their id range."""
        if kind in self._blocks:
            raise ValueError(f"action block {kind!r} defined twice")
        start = len(self._names)
        for label in labels:
            name = f"{kind}:{label}"
            self._ids[name] = len(self._names)
            self._names.append(name)
        ids = range(start, len(self._names))
        self._blocks[kind] = ids
        return ids

    def single(self, kind: str) -> int:
        """Append one action named ``kind``; return its id."""
        if kind in self._blocks:
            raise ValueError(f"action block {kind!r} defined twice")
        self._ids[kind] = len(self._names)
        self._names.append(kind)
        self._blocks[kind] = range(self._ids[kind], self._ids[kind] + 1)
        return self._ids[kind]

    def __len__(self) -> int:
        return len(self._names)

    def name(self, action: int) -> str:
        """The readable name of an action id (an integer in ``0 .. len - 1``, numpy's
        too); anything else raises :class:`~envs.core.errors.UnknownActionError`, where
        a list would read -1 as the last action and ``True`` as 1."""
        if type(action) is int and 0 <= action < len(self._names):  # the common case
            return self._names[action]
        if not is_integer_action(action) or not 0 <= action < len(self._names):
            raise UnknownActionError(action, len(self._names))
        return self._names[int(action)]

    def id(self, name: str) -> int:
        """The id of an action name (inverse of :meth:`name`)."""
        return self._ids[name]

    @property
    def names(self) -> list[str]:
        return list(self._names)

    @property
    def blocks(self) -> dict[str, range]:
        return dict(self._blocks)

    def markdown(self) -> str:
        """A summary table of the blocks, for a game's README."""
        rows = ["| ids | kind | count | first name |", "|---|---|---|---|"]
        for kind, ids in self._blocks.items():
            rows.append(
                f"| {ids.start}–{ids.stop - 1} | {kind} | {len(ids)} | `{self._names[ids.start]}` |"
            )
        return "\n".join(rows)
