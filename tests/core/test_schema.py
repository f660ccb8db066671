"""The declared state schemas (``otrio.envs.core.schema``): one declaration per game drives
``to_dict``, ``from_dict``, ``clone`` and the type checks.

Over the states of seeded random games of every game at its fewest and most players:
a state holds exactly the attributes its schema declares (besides the caches), the
generated clone equals the plain walk of the declaration, and a save holds the
envelope and the fields; then the kinds on their own.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.errors import StateError
from otrio.envs.core.rng import make_rng
from otrio.envs.core.schema import (
    BOOL,
    INT,
    STATE_FORMAT,
    TEXT,
    EnumOf,
    ListOf,
    OneOf,
    StateSchema,
    TupleOf,
)

CACHES = {"_obs_cache", "_fitting"}  # built by the state that uses them, never cloned


def _setups():
    for env_id in envs.available():
        info = envs.make(env_id).unwrapped.game.info
        for n in sorted({info.min_players, info.max_players}):
            yield env_id, n


def _states(env_id: str, n: int, games: int = 2, every: int = 7):
    """Every ``every``-th state of seeded random games, the end included."""
    env = envs.make(env_id, num_players=n).unwrapped
    for g in range(games):
        state = env.game.new_state(env.config, make_rng(100 * n + g))
        rng = np.random.default_rng(g)
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                yield env.game, state
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            step += 1
        yield env.game, state


@pytest.mark.parametrize("env_id,n", list(_setups()))
def test_a_state_holds_what_its_schema_declares_and_the_clones_agree(env_id, n):
    for game, state in _states(env_id, n):
        schema = type(state).schema
        assert set(vars(state)) - CACHES == schema.names()
        fast, plain = schema.clone(state), schema.clone_plain(state)
        assert type(fast) is type(plain) is type(state)
        assert vars(fast).keys() == vars(plain).keys() == schema.names()
        for name in schema.names() - {"rng"}:
            assert getattr(fast, name) == getattr(plain, name) == getattr(state, name), name
        for name in schema.shared:
            assert getattr(fast, name) is getattr(state, name), name
        for name, kind in schema.fields.items():
            if kind.mutable:
                assert getattr(fast, name) is not getattr(state, name), name
        assert fast.rng.bit_generator.state == plain.rng.bit_generator.state
        assert fast.rng is not state.rng
        saved = state.to_dict()
        assert list(saved) == ["game", "format", "config", "rng", *schema.fields]
        assert saved["game"] == env_id.split("_")[0] and saved["format"] == STATE_FORMAT
        again = game.state_from_dict(json.loads(json.dumps(saved)))
        assert again.to_dict() == saved and set(vars(again)) - CACHES == schema.names()


@pytest.mark.parametrize("env_id", envs.available())
def test_a_blank_state_holds_only_what_the_config_gives(env_id):
    env = envs.make(env_id).unwrapped
    blank = env.game.state_class(env.config, make_rng(0), setup=False)
    assert set(vars(blank)) == set(type(blank).schema.shared) | {"rng"}


@pytest.mark.parametrize("env_id", envs.available())
def test_a_state_of_another_game_or_format_or_with_an_odd_field_is_refused(env_id):
    env = envs.make(env_id)
    env.reset(seed=0)
    game, saved = env.unwrapped.game, env.unwrapped.state_.to_dict()
    name = game.info.name.capitalize()
    for change, needle in (({"game": "chess"}, f"not a saved {name} state"),
                           ({"format": 0}, "in format 0, not 1"),
                           ({"extra": 1}, f"'extra' is no {name} state field")):
        with pytest.raises(StateError, match=needle):
            game.state_from_dict({**saved, **change})


class _Colour:
    from enum import IntEnum

    class Kind(IntEnum):
        RED = 0
        BLUE = 1


def test_the_kinds_check_save_and_copy():
    nested = ListOf(ListOf(TupleOf(INT, 2)))
    value = nested.load([[[1, 2]], []], "divers", "Test")
    assert value == [[(1, 2)], []] and nested.dump(value) == [[[1, 2]], []]
    copy = nested.copy(value)
    assert copy == value and copy[0] is not value[0] and copy[0][0] is value[0][0]
    assert nested.copy_code("v", 0) == "[x0[:] for x0 in v]"
    assert ListOf(ListOf(ListOf(INT))).copy_code("v", 0) == "[[x1[:] for x1 in x0] for x0 in v]"
    colour = EnumOf(_Colour.Kind)
    assert colour.load(1, "c", "Test") is _Colour.Kind.BLUE and colour.dump(_Colour.Kind.RED) == 0
    steps = ("a", "b")
    program = OneOf({"captain": steps, "duo": ("c",)})
    assert program.load("captain", "p", "Test") is steps and program.dump(steps) == "captain"
    for kind, bad, needle in ((INT, True, "flag = True is not an integer"),
                              (INT, 1.0, "flag = 1.0 is not an integer"),
                              (BOOL, 1, "flag = 1 is not true/false"),
                              (TEXT, 3, "flag = 3 is not text"),
                              (ListOf(INT), (1,), "flag is a tuple, not a list"),
                              (ListOf(ListOf(INT)), [[1], [2, "x"]], r"flag\[1\]\[1\] = 'x'"),
                              (TupleOf(INT, 2), [1], "flag = \\[1\\] is not a list of 2"),
                              (colour, 2, "flag = 2 is no Kind"),
                              (program, "solo", "flag = 'solo' is not one of captain, duo")):
        with pytest.raises(StateError, match=f"corrupt Test state: {needle}"):
            kind.load(bad, "flag", "Test")


def test_a_schema_refuses_clashing_or_odd_names():
    from otrio.envs.otys.config import Config

    for shared, fields in ((("config",), {"rng": INT}), (("config",), {"format": INT}),
                           (("table",), {"a": INT}), (("config",), {"a-b": INT}),
                           (("config", "a"), {"a": INT})):
        with pytest.raises(ValueError):
            StateSchema("Test", Config, shared=shared, fields=fields)
    with pytest.raises(ValueError):
        TupleOf(ListOf(INT), 2)
