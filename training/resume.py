"""Everything a MaskablePPO run needs to continue exactly, saved without pickle.

A training run is saved at a rollout boundary (after an update, before the next
rollout's first step), where nothing is half done: the rollout buffer is about to be
cleared, and what the next steps read is

- the policy's weights and the optimizer's state (:mod:`otrio.training.safe_state`:
  safetensors + JSON, hash and shapes checked on load);
- every generator: torch's global one (the learner's action sampling), numpy's global
  one (the minibatch permutations of ``train()``) and Python's ``random``; each
  self-play env's own generator (the learner's seat, the opponents drawn);
- each env's game in progress, as what replays it
  (:meth:`~otrio.training.selfplay.SelfPlayEnv.resume_state`: the generator and opponent pool
  at the game's start and the learner's actions since; every opponent, its generator
  and caches, and the hints are rebuilt by playing the same moves again), and the
  Monitor wrapper's rewards of that episode;
- the model's counters and buffers: ``num_timesteps``, ``_n_updates``, the progress of
  the learning-rate and clip schedules, ``_last_obs``, ``_last_episode_starts`` and the
  episode-info buffers.

The caller adds its own ``run`` block (callback counters, the snapshot pool, what the
logs held). :func:`read` loads the weights and the optimizer and returns the record;
:func:`apply` puts the rest back, the generators last (replaying the games draws on
nothing global, but building a network might).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from otrio.envs.core.errors import OtrioError, StateError

from . import safe_state

FORMAT_VERSION = 1


def _plain(value):
    """``value`` with numpy scalars and arrays as Python numbers and lists (JSON-able)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, deque)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def save(stem: Path, model, run: dict[str, Any],
         snapshot_name: Callable[[str], str] = str) -> None:
    """Save ``model`` (a MaskablePPO at a rollout boundary), its envs and ``run`` (the
    caller's JSON-able block) as ``stem.safetensors`` + ``stem.json``.
    ``snapshot_name`` maps the path of a self-play snapshot to what the record keeps
    (a name relative to the run folder, so that the folder can move)."""

    vec = model.get_env()
    envs = None
    if model._last_obs is not None:  # the envs have been reset: games are in progress
        envs = vec.env_method("resume_state")
        for env in envs:
            for pool in (env["start"]["snapshots"], env["snapshots"]):
                for entry in pool:
                    entry[0] = snapshot_name(entry[0])
    monitors = [{"rewards": _plain(r), "needs_reset": bool(n), "total_steps": int(t)}
                for r, n, t in zip(vec.get_attr("rewards"), vec.get_attr("needs_reset"),
                                   vec.get_attr("total_steps"))]
    np_state = np.random.get_state()
    meta = {
        "format_version": FORMAT_VERSION,
        "run": run,
        "num_timesteps": int(model.num_timesteps),
        "n_updates": int(model._n_updates),
        "progress_remaining": float(model._current_progress_remaining),
        "last_episode_starts": None if model._last_episode_starts is None
        else _plain(np.asarray(model._last_episode_starts, dtype=bool)),
        "ep_info_buffer": None if model.ep_info_buffer is None else _plain(model.ep_info_buffer),
        "ep_success_buffer": None if model.ep_success_buffer is None
        else _plain(model.ep_success_buffer),
        "numpy_rng": [np_state[0], _plain(np_state[1]), int(np_state[2]), int(np_state[3]),
                      float(np_state[4])],
        "python_rng": _plain(random.getstate()),
        "envs": envs,
        "monitors": monitors,
    }
    extra = {"torch_rng": torch.get_rng_state()}
    if model._last_obs is not None:
        extra["last_obs"] = torch.from_numpy(np.ascontiguousarray(model._last_obs))
    safe_state.save_state(stem, model.policy, model.policy.optimizer, meta, extra)


def read(stem: Path, model) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load the weights and the optimizer saved at ``stem`` into ``model``; return the
    record ``(meta, extra tensors)`` for :func:`apply` (the ``run`` block is
    ``meta["run"]``). A state that does not fit is a :class:`StateError`."""
    extra: dict[str, Any] = {}
    meta = safe_state.load_state(stem, model.policy, model.policy.optimizer, extra)
    if meta.get("format_version") != FORMAT_VERSION:
        raise StateError(f"training state {stem}.json has format_version "
                         f"{str(meta.get('format_version'))[:20]!r}, not {FORMAT_VERSION}")
    if not isinstance(meta.get("run"), dict):
        raise StateError(f"training state {stem}.json has no run record")
    return meta, extra


def _episode_infos(saved: Any) -> list[dict[str, Any]]:
    """The Monitor's episode infos of a saved state (``{"r": return, "l": length, "t":
    time}`` each, what the logs average), checked: StateError if they are not."""
    def number(v: Any) -> bool:
        return type(v) in (int, float) and np.isfinite(v)

    if not isinstance(saved, list) or not all(
            isinstance(e, dict) and number(e.get("r")) and type(e.get("l")) is int
            and e["l"] >= 0 and number(e.get("t")) for e in saved):
        raise StateError("the saved episode infos are not episodes (r, l, t each)")
    return saved


def apply(model, meta: dict[str, Any], extra: dict[str, Any],
          snapshot_path: Callable[[str], str] = str) -> None:
    """Put :func:`read`'s record back into ``model`` and its envs (``snapshot_path``:
    the inverse of :func:`save`'s ``snapshot_name``; it may refuse a name)."""

    vec = model.get_env()
    try:
        envs, monitors = meta["envs"], meta["monitors"]
        if not isinstance(monitors, list) or len(monitors) != vec.num_envs:
            raise StateError(f"the saved run has {len(monitors)} envs, this one {vec.num_envs}")
        last_obs = extra.get("last_obs")
        if envs is not None:
            if not isinstance(envs, list) or len(envs) != vec.num_envs or last_obs is None:
                raise StateError("the saved envs do not fit this run's")
            shape = (vec.num_envs, *vec.observation_space.shape)
            if tuple(last_obs.shape) != shape or last_obs.dtype != torch.float32:
                raise StateError(f"the saved observations are {tuple(last_obs.shape)} "
                                 f"{last_obs.dtype}, this run's {shape} float32")
            for i, env in enumerate(envs):
                for pool in (env["start"]["snapshots"], env["snapshots"]):
                    for entry in pool:
                        entry[0] = snapshot_path(entry[0])
                obs, why = vec.env_method("try_restore_resume_state", env, indices=i)[0]
                if why is not None:
                    raise StateError(f"env {i}'s game in progress does not replay: {why}")
                if not np.array_equal(obs, last_obs[i].numpy()):
                    raise StateError(f"env {i}'s game does not replay to its saved observation")
            model._last_obs = last_obs.numpy().copy()
            starts = np.asarray(meta["last_episode_starts"], dtype=bool)
            if starts.shape != (vec.num_envs,):
                raise StateError("the saved episode starts do not fit this run's envs")
            model._last_episode_starts = starts
        for i, saved in enumerate(monitors):
            vec.set_attr("rewards", [float(r) for r in saved["rewards"]], indices=i)
            vec.set_attr("needs_reset", bool(saved["needs_reset"]), indices=i)
            vec.set_attr("total_steps", int(saved["total_steps"]), indices=i)
        model.num_timesteps = int(meta["num_timesteps"])
        model._n_updates = int(meta["n_updates"])
        model._current_progress_remaining = float(meta["progress_remaining"])
        window = model._stats_window_size
        if meta["ep_info_buffer"] is not None:
            model.ep_info_buffer = deque(_episode_infos(meta["ep_info_buffer"]), maxlen=window)
            successes = meta["ep_success_buffer"] or []
            if not isinstance(successes, list) or not all(isinstance(v, bool) for v in successes):
                raise StateError("the saved episode successes are not a list of true/false")
            model.ep_success_buffer = deque(successes, maxlen=window)
        name, keys, pos, has_gauss, gauss = meta["numpy_rng"]
        keys = np.asarray(keys, dtype=np.uint32)
        if name != "MT19937" or keys.shape != (624,):
            raise StateError("the saved numpy generator is not an MT19937 state")
        version, internal, gauss_next = meta["python_rng"]
        if not isinstance(internal, list) or len(internal) != 625:
            raise StateError("the saved Python generator is not a Mersenne Twister state")
        torch_rng = extra.get("torch_rng")
        if torch_rng is None or torch_rng.dtype != torch.uint8:
            raise StateError("the saved torch generator state is missing")
        # the generators last: nothing after this line draws
        np.random.set_state((name, keys, int(pos), int(has_gauss), float(gauss)))
        random.setstate((int(version), tuple(int(v) for v in internal), gauss_next))
        torch.set_rng_state(torch_rng)
    except OtrioError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, RuntimeError, OverflowError) as err:
        raise StateError(f"the saved training state is corrupt: {err!r}"[:300]) from None


__all__ = ["FORMAT_VERSION", "apply", "read", "save"]
