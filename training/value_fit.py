"""Fit a value model on self-play data (``training/value_data.py``) and export it.

The rows of a run are split **by game** (never inside one): games whose index ends in
0 are the *test* set that the calibration gate reads (``training/value_report.py``),
games ending in 1 the *validation* set that stops the fit, the rest train. The model
(:mod:`otrio.agents.value`) is an MLP of the observation standardised by each feature's mean
and spread in the training rows (folded into the first layer at export, so the model
reads the raw observation); its loss is the binary cross-entropy of the win logit
against the win share (a soft target) plus ``aux`` times the squared error of the
margin head against the final margin over ``score_scale``. Adam with weight decay; the
weights of the epoch with the lowest validation cross-entropy are kept, and the fit
stops after ``patience`` epochs without a better one (an MLP fitted without early
stopping overfits: ``benchmarks/results/values/README.md``).

The fit is seeded (torch's generator and the batch order), so a run with the same data
and config gives the same weights on one thread.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import Field
from torch import nn
from tqdm import tqdm

from otrio import envs
from otrio.agents.value import MAX_LAYERS, MAX_WIDTH, save_value_model
from otrio.envs.core.config import StrictModel
from otrio.envs.core.errors import ConfigError

from .config import Device, resolve_device
from .value_data import data_runs, load_rows
from .value_store import (  # the split rule, in one place
    TEST,
    VALID,
    content_digest,
    split_tail,
)

SPREAD_FLOOR = 0.1
MIN_GAMES = 3  # a test game, a validation game and one to train on (the split rule)


class ValueFitConfig(StrictModel):
    """How a value model is fitted (every key has a default)."""

    # hidden layers' widths (none: a linear model), within what a value model may hold
    hidden: list[Annotated[int, Field(ge=1, le=MAX_WIDTH)]] = Field([128, 128],
                                                                    max_length=MAX_LAYERS)
    epochs: int = Field(20, ge=1, le=1000)
    batch: int = Field(1024, ge=16, le=1 << 16)
    lr: float = Field(1e-3, gt=0, le=1)
    weight_decay: float = Field(1e-4, ge=0, le=1)
    patience: int = Field(3, ge=1, le=100)
    aux: float = Field(0.25, ge=0, le=100)  # weight of the margin head's loss
    seed: int = Field(0, ge=0, le=2**63 - 1)
    max_rows: int = Field(3_000_000, ge=1)
    # the rows held in memory at most (a run that would need more is refused before it
    # is read: fit on its first max_games games instead)
    max_gib: float = Field(4.0, gt=0, le=1024)
    max_games: int | None = Field(None, ge=1)  # per data folder: its first shards only
    # where the fit runs: cpu (seeded: the same data gives the same weights), cuda, or
    # auto (cuda where torch sees one); not part of what the model is (IDENTITY_EXCLUDES)
    device: Device = "cpu"


def smoke_config(cfg: ValueFitConfig) -> ValueFitConfig:
    """``cfg`` sized to seconds (``--smoke``): two epochs of a small network."""
    return cfg.model_copy(update={"epochs": min(cfg.epochs, 2),
                                  "hidden": [min(h, 16) for h in cfg.hidden][:1]})


# the settings that make a model: a fit on another device is the same fit (to rounding)
IDENTITY_EXCLUDES = {"device"}


def split(rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Boolean masks ``train``, ``valid``, ``test`` of the rows, by game index."""
    tail = split_tail(rows["game"])
    return {"test": tail == TEST, "valid": tail == VALID, "train": (tail != TEST) & (tail != VALID)}


CHUNK_ROWS = 65_536  # rows a pass over the observations takes at a time


def standardise(obs: np.ndarray, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each feature's mean and spread in ``obs`` (its rows where ``mask``), the spread at
    least :data:`SPREAD_FLOOR` (a rare feature is not blown up into a huge input). Summed
    in float64 a chunk of rows at a time, so no copy of the whole matrix is made."""
    width = obs.shape[1]
    count, total, squares = 0, np.zeros(width), np.zeros(width)
    for k in range(0, len(obs), CHUNK_ROWS):
        part = obs[k:k + CHUNK_ROWS] if mask is None else obs[k:k + CHUNK_ROWS][mask[k:k + CHUNK_ROWS]]
        part = part.astype(np.float64)
        count += len(part)
        total += part.sum(axis=0)
        squares += np.square(part).sum(axis=0)
    mean = total / max(count, 1)
    spread = np.sqrt(np.maximum(squares / max(count, 1) - mean**2, 0.0))
    return mean.astype(np.float32), np.maximum(spread, SPREAD_FLOOR).astype(np.float32)


def standardised(obs: np.ndarray, mask: np.ndarray, mean: np.ndarray,
                 spread: np.ndarray) -> np.ndarray:
    """``(obs[mask] - mean) / spread`` as one new float32 array, made in place (the
    selected rows are the only copy)."""
    out = obs[mask]
    out -= mean
    out /= spread
    return out


def fold(weight: np.ndarray, bias: np.ndarray, mean: np.ndarray,
         spread: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first layer ``((x - mean) / spread) @ weight + bias`` as one on raw ``x``."""
    folded = weight / spread[:, None]
    return folded.astype(np.float32), (bias - mean @ folded).astype(np.float32)


def _net(sizes: list[int]):
    layers: list = []
    for k in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def _losses(net, x, win, margin, aux: float):
    out = net(x)
    bce = F.binary_cross_entropy_with_logits(out[:, 0], win)
    return bce, bce + aux * F.mse_loss(out[:, 1], margin)


def fit(rows: dict[str, np.ndarray], score_scale: float, cfg: ValueFitConfig,
        progress: bool = True) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Fit on ``rows``' train split, stop on its validation split; ``(tensors, log)``:
    the weights as :func:`otrio.agents.value.save_value_model` takes them, and each epoch's
    losses."""

    torch.manual_seed(cfg.seed)
    device = torch.device(resolve_device(cfg.device, "value fit device"))
    masks = split(rows)
    mean, spread = standardise(rows["obs"], masks["train"])

    def tensors(mask):
        return tuple(torch.from_numpy(a).to(device) for a in (
            standardised(rows["obs"], mask, mean, spread), rows["win"][mask],
            rows["margin"][mask] / np.float32(score_scale)))

    train, valid = tensors(masks["train"]), tensors(masks["valid"])
    if len(train[0]) == 0 or len(valid[0]) == 0:
        raise ConfigError("the data has too few games for a train and a validation split "
                          "(games ending in 1 validate, 2-9 train)")
    net = _net([rows["obs"].shape[1], *cfg.hidden, 2]).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    order = torch.Generator().manual_seed(cfg.seed)
    best, best_state, since, log = np.inf, None, 0, []
    start = time.perf_counter()
    for epoch in tqdm(range(cfg.epochs), desc="value fit", unit="epoch", disable=not progress):
        net.train()
        perm = torch.randperm(len(train[0]), generator=order).to(device)
        total = 0.0
        for k in range(0, len(perm), cfg.batch):
            idx = perm[k:k + cfg.batch]
            _, loss = _losses(net, train[0][idx], train[1][idx], train[2][idx], cfg.aux)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        net.eval()
        with torch.no_grad():
            bce = sum(float(_losses(net, valid[0][k:k + 8192], valid[1][k:k + 8192],
                                    valid[2][k:k + 8192], cfg.aux)[0]) * len(valid[0][k:k + 8192])
                      for k in range(0, len(valid[0]), 8192)) / len(valid[0])
        log.append({"epoch": epoch, "train_loss": round(total / len(perm), 5),
                    "valid_bce": round(bce, 5), "seconds": round(time.perf_counter() - start, 1)})
        if bce < best - 1e-5:
            best, since = bce, 0
            best_state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
        else:
            since += 1
            if since >= cfg.patience:
                break
    net = net.cpu()
    net.load_state_dict(best_state)
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    out = {}
    for k, layer in enumerate(linears):
        out[f"w{k}"] = layer.weight.detach().numpy().T.copy()
        out[f"b{k}"] = layer.bias.detach().numpy().copy()
    out["w0"], out["b0"] = fold(out["w0"], out["b0"], mean, spread)
    return out, {"epochs": log, "best_valid_bce": round(best, 5), "device": device.type,
                 "rows": {k: int(m.sum()) for k, m in masks.items()}}


def fit_and_export(data: list[str | Path], target: str | Path, cfg: ValueFitConfig,
                   players: list[int] | None = None, progress: bool = True,
                   partial: bool = False, made: dict[str, Any] | None = None) -> Path:
    """Load (and verify) every run folder in ``data``, fit, export to ``target``
    (``X.json`` beside ``X.safetensors``); the manifest's path. Every run is checked
    before a row is read (:func:`otrio.training.value_data.data_runs`: finished, unless
    ``partial``; one game); ``made``: more facts for the manifest."""
    resolve_device(cfg.device, "value fit device")  # before any row is read
    runs = data_runs(data, partial)
    for folder, _, entries in runs:
        games = sum(e["games"] for e in entries.values())
        if cfg.max_games is not None:
            games = min(games, cfg.max_games)
        if games < MIN_GAMES:
            raise ConfigError(f"{folder} holds {games} games: a fit needs at least {MIN_GAMES} "
                              "(games ending in 0 test, in 1 validate, the others train)")
    env_id = runs[0][1].env
    start = time.perf_counter()
    parts = [load_rows(folder, players, cfg.max_rows, max_games=cfg.max_games,
                       max_bytes=int(cfg.max_gib * 2**30)) for folder in data]
    rows = parts[0] if len(parts) == 1 else {k: np.concatenate([p[k] for p in parts])
                                             for k in parts[0]}
    scale = envs.make(env_id).unwrapped.game.info.score_scale
    tensors, log = fit(rows, scale, cfg, progress)
    made = {"data": [{"folder": Path(f).name, "rows": int(len(p["win"])),
                      "digest": content_digest({"win": p["win"], "game": p["game"]}),
                      "config": cfg_data.model_dump()}
                     for f, p, (_, cfg_data, _) in zip(data, parts, runs)],
            "players": sorted({int(n) for n in np.unique(rows["players"])}),
            "fit": cfg.model_dump(exclude=IDENTITY_EXCLUDES), "log": log,
            "fit_seconds": round(time.perf_counter() - start, 1), **(made or {})}
    return save_value_model(target, env_id, scale, tensors, made)


__all__ = ["IDENTITY_EXCLUDES", "ValueFitConfig", "fit", "fit_and_export", "fold", "split", "standardise",
           "standardised"]
