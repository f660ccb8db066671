"""Typed, validated configs (pydantic): unknown keys and bad values are rejected; and
:func:`load_yaml`, the one reader of every YAML config, bounded in size, nesting and
alias expansion."""

from __future__ import annotations

import copy
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .bounded import clip, decode_utf8, read_bytes, short_repr
from .errors import ConfigError
from .registry import resolve_env_id

MAX_CONFIG_BYTES = 64 * 1024  # a YAML config (the shipped ones are under 3 KB)
MAX_CONFIG_DEPTH = 32  # collections inside collections (the shipped ones use 5)
MAX_CONFIG_NODES = 100_000  # values, counting each alias as the values it repeats
SHOWN_PROBLEMS = 3  # validation problems named in one message (then "and N more")
SHOWN_INPUT = 60  # characters of a bad value quoted in a message


def _env_id(value: Any) -> Any:
    """A config's game as its env id (:func:`~otrio.envs.core.registry.resolve_env_id`);
    a value that is no text is left to pydantic's own message."""
    if not isinstance(value, str):
        return value
    try:
        return resolve_env_id(value)
    except ConfigError as err:
        raise ValueError(str(err)) from None


# a config key that names a game: an env id or a game's short name, kept as the env id
EnvId = Annotated[str, BeforeValidator(_env_id)]


class StrictModel(BaseModel):
    """A pydantic model that forbids unknown keys and is immutable, and whose numbers
    are numbers (:func:`number_problem`): an integer key takes only an integer, never
    text, a bool or a float (pydantic alone reads ``"3"``, ``True`` and ``3.0`` as 3), and
    a real-number key takes no bool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name)
        if field is not None:
            problem = number_problem(field.annotation, value)
            if problem is not None:
                raise ValueError(problem)
        return value


def _members(annotation: Any) -> list[Any]:
    """The types a (possibly Optional / union / Annotated) annotation allows."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _members(arg)]
    return [annotation]


_SEQUENCES = (list, tuple, set, frozenset)


def number_problem(annotation: Any, value: Any) -> str | None:
    """Why ``value`` cannot be given for a key annotated ``annotation``, or None.

    An ``int`` key (``Optional[int]`` too) refuses text, bools and floats; a ``float``
    key refuses bools (text such as ``"3e-4"`` stays accepted: YAML 1.1, which PyYAML
    reads, takes ``3e-4`` for text); the items of lists and tuples and the values of
    dicts are checked the same way, and named by their place (``item 2.12``). Unions
    that also allow text or bools are left to pydantic.
    """
    found = _number_problem(annotation, value)
    if found is None:
        return None
    path, problem = found
    return f"item {'.'.join(path)} {problem}" if path else problem


def _number_problem(annotation: Any, value: Any) -> tuple[list[str], str] | None:
    """:func:`number_problem` as (the place inside the value, what is wrong)."""
    kinds = _members(annotation)
    if value is None and type(None) in kinds:
        return None
    lax = str in kinds or bool in kinds or Any in kinds
    if int in kinds and float not in kinds and not lax:
        if isinstance(value, (str, bytes, bool, float, np.bool_, np.floating)):
            return [], f"must be an integer, got {type(value).__name__}"
        return None
    if float in kinds and not lax and isinstance(value, (bool, np.bool_)):
        return [], f"must be a number, got {type(value).__name__}"
    containers = [m for m in kinds if typing.get_origin(m) in _SEQUENCES + (dict,)]
    if len(containers) != 1:
        return None
    container = containers[0]
    origin, args = typing.get_origin(container), typing.get_args(container)
    if origin is dict and isinstance(value, Mapping) and len(args) == 2:
        items = [(str(key), args[1], item) for key, item in value.items()]
    elif origin in _SEQUENCES and isinstance(value, (list, tuple)) and args:
        if origin is tuple and args[-1] is not Ellipsis:
            kinds_of = list(args)  # a fixed tuple: one type per place (pydantic checks the length)
        else:
            kinds_of = [args[0]] * len(value)
        items = [(str(k), kind, item) for k, (kind, item) in enumerate(zip(kinds_of, value))]
    else:
        return None
    for where, kind, item in items:
        found = _number_problem(kind, item)
        if found is not None:
            return [where[:40], *found[0]], found[1]
    return None


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
    # whose view render_mode "rgb_array" / "human" (and "ansi") draws: None, the whole
    # table (every hand, face-down tokens face up: a referee's view, which a recorded
    # video would leak), or a seat 0..num_players-1, which draws only what that seat
    # knows (Game.picture(state, viewer), Game.render_for)
    render_viewer: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _viewer_is_a_seat(self):
        if self.render_viewer is not None and self.render_viewer >= self.num_players:
            raise ValueError(f"render_viewer must be None or a seat 0..{self.num_players - 1}, "
                             f"got {self.render_viewer}")
        return self

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
    """One line naming each problem's key (dotted path) and what is wrong; an unknown
    key lists the keys allowed where it stands (nested ones included). The line stays
    readable: a bad value is quoted to 60 characters, and after three problems the rest
    are counted."""
    lines = []
    problems = err.errors()
    for problem in problems[:SHOWN_PROBLEMS]:
        key = clip(".".join(str(p) for p in problem["loc"]) or "<root>", 120)
        if problem["type"] == "extra_forbidden":
            allowed = ", ".join(sorted(model_at(model, tuple(problem["loc"][:-1])).model_fields))
            lines.append(f"unknown key '{key}' (allowed: {allowed})")
        else:
            msg = clip(str(problem["msg"]).removeprefix("Value error, "))
            lines.append(f"bad value for '{key}': {msg} (got {short_repr(problem.get('input'), SHOWN_INPUT)})")
    if len(problems) > SHOWN_PROBLEMS:
        lines.append(f"and {len(problems) - SHOWN_PROBLEMS} more")
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


# ------------------------------------------------------------ command-line overrides
MAX_SETS = 64  # --set items one command line takes


def apply_sets(data: dict[str, Any], sets: Sequence[str], what: str = "config") -> dict[str, Any]:
    """``data`` (a config read from YAML) with each ``KEY=VALUE`` of ``sets`` written in,
    in order (a copy; ``data`` is unchanged). ``KEY`` is a dotted path (``game_config.num_players``;
    a number indexes a list); ``VALUE`` is read as YAML (``12``, ``true``, ``[a, b]``,
    ``{mode: fixed}``, text), with the limits of a config file. A missing mapping on the
    path is made; anything else (not ``KEY=VALUE``, a path through a value that holds no
    keys) is one :class:`ConfigError` line naming the item. What the result may hold is
    the config's model's business: an unknown key is refused there, as in the file."""
    if len(sets) > MAX_SETS:
        raise ConfigError(f"{len(sets)} --set items, over the {MAX_SETS} one command takes")
    out = copy.deepcopy(data)
    for item in sets:
        key, eq, text = str(item).partition("=")
        path = key.strip().split(".")
        if not eq or not all(part.strip() for part in path):
            raise ConfigError(f"--set {clip(str(item), 80)}: give KEY=VALUE, KEY a dotted path "
                              f"of the {what} (e.g. seed=3, game_config.num_players=4)")
        value = parse_yaml_text(text, f"--set {clip(key, 60)}")
        here: Any = out
        for k, part in enumerate(path):
            last = k == len(path) - 1
            if isinstance(here, list) and part.isdigit() and int(part) < len(here):
                if last:
                    here[int(part)] = value
                else:
                    here = here[int(part)]
            elif isinstance(here, dict):
                if last:
                    here[part] = value
                else:
                    here = here.setdefault(part, {})
            else:
                raise ConfigError(f"--set {clip(key, 80)}: {'.'.join(path[:k]) or 'the config'} "
                                  f"holds no keys (it is {type(here).__name__}) in the {what}")
    return out


# ---------------------------------------------------------------------- YAML
def load_yaml(path: str | Path, what: str = "config", missing_hint: str = "") -> Any:
    """The value of the YAML file ``path`` (None for an empty one), read with limits;
    every problem is one :class:`ConfigError` line, ``cannot read WHAT PATH: ...``.

    The file must be a regular file of at most :data:`MAX_CONFIG_BYTES` bytes of UTF-8
    text; collections may nest :data:`MAX_CONFIG_DEPTH` deep; the document may hold
    :data:`MAX_CONFIG_NODES` values, an alias (``*name``) counting as every value of
    the anchor it repeats, so a "billion laughs" file is refused after reading a few
    lines, before anything is built from it; an alias inside its own anchor (a cycle)
    is refused. Only plain YAML is read (``yaml.SafeLoader``: tags such as
    ``!!python/object`` are refused). A key given twice in one mapping is refused,
    naming the key and both lines (YAML keeps the last value silently; a merge ``<<:``
    may still be overridden by the mapping's own keys). ``missing_hint`` ends the
    message of a file that is not there (where it was looked for)."""

    where = f"{what} {path}"
    try:
        data = read_bytes(path, MAX_CONFIG_BYTES, where)
    except ConfigError as err:  # ``missing_hint``: where a file that is not there was sought
        if missing_hint and not Path(path).exists():
            raise ConfigError(f"{err}{missing_hint}") from None
        raise
    return parse_yaml_text(decode_utf8(data, where), where)


def parse_yaml_text(text: str, where: str) -> Any:
    """The value of the YAML ``text``, read as :func:`load_yaml` reads a file's (plain
    YAML only, bounded, a key given twice refused); ``where`` names it in the message."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"cannot read {where}: over {MAX_CONFIG_BYTES} characters")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_yaml_events(yaml.parse(text, Loader=loader), where)
        return yaml.load(text, Loader=_unique_keys_loader(loader))  # noqa: S506 -- a SafeLoader
    except _DuplicateKey as dup:
        lines = (f"line {dup.first}" if dup.first == dup.again
                 else f"lines {dup.first} and {dup.again}")
        raise ConfigError(f"cannot read {where}: key {clip(repr(dup.key), 80)} is given twice "
                          f"in one mapping ({lines}); YAML would keep only the last value: "
                          "remove one") from None
    except ConfigError:
        raise
    except yaml.YAMLError as err:
        raise ConfigError(f"cannot read {where}: {clip(str(err))}") from None
    except (ValueError, TypeError, OverflowError) as err:  # a bad timestamp, a 5000-digit int
        raise ConfigError(f"cannot read {where}: {clip(str(err))}") from None


class _DuplicateKey(Exception):
    """A mapping gives ``key`` twice: on line ``first`` and again on line ``again``."""

    def __init__(self, key: Any, first: int, again: int):
        super().__init__(key, first, again)
        self.key, self.first, self.again = key, first, again


@functools.cache
def _unique_keys_loader(base: type) -> type:
    """``base`` (a safe loader) refusing a mapping that gives a key twice
    (:class:`_DuplicateKey`); merge keys (``<<``) are left to YAML's merge rules."""

    class UniqueKeys(base):
        def construct_mapping(self, node, deep=False):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    if key in seen:
                        raise _DuplicateKey(key, seen[key], line)
                    seen[key] = line
                except TypeError:  # an unhashable key: the base refuses it
                    continue
            return super().construct_mapping(node, deep)

    return UniqueKeys


def _check_yaml_events(events, where: str) -> None:
    """Walk the parser's events (no values are built) and refuse a document that nests
    too deep or that, its aliases expanded, holds too many values."""

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
