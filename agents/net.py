"""A policy-value network evaluated in numpy: the fast path of network agents and of
the search's network options.

An exported agent (``agents/weights.py``) is an sb3 ``MaskableActorCriticPolicy``;
torch costs ~40-100 us of overhead to run one such small network on one observation,
more than the network itself. :class:`NetForward` copies the policy's layers once into
float32 numpy arrays and runs the same arithmetic: the features (the flat observation,
or the ``trunk`` encoder's MLP), the policy and value towers, then the two heads. The
first layer reads only the observation's non-zero values (most of an observation is
zero: 34 of Oceanos' 2,549 values at a game's start), so its cost follows what is on
the table rather than the layout's size. ``tests/agents/test_net.py`` holds it equal to
the torch policy.

Supported: the ``mlp``, ``trunk`` and ``hinted`` encoders with ReLU or Tanh layers (the
networks this suite trains; a hinted one reads the observation with greedy's hints
appended, ``agents/hints.py``, and its features hand the hints on beside its MLP's
output); :func:`forward_of` says why another policy is not (the structured Otys
encoders reshape the observation) and the caller keeps torch for those.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import find_file, where_looked

from .weights import load_policy, misfit

ACTIVATIONS = {"ReLU": lambda x: np.maximum(x, 0.0, out=x), "Tanh": lambda x: np.tanh(x, out=x)}
MASKED = -1e9  # the logit of an illegal action (sb3's masked categorical uses -1e8)


def _layers(module) -> list[tuple]:
    """``[(weight (in, out), bias), activation name, ...]`` of a Sequential of Linear
    and activation modules; ValueError for any other module."""
    from torch import nn  # deferred: torch (~1 s)

    out: list = []
    for layer in module.children() if isinstance(module, nn.Sequential) else [module]:
        if isinstance(layer, nn.Linear):
            out.append((layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                        layer.bias.detach().cpu().numpy().astype(np.float32).copy()))
        elif type(layer).__name__ in ACTIVATIONS:
            out.append(type(layer).__name__)
        elif isinstance(layer, (nn.Flatten, nn.Identity)):
            continue
        else:
            raise ValueError(f"layer {type(layer).__name__} has no numpy forward")
    return out


def _run(layers: list, x: np.ndarray) -> np.ndarray:
    for layer in layers:
        if isinstance(layer, str):
            x = ACTIVATIONS[layer](x)
        else:
            x = x @ layer[0] + layer[1]
    return x


class NetForward:
    """The numpy twin of a ``MaskableActorCriticPolicy`` (see the module docstring):
    :meth:`logits` and :meth:`value` of one observation, :meth:`values` of a batch."""

    def __init__(self, policy):
        from stable_baselines3.common.torch_layers import FlattenExtractor  # deferred: torch (~1 s)

        from .encoders import Hinted, Trunk  # deferred: torch (~1 s)

        if not policy.share_features_extractor:
            raise ValueError("a value head with an encoder of its own has no numpy forward")
        extractor = policy.features_extractor
        self.hint_size = 0  # the hinted encoder: its features end with the last hint_size inputs
        if isinstance(extractor, (Trunk, Hinted)):
            trunk = _layers(extractor.mlp)
            self.hint_size = getattr(extractor, "hint_size", 0)
        elif isinstance(extractor, FlattenExtractor):
            trunk = []
        else:
            raise ValueError(f"encoder {type(extractor).__name__} has no numpy forward")
        pi = _layers(policy.mlp_extractor.policy_net) + _layers(policy.action_net)
        vf = _layers(policy.mlp_extractor.value_net) + _layers(policy.value_net)
        self.trunk, self.pi, self.vf = trunk, pi, vf  # trunk: [] for the flat encoder
        self.input_size = int(policy.observation_space.shape[0])
        self.num_actions = int(policy.action_space.n)
        _one_blas_thread()

    def _tower(self, obs: np.ndarray, tower: list) -> np.ndarray:
        """One tower (policy or value, with its head) on an observation or a batch."""
        if self.trunk:
            return _run(tower, self._trunk(obs))
        weight, bias = tower[0]
        return _run(tower[1:], _first_product(obs, weight, bias))

    def _trunk(self, obs: np.ndarray) -> np.ndarray:
        weight, bias = self.trunk[0]
        out = _run(self.trunk[1:], _first_product(obs, weight, bias))
        if self.hint_size:
            return np.concatenate([out, obs[..., -self.hint_size:]], axis=-1)
        return out

    def features(self, obs: np.ndarray) -> np.ndarray:
        """What both heads read: the trunk's output (the observation itself for the flat
        encoder), of one observation or a batch."""
        return self._trunk(obs) if self.trunk else obs

    def logits(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The policy's logits for one observation (float32, ``num_actions``); with
        ``mask`` illegal actions get :data:`MASKED`."""
        out = self._tower(obs, self.pi)
        if mask is not None:
            out = np.where(mask.astype(bool), out, MASKED)
        return out

    def value(self, obs: np.ndarray) -> float:
        """The value head's estimate for the observing seat of one observation."""
        return float(self._tower(obs, self.vf)[0])

    def policy_value(self, obs: np.ndarray) -> tuple[np.ndarray, float]:
        """``(logits, value)`` of one observation, the shared trunk run once."""
        if self.trunk:
            x = self._trunk(obs)
            return _run(self.pi, x), float(_run(self.vf, x)[0])
        return self._tower(obs, self.pi), self.value(obs)

    def values(self, batch: np.ndarray) -> np.ndarray:
        """The value of each observation of a ``(k, input_size)`` batch."""
        return self._tower(batch, self.vf)[:, 0]


def _first_product(obs: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``obs @ weight + bias``, each observation through its non-zero entries only
    (the search's batches are a few seats' observations)."""
    if obs.ndim == 1:
        nonzero = np.flatnonzero(obs)
        return obs[nonzero] @ weight[nonzero] + bias
    return np.stack([_first_product(row, weight, bias) for row in obs])


_BLAS_LIMITED = False


def _one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread in this process, once. A network agent's
    products are small (a few rows of 256 columns): BLAS threads only add waiting, and
    on a busy machine a threaded product waits for a core it cannot get (a 2 x 2549 x
    256 product was seen taking 0.14 s with both cores taken by search workers)."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        threadpool_limits(limits=1, user_api="blas")
        _BLAS_LIMITED = True


def forward_of(policy) -> NetForward | None:
    """The numpy forward of ``policy``, or None where it has none (see the module
    docstring)."""
    try:
        return NetForward(policy)
    except ValueError:
        return None


def load_net(path: str | Path, env, hints_ok: bool = False) -> tuple[NetForward, object]:
    """``(forward, manifest)`` of an exported agent for ``env``'s game, for the search's
    network options: a :class:`ConfigError` if it is another game's, has no numpy
    forward, or reads teacher hints where the caller cannot afford them (``hints_ok``:
    the search's root prior, whose greedy values it computes anyway)."""

    path = find_file(path)  # a relative path: here, else the installed package
    if not path.exists():
        raise ConfigError(f"network {path} does not exist{where_looked(path)}")
    policy, manifest = load_policy(path)
    wrong = misfit(manifest.model_dump(), env.unwrapped.game.info)
    if wrong:
        key, have, value = wrong
        raise ConfigError(f"network {path} was trained for {key}={have!r}, "
                          f"this game has {key}={value!r}")
    if manifest.hints is not None and not hints_ok:
        raise ConfigError(f"network {path} reads {manifest.hints} hints: the search takes it "
                          "for prior=net alone (for rollouts or leaves its hints would run the "
                          "greedy agent it is meant to replace)")
    forward = forward_of(policy)
    if forward is None:
        raise ConfigError(f"network {path} (encoder {manifest.policy.encoder}) has no numpy "
                          "forward: the search's network options take mlp or trunk networks")
    return forward, manifest


__all__ = ["MASKED", "NetForward", "forward_of", "load_net"]
