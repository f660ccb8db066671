"""Typed, validated game configs (pydantic): unknown keys and bad values are rejected."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from .errors import ConfigError


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
    for problem in err.errors():
        key = ".".join(str(p) for p in problem["loc"]) or "<root>"
        if problem["type"] == "extra_forbidden":
            allowed = ", ".join(sorted(model_at(model, tuple(problem["loc"][:-1])).model_fields))
            lines.append(f"unknown key '{key}' (allowed: {allowed})")
        else:
            msg = problem["msg"].removeprefix("Value error, ")
            lines.append(f"bad value for '{key}': {msg} (got {problem.get('input')!r})")
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
