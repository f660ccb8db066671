"""Policy files that load without running anything, and the gate on those that do.

**The safe format.** An exported agent is two files with one stem:

- ``STEM.safetensors``: the policy network's tensors (safetensors: a JSON header and
  raw arrays; no pickle);
- ``STEM.json``: the manifest -- ``format``/``format_version``; the game (``env_id``,
  ``observation_size``, ``num_actions``, ``game_config``) and the teacher ``hints`` the
  policy reads (``agents/hints.py``), with ``policy_observation_size`` (the observation
  plus its hints); the network (``policy``: ``class``, ``net_arch``, ``activation_fn``,
  ``encoder`` and ``encoder_kwargs`` -- ``mlp`` or a feature extractor of
  ``agents/encoders.py`` --, ``share_features_extractor``, ``normalize_images``); the
  weights (``weights``: ``file``, a bare name beside the manifest, its ``sha256`` and
  ``bytes``); the ``versions`` of the libraries that wrote it; and where it came from
  (``timesteps``, ``seed``, ``exported_from``).

:func:`load_policy` reads the manifest as JSON, checks the weights' sha256, parses them
with ``safetensors.torch.load``, builds sb3-contrib's ``MaskableActorCriticPolicy``
from the manifest with this package's own classes (names are looked up in fixed
tables, never imported), and loads the tensors with ``load_state_dict(strict=True)``
after checking that every tensor is there with its shape and dtype. Nothing in the
files is executed: no pickle, no cloudpickle, no ``torch.load``. Every problem -- a
missing or corrupt file, a hash mismatch, a missing, extra or misshapen tensor, an
unknown encoder -- is a :class:`ConfigError` naming the file.

**Limits.** A manifest is a file handed around, so nothing it says is built, and
nothing it names is read, before it is known to be small; every refusal is one
:class:`ConfigError` line, within a second and a few MB of memory:

- the manifest: a regular file of at most :data:`MAX_MANIFEST_BYTES` (1 MiB) of UTF-8
  JSON, nested at most :data:`MAX_MANIFEST_DEPTH` (16) deep, holding at most
  :data:`MAX_MANIFEST_VALUES` (10,000) values, no ``NaN``; its sizes
  within ceilings -- ``observation_size``, ``policy_observation_size`` and
  ``num_actions`` at most :data:`MAX_SIZE` (2**20), at most :data:`MAX_LAYERS` (32)
  layers a head of at most :data:`MAX_UNITS` (65,536) units, encoder arguments as
  bounded, names and versions at most :data:`MAX_TEXT` (256) characters, ``bytes`` at
  most :data:`MAX_WEIGHTS_BYTES` (256 MiB); its ``game_config`` one that its game's
  config model accepts (``num_players: 99`` is refused);
- the weights (``agents/tensor_file.py``): a regular file, not a symbolic link (a link
  to ``/dev/zero``, a FIFO or a device is refused unread), whose size is the
  manifest's ``bytes`` (a huge sparse file is refused from its size); hashed in
  chunks; then only its safetensors header (at most 1 MiB) is read and checked --
  dtypes, shapes, byte ranges that tile the data -- and compared with the network the
  manifest declares, measured on torch's meta device (shapes without storage), before
  anything is allocated; then the file is read once, its hash checked again on the
  bytes parsed, and a tensor holding NaN or infinity is refused (a policy that
  diverged in training) before the network is built;
- every value quoted in a message is cut to a readable length
  (``envs/core/bounded.py``).

**SB3 zips.** A Stable-Baselines3 zip stores its settings (spaces, schedules, the
policy class) as cloudpickle payloads, so loading one runs whatever code the file
carries. The suite loads one only from a source the user trusts (:func:`load_sb3_zip`):
the ``--trust-checkpoint`` flag of the commands that read them, or the environment
variable ``OTRIO_TRUST_CHECKPOINTS=1``. Training writes and reads none
(``training/train.py``: its checkpoints are safetensors and JSON, its snapshots and final
agent are in the safe format); zips are only the user's own: of older runs, or of a
Stable-Baselines3 script such as ``examples/sb3_maskable_ppo.py``. One command makes such
a zip a safe agent, once: ``otrio export-checkpoint MODEL.zip AGENT.json
--trust-checkpoint``, with the zip's game read from its metadata ``MODEL.json`` beside it
(``env_id``, ``observation_size``, ``num_actions``, ``game_config``, ``hints``,
``timesteps``, ``seed``: ``agents/ppo.py``, whose ``write_metadata`` writes it; the
recipe's ``--save`` does), or named with ``--game G --players N`` where there is none.
The zip's network must read that game's observation and choose among its actions.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import os
import platform
import re
import sys
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any, Literal

import gymnasium
import numpy as np
from pydantic import Field, StrictBool, StrictInt, ValidationInfo, field_validator

from otrio.envs.core.bounded import clip, read_json, short_repr
from otrio.envs.core.config import StrictModel, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import write_atomic
from otrio.envs.core.registry import ENV_MODULES, config_model

from .tensor_file import TensorFile, compare, non_finite, specs

FORMAT = "otrio-policy"
FORMAT_VERSION = 1
WEIGHTS_SUFFIX = ".safetensors"
MANIFEST_SUFFIX = ".json"
TRUST_ENV = "OTRIO_TRUST_CHECKPOINTS"
TRUST_FLAG = "--trust-checkpoint"
POLICY_CLASS = "MaskableActorCriticPolicy"
# the activations a manifest may name (torch.nn classes, looked up here, never imported by name)
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid")
FLAT_ENCODER = "mlp"  # sb3's FlattenExtractor: the flat observation into the MLP
# modules that moved, by the old name that a zip pickled before the move gives them (the
# encoders lived in training/, then in the top-level package agents before otrio.agents)
MOVED_MODULES = {"training.encoders": "otrio.agents.encoders",
                 "agents.encoders": "otrio.agents.encoders"}
# ceilings, checked before anything is built or read (see the module docstring)
MAX_MANIFEST_BYTES = 1 << 20  # the manifest (the shipped ones are about 1 KB)
MAX_MANIFEST_DEPTH = 16  # nesting of the manifest's JSON (the shipped ones use 3)
MAX_MANIFEST_VALUES = 10_000  # values in the manifest's JSON (the shipped ones hold about 40)
MAX_WEIGHTS_BYTES = 256 << 20  # the weights file (the shipped ones are 1 to 6 MB)
MAX_SIZE = 1 << 20  # observation_size, policy_observation_size, num_actions (the games: < 3,000)
MAX_LAYERS = 32  # layers of each head in net_arch, and of an encoder's list argument
MAX_UNITS = 1 << 16  # units of one layer, and any integer encoder argument
MAX_TEXT = 256  # env_id, hints, activation and encoder names, versions, encoder arguments
MAX_PATH_TEXT = 4096  # exported_from


# ------------------------------------------------------------------ trust
def trusted(trust: bool | None = None) -> bool:
    """Whether an SB3 zip may be loaded: ``trust``, or ``OTRIO_TRUST_CHECKPOINTS=1``."""
    return bool(trust) or os.environ.get(TRUST_ENV, "") == "1"


def untrusted_message(path: str | Path) -> str:
    """Why an SB3 zip is refused, and how to allow it."""
    return (f"{path} is a Stable-Baselines3 zip: loading one unpickles, and so runs, code stored "
            f"in the file, so otrio loads one only from a source you trust (your own training "
            f"runs). To allow it, pass {TRUST_FLAG} or set {TRUST_ENV}=1. To share or play an "
            f"agent safely, export it once: `otrio export-checkpoint {TRUST_FLAG} {path} "
            f"AGENT.json`, then use ppo:AGENT.json (safetensors weights and a JSON manifest)")


def require_trust(path: str | Path, trust: bool | None = None) -> None:
    """A :class:`ConfigError` unless SB3 zips are trusted (see :func:`trusted`)."""
    if not trusted(trust):
        raise ConfigError(untrusted_message(path))


@contextlib.contextmanager
def trusting(trust: bool) -> Iterator[None]:
    """With ``trust``, SB3 zips are trusted inside the block (in worker processes
    started there too: it sets ``OTRIO_TRUST_CHECKPOINTS=1`` and restores it after)."""
    if not trust:
        yield
        return
    before = os.environ.get(TRUST_ENV)
    os.environ[TRUST_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(TRUST_ENV, None)
        else:
            os.environ[TRUST_ENV] = before


def load_sb3_zip(path: str | Path, trust: bool | None = None, **kwargs: Any):
    """``MaskablePPO.load(path, **kwargs)`` if SB3 zips are trusted, else a
    :class:`ConfigError` saying why and how to allow it; a zip that fails to load is a
    :class:`ConfigError` too. The suite's one unpickling load: every ``.zip`` reaches it,
    and only with trust given explicitly (``trust=True`` from ``--trust-checkpoint``, or
    ``OTRIO_TRUST_CHECKPOINTS=1``); shared agents travel as safetensors instead
    (``otrio export-checkpoint``)."""
    require_trust(path, trust)  # before anything opens the zip: no trust, no unpickling
    from sb3_contrib import MaskablePPO  # deferred: torch (~1 s)

    try:
        with _moved_modules():
            return MaskablePPO.load(str(path), **kwargs)  # unpickles: trusted just above
    except Exception as err:  # sb3 raises many kinds on a corrupt zip
        raise ConfigError(f"PPO checkpoint {path} could not be loaded: {err}") from None


@contextlib.contextmanager
def _moved_modules() -> Iterator[None]:
    """While a zip loads, each old module name of :data:`MOVED_MODULES` names its new
    home, so that a zip pickled before the move finds its classes (a structured encoder
    of training/encoders.py, now agents/encoders.py); the old names go afterwards."""

    added = []
    for old, new in MOVED_MODULES.items():
        if old not in sys.modules:
            sys.modules[old] = importlib.import_module(new)
            added.append(old)
    try:
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)


def is_sb3_zip(path: str | Path) -> bool:
    """Whether ``path`` names an SB3 zip (by its suffix) rather than a safe agent."""
    return Path(path).suffix == ".zip"


# --------------------------------------------------------------- manifest
class PolicyArch(StrictModel):
    """The network a manifest rebuilds (MaskableActorCriticPolicy's constructor)."""

    policy_class: Literal["MaskableActorCriticPolicy"] = Field(alias="class")
    net_arch: list[StrictInt] | dict[str, list[StrictInt]]
    activation_fn: str = Field(max_length=MAX_TEXT)
    encoder: str = Field(max_length=MAX_TEXT)
    encoder_kwargs: dict[str, StrictInt | float | StrictBool | str | list[StrictInt]] = {}
    share_features_extractor: StrictBool = True
    normalize_images: StrictBool = True

    @field_validator("net_arch")
    @classmethod
    def _known_heads(cls, v):
        if isinstance(v, dict) and set(v) - {"pi", "vf"}:
            raise ValueError(f"net_arch keys must be pi and vf, got {short_repr(sorted(v), 80)}")
        heads = [v] if isinstance(v, list) else list(v.values())
        if any(len(head) > MAX_LAYERS for head in heads):
            raise ValueError(f"at most {MAX_LAYERS} layers a head")
        if any(not 1 <= n <= MAX_UNITS for head in heads for n in head):
            raise ValueError(f"every layer needs 1..{MAX_UNITS} units")
        return v

    @field_validator("encoder_kwargs")
    @classmethod
    def _bounded_kwargs(cls, v: dict) -> dict:
        if len(v) > MAX_LAYERS:
            raise ValueError(f"at most {MAX_LAYERS} encoder arguments")
        for key, value in v.items():
            if len(key) > MAX_TEXT:
                raise ValueError(f"an encoder argument's name is over {MAX_TEXT} characters")
            numbers = value if isinstance(value, list) else [value]
            if isinstance(value, list) and len(value) > MAX_LAYERS:
                raise ValueError(f"{key}: at most {MAX_LAYERS} values")
            if isinstance(value, str) and len(value) > MAX_TEXT:
                raise ValueError(f"{key}: over {MAX_TEXT} characters")
            if any(isinstance(n, (int, float)) and not isinstance(n, bool)
                   and not abs(n) <= MAX_UNITS for n in numbers):
                raise ValueError(f"{key}: every number must be within -{MAX_UNITS}..{MAX_UNITS}")
        return v

    @field_validator("activation_fn")
    @classmethod
    def _known_activation(cls, v: str) -> str:
        if v not in ACTIVATIONS:
            raise ValueError(f"unknown activation {v!r} (known: {', '.join(ACTIVATIONS)})")
        return v

    @field_validator("encoder")
    @classmethod
    def _known_encoder(cls, v: str) -> str:
        known = encoder_names()
        if v not in known:
            raise ValueError(f"unknown encoder {v!r} (known: {', '.join(known)})")
        return v


class WeightsRef(StrictModel):
    """The weights file a manifest names, and its content hash."""

    file: str = Field(max_length=MAX_TEXT)
    sha256: str = Field(max_length=64)
    bytes: StrictInt = Field(ge=0, le=MAX_WEIGHTS_BYTES)

    @field_validator("file")
    @classmethod
    def _bare_name(cls, v: str) -> str:
        if Path(v).name != v or v in ("", ".", "..") or not v.endswith(WEIGHTS_SUFFIX):
            raise ValueError(f"must be a bare {WEIGHTS_SUFFIX} file name beside the manifest, "
                             f"got {short_repr(v, 80)}")
        return v

    @field_validator("sha256")
    @classmethod
    def _hex_digest(cls, v: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", v):
            raise ValueError("must be 64 lowercase hex digits")
        return v


class Manifest(StrictModel):
    """The JSON half of an exported agent (see the module docstring)."""

    format: Literal["otrio-policy"]
    format_version: Literal[1]
    env_id: str = Field(max_length=MAX_TEXT)
    observation_size: StrictInt = Field(ge=1, le=MAX_SIZE)
    num_actions: StrictInt = Field(ge=1, le=MAX_SIZE)
    hints: str | None = Field(default=None, max_length=MAX_TEXT)
    policy_observation_size: StrictInt = Field(ge=1, le=MAX_SIZE)
    game_config: dict[str, Any] = {}
    timesteps: StrictInt | None = None
    seed: StrictInt | None = None
    exported_from: str | None = Field(default=None, max_length=MAX_PATH_TEXT)
    policy: PolicyArch
    weights: WeightsRef
    versions: dict[str, Annotated[str, Field(max_length=MAX_TEXT)]] = Field(
        default={}, max_length=MAX_LAYERS)

    @field_validator("game_config")
    @classmethod
    def _a_config_of_the_game(cls, v: dict, info: ValidationInfo) -> dict:
        """``game_config`` must be a config that ``env_id``'s game accepts (its config
        model: keys, types, ranges such as the player count); an env id this checkout
        does not know is left to the check of the network against the game it plays."""

        env_id = info.data.get("env_id")
        if env_id not in ENV_MODULES:
            return v
        model = config_model(env_id)
        try:
            validate(model, v)
        except ConfigError as err:
            raise ValueError(f"not a config of {env_id} "
                             f"({str(err).removeprefix(f'invalid {model.__name__}: ')})") from None
        return v


def encoder_names() -> tuple[str, ...]:
    """The encoders a manifest may name: ``mlp`` and those of ``agents/encoders.py``."""
    from otrio.agents.encoders import ENCODERS  # deferred: torch (~1 s)

    return (FLAT_ENCODER, *ENCODERS)


def manifest_path(path: str | Path) -> Path:
    """The manifest of an exported agent named by its ``.json`` or ``.safetensors``."""
    return Path(path).with_suffix(MANIFEST_SUFFIX)


def agent_stem(target: str | Path) -> Path:
    """Where an export writes: ``X.json``, ``X.safetensors`` or a bare ``X`` all give
    ``X``; a ``.zip`` target is refused (exports are never zips)."""
    target = Path(target)
    if target.suffix in (MANIFEST_SUFFIX, WEIGHTS_SUFFIX):
        return target.with_suffix("")
    if target.suffix == ".zip":
        raise ConfigError(f"{target}: an export writes safetensors weights and a JSON manifest, "
                          f"not a zip; name the target {target.with_suffix(MANIFEST_SUFFIX)}")
    return target


def read_manifest(path: str | Path) -> Manifest:
    """The validated manifest of an exported agent; a clear error for any problem
    (the file and its JSON are read within :data:`MAX_MANIFEST_BYTES` and
    :data:`MAX_MANIFEST_DEPTH`, its sizes checked against the ceilings above)."""
    file = manifest_path(path)
    raw = read_json(file, MAX_MANIFEST_BYTES, f"agent manifest {file}", ConfigError,
                    max_depth=MAX_MANIFEST_DEPTH, max_nodes=MAX_MANIFEST_VALUES)
    if not isinstance(raw, dict):
        raise ConfigError(f"agent manifest {file} is corrupt: not a JSON object")
    if raw.get("format") != FORMAT:
        raise ConfigError(
            f"{file} is not an exported agent (its format is {short_repr(raw.get('format'))}, "
            f"not {FORMAT!r}); a training checkpoint's metadata sits beside its .zip: play "
            f"ppo:CHECKPOINT.zip with {TRUST_FLAG}, or export it with otrio export-checkpoint")
    try:
        return validate(Manifest, raw)
    except ConfigError as err:
        raise ConfigError(f"agent manifest {file}: {err}") from None


# ----------------------------------------------------------------- network
def _activation(name: str):
    from torch import nn  # deferred: torch (~1 s)

    return getattr(nn, name)  # name is one of ACTIVATIONS (validated)


def policy_kwargs_of(manifest: Manifest) -> dict[str, Any]:
    """The ``MaskableActorCriticPolicy`` keyword arguments (sb3's ``policy_kwargs``)
    that rebuild the manifest's network from this package's own classes."""
    arch = manifest.policy
    kwargs: dict[str, Any] = {
        "net_arch": arch.net_arch if isinstance(arch.net_arch, list) else dict(arch.net_arch),
        "activation_fn": _activation(arch.activation_fn),
        "share_features_extractor": arch.share_features_extractor,
        "normalize_images": arch.normalize_images,
        "ortho_init": False,  # every weight is loaded next
    }
    if arch.encoder != FLAT_ENCODER:
        from otrio.agents.encoders import ENCODERS  # deferred: torch (~1 s)

        kwargs["features_extractor_class"] = ENCODERS[arch.encoder]
        kwargs["features_extractor_kwargs"] = dict(arch.encoder_kwargs)
    elif arch.encoder_kwargs:
        raise ConfigError(f"encoder {FLAT_ENCODER!r} takes no encoder_kwargs, got "
                          f"{short_repr(arch.encoder_kwargs, 120)}")
    return kwargs


def build_policy(manifest: Manifest, meta: bool = False):
    """A fresh ``MaskableActorCriticPolicy`` shaped as the manifest says, from this
    package's own classes (the global torch generator is left as it was).

    With ``meta``, on torch's meta device: every tensor has its shape and dtype but no
    storage, so the network a manifest declares can be measured (:func:`network_shapes`)
    at no cost, whatever it declares."""
    import torch  # deferred: torch (~1 s)
    from sb3_contrib.common.maskable.policies import (  # deferred: torch (~1 s)
        MaskableActorCriticPolicy,
    )

    kwargs = policy_kwargs_of(manifest)
    observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (manifest.policy_observation_size,),
                                             np.float32)
    action_space = gymnasium.spaces.Discrete(manifest.num_actions)
    with torch.random.fork_rng(devices=[]):
        try:
            if meta:
                with torch.device("meta"):
                    policy = _meta_policy_class()(observation_space, action_space, lambda _: 0.0, **kwargs)
            else:
                policy = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 0.0,
                                                   **kwargs)
        except Exception as err:  # noqa: BLE001 -- an encoder refuses its arguments in its own way
            raise ConfigError(f"the policy of this manifest cannot be built: "
                              f"{clip(str(err) or type(err).__name__)}") from None
    policy.set_training_mode(False)
    return policy


@functools.cache
def _meta_policy_class():
    from sb3_contrib.common.maskable.policies import (  # deferred: torch (~1 s)
        MaskableActorCriticPolicy,
    )

    class MetaPolicy(MaskableActorCriticPolicy):
        """The policy built on the meta device (sb3 moves its heads to ``self.device``,
        which is the CPU for a network whose encoder has no parameters)."""

        @property
        def device(self):
            import torch  # deferred: torch (~1 s)

            return torch.device("meta")

    return MetaPolicy


def network_shapes(manifest: Manifest) -> dict[str, tuple[tuple[int, ...], Any]]:
    """The tensors the manifest's network holds, name -> (shape, torch dtype), each
    shared tensor under its first name only (what :func:`save_policy` writes); built on
    the meta device, so nothing is allocated however large the manifest says it is."""
    policy = build_policy(manifest, meta=True)
    aliases = tensor_aliases(policy)
    return {name: (tuple(t.shape), t.dtype) for name, t in policy.state_dict().items()
            if name not in aliases}


def tensor_aliases(policy) -> dict[str, str]:
    """Tensor names that are another name's tensor (a feature extractor the policy and
    value heads share appears under three prefixes): alias -> the first name."""
    first: dict[int, str] = {}
    aliases = {}
    for name, tensor in policy.state_dict(keep_vars=True).items():
        if id(tensor) in first:
            aliases[name] = first[id(tensor)]
        else:
            first[id(tensor)] = name
    return aliases


def _json_value(value):
    """A constructor argument as JSON (tuples become lists); None if it has no JSON form."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool)
                                                for v in value):
        return list(value)
    return None


def policy_arch(policy) -> dict:
    """The manifest's ``policy`` block for an sb3 policy; a clear error for a network
    the safe format cannot rebuild."""
    from sb3_contrib.common.maskable.policies import (  # deferred: torch (~1 s)
        MaskableActorCriticPolicy,
    )
    from stable_baselines3.common.torch_layers import FlattenExtractor  # deferred: torch (~1 s)

    from otrio.agents.encoders import ENCODERS  # deferred: torch (~1 s)

    if type(policy) is not MaskableActorCriticPolicy:
        raise ConfigError(f"only a {POLICY_CLASS} can be exported, not {type(policy).__name__}")
    extractor = policy.features_extractor_class
    if extractor is FlattenExtractor:
        encoder = FLAT_ENCODER
    else:
        names = [name for name, cls in ENCODERS.items() if cls is extractor]
        if not names:
            raise ConfigError(f"feature extractor {extractor.__name__} is not an encoder of "
                              "agents/encoders.py: the safe format cannot rebuild it")
        encoder = names[0]
    kwargs = {}
    for key, value in (policy.features_extractor_kwargs or {}).items():
        kwargs[key] = _json_value(value)
        if kwargs[key] is None:
            raise ConfigError(f"encoder argument {key}={value!r} has no JSON form")
    activation = policy.activation_fn.__name__
    if activation not in ACTIVATIONS or policy.activation_fn is not _activation(activation):
        raise ConfigError(f"activation {policy.activation_fn!r} is not one of {', '.join(ACTIVATIONS)}")
    net_arch = policy.net_arch
    return {
        "class": POLICY_CLASS,
        "net_arch": list(net_arch) if isinstance(net_arch, list) else
        {k: list(v) for k, v in net_arch.items()},
        "activation_fn": activation,
        "encoder": encoder,
        "encoder_kwargs": kwargs,
        "share_features_extractor": bool(policy.share_features_extractor),
        "normalize_images": bool(policy.normalize_images),
    }


def library_versions() -> dict[str, str]:
    """The versions of what wrote an export (for the record; loading does not depend on them)."""

    out = {"python": platform.python_version()}
    for package in ("otrio", "torch", "stable_baselines3", "sb3_contrib", "safetensors", "numpy"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            pass
    return out


def save_policy(policy, target: str | Path, meta: dict) -> Path:
    """Write ``policy`` as ``STEM.safetensors`` and its manifest ``STEM.json`` (``meta``:
    the checkpoint metadata, ``env_id`` ... ``hints``); return the manifest's path."""
    import safetensors.torch  # deferred: torch (~1 s)

    stem = agent_stem(target)
    arch = policy_arch(policy)
    aliases = tensor_aliases(policy)
    tensors = {name: tensor.detach().cpu().contiguous()
               for name, tensor in policy.state_dict().items() if name not in aliases}
    data = safetensors.torch.save(tensors, metadata={"format": FORMAT})
    weights = stem.with_suffix(WEIGHTS_SUFFIX)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "env_id": meta["env_id"],
        "observation_size": meta["observation_size"],
        "num_actions": meta["num_actions"],
        "hints": meta.get("hints"),
        "policy_observation_size": int(policy.observation_space.shape[0]),
        "game_config": meta.get("game_config", {}),
        "timesteps": meta.get("timesteps"),
        "seed": meta.get("seed"),
        "exported_from": meta.get("exported_from"),
        "policy": arch,
        "weights": {"file": weights.name, "sha256": hashlib.sha256(data).hexdigest(),
                    "bytes": len(data)},
        "versions": library_versions(),
    }
    validate(Manifest, manifest)  # what is written reads back
    weights.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(weights, data)
    out = stem.with_suffix(MANIFEST_SUFFIX)
    write_atomic(out, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    return out


def misfit(meta: dict, info, **more) -> tuple[str, object, object] | None:
    """The first of a network's recorded facts (``meta``: its manifest or metadata as a
    dict) that does not fit the game of ``info`` (``GameInfo``: env id, observation
    size, action count) or the ``more`` facts the caller requires (e.g. ``hints``):
    ``(key, the network's, wanted)``, or None when it fits. Callers word the error."""
    wanted = {"env_id": info.env_id, "observation_size": info.observation_size,
              "num_actions": info.num_actions, **more}
    for key, value in wanted.items():
        if meta.get(key) != value:
            return key, meta.get(key), value
    return None


def load_policy(path: str | Path):
    """``(policy, manifest)`` of an exported agent named by its ``.json`` or
    ``.safetensors``; nothing in the files is executed, and nothing is built or read in
    full before its size is known to be bounded (see the module docstring)."""
    import safetensors.torch  # deferred: torch (~1 s)


    path = Path(path)
    manifest = read_manifest(path)
    file = manifest_path(path)
    weights = file.parent / manifest.weights.file
    if path.suffix == WEIGHTS_SUFFIX and path.name != weights.name:
        raise ConfigError(f"{path} is not the weights its manifest {file} names ({weights.name})")
    against = f"the network of {file}"
    with TensorFile(weights, manifest.weights.bytes, MAX_WEIGHTS_BYTES,
                    f"weights {weights} of agent {file}", ConfigError,
                    corrupt=f"weights {weights} are corrupt (not safetensors)") as source:
        digest = source.sha256()
        if digest != manifest.weights.sha256:
            raise ConfigError(f"weights {weights} do not match their manifest {file}: sha256 "
                              f"{digest}, the manifest says {manifest.weights.sha256} (a damaged "
                              f"or replaced file)")
        header = source.header()
        try:
            expected = network_shapes(manifest)  # the meta device: no storage
        except ConfigError as err:
            raise ConfigError(f"agent {file}: {err}") from None
        compare(header, expected, f"weights {weights}", against, ConfigError)
        data = source.read(manifest.weights.sha256)
    try:
        tensors = safetensors.torch.load(data)  # the bytes just hashed, not the file again
    except Exception as err:  # safetensors raises its own error kinds on a bad header
        raise ConfigError(f"weights {weights} are corrupt (not safetensors): "
                          f"{clip(str(err))}") from None
    del data
    compare(specs(tensors), expected, f"weights {weights}", against, ConfigError)  # as parsed
    bad = non_finite(tensors)
    if bad:
        raise ConfigError(f"weights {weights} hold NaN or infinite values (tensor "
                          f"{clip(bad[0], 80)}{f' and {len(bad) - 1} more' if len(bad) > 1 else ''}"
                          f"); a policy that diverged in training cannot play")
    policy = build_policy(manifest)
    aliases = tensor_aliases(policy)
    full = {**tensors, **{alias: tensors[name] for alias, name in aliases.items()}}
    try:
        policy.load_state_dict(full, strict=True)
    except RuntimeError as err:
        raise ConfigError(f"weights {weights} do not fit the network of {file}: "
                          f"{clip(str(err))}") from None
    return policy, manifest
