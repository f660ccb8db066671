"""One declared schema per game state: its saved fields, their kinds and nesting.

A game's ``rules.py`` declares its state once::

    SCHEMA = StateSchema(
        "Oceanos", Config,
        shared=("config", "table", "num_players", "captain_mode"),
        fields={"round": INT, "decks": ListOf(ListOf(INT)), "over": BOOL, ...},
    )

    class State(SavedState):
        schema = SCHEMA

and :class:`SavedState` gives the state, from that declaration alone:

* ``to_dict()``: a JSON-able dict of ``game`` (the game's name), ``format``
  (:data:`STATE_FORMAT`), ``config``, ``rng`` (``rng_to_dict``) and every field;
* ``State.from_dict(data)``: the inverse, checking the shape and the types on the way
  (``StateError`` naming the field, ``decks[1][3] = 'x' is not an integer``); what the
  values mean (conservation, ranges, the pending decision) is the game's checker's,
  which :meth:`otrio.envs.core.game.Game.state_from_dict` runs after it, so that no rules
  module imports its checker;
* ``clone()``: an independent copy for searching agents: the ``shared`` attributes
  (built from the config by ``State(config, rng, setup=False)`` and never changed) are
  shared, each field is copied to the depth its kind declares (a list of ints with one
  slice, a tuple not at all), the generator with ``clone_rng``, and nothing else (the
  observation caches stay behind).

A clone costs a few engine steps, and agents clone thousands of times a decision, so
:meth:`StateSchema.clone` is a function generated once from the declaration (as
``dataclasses`` generates ``__init__``), one statement a field;
:meth:`StateSchema.clone_plain` walks the same declaration field by field, and
``tests/core/test_schema.py`` holds the two equal on every game's states.

Kinds: :data:`INT`, :data:`BOOL`, :data:`TEXT`; :class:`ListOf` (a list of one kind,
any length: lengths and ranges are the checker's); :class:`TupleOf` (a fixed-size
tuple, saved as a list, shared by clones); :class:`EnumOf` (an ``IntEnum`` member,
saved as its number); :class:`OneOf` (one of a few named constants, saved by name).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, ClassVar

from .config import GameConfig, validate
from .errors import ConfigError, StateError
from .fields import one_line, show
from .rng import clone_rng, rng_from_dict, rng_to_dict

STATE_FORMAT = 1  # the saved state's layout; a state saved in another is refused
_ENVELOPE = ("game", "format", "config", "rng")  # the saved keys besides the fields


class Kind:
    """How one saved value is checked, saved and copied."""

    mutable = False  # whether a clone needs a copy of its own (else it shares the value)

    def load(self, value: Any, path: str, game: str) -> Any:
        """``value`` as the state holds it, or StateError naming ``path``."""
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        """``value`` as JSON holds it."""
        return value

    def copy(self, value: Any) -> Any:
        """An independent copy of ``value`` (the plain clone's walk)."""
        return value

    def copy_code(self, expr: str, depth: int) -> str:
        """A Python expression copying ``expr`` (the generated clone's)."""
        return expr


def _bad(game: str, path: str, why: str):
    raise StateError(one_line(f"corrupt {game} state: {path} {why}"))


class Leaf(Kind):
    """A plain immutable value of exactly one type (an int is not a bool, nor a float)."""

    def __init__(self, kind: type, what: str):
        self.kind, self.what = kind, what

    def load(self, value, path, game):
        if type(value) is not self.kind:
            _bad(game, path, f"= {show(value)} is not {self.what}")
        return value

    def __repr__(self) -> str:
        return self.kind.__name__.upper()


INT = Leaf(int, "an integer")
BOOL = Leaf(bool, "true/false")
TEXT = Leaf(str, "text")


class ListOf(Kind):
    """A list of values of one kind, of any length."""

    mutable = True

    def __init__(self, item: Kind):
        self.item = item

    def load(self, value, path, game):
        if type(value) is not list:
            _bad(game, path, f"is a {type(value).__name__}, not a list")
        item = self.item
        return [item.load(v, f"{path}[{i}]", game) for i, v in enumerate(value)]

    def dump(self, value):
        if isinstance(self.item, Leaf):
            return list(value)
        return [self.item.dump(v) for v in value]

    def copy(self, value):
        if not self.item.mutable:
            return value[:]
        return [self.item.copy(v) for v in value]

    def copy_code(self, expr, depth):
        if not self.item.mutable:
            return f"{expr}[:]"
        name = f"x{depth}"
        return f"[{self.item.copy_code(name, depth + 1)} for {name} in {expr}]"

    def __repr__(self) -> str:
        return f"ListOf({self.item!r})"


class TupleOf(Kind):
    """A tuple of ``size`` immutable values of one kind, saved as a list; clones share it."""

    def __init__(self, item: Kind, size: int):
        if item.mutable:
            raise ValueError("a TupleOf holds immutable values")
        self.item, self.size = item, size

    def load(self, value, path, game):
        if type(value) is not list or len(value) != self.size:
            _bad(game, path, f"= {show(value)} is not a list of {self.size}")
        return tuple(self.item.load(v, f"{path}[{i}]", game) for i, v in enumerate(value))

    def dump(self, value):
        return [self.item.dump(v) for v in value]


class EnumOf(Kind):
    """A member of an ``IntEnum``, saved as its number."""

    def __init__(self, enum: type[IntEnum]):
        self.enum = enum
        self.values = {int(member): member for member in enum}

    def load(self, value, path, game):
        if type(value) is not int or value not in self.values:
            _bad(game, path, f"= {show(value)} is no {self.enum.__name__} "
                 f"({min(self.values)}..{max(self.values)})")
        return self.values[value]

    def dump(self, value):
        return int(value)


class OneOf(Kind):
    """One of a few named constant objects (shared, never changed), saved by its name."""

    def __init__(self, choices: dict[str, Any]):
        self.choices = dict(choices)

    def load(self, value, path, game):
        if type(value) is not str or value not in self.choices:
            _bad(game, path, f"= {show(value)} is not one of {', '.join(self.choices)}")
        return self.choices[value]

    def dump(self, value):
        for name, choice in self.choices.items():
            if choice is value:
                return name
        raise ValueError(f"{value!r} is none of {', '.join(self.choices)}")


class StateSchema:
    """The declaration of one game's state (see the module docstring).

    ``game`` names the game in messages (its lower case is the saved ``game``);
    ``config_model`` validates the saved config; ``shared`` names the attributes that
    ``State(config, rng, setup=False)`` builds from the config (a clone shares them);
    ``fields`` the saved fields in order, each with its :class:`Kind`.
    """

    def __init__(self, game: str, config_model: type[GameConfig], *, shared: tuple[str, ...],
                 fields: dict[str, Kind]):
        names = (*shared, *fields)
        clash = set(_ENVELOPE[:2]) | {"rng"}
        if len(set(names)) != len(names) or clash & set(names) or "config" not in shared:
            raise ValueError(f"{game}: each name once, 'config' shared, none of {sorted(clash)}")
        if not all(name.isidentifier() for name in names):
            raise ValueError(f"{game}: field names are identifiers")
        self.game = game
        self.tag = game.lower()
        self.config_model = config_model
        self.shared = tuple(shared)
        self.fields = dict(fields)
        self.clone = self._generated_clone()

    # ------------------------------------------------------------- saving
    def to_dict(self, state) -> dict[str, Any]:
        """``state`` as a JSON-able dict (see the module docstring)."""
        out: dict[str, Any] = {
            "game": self.tag,
            "format": STATE_FORMAT,
            "config": state.config.model_dump(mode="json"),
            "rng": rng_to_dict(state.rng),
        }
        values = state.__dict__
        for name, kind in self.fields.items():
            out[name] = kind.dump(values[name])
        return out

    def from_dict(self, cls: type, data: dict[str, Any]):
        """A ``cls`` state rebuilt from :meth:`to_dict`'s dict, its shape and types
        checked (``StateError`` in one line naming the field); not its meaning."""
        game = self.game
        if not isinstance(data, dict):
            raise StateError(f"not a saved {game} state: a {type(data).__name__}, not a dict")
        if data.get("game") != self.tag:
            raise StateError(f"not a saved {game} state: game = {show(data.get('game'))}, "
                             f"not {self.tag!r}")
        if data.get("format") != STATE_FORMAT:
            raise StateError(
                f"a saved {game} state in format {show(data.get('format'))}, not "
                f"{STATE_FORMAT}: it was saved by another version of otrio, whose states "
                "this one cannot load")
        missing = [name for name in (*_ENVELOPE, *self.fields) if name not in data]
        if missing:
            raise StateError(f"corrupt {game} state: no field {missing[0]!r}")
        extra = [key for key in data if key not in self.fields and key not in _ENVELOPE]
        if extra:
            raise StateError(one_line(f"corrupt {game} state: {show(extra[0])} is no "
                                      f"{game} state field"))
        try:
            config = validate(self.config_model, data["config"])
        except ConfigError as err:
            _bad(game, "config:", str(err))
        state = cls(config, rng_from_dict(data["rng"]), setup=False)
        for name, kind in self.fields.items():
            setattr(state, name, kind.load(data[name], name, game))
        return state

    # ------------------------------------------------------------ cloning
    def clone_plain(self, state):
        """An independent copy of ``state``, walking the declaration field by field:
        the definition that the generated :attr:`clone` must equal."""
        other = object.__new__(type(state))
        for name in self.shared:
            setattr(other, name, getattr(state, name))
        other.rng = clone_rng(state.rng)
        for name, kind in self.fields.items():
            setattr(other, name, kind.copy(getattr(state, name)))
        return other

    def clone_source(self) -> str:
        """The source of the generated clone: one statement a field."""
        lines = ["def clone(state):", "    s = state.__dict__", "    other = new(type(state))"]
        lines += [f"    other.{name} = s[{name!r}]" for name in self.shared]
        lines.append("    other.rng = clone_rng(s['rng'])")
        lines += [f"    other.{name} = {kind.copy_code(f's[{name!r}]', 0)}"
                  for name, kind in self.fields.items()]
        lines.append("    return other")
        return "\n".join(lines)

    def _generated_clone(self):
        scope = {"new": object.__new__, "clone_rng": clone_rng}
        exec(compile(self.clone_source(), f"<{self.tag} state clone>", "exec"), scope)
        clone = scope["clone"]
        clone.__doc__ = f"An independent copy of a {self.game} state (StateSchema.clone_plain)."
        return clone

    def names(self) -> frozenset[str]:
        """Every attribute a state holds: shared, the generator, the fields."""
        return frozenset((*self.shared, "rng", *self.fields))


class SavedState:
    """Base of a rules state declared by a :class:`StateSchema` (its class attribute
    ``schema``): ``to_dict``, ``from_dict`` and ``clone`` come from the declaration."""

    schema: ClassVar[StateSchema]

    def to_dict(self) -> dict[str, Any]:
        """The full state, generator included, as a JSON-able dict."""
        return self.schema.to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        """Inverse of :meth:`to_dict`, shape and types checked (``StateError`` naming the
        field). The game's checker is ``Game.state_from_dict``'s, which loads with this."""
        return cls.schema.from_dict(cls, data)

    def clone(self):
        """An independent copy (generator included) sharing nothing mutable; a few
        engine steps' work (``otrio bench``)."""
        return self.schema.clone(self)
