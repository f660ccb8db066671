"""``State.clone()`` of every game: an equal, fully independent copy.

Over the states of seeded random games, at each game's minimum and maximum player
count: the clone saves the same dict (generator included), shares no mutable object
with its source at any depth (but the config and the card tables, shared on purpose),
leaves the observation caches behind, and the same random continuation played on the
source and on the clone ends in the same state, neither disturbing the other.
"""

from __future__ import annotations

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.observer import owned_cache
from otrio.envs.core.rng import clone_rng, make_rng

GAMES_PER_SETUP = 3
SHARED = {"config", "table", "tables"}  # immutable config and tables, shared on purpose
CACHES = {"_obs_cache", "_fitting"}  # rebuilt by the state that uses them


def _setups():
    for env_id in envs.available():
        info = envs.make(env_id).unwrapped.game.info
        for n in sorted({info.min_players, info.max_players}):
            yield env_id, n


SETUPS = list(_setups())


def _game(env_id: str, n: int):
    env = envs.make(env_id, num_players=n).unwrapped
    return env.game, env.config


def _mutables(obj, path: str, found: dict[int, str]) -> None:
    """Every mutable object reachable from ``obj`` (lists, dicts, arrays, generators,
    objects with attributes), by id, with the path it was reached by."""
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return
    if isinstance(obj, tuple):
        for i, item in enumerate(obj):
            _mutables(item, f"{path}[{i}]", found)
        return
    if id(obj) in found:
        return
    found[id(obj)] = path
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            _mutables(item, f"{path}[{i}]", found)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            _mutables(item, f"{path}[{key!r}]", found)
    elif isinstance(obj, np.random.Generator):
        _mutables(obj.bit_generator, f"{path}.bit_generator", found)
    elif hasattr(obj, "__dict__") or hasattr(obj, "__slots__"):
        names = list(getattr(obj, "__dict__", {}))
        names += [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())]
        for name in names:
            if hasattr(obj, name):
                _mutables(getattr(obj, name), f"{path}.{name}", found)


def _state_mutables(state) -> dict[int, str]:
    found: dict[int, str] = {}
    for name, value in vars(state).items():
        if name not in SHARED | CACHES:
            _mutables(value, name, found)
    return found


def _check_clone(state) -> None:
    """The clone saves the same dict, shares nothing mutable, carries no cache."""
    clone = state.clone()
    assert type(clone) is type(state)
    assert clone.to_dict() == state.to_dict()
    assert set(vars(clone)) == set(vars(state)) - CACHES
    assert owned_cache(clone) is None and not hasattr(clone, "_fitting")
    for name in SHARED & set(vars(state)):
        assert getattr(clone, name) is getattr(state, name)
    theirs = _state_mutables(state)
    shared = {path: theirs[key] for key, path in _state_mutables(clone).items() if key in theirs}
    assert not shared, f"the clone shares {shared}"


def _play_out(state, seed: int) -> None:
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_clone_is_equal_and_shares_nothing(env_id, n):
    game, config = _game(env_id, n)
    scratch = np.zeros(game.info.observation_size, dtype=np.float32)
    for g in range(GAMES_PER_SETUP):
        state = game.new_state(config, make_rng(1000 * n + g))
        rng = np.random.default_rng(g)
        step = 0
        while True:
            if step % 3 == 0 and not state.is_terminal():  # the source has its caches
                game.observation(state, state.current_player(), scratch)
            _check_clone(state)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            step += 1
        _check_clone(state.clone())  # a clone of a clone, at the end


@pytest.mark.parametrize("env_id,n", SETUPS)
def test_clone_and_source_play_on_independently(env_id, n):
    """From a random point of each game, the clone plays a random continuation to the
    end (the source stays as it was), then the source plays the same one: both end in
    the same state (so the generator was copied, not shared), and the clone's end is
    not disturbed by the source's play."""
    game, config = _game(env_id, n)
    scratch = np.zeros(game.info.observation_size, dtype=np.float32)
    for g in range(GAMES_PER_SETUP):
        state = game.new_state(config, make_rng(2000 * n + g))
        rng = np.random.default_rng(g)
        stop = int(rng.integers(1, 200))
        for _ in range(stop):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            game.observation(state, state.current_player(), scratch)
        before = state.to_dict()
        clone = state.clone()
        _play_out(clone, seed=g)
        assert state.to_dict() == before, "playing the clone changed its source"
        end = clone.to_dict()
        _play_out(state, seed=g)
        assert state.to_dict() == end
        assert clone.to_dict() == end, "playing the source changed its clone"
        assert np.array_equal(game.observation(clone, 0, scratch),  # the clone's own cache
                              game.observation(game.state_from_dict(end), 0, scratch))


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM,
                                           np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_clone_rng_is_an_independent_copy(bit_generator):
    rng = np.random.Generator(bit_generator(7))
    rng.random(3)
    rng.integers(10)  # leaves half of a 64-bit output buffered
    clone = clone_rng(rng)
    assert type(clone.bit_generator) is bit_generator
    assert clone.bit_generator is not rng.bit_generator
    clone.random(5)  # drawing from the copy leaves the original where it was
    assert clone_rng(rng).integers(2**40, size=9).tolist() == rng.integers(2**40, size=9).tolist()
