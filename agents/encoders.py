"""Feature extractors with a game's structure, for MaskablePPO policies.

``encoder: mlp`` (the default) feeds the flat observation to the policy's MLP. An MLP
does not learn greedy Otys's choice from it (``agents/pretrained/README.md``): that
choice compares each contract's requirements with the resources on each of the
player's levels. ``encoder: otys_pairs`` gives the network that comparison's shape:
one small MLP, with shared weights, reads every (own level, contract) pair, and its
outputs stay in a fixed pair order (the ``complete`` actions are indexed by contract
source and level) next to an MLP over the whole observation. ``encoder: otys_board``
adds what a turn on each level offers (sponsor, display tokens, divers, keys) through
another shared MLP, in level order, for the ``key`` decisions the pairs leave open.
``encoder: hinted`` (any game, with ``hints``) reads the observation and the teacher
hints through an MLP and hands the hints on unchanged as well, so that the policy's
linear head can follow them directly (use it with ``net_arch: []``).

They live in agents/ because an exported agent rebuilds its network from them by name
(:mod:`otrio.agents.weights`); training builds its policies from the same classes.
"""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from otrio.envs.otys import data as D
from otrio.envs.otys.observe import CONTRACT_FEATS, LAYOUT

# the contract pieces an Otys observation holds, in pair order: (piece, how many)
OTYS_CONTRACTS = (("public", D.MAX_PUBLIC), ("hand", D.MAX_HAND), ("drawn", D.DRAW_COUNT),
                  ("contract", 1))
# the observer's level pieces (seat block 0): (piece, values per level)
OTYS_LEVELS = (("resources", D.NUM_COLOURS), ("free_space", 1), ("reward_backs", len(D.TOKEN_BACKS)))


def _seat0_levels(obs: torch.Tensor) -> torch.Tensor:
    """(batch, levels, level features): the observer's resources, free space and
    reward-token backs per level, and the level's one-hot."""
    parts = []
    for name, width in OTYS_LEVELS:
        start = LAYOUT.offsets[name][0]  # seat block 0 comes first
        parts.append(obs[:, start : start + D.NUM_LEVELS * width].reshape(-1, D.NUM_LEVELS, width))
    level_id = torch.eye(D.NUM_LEVELS, dtype=obs.dtype, device=obs.device).expand(obs.shape[0], -1, -1)
    return torch.cat([*parts, level_id], dim=2)


def _contracts(obs: torch.Tensor) -> torch.Tensor:
    """(batch, contracts, contract features): every contract slot, with a one-hot of
    where it lies (public, hand, drawn, being completed)."""
    rows = []
    for kind, (name, count) in enumerate(OTYS_CONTRACTS):
        start = LAYOUT.offsets[name][0]
        block = obs[:, start : start + count * CONTRACT_FEATS].reshape(-1, count, CONTRACT_FEATS)
        where = torch.zeros(obs.shape[0], count, len(OTYS_CONTRACTS), dtype=obs.dtype,
                            device=obs.device)
        where[:, :, kind] = 1.0
        rows.append(torch.cat([block, where], dim=2))
    return torch.cat(rows, dim=1)


class OtysPairs(BaseFeaturesExtractor):
    """Every (own level, contract) pair through one shared MLP, plus the whole
    observation through another (see the module docstring)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, pair_features: int = 16,
                 pair_hidden: int = 64, global_features: int = 256):
        if observation_space.shape != (LAYOUT.size,):
            raise ValueError(f"otys_pairs reads the Otys observation ({LAYOUT.size} floats), "
                             f"not {observation_space.shape}")
        levels = D.NUM_LEVELS
        contracts = sum(count for _, count in OTYS_CONTRACTS)
        level_width = sum(width for _, width in OTYS_LEVELS) + levels
        contract_width = CONTRACT_FEATS + len(OTYS_CONTRACTS)
        super().__init__(observation_space, levels * contracts * pair_features + global_features)
        self.pair = nn.Sequential(nn.Linear(level_width + contract_width, pair_hidden), nn.ReLU(),
                                  nn.Linear(pair_hidden, pair_features), nn.ReLU())
        self.whole = nn.Sequential(nn.Linear(LAYOUT.size, global_features), nn.ReLU())

    def _pairs(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The observer's levels (batch, levels, features) and the pair MLP's output
        for every (level, contract) pair (batch, levels, contracts, pair features)."""
        levels, contracts = _seat0_levels(observations), _contracts(observations)
        batch, nl, nc = observations.shape[0], levels.shape[1], contracts.shape[1]
        pairs = torch.cat([levels[:, :, None, :].expand(batch, nl, nc, -1),
                           contracts[:, None, :, :].expand(batch, nl, nc, -1)], dim=3)
        return levels, self.pair(pairs)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        _, pairs = self._pairs(observations)
        return torch.cat([pairs.flatten(1), self.whole(observations)], dim=1)


# the diver column's slot of each level (slots 0-2 are the surface)
LEVEL_SLOT = D.NUM_SLOTS - D.NUM_LEVELS
TOKEN_WIDTH = LAYOUT.offsets["display"][2][2]


def _level_board(obs: torch.Tensor) -> torch.Tensor:
    """(batch, levels, features): what each level offers a turn there -- its sponsor
    tile and side, its display tokens, every seat's diver on it (observer first), the
    observer's keys for it at home and on the track."""
    batch, levels, seats = obs.shape[0], D.NUM_LEVELS, D.MAX_PLAYERS

    def piece(name: str) -> torch.Tensor:
        start, end, _ = LAYOUT.offsets[name]
        return obs[:, start:end]

    sponsor = piece("sponsor_tile").reshape(batch, levels, D.NUM_SPONSORS)
    advanced = piece("sponsor_advanced").reshape(batch, levels, 1)
    display = piece("display").reshape(batch, levels, D.DISPLAY_TOKENS * TOKEN_WIDTH)
    divers = piece("divers").reshape(batch, seats, D.NUM_SLOTS, D.NUM_DIVERS)[:, :, LEVEL_SLOT:]
    upgraded = piece("upgraded").reshape(batch, seats, D.NUM_SLOTS, 1)[:, :, LEVEL_SLOT:]
    on_level = torch.cat([divers, upgraded], dim=3).transpose(1, 2).reshape(batch, levels, -1)
    keys_home = piece("keys_home")[:, : D.NUM_LEVELS, None]  # the observer's numbered keys
    keys_track = piece("keys_track")[:, : D.NUM_LEVELS, None]
    return torch.cat([sponsor, advanced, display, on_level, keys_home, keys_track], dim=2)


class OtysBoard(OtysPairs):
    """:class:`OtysPairs` plus one shared MLP per level over what a turn there offers
    (:func:`_level_board`), the level's own resources and its pairs' mean, kept in level
    order: the ``key`` and ``xown`` actions are indexed by level."""

    def __init__(self, observation_space: gymnasium.spaces.Box, pair_features: int = 16,
                 pair_hidden: int = 64, global_features: int = 256, level_features: int = 32,
                 level_hidden: int = 128):
        super().__init__(observation_space, pair_features, pair_hidden, global_features)
        probe = torch.zeros(1, LAYOUT.size)
        level_width = (_level_board(probe).shape[2] + _seat0_levels(probe).shape[2]
                       + pair_features)
        self.level = nn.Sequential(nn.Linear(level_width, level_hidden), nn.ReLU(),
                                   nn.Linear(level_hidden, level_features), nn.ReLU())
        self._features_dim += D.NUM_LEVELS * level_features

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        levels, pairs = self._pairs(observations)
        per_level = self.level(torch.cat([_level_board(observations), levels,
                                          pairs.mean(dim=2)], dim=2))
        return torch.cat([pairs.flatten(1), per_level.flatten(1), self.whole(observations)],
                         dim=1)


class Hinted(BaseFeaturesExtractor):
    """An MLP over the whole hinted observation, next to the hints themselves (the
    last ``hint_size`` floats), so a linear head reaches every action's hint."""

    def __init__(self, observation_space: gymnasium.spaces.Box, hint_size: int,
                 hidden: tuple[int, ...] = (256, 256)):
        size = observation_space.shape[0]
        if not 0 < hint_size < size:
            raise ValueError(f"a hinted observation of {size} floats cannot end in {hint_size} hints")
        super().__init__(observation_space, hidden[-1] + hint_size)
        layers, width = [], size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.mlp = nn.Sequential(*layers)
        self.hint_size = hint_size

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp(observations), observations[:, -self.hint_size:]], dim=1)


class Trunk(BaseFeaturesExtractor):
    """One MLP over the flat observation whose output both heads read (with
    ``net_arch: []`` the policy and value heads are linear layers on it): the shared
    trunk of a distilled policy-value network (``training/distill.py``), any game."""

    def __init__(self, observation_space: gymnasium.spaces.Box,
                 hidden: tuple[int, ...] = (256, 256)):
        if not hidden or any(h < 1 for h in hidden):
            raise ValueError(f"a trunk needs at least one layer of >= 1 unit, got {hidden}")
        super().__init__(observation_space, hidden[-1])
        layers, width = [], observation_space.shape[0]
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.mlp = nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.mlp(observations)


# the games they read: otrio.training.config.ENCODER_GAMES (hinted: any, with hints; trunk: any)
ENCODERS = {"otys_pairs": OtysPairs, "otys_board": OtysBoard, "hinted": Hinted, "trunk": Trunk}


def policy_kwargs(encoder: str, net_arch: list[int], hint_size: int = 0,
                  share_features_extractor: bool = True, trunk: list[int] | None = None) -> dict:
    """MaskablePPO ``policy_kwargs`` for an encoder name (``mlp``: the flat default);
    ``hint_size``: how many hint floats end the observation (the hinted encoder);
    ``trunk``: the layer sizes of the trunk encoder's MLP, or of the hinted one's;
    ``share_features_extractor``: False gives the value head an encoder of its own."""
    kwargs: dict = {"net_arch": list(net_arch), "share_features_extractor": share_features_extractor}
    if encoder != "mlp":
        kwargs["features_extractor_class"] = ENCODERS[encoder]
    if encoder == "hinted":
        kwargs["features_extractor_kwargs"] = {"hint_size": hint_size}
        if trunk:
            kwargs["features_extractor_kwargs"]["hidden"] = list(trunk)
    if encoder == "trunk" and trunk:
        kwargs["features_extractor_kwargs"] = {"hidden": list(trunk)}
    return kwargs
