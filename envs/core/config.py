"""Typed, validated game configs (pydantic): unknown keys and bad values are rejected."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ConfigError


class StrictModel(BaseModel):
    """A pydantic model that forbids unknown keys and is immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class GameConfig(StrictModel):
    """Keys every game accepts. Each game subclasses this with its own keys.

    ``num_players`` has no default here: each game sets its own default.
    """

    num_players: int
    dense_reward: bool = False  # add score-change shaping to the +1/-1 end reward


ModelT = TypeVar("ModelT", bound=BaseModel)


def format_validation_error(model: type[BaseModel], err: ValidationError) -> str:
    """One line per problem, each naming the key (dotted path) and what is wrong."""
    lines = []
    for problem in err.errors():
        key = ".".join(str(p) for p in problem["loc"]) or "<root>"
        if problem["type"] == "extra_forbidden":
            allowed = ", ".join(sorted(model.model_fields))
            lines.append(f"unknown key '{key}' (allowed: {allowed})")
        else:
            lines.append(f"bad value for '{key}': {problem['msg']} (got {problem.get('input')!r})")
    return f"invalid {model.__name__}: " + "; ".join(lines)


def validate(model: type[ModelT], data: dict[str, Any] | None) -> ModelT:
    """Build ``model`` from ``data`` or raise :class:`ConfigError` naming the key."""
    try:
        return model.model_validate(dict(data or {}))
    except ValidationError as err:
        raise ConfigError(format_validation_error(model, err)) from None
