"""Value models: a seat's chance to win, read from its observation, in numpy.

A value model (``training/value_fit.py`` fits one on self-play data,
``training/value_data.py``) maps one seat's observation to two numbers: the logit of
the seat's win share (1 a sole winner, 1/k in a k-way tie) and its expected final score
margin over the best rival, in units of the game's ``score_scale``. One model serves
every player count of its game (the observation says how many sit at the table).

It is an MLP over the raw observation (the fit's standardisation is folded into the
first layer), ReLU hidden layers, a two-unit head. Exported as ``X.safetensors`` (the
tensors ``w0``, ``b0``, ``w1`` ...; ``w`` as ``(in, out)``) and ``X.json``, a manifest of the format :data:`FORMAT` that names the
game, the layer sizes, the weights' sha256 and how the model was made. Loading runs no
code: the manifest is read with bounds and validated, the weights' size and hash are
checked before they are parsed, and every tensor's shape is compared with the manifest.

Where the model is read: the search's leaves (``mcts:leaf=value,value=PATH``: each
seat's observation of a re-drawn world) and the fast value agent
(``agents/value_agent.py``). Both read observations only, so both stay honest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import safetensors.numpy
from pydantic import Field

from otrio.envs.core.bounded import read_json
from otrio.envs.core.config import StrictModel, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import write_atomic
from otrio.envs.core.paths import PRETRAINED, find_file, where_looked

from .tensor_file import TensorFile, compare, non_finite, specs

FORMAT = "otrio-value"
FORMAT_VERSION = 1
MAX_MANIFEST_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 1 << 28  # 256 MB: far above any value model this suite fits
MAX_WIDTH = 8192
MAX_LAYERS = 8
# a weight's size at most: a fitted model's are far smaller (the first layer folds the
# standardisation in, dividing by spreads of at least SPREAD_FLOOR); beyond this a forward
# pass overflows float32 on ordinary observations
MAX_ABS_WEIGHT = 1e6


class ValueWeights(StrictModel):
    """The weights file a manifest names, with its size and hash."""

    file: str = Field(pattern=r"^[A-Za-z0-9_.-]+\.safetensors$")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    bytes: int = Field(ge=8, le=MAX_WEIGHTS_BYTES)


class ValueManifest(StrictModel):
    """What an exported value model is (``X.json``)."""

    format: str
    format_version: int = Field(ge=1, le=FORMAT_VERSION)
    env_id: str
    observation_size: int = Field(ge=1, le=1_000_000)
    hidden: list[int] = Field(max_length=MAX_LAYERS)
    score_scale: float = Field(gt=0)
    weights: ValueWeights
    made: dict[str, Any] = {}  # data, fit and gate facts (free form, for people)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every tensor the weights must hold, with its shape."""
        sizes = [self.observation_size, *self.hidden, 2]
        out = {}
        for k in range(len(sizes) - 1):
            out[f"w{k}"] = (sizes[k], sizes[k + 1])
            out[f"b{k}"] = (sizes[k + 1],)
        return out


class ValueModel:
    """The numpy forward of an exported value model (see the module docstring)."""

    def __init__(self, manifest: ValueManifest | None, tensors: dict[str, np.ndarray],
                 score_scale: float | None = None):
        self.manifest = manifest
        k, self.layers = 0, []
        while f"w{k}" in tensors:
            self.layers.append((tensors[f"w{k}"], tensors[f"b{k}"]))
            k += 1
        self.score_scale = manifest.score_scale if manifest is not None else score_scale

    @classmethod
    def from_fit(cls, tensors: dict[str, np.ndarray], score_scale: float) -> ValueModel:
        """A model straight from :func:`otrio.training.value_fit.fit`'s tensors, not
        exported (no manifest): for measurements on inputs other than an observation."""
        return cls(None, tensors, score_scale)

    def heads(self, obs: np.ndarray) -> np.ndarray:
        """The two outputs (win logit, margin / score_scale) of a ``(k, size)`` batch
        or one observation."""
        x = obs
        last = len(self.layers) - 1
        for k, (w, b) in enumerate(self.layers):
            if k == 0 and x.ndim == 1:  # one observation: its non-zero inputs only
                nz = np.flatnonzero(x)
                x = x[nz] @ w[nz] + b
            else:
                x = x @ w + b
            if k < last:
                np.maximum(x, 0.0, out=x)
        return x

    def win(self, obs: np.ndarray) -> np.ndarray:
        """Each observing seat's chance to win (the win-share logit through a sigmoid)."""
        z = self.heads(obs)[..., 0]
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def margin(self, obs: np.ndarray) -> np.ndarray:
        """Each observing seat's expected final margin over its best rival, in points."""
        return self.heads(obs)[..., 1] * self.score_scale


def check_players(manifest: ValueManifest, num_players: int, file: Path) -> None:
    """Refuse a model at a player count its data never held (its manifest's
    ``made.players``; a model that names none is taken at its word): a model judges
    positions of another count worse than the score margin does
    (``benchmarks/results/values/README.md``)."""
    counts = manifest.made.get("players")
    if isinstance(counts, list) and counts and num_players not in counts:
        shipped = shipped_models(manifest.env_id, num_players)
        use = (f"use a shipped model whose data held {num_players} players: "
               f"{', '.join(shipped)}" if shipped else
               "use a model fitted at that count (the players of its value data config)")
        raise ConfigError(f"value model {file} was fitted on games of "
                          f"{', '.join(map(str, counts))} players only, this game has "
                          f"{num_players}: {use}")


def shipped_models(env_id: str, num_players: int) -> list[str]:
    """The shipped value models (``agents/pretrained/*.json``) of ``env_id`` whose data
    held ``num_players`` players (their manifest's ``made.players``), each as
    ``agents/pretrained/X.json (players 2, 3, 4)``; a manifest that cannot be read is
    left out."""
    found = []
    for path in sorted(PRETRAINED.glob("*.json")):
        try:
            raw = read_json(path, MAX_MANIFEST_BYTES, f"value model {path}", ConfigError,
                            max_depth=32)
        except ConfigError:
            continue
        made = raw.get("made") if isinstance(raw, dict) else None
        counts = made.get("players") if isinstance(made, dict) else None
        if (raw.get("format") == FORMAT and raw.get("env_id") == env_id
                and isinstance(counts, list) and num_players in counts):
            found.append(f"agents/pretrained/{path.name} (players "
                         f"{', '.join(map(str, counts))})")
    return found


def save_value_model(target: str | Path, env_id: str, score_scale: float,
                     tensors: dict[str, np.ndarray], made: dict[str, Any]) -> Path:
    """Write ``STEM.safetensors`` and the manifest ``STEM.json``; the manifest's path."""
    stem = Path(target).with_suffix("")
    hidden = [int(tensors[f"w{k}"].shape[1]) for k in range(len(tensors) // 2 - 1)]
    data = safetensors.numpy.save({k: np.ascontiguousarray(v, np.float32)
                                   for k, v in tensors.items()})
    weights = stem.with_suffix(".safetensors")
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "env_id": env_id,
                "observation_size": int(tensors["w0"].shape[0]), "hidden": hidden,
                "score_scale": float(score_scale),
                "weights": {"file": weights.name, "sha256": hashlib.sha256(data).hexdigest(),
                            "bytes": len(data)}, "made": made}
    validate(ValueManifest, manifest)  # what is written reads back
    weights.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(weights, data)
    out = stem.with_suffix(".json")
    write_atomic(out, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return out


def load_value_model(path: str | Path, env=None, any_players: bool = False) -> ValueModel:
    """The value model of ``X.json`` (or ``X.safetensors``); with ``env``, refused
    unless it was fitted for that env's game and, unless ``any_players`` (the gate, which
    may measure a model anywhere), at that env's player count. Every problem is one
    ConfigError line."""
    import safetensors.torch  # deferred: torch (~1 s)
    import torch  # deferred: torch (~1 s)


    file = find_file(Path(path).with_suffix(".json"))
    if not file.exists():
        raise ConfigError(f"value model {file} does not exist{where_looked(file)}")
    raw = read_json(file, MAX_MANIFEST_BYTES, f"value model {file}", ConfigError, max_depth=32)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ConfigError(f"{file} is not a value model (format {FORMAT!r})")
    try:
        manifest = validate(ValueManifest, raw)
    except ConfigError as err:
        raise ConfigError(f"value model {file}: {err}") from None
    if any(not 1 <= h <= MAX_WIDTH for h in manifest.hidden):
        raise ConfigError(f"value model {file}: a hidden layer outside 1..{MAX_WIDTH}")
    if env is not None:
        info = env.unwrapped.game.info
        for key, want in (("env_id", info.env_id), ("observation_size", info.observation_size)):
            if getattr(manifest, key) != want:
                raise ConfigError(f"value model {file} was fitted for {key}="
                                  f"{getattr(manifest, key)!r}, this game has {key}={want!r}")
        if not any_players:
            check_players(manifest, env.unwrapped.num_players, file)
    weights = file.parent / manifest.weights.file
    expected = {k: (s, torch.float32) for k, s in manifest.shapes().items()}
    with TensorFile(weights, manifest.weights.bytes, MAX_WEIGHTS_BYTES,
                    f"weights {weights} of value model {file}", ConfigError,
                    corrupt=f"weights {weights} are corrupt (not safetensors)") as source:
        if source.sha256() != manifest.weights.sha256:
            raise ConfigError(f"weights {weights} do not match their manifest {file} (sha256)")
        compare(source.header(), expected, f"weights {weights}", f"the model of {file}",
                ConfigError)
        data = source.read(manifest.weights.sha256)
    tensors = safetensors.torch.load(data)  # weights only (no pickle): the bytes just hashed
    compare(specs(tensors), expected, f"weights {weights}", f"the model of {file}", ConfigError)
    if non_finite(tensors):
        raise ConfigError(f"weights {weights} hold NaN or infinite values")
    arrays = {k: v.numpy() for k, v in tensors.items()}
    largest = max((float(np.abs(a).max()) for a in arrays.values() if a.size), default=0.0)
    if largest > MAX_ABS_WEIGHT:
        raise ConfigError(f"weights {weights} of value model {file} hold a value of "
                          f"{largest:.3g}, beyond {MAX_ABS_WEIGHT:g}: its chances would "
                          "overflow to infinite or NaN values")
    model = ValueModel(manifest, arrays)
    with np.errstate(over="ignore", invalid="ignore"):
        probe = model.heads(np.zeros((1, manifest.observation_size), np.float32))
    if not np.isfinite(probe).all():
        raise ConfigError(f"value model {file}: its output is not finite (overflow)")
    return model


__all__ = ["FORMAT", "ValueManifest", "ValueModel", "load_value_model", "save_value_model"]
