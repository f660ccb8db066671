"""Errors shared by every game: each names what was wrong so a user can fix it."""


class OtrioError(Exception):
    """Base class of the suite's own errors."""


class IllegalActionError(OtrioError, ValueError):
    """An agent chose an action that is not legal in the current decision."""

    def __init__(self, action, agent: str, legal: list[int], names: list[str] | None = None):
        self.action = action
        self.agent = agent
        self.legal = list(legal)
        shown = ", ".join(
            f"{a}={n}" for a, n in zip(self.legal, names or [""] * len(self.legal))
        ) if names else str(self.legal)
        super().__init__(f"illegal action {action!r} for {agent}; legal actions: {shown}")


class ConfigError(OtrioError, ValueError):
    """A configuration key is unknown or a value is out of range."""


class StateError(OtrioError, ValueError):
    """A saved state or replay file is corrupt or belongs to another game."""


def checked_action(action, agent: str, legal: list[int], name) -> int:
    """``action`` as an int if it is in ``legal``; else :class:`IllegalActionError`
    naming the legal ids (``name(id)`` gives each one's readable name)."""
    try:
        action = int(action)
    except (TypeError, ValueError):
        raise IllegalActionError(action, agent, legal) from None
    if action not in legal:
        raise IllegalActionError(action, agent, legal, [name(a) for a in legal])
    return action
