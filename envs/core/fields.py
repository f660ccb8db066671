"""Field checks for loading saved states: each names the field it rejects.

One :class:`FieldChecks` per game (``FieldChecks("Oceanos")``); its methods raise
:class:`StateError` with a message such as ``corrupt Oceanos state: fuel_ready[1] = -1
is out of range 0..3``. The games' ``invariants.py`` build their checks from these (the
shape and types of a saved state are its schema's: ``otrio.envs.core.schema``).
"""

from __future__ import annotations

from .bounded import short_repr
from .errors import StateError

_INT = {int}  # the type of every saved number (bool, float and text are not)
MESSAGE_LIMIT = 300  # characters of a state-load message (one line)


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def show(value) -> str:
    """A short repr of a value for an error message (40 characters at most, in bounded
    time: :func:`otrio.envs.core.bounded.short_repr`)."""
    return short_repr(value, 40)


class FieldChecks:
    """The checks of one game's saved fields (see the module docstring)."""

    def __init__(self, game: str):
        self.game = game

    def bad(self, field: str, why: str):
        """Reject ``field``, saying ``why``."""
        raise StateError(f"corrupt {self.game} state: {field} {why}")

    def int(self, value, field: str, lo: int, hi: int) -> int:
        """An integer (not a bool) in ``lo..hi``."""
        if not isinstance(value, int) or isinstance(value, bool):
            self.bad(field, f"= {show(value)} is not an integer")
        if not lo <= value <= hi:
            self.bad(field, f"= {value} is out of range {lo}..{hi}")
        return value

    def flag(self, value, field: str) -> bool:
        """True or false, nothing else."""
        if type(value) is not bool:
            self.bad(field, f"= {show(value)} is not true/false")
        return value

    def list(self, value, field: str, length: int | None = None, most: int | None = None) -> list:
        """A list, of ``length`` entries or at most ``most`` where given."""
        if not isinstance(value, list):
            self.bad(field, f"is a {type(value).__name__}, not a list")
        if length is not None and len(value) != length:
            self.bad(field, f"has {len(value)} entries, not {length}")
        if most is not None and len(value) > most:
            self.bad(field, f"has {len(value)} entries, more than {most}")
        return value

    def ints(self, value, field: str, length: int | None, lo: int, hi: int,
             most: int | None = None) -> list:
        """A list of integers in ``lo..hi`` (the culprit named by its index)."""
        self.list(value, field, length, most)
        if value and (set(map(type, value)) != _INT or min(value) < lo or max(value) > hi):
            for i, v in enumerate(value):
                self.int(v, f"{field}[{i}]", lo, hi)
        return value
