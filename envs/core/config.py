"""Typed, validated configs (pydantic): unknown keys and bad values are rejected; and
:func:`load_yaml`, the one reader of every YAML config, bounded in size, nesting and
alias expansion."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from .bounded import clip, decode_utf8, read_bytes, short_repr
from .errors import ConfigError

MAX_CONFIG_BYTES = 64 * 1024  # a YAML config (the shipped ones are under 3 KB)
MAX_CONFIG_DEPTH = 32  # collections inside collections (the shipped ones use 5)
MAX_CONFIG_NODES = 100_000  # values, counting each alias as the values it repeats
MAX_PROBLEMS = 10  # validation problems listed in one message (then "and N more")


class StrictModel(BaseModel):
    """A pydantic model that forbids unknown keys and is immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _is_flag(annotation: Any) -> bool:
    """True for ``bool`` and ``bool | None``."""
    if annotation is bool:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return bool in typing.get_args(annotation) and all(
            a in (bool, type(None)) for a in typing.get_args(annotation))
    return False


class GameConfig(StrictModel):
    """Keys every game accepts. Each game subclasses this with its own keys.

    ``num_players`` has no default here: each game sets its own default. Every flag
    (a ``bool`` key, here or in a game's subclass) takes only ``true`` / ``false``:
    pydantic alone would read ``"yes"``, ``"no"``, ``1`` or ``0`` as booleans.
    """

    num_players: int
    dense_reward: bool = False  # add score-change shaping to the +1/-1 end reward
    # what the env does with an illegal action: "raise" an IllegalActionError, or
    # "terminate" the game (PettingZoo's TerminateIllegalWrapper: the offender gets -1,
    # every other agent 0, all are terminated, and each agent's info says why)
    illegal_action: Literal["raise", "terminate"] = "raise"

    @field_validator("*", mode="before")
    @classmethod
    def _flags_are_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name)
        if field is not None and not isinstance(value, bool) and _is_flag(field.annotation):
            if value is None and field.annotation is not bool:
                return value
            raise ValueError(f"must be true or false, got {type(value).__name__}")
        return value


ModelT = TypeVar("ModelT", bound=BaseModel)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (through Optional, unions, lists,
    tuples and dicts)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found = []
    for arg in typing.get_args(annotation):
        for model in _models_in(arg):
            if model not in found:
                found.append(model)
    return found


def model_at(model: type[BaseModel], path: tuple) -> type[BaseModel]:
    """The (nested) model that holds the key at ``path`` (pydantic's error location
    less its last part): list indexes, dict keys and union tags on the way are passed
    over. ``model`` itself when the path leads nowhere known."""
    candidates = [model]
    for part in path:
        descended = []
        for candidate in candidates:
            if isinstance(part, str) and part in candidate.model_fields:
                descended += _models_in(candidate.model_fields[part].annotation)
        if descended:
            candidates = descended
        # else: an index, a dict key or a union member's tag: the same models go on
    return candidates[0]


def format_validation_error(model: type[BaseModel], err: ValidationError) -> str:
    """One line per problem, each naming the key (dotted path) and what is wrong; an
    unknown key lists the keys allowed where it stands (nested ones included)."""
    lines = []
    problems = err.errors()
    for problem in problems[:MAX_PROBLEMS]:
        key = clip(".".join(str(p) for p in problem["loc"]) or "<root>", 120)
        if problem["type"] == "extra_forbidden":
            allowed = ", ".join(sorted(model_at(model, tuple(problem["loc"][:-1])).model_fields))
            lines.append(f"unknown key '{key}' (allowed: {allowed})")
        else:
            msg = clip(problem["msg"].removeprefix("Value error, "))
            lines.append(f"bad value for '{key}': {msg} (got {short_repr(problem.get('input'), 200)})")
    if len(problems) > MAX_PROBLEMS:
        lines.append(f"and {len(problems) - MAX_PROBLEMS} more")
    return f"invalid {model.__name__}: " + "; ".join(lines)


def validate(model: type[ModelT], data: dict[str, Any] | None) -> ModelT:
    """Build ``model`` from ``data`` or raise :class:`ConfigError` naming the key."""
    if data is not None and not isinstance(data, Mapping):
        raise ConfigError(f"invalid {model.__name__}: expected a mapping of keys to values, "
                          f"got {type(data).__name__}")
    try:
        return model.model_validate(dict(data or {}))
    except ValidationError as err:
        raise ConfigError(format_validation_error(model, err)) from None


# ---------------------------------------------------------------------- YAML
def load_yaml(path: str | Path, what: str = "config") -> Any:
    """The value of the YAML file ``path`` (None for an empty one), read with limits;
    every problem is one :class:`ConfigError` line, ``cannot read WHAT PATH: ...``.

    The file must be a regular file of at most :data:`MAX_CONFIG_BYTES` bytes of UTF-8
    text; collections may nest :data:`MAX_CONFIG_DEPTH` deep; the document may hold
    :data:`MAX_CONFIG_NODES` values, an alias (``*name``) counting as every value of
    the anchor it repeats, so a "billion laughs" file is refused after reading a few
    lines, before anything is built from it; an alias inside its own anchor (a cycle)
    is refused. Only plain YAML is read (``yaml.SafeLoader``: tags such as
    ``!!python/object`` are refused)."""
    import yaml

    where = f"{what} {path}"
    data = read_bytes(path, MAX_CONFIG_BYTES, where)
    text = decode_utf8(data, where)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_yaml_events(yaml.parse(text, Loader=loader), where)
        return yaml.load(text, Loader=loader)  # noqa: S506 -- a SafeLoader
    except ConfigError:
        raise
    except yaml.YAMLError as err:
        raise ConfigError(f"cannot read {where}: {clip(str(err))}") from None
    except (ValueError, TypeError, OverflowError) as err:  # a bad timestamp, a 5000-digit int
        raise ConfigError(f"cannot read {where}: {clip(str(err))}") from None


def _check_yaml_events(events, where: str) -> None:
    """Walk the parser's events (no values are built) and refuse a document that nests
    too deep or that, its aliases expanded, holds too many values."""
    import yaml

    sizes: dict[str, int] = {}  # anchor -> the values it stands for (once complete)
    open_: list[tuple[str | None, int]] = []  # the collections being read: anchor, count before
    count = 0
    for event in events:
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in sizes:
                raise ConfigError(f"cannot read {where}: alias *{clip(str(event.anchor), 60)} "
                                  "repeats no complete anchor (an unknown name, or a cycle)")
            count += sizes[event.anchor]
        elif isinstance(event, yaml.ScalarEvent):
            count += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            count += 1
            open_.append((event.anchor, count))
            if len(open_) > MAX_CONFIG_DEPTH:
                mark = event.start_mark
                raise ConfigError(f"cannot read {where}: nested deeper than {MAX_CONFIG_DEPTH} "
                                  f"levels (line {mark.line + 1})")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, before = open_.pop()
            if anchor is not None:
                sizes[anchor] = count - before + 1
        if count > MAX_CONFIG_NODES:
            mark = event.start_mark
            raise ConfigError(f"cannot read {where}: more than {MAX_CONFIG_NODES} values, "
                              f"aliases expanded (line {mark.line + 1}); write the config out "
                              f"without repeating anchors so many times")
