"""Seeding: one numpy Generator per game, saved and restored exactly."""

from __future__ import annotations

import copy

import numpy as np


def make_rng(seed: int | None) -> np.random.Generator:
    """A PCG64 generator from a seed (fresh entropy when ``seed`` is None)."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_dict(rng: np.random.Generator) -> dict:
    """The generator's full state as a JSON-able dict."""
    return copy.deepcopy(rng.bit_generator.state)


def rng_from_dict(state: dict) -> np.random.Generator:
    """Rebuild a generator from :func:`rng_to_dict` output."""
    bit_generator = np.random.PCG64()
    bit_generator.state = copy.deepcopy(state)
    return np.random.Generator(bit_generator)


def derive_seed(master_seed: int, *path: int | str) -> int:
    """A 63-bit seed derived from a master seed and a path (stable across runs)."""
    words = [master_seed] + [
        int.from_bytes(str(p).encode(), "little") % (2**63) if isinstance(p, str) else int(p)
        for p in path
    ]
    seq = np.random.SeedSequence(words)
    return int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
