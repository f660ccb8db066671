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
    :class:`~envs.core.errors.ConfigError` naming it, where numpy would raise its own
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
    flag, a 32-bit buffer) raises :class:`~envs.core.errors.StateError` naming the
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


_UINT32_MAX = 0xFFFFFFFF
_DOUBLE_UNIT = 1.0 / (1 << 53)  # random() keeps the top 53 bits of an output
RAW_BLOCK = 64  # raw 64-bit outputs fetched from the bit generator at a time


class IntegerDraws:
    """``Generator.integers(n)`` draws, the same numbers in the same order, for hot loops.

    numpy draws a bounded int64 below 2**32 by Lemire's method on the bit generator's
    32-bit stream (a 64-bit output serves two draws: its low half, then its high half;
    a range of one draws nothing). This class does the same in plain Python on raw
    outputs fetched in blocks, about 6x cheaper a draw than the numpy call (whose cost
    is mostly call overhead, and grows when a network's work has chilled the caches).
    The generator then belongs to this stream alone: fetching ahead moves it on.
    A test checks every draw against ``Generator.integers``.
    """

    __slots__ = ("_bit_generator", "_raw", "_high")

    def __init__(self, rng: np.random.Generator):
        self._bit_generator = rng.bit_generator
        self._raw: list[int] = []  # fetched outputs, the next one last
        self._high: int | None = None  # the unused high half of the last output

    def _next_uint32(self) -> int:
        high = self._high
        if high is not None:
            self._high = None
            return high
        if not self._raw:
            self._raw = self._bit_generator.random_raw(RAW_BLOCK).tolist()[::-1]
        raw = self._raw.pop()
        self._high = raw >> 32
        return raw & _UINT32_MAX

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, as ``Generator.integers(n)`` (1 <= n < 2**32)."""
        if not 1 <= n <= _UINT32_MAX:
            raise ValueError(f"n must be in [1, 2**32), got {n}")
        if n == 1:
            return 0
        scaled = self._next_uint32() * n
        leftover = scaled & _UINT32_MAX
        if leftover < n:
            threshold = (_UINT32_MAX - (n - 1)) % n
            while leftover < threshold:
                scaled = self._next_uint32() * n
                leftover = scaled & _UINT32_MAX
        return scaled >> 32


class DoubleDraws:
    """``Generator.random(k)`` draws, the same numbers in the same order, for hot loops.

    numpy's ``random()`` turns each 64-bit output into ``(output >> 11) * 2**-53``;
    this class does the same in plain Python on outputs fetched in blocks, which
    spares a numpy call per draw (about 10 us each inside PPO, where the network's
    work leaves the caches cold). Fetching ahead moves the generator on, so
    :meth:`generator` gives one in the state numpy's own draws would have left it
    (for saving). A test checks the draws and that state against ``Generator.random``.
    """

    __slots__ = ("_rng", "_start", "_raw", "_next", "_taken")

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._start: dict | None = None  # the generator's state before the first fetch
        self._raw: tuple[int, ...] = ()  # fetched outputs
        self._next = 0  # index of the next unused one
        self._taken = 0  # outputs used since _start

    def take(self, k: int) -> list[float]:
        """The next ``k`` uniform floats in [0, 1), as ``Generator.random(k).tolist()``."""
        at = self._next
        if at + k > len(self._raw):
            if self._start is None:
                self._start = self._rng.bit_generator.state  # a copy
            left = self._raw[at:]
            fetch = max(RAW_BLOCK, k - len(left))
            self._raw = left + tuple(self._rng.bit_generator.random_raw(fetch).tolist())
            at = 0
        self._next = at + k
        self._taken += k
        return [(raw >> 11) * _DOUBLE_UNIT for raw in self._raw[at : at + k]]

    def clone(self) -> DoubleDraws:
        """An independent copy: it takes the same floats as this stream from here on,
        and gives the same :meth:`generator`."""
        other = DoubleDraws.__new__(DoubleDraws)
        other._rng = clone_rng(self._rng)
        start = self._start
        other._start = None if start is None else {**start, "state": dict(start["state"])}
        other._raw = self._raw  # a tuple
        other._next, other._taken = self._next, self._taken
        return other

    def generator(self) -> np.random.Generator:
        """The generator as numpy's own draws would have left it (the live one while
        nothing was fetched ahead, else a rebuilt copy)."""
        if self._start is None:
            return self._rng
        rng = rng_from_dict(self._start)
        rng.random(self._taken)
        return rng
