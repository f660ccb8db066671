"""A trained policy network as an agent: spec ``net:PATH`` (or ``ppo:PATH``, its first name).

``PATH`` is an exported agent (``otrio export-checkpoint``): its manifest ``X.json``
(or its weights ``X.safetensors``; the manifest beside them has the same stem). The
network is rebuilt from this package's code and its safetensors weights are loaded
after their sha256 is checked: nothing in the files is executed (``agents/weights.py``).

``PATH`` may also be a Stable-Baselines3 ``.zip`` of the user's own training run, with
its metadata ``.json`` beside it; loading one runs code stored in the file, so it is
refused unless trusted (``--trust-checkpoint`` or ``OTRIO_TRUST_CHECKPOINTS=1``).

**A zip's metadata** (``X.json`` beside ``X.zip``; :func:`zip_metadata` makes it,
:func:`write_metadata` writes it) is one JSON object: ``env_id`` (``"oceanos_v0"``),
``observation_size`` and ``num_actions`` (the game's ``GameInfo``: checked against the
game played), ``game_config`` (the config it trained at, e.g. ``{"num_players": 2}``),
``hints`` (``null``, or the teacher hints its observation carries), and, for the record,
``timesteps`` and ``seed``. ``otrio export-checkpoint X.zip AGENT.json
--trust-checkpoint`` reads it; a zip without one names its game on the command line
instead (``--game G --players N``).

Either way the manifest or metadata names the env id, the observation size and the
action count the policy was trained on, and the teacher hints it reads, if any
(``agents/hints.py``; the agent computes them). A checkpoint that is missing, corrupt,
untrusted or made for another game is rejected before any game starts; one trained at
another player count (its ``game_config``'s ``num_players``) plays, with a
``UserWarning`` saying so.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from otrio.envs.core.bounded import clip, read_json, short_repr
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import write_atomic
from otrio.envs.core.paths import find_file, where_looked

from . import weights
from .base import Agent
from .hints import make_hints, observation_size
from .net import forward_of
from .weights import MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH, MAX_MANIFEST_VALUES


def metadata_path(path: Path) -> Path:
    """Where the metadata of a checkpoint lives (an exported agent's: its manifest)."""
    return path.with_suffix(".json")


def read_metadata(path: Path) -> dict:
    """The metadata beside a checkpoint; a clear error if it is missing or corrupt (read
    within the limits of an agent manifest: ``agents/weights.py``)."""

    meta_file = metadata_path(path)
    if not meta_file.exists() and weights.is_sb3_zip(path):
        raise ConfigError(f"{path} has no metadata beside it ({meta_file.name}, which ties a "
                          f"zip to its game): export it once, naming its game, with `otrio "
                          f"export-checkpoint {path} AGENT.json --game GAME --players N "
                          f"{weights.TRUST_FLAG}`, then play ppo:AGENT.json")
    meta = read_json(meta_file, MAX_MANIFEST_BYTES, f"PPO checkpoint metadata {meta_file}",
                     ConfigError, max_depth=MAX_MANIFEST_DEPTH, max_nodes=MAX_MANIFEST_VALUES)
    if not isinstance(meta, dict):
        raise ConfigError(f"PPO checkpoint metadata {meta_file} is corrupt: not a JSON object")
    return meta


def zip_metadata(env_id: str, game_config: dict[str, Any] | None = None, *,
                 timesteps: int | None = None, seed: int | None = None,
                 hints: str | None = None) -> dict[str, Any]:
    """The metadata that ties an SB3 zip trained on ``env_id`` (a game's name or env id)
    at ``game_config`` to its game (see the module docstring); a :class:`ConfigError` for
    an unknown game or a config it refuses."""
    from otrio import envs  # deferred: the games
    from otrio.envs.core.registry import resolve_env_id  # deferred: the games

    game_config = dict(game_config or {})
    info = envs.make(resolve_env_id(env_id), **game_config).unwrapped.game.info
    return {"env_id": info.env_id, "observation_size": info.observation_size,
            "num_actions": info.num_actions, "game_config": game_config,
            "timesteps": None if timesteps is None else int(timesteps),
            "seed": None if seed is None else int(seed), "hints": hints}


def write_metadata(path: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``meta`` (:func:`zip_metadata`) beside the zip ``path`` as ``X.json``, whole
    or not at all; return its path."""
    out = metadata_path(Path(path))
    write_atomic(out, (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())
    return out


def trained_players(meta: dict[str, Any]) -> int | None:
    """The player count a network was trained at (its ``game_config``'s ``num_players``),
    or None where it names none."""
    config = meta.get("game_config")
    players = config.get("num_players") if isinstance(config, dict) else None
    return players if isinstance(players, int) and not isinstance(players, bool) else None


class PPOAgent(Agent):
    """Plays the policy's most likely legal action (deterministic) for any seat.

    ``safe_only`` (the ``net:`` spec) refuses SB3 zips whatever the trust setting."""

    def __init__(self, path: str, env, deterministic: bool = True, trust: bool | None = None,
                 safe_only: bool = False):
        super().__init__()

        self.path = find_file(path)  # a relative path: here, else the installed package
        what = "network" if safe_only else "PPO checkpoint"  # as the spec names it
        if not self.path.exists():
            raise ConfigError(f"{what} {self.path} does not exist{where_looked(path)}")
        if safe_only and weights.is_sb3_zip(self.path):
            raise ConfigError(f"net:{self.path} names an SB3 zip; net: plays exported agents "
                              f"(X.json + X.safetensors; otrio export-checkpoint writes them), "
                              f"ppo:{self.path} {weights.TRUST_FLAG} plays a zip you trust")
        import torch  # deferred: torch (~1 s)

        torch.set_num_threads(1)
        zipped = weights.is_sb3_zip(self.path)
        if zipped:
            meta = read_metadata(self.path)  # plain JSON; the zip itself is not read yet
        else:
            self.policy, manifest = weights.load_policy(self.path)
            meta = manifest.model_dump()
        wrong = weights.misfit(meta, env.unwrapped.game.info)
        if wrong:
            key, have, value = wrong
            raise ConfigError(f"{what} {self.path} was trained for {key}={short_repr(have)}, "
                              f"this game has {key}={value!r}")
        if zipped:  # refused here unless trusted
            self.policy = weights.load_sb3_zip(self.path, trust, device="cpu").policy
        trained, seats = trained_players(meta), env.unwrapped.num_players
        if trained is not None and trained != seats:  # it may still play: say so, once
            warnings.warn(f"{what} {self.path} was trained at {trained} players (its "
                          f"game_config), this game has {seats}: it plays, on positions of a "
                          f"count it never trained at", UserWarning, stacklevel=2)
        self.deterministic = deterministic

        try:
            self.hints = make_hints(meta.get("hints"), env)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"{what} {self.path}: {clip(str(err))}") from None
        size = observation_size(env, meta.get("hints"))
        if self.policy.observation_space.shape != (size,):
            raise ConfigError(f"{what} {self.path} reads {self.policy.observation_space.shape} "
                              f"observations, its metadata promises ({size},)")

        # numpy's forward pass where the network has one (agents/net.py): the same
        # choices as torch's at a fraction of the cost of one small forward pass there.
        # A hinted policy keeps torch: greedy's hints are most of its time a decision
        self.forward = forward_of(self.policy) if self.hints is None else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.hints is not None:
            self.hints.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if self.forward is None:
            return policy_action(self.policy, observation, self.deterministic, self.hints)
        mask = observation["action_mask"]
        logits = self.forward.logits(observation["observation"], mask)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max()) * mask
        return int(self.rng.choice(len(weights), p=weights / weights.sum()))


def policy_action(model, observation: dict[str, np.ndarray], deterministic: bool, hints=None) -> int:
    """The action of a MaskablePPO model or its policy (both ``predict`` alike) for an
    observation dict (with its hints, if any)."""
    if hints is not None:
        observation = hints.augment(observation)
    action, _ = model.predict(observation["observation"],
                              action_masks=observation["action_mask"].astype(bool),
                              deterministic=deterministic)
    return int(action)
