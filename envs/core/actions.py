"""The fixed action table: id = index, every id with a readable name.

A game builds its table once at import time from named blocks::

    table = ActionTable()
    KEEP = table.block("keep", [f"slot{i}" for i in range(8)])   # range(0, 8)
    PASS = table.single("pass")                                   # 8

``KEEP[i]`` is then the id of "keep:slot{i}"; the arithmetic (id = block start + index)
is the only encoding, written down by the block itself.

Each block may say what its moves mean, where it is made (``explain=``, and for a
block a ``pattern`` of its names such as ``"keep:slot<K>"``): :meth:`ActionTable.legend`
is then the legend of move names that ``otrio play`` shows a person at the terminal.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from .errors import UnknownActionError, is_integer_action


class ActionTable:
    """An append-only list of action names with named contiguous blocks, each with what
    its moves mean (its legend line)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._blocks: dict[str, range] = {}
        self._ids: dict[str, int] = {}
        self._explain: dict[str, str] = {}
        self._patterns: dict[str, str] = {}
        self._starts: list[int] = []  # block starts, in id order (kind_of's search)
        self._kinds: list[str] = []

    def _add(self, kind: str, ids: range, explain: str, pattern: str) -> None:
        self._blocks[kind] = ids
        self._explain[kind] = " ".join(explain.split())
        self._patterns[kind] = pattern
        self._starts.append(ids.start)
        self._kinds.append(kind)

    def block(self, kind: str, labels: Sequence[object], explain: str = "",
              pattern: str | None = None) -> range:
        """Append one action per label, named ``kind:label``; return their id range.
        ``explain``: what the moves mean; ``pattern``: how their names read in a legend
        (default ``kind:FIRST..LAST``)."""
        if kind in self._blocks:
            raise ValueError(f"action block {kind!r} defined twice")
        start = len(self._names)
        for label in labels:
            name = f"{kind}:{label}"
            self._ids[name] = len(self._names)
            self._names.append(name)
        ids = range(start, len(self._names))
        if pattern is None:  # keep:slot0..slot11
            names = self._names[start:]
            pattern = (kind if not names else names[0] if len(names) == 1
                       else f"{names[0]}..{names[-1].split(':', 1)[1]}")
        self._add(kind, ids, explain, pattern)
        return ids

    def single(self, kind: str, explain: str = "") -> int:
        """Append one action named ``kind``; return its id. ``explain``: what it means."""
        if kind in self._blocks:
            raise ValueError(f"action block {kind!r} defined twice")
        self._ids[kind] = len(self._names)
        self._names.append(kind)
        self._add(kind, range(self._ids[kind], self._ids[kind] + 1), explain, kind)
        return self._ids[kind]

    def kind_of(self, action: int) -> str:
        """The block an action id belongs to (its name before the first label)."""
        self.name(action)  # an UnknownActionError for anything but an id
        return self._kinds[bisect_right(self._starts, int(action)) - 1]

    def explanation(self, kind: str) -> str:
        """What the moves of block ``kind`` mean ("" where the game does not say)."""
        return self._explain[kind]

    def legend(self, actions: Iterable[int] | None = None) -> list[tuple[str, str]]:
        """``(pattern, meaning)`` of every block, in table order; with ``actions``, only
        of the blocks those ids belong to."""
        kinds = self._blocks if actions is None else {self.kind_of(a) for a in actions}
        return [(self._patterns[kind], self._explain[kind]) for kind in self._blocks
                if kind in kinds]

    def __len__(self) -> int:
        return len(self._names)

    def name(self, action: int) -> str:
        """The readable name of an action id (an integer in ``0 .. len - 1``, numpy's
        too); anything else raises :class:`~otrio.envs.core.errors.UnknownActionError`, where
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
