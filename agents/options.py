"""One grammar for every agent's options: ``KIND[:ARG,key=value,...]``.

Each agent kind declares its options once, as :class:`Option` rows of an
:class:`OptionTable` (name, type, default, range or choices, help); the table parses a
spec's ``key=value`` pairs (an unknown key, a value that is not of the option's type or
outside its range is one :class:`ConfigError` line naming the option and what it takes)
and describes itself (``otrio agents --describe KIND``). The search's options are
:data:`otrio.agents.search_options.MCTS_OPTIONS`, the value agent's
:data:`otrio.agents.value_agent.VALUE_OPTIONS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from otrio.envs.core.errors import ConfigError


@dataclass(frozen=True)
class Option:
    """One option: its name, type (int, float or str), default, range or choices, help."""

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def takes(self) -> str:
        """What the option takes, in words (its type and range, or its choices)."""
        if self.choices:
            return " or ".join(self.choices)
        if self.kind is str:
            return "a path" if self.low is None else "text"
        word = "an integer" if self.kind is int else "a number"
        if self.low is not None and self.high is not None:
            show = (lambda x: f"{int(x):,}") if self.kind is int else (lambda x: f"{x:g}")
            return f"{word} from {show(self.low)} to {show(self.high)}"
        return word

    def parse(self, text: str, agent: str) -> Any:
        """``text`` as this option's value; a ConfigError naming the option otherwise."""
        text = text.strip()
        if self.kind is str:
            if self.choices and text not in self.choices:
                raise ConfigError(f"{agent} option {self.name}={text[:40]!r}: takes "
                                  f"{self.takes()}")
            if not self.choices and not text:
                raise ConfigError(f"{agent} option {self.name}= is empty: it takes "
                                  f"{self.takes()}")
            return text
        try:
            value = self.kind(text)
        except ValueError:
            value = None
        if value is None or (self.kind is float and not math.isfinite(value)):
            raise ConfigError(f"{agent} option {self.name}={text[:40]!r} is not "
                              f"{self.takes()}")
        self.check(value, agent)
        return value

    def check(self, value: Any, agent: str) -> None:
        """A ConfigError if ``value`` lies outside the option's range."""
        if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high) or value != value:
            raise ConfigError(f"{agent} option {self.name}={value!r} is out of range "
                              f"({self.takes()})")


@dataclass(frozen=True)
class OptionTable:
    """The options of one agent kind (``agent``: its name in messages, ``mcts``)."""

    agent: str
    options: tuple[Option, ...]
    argument: str = ""  # what comes before the options (value:PATH): its meaning

    def names(self) -> list[str]:
        """The options' names, in order."""
        return [o.name for o in self.options]

    def get(self, name: str) -> Option:
        """The option called ``name`` (KeyError if there is none)."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        """Every option's default."""
        return {o.name: o.default for o in self.options}

    def parse(self, items: list[str]) -> dict[str, Any]:
        """The options ``items`` (``key=value`` each) give, typed and in range; a
        ConfigError line for an item that is not ``key=value``, an unknown key (naming the
        known ones) or a bad value."""
        given: dict[str, Any] = {}
        known = self.names()
        for item in filter(None, (part.strip() for part in items)):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq:
                raise ConfigError(f"{self.agent} option {item[:60]!r} is not key=value "
                                  f"(known options: {', '.join(known)})")
            if key not in known:
                raise ConfigError(f"unknown {self.agent} option {key[:40]!r}; known: "
                                  f"{', '.join(known)}")
            given[key] = self.get(key).parse(value, self.agent)
        return given

    def describe(self) -> str:
        """The table as Markdown: every option, its default, what it takes and its help."""
        lines = [f"`{self.agent}` options" + (f" (after {self.argument})" if self.argument
                                               else "") + ":", "",
                 "| option | default | takes | what it does |", "|---|---|---|---|"]
        for o in self.options:
            default = "" if o.default in (None, "") else f"`{o.default}`"
            lines.append(f"| `{o.name}` | {default} | {o.takes()} | {o.help} |")
        return "\n".join(lines)


__all__ = ["Option", "OptionTable"]
