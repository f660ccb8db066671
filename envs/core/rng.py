"""Seeding: one numpy Generator per game, saved and restored exactly."""

from __future__ import annotations

import copy

import numpy as np
from numpy.random.bit_generator import ISeedSequence, SeedSequence

from .errors import ConfigError, StateError, is_integer_action
from .fields import show


def checked_seed(seed, what: str = "seed") -> int | None:
    """``seed`` as a Python int (or None: fresh entropy) if it is an integer >= 0, a
    numpy integer included; anything else raises
    :class:`~otrio.envs.core.errors.ConfigError` naming it, where numpy would raise its own
    errors for -1, "abc", 1.5 or NaN and read ``True`` as 1."""
    if seed is None:
        return None
    if not is_integer_action(seed):  # an integer, not a bool
        raise ConfigError(f"{what} must be None or an integer >= 0, got {show(seed)} "
                          f"({type(seed).__name__})")
    if seed < 0:
        raise ConfigError(f"{what} must be None or an integer >= 0, got {show(seed)}")
    return int(seed)


def make_rng(seed: int | None) -> np.random.Generator:
    """A PCG64 generator from a seed (fresh entropy when ``seed`` is None)."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_dict(rng: np.random.Generator) -> dict:
    """The generator's full state as a JSON-able dict."""
    return copy.deepcopy(rng.bit_generator.state)


_PCG64_KEYS = {"bit_generator", "state", "has_uint32", "uinteger"}


def rng_from_dict(state: dict) -> np.random.Generator:
    """Rebuild a generator from :func:`rng_to_dict` output.

    Anything else (another bit generator, a missing or extra key, a value that is not
    an integer or lies outside its range: 128-bit state, odd 128-bit increment, a 0/1
    flag, a 32-bit buffer) raises :class:`~otrio.envs.core.errors.StateError` naming the
    field, where numpy would raise OverflowError, TypeError or KeyError, or accept it.
    """

    def bad(field: str, why: str):
        raise StateError(f"corrupt generator state: rng{field} {why}")

    def whole(value, field: str, bits: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            bad(field, f"= {str(value)[:40]!r} is not an integer")
        if not 0 <= value < 1 << bits:
            bad(field, f"= {value} is not a {bits}-bit value")
        return value

    if not isinstance(state, dict):
        bad("", f"is a {type(state).__name__}, not a dict")
    if state.get("bit_generator") != "PCG64":
        bad("['bit_generator']", f"= {str(state.get('bit_generator'))[:40]!r}, not 'PCG64'")
    if set(state) != _PCG64_KEYS:
        bad("", f"has keys {sorted(map(str, state))}, not {sorted(_PCG64_KEYS)}")
    inner = state["state"]
    if not isinstance(inner, dict) or set(inner) != {"state", "inc"}:
        bad("['state']", "is not a dict of 'state' and 'inc'")
    whole(inner["state"], "['state']['state']", 128)
    if whole(inner["inc"], "['state']['inc']", 128) % 2 == 0:
        bad("['state']['inc']", "is even (a PCG64 increment is odd)")
    whole(state["has_uint32"], "['has_uint32']", 1)
    whole(state["uinteger"], "['uinteger']", 32)
    bit_generator = np.random.PCG64()
    try:
        bit_generator.state = copy.deepcopy(state)
    except (ValueError, TypeError, OverflowError, KeyError) as err:  # numpy's own checks
        bad("", f"is refused by numpy: {err}")
    return np.random.Generator(bit_generator)


class _PresetSeed(ISeedSequence):
    """Fixed seed words for a bit generator whose state is set right after it is built
    (:func:`clone_rng`): numpy would otherwise hash fresh OS entropy into its first
    state, about 4 us that the new state overwrites at once."""

    __slots__ = ()
    _words: dict = {}  # (n_words, dtype) -> read-only words, made once

    def generate_state(self, n_words, dtype=np.uint32):
        key = (n_words, dtype)
        words = self._words.get(key)
        if words is None:
            words = SeedSequence(0).generate_state(n_words, dtype)
            words.setflags(write=False)
            self._words[key] = words
        return words


_PRESET_SEED = _PresetSeed()


def clone_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s exact state (same bit generator class):
    it draws what ``rng`` would draw, and drawing from one leaves the other as it was.

    About 3 us (a state's ``clone`` calls it); the dict round trip through
    :func:`rng_to_dict` / :func:`rng_from_dict` costs about 20. Its ``seed_seq`` is a
    placeholder that cannot spawn (``Generator.spawn`` raises): the state is what counts.
    """
    bit_generator = rng.bit_generator
    copy = type(bit_generator)(_PRESET_SEED)
    copy.state = bit_generator.state
    return np.random.Generator(copy)


def derive_seed(master_seed: int, *path: int | str) -> int:
    """A 63-bit seed derived from a master seed and a path (stable across runs)."""
    words = [master_seed] + [
        int.from_bytes(str(p).encode(), "little") % (2**63) if isinstance(p, str) else int(p)
        for p in path
    ]
    seq = np.random.SeedSequence(words)
    return int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
