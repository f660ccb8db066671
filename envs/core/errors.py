"""Errors shared by every game: each names what was wrong so a user can fix it."""

from numbers import Integral

import numpy as np


class OtrioError(Exception):
    """Base class of the suite's own errors."""


class IllegalActionError(OtrioError, ValueError):
    """An agent chose an action that is not legal in the current decision."""

    def __init__(self, action, agent: str, legal: list[int], names: list[str] | None = None,
                 reason: str | None = None):
        self.action = action
        self.agent = agent
        self.legal = list(legal)
        shown = ", ".join(
            f"{a}={n}" for a, n in zip(self.legal, names or [""] * len(self.legal))
        ) if names else str(self.legal)
        why = f" ({reason})" if reason else ""
        super().__init__(f"illegal action {action!r} for {agent}{why}; legal actions: {shown}")


class UnknownActionError(OtrioError, ValueError):
    """A value that is no action id of the game's action table (``action_name(-1)``):
    ids are the integers ``0 .. num_actions - 1``."""

    def __init__(self, action, num_actions: int):
        self.action = action
        self.num_actions = num_actions
        shown = repr(action)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        kind = "" if is_integer_action(action) else f" ({type(action).__name__})"
        super().__init__(f"no action {shown}{kind}: action ids are the integers "
                         f"0..{num_actions - 1}")


class ConfigError(OtrioError, ValueError):
    """A configuration key is unknown or a value is out of range."""


class StateError(OtrioError, ValueError):
    """A saved state or replay file is corrupt or belongs to another game."""


class OrderError(OtrioError, RuntimeError):
    """An env was called out of order: before ``reset()``, or after every agent is done
    (what PettingZoo's ``OrderEnforcingWrapper`` refuses)."""


def is_integer_action(action) -> bool:
    """True for a Python or numpy integer; False for bool (numpy's too), float, str,
    arrays, None and anything else."""
    return isinstance(action, (Integral, np.integer)) and not isinstance(action, (bool, np.bool_))


def checked_action(action, agent: str, legal: list[int], name) -> int:
    """``action`` as an int if it is an integer in ``legal``; else
    :class:`IllegalActionError` naming the legal ids (``name(id)`` gives each one's
    readable name). Only integers are actions: ``True``, ``0.9`` or ``"1"`` are refused,
    not converted."""
    if not is_integer_action(action):
        kind = type(action).__name__
        raise IllegalActionError(action, agent, legal, [name(a) for a in legal],
                                 reason=f"an action is an integer id, not {kind}")
    value = int(action)
    if value not in legal:
        raise IllegalActionError(value, agent, legal, [name(a) for a in legal])
    return value
