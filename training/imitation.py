"""Imitation warm start: clone a teacher agent into a fresh MaskablePPO policy.

PPO from a random policy learns to beat random players quickly but plateaus well
below the greedy heuristics (see ``agents/pretrained/README.md``). Starting PPO from a
clone of the teacher puts it at the teacher's level on step one; PPO then improves on
it against the opponent pool. The clone is trained by behaviour cloning on games the
teacher plays against itself, every seat recorded:

- the policy head by cross-entropy on the teacher's action (illegal actions masked);
- the value head by regression on the seat's return from that decision on (the same
  rewards, shaping included, that :class:`~otrio.training.selfplay.SelfPlayEnv` pays), so
  PPO's first advantages are not noise that would undo the clone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from otrio import agents, envs
from otrio.agents.hints import make_hints
from otrio.envs.core.aec import live_turns
from otrio.envs.core.rng import derive_seed, make_rng

HELD_OUT_SHARE = 0.05  # games kept aside to report the clone's accuracy


@dataclass
class Demonstrations:
    """Teacher decisions: observation, legal mask, action and the return that followed."""

    observations: np.ndarray  # (N, obs) float32, or float16 when that is exact
    masks: np.ndarray  # (N, actions) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32
    game_index: np.ndarray  # (N,) the game each decision came from

    def __len__(self) -> int:
        return len(self.actions)

    def split(self, held_out_games: int) -> tuple[Demonstrations, Demonstrations]:
        """(training, held-out) by whole games: the last ``held_out_games`` games held out."""
        cut = self.game_index.max() + 1 - held_out_games
        train, test = self.game_index < cut, self.game_index >= cut
        return self._subset(train), self._subset(test)

    def _subset(self, keep: np.ndarray) -> Demonstrations:
        return Demonstrations(self.observations[keep], self.masks[keep], self.actions[keep],
                              self.returns[keep], self.game_index[keep])


def collect(env_id: str, game_config: dict, teacher: str, games: int, seed: int,
            progress: bool = False, storage: str = "float32",
            hints: str | None = None) -> Demonstrations:
    """Record every decision of ``games`` games the teacher plays in every seat.

    The return of a decision is the reward that reaches its seat after it (and, for a
    seat's first decision, before it too: self-play pays that with the first step).
    ``storage="float16"`` keeps the observations in half precision and raises
    ``ValueError`` if a value would change (Otys' are small integers, exact in float16).
    With ``hints`` each recorded observation carries them (``agents/hints.py``), as
    the hinted learner will see it.
    """

    dtype = np.dtype(storage)
    env = envs.make(env_id, **game_config)
    n = env.unwrapped.num_players
    seat_agents = [agents.make(teacher, env) for _ in range(n)]
    seat_hints = [make_hints(hints, env) for _ in range(n)]
    obs_blocks, mask_rows, actions, returns, game_of = [], [], [], [], []
    for g in tqdm(range(games), desc=f"{teacher} demonstrations", disable=not progress):
        game_seed = derive_seed(seed, "imitation", g)
        env.reset(seed=game_seed)
        for s, agent in enumerate(seat_agents):
            agent.reset(derive_seed(game_seed, "teacher", s))
            if seat_hints[s] is not None:
                seat_hints[s].reset(derive_seed(game_seed, "hints", s))
        received = dict.fromkeys(env.possible_agents, 0.0)
        decisions: list[tuple[str, float]] = []  # (agent, reward received before it)
        has_decided: set[str] = set()
        obs_rows = []
        for agent, obs in live_turns(env):
            seat = env.possible_agents.index(agent)
            teacher_agent, seat_hint = seat_agents[seat], seat_hints[seat]
            if seat_hint is not None and teacher == hints:
                # the teacher is the hints' agent: its values serve both (valuing draws
                # nothing from its generator), computed once
                values = teacher_agent.action_values(obs)
                action = teacher_agent.choose_best(values)
                obs = seat_hint.augment(obs, values)
            else:
                action = teacher_agent.act(obs)
                if seat_hint is not None:
                    obs = seat_hint.augment(obs)
            decisions.append((agent, received[agent] if agent in has_decided else 0.0))
            has_decided.add(agent)
            obs_rows.append(obs["observation"])
            mask_rows.append(obs["action_mask"].astype(bool))
            actions.append(action)
            env.step(action)
            for a, r in env.rewards.items():
                received[a] += r
        obs_blocks.append(_stored(np.asarray(obs_rows, np.float32), dtype))
        returns += [received[a] - before for a, before in decisions]
        game_of += [g] * len(decisions)
    return Demonstrations(_concatenate(obs_blocks, dtype), np.asarray(mask_rows, bool),
                          np.asarray(actions, np.int64), np.asarray(returns, np.float32),
                          np.asarray(game_of, np.int64))


def _stored(rows: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``rows`` as ``dtype``; a ValueError if that would change any value."""
    if dtype == rows.dtype:
        return rows
    stored = rows.astype(dtype)
    if not np.array_equal(stored.astype(rows.dtype), rows):
        worst = float(np.max(np.abs(stored.astype(rows.dtype) - rows)))
        raise ValueError(f"observations are not exact as {dtype} (an error of {worst:g}); "
                         "use imitation storage: float32")
    return stored


def _concatenate(blocks: list[np.ndarray], dtype: np.dtype) -> np.ndarray:
    """The blocks stacked into one array, each freed once copied (peak ~1x, not 2x)."""
    total = sum(len(b) for b in blocks)
    width = blocks[0].shape[1] if blocks else 0
    out = np.empty((total, width), dtype)
    row = 0
    blocks.reverse()
    while blocks:
        block = blocks.pop()
        out[row:row + len(block)] = block
        row += len(block)
    return out


def clone(policy, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
          value_weight: float, seed: int, progress: bool = False) -> list[dict]:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the demonstrations in place.

    Returns one line per epoch: training loss, and the held-out action accuracy and
    value error on the last 5% of games.
    """

    held = max(1, int(round((demos.game_index.max() + 1) * HELD_OUT_SHARE)))
    train_set, test_set = demos.split(held)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = make_rng(derive_seed(seed, "clone"))
    tensors = _tensors(train_set)
    history = []
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = torch.as_tensor(rng.permutation(len(train_set)))
        total = 0.0
        for start in tqdm(range(0, len(order), batch_size), desc=f"clone epoch {epoch + 1}",
                          disable=not progress, leave=False):
            idx = order[start:start + batch_size]
            obs, masks, acts, rets = (t[idx] for t in tensors)
            obs = obs.float()  # a no-op for float32 storage
            values, log_prob, _ = policy.evaluate_actions(obs, acts, action_masks=masks)
            loss = -log_prob.mean() + value_weight * torch.mean((values.flatten() - rets) ** 2)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * len(idx)
        line = {"epoch": epoch + 1, "loss": total / len(train_set), **evaluate_clone(policy, test_set)}
        history.append(line)
        if progress:
            print(f"clone epoch {line['epoch']}: loss {line['loss']:.3f}, held-out accuracy "
                  f"{line['accuracy']:.3f}, value RMSE {line['value_rmse']:.3f}", flush=True)
    policy.set_training_mode(False)
    return history


def evaluate_clone(policy, demos: Demonstrations) -> dict[str, float]:
    """How often the clone's most likely action is the teacher's; its value RMSE."""

    policy.set_training_mode(False)
    obs, masks, acts, rets = _tensors(demos)
    obs = obs.float()
    with torch.no_grad():
        dist = policy.get_distribution(obs, action_masks=masks.numpy())
        chosen = dist.distribution.probs.argmax(dim=1)
        values = policy.predict_values(obs).flatten()
    return {"accuracy": float((chosen == acts).float().mean()),
            "value_rmse": float(torch.sqrt(torch.mean((values - rets) ** 2)))}


def _tensors(demos: Demonstrations):
    return (torch.as_tensor(demos.observations), torch.as_tensor(demos.masks),
            torch.as_tensor(demos.actions), torch.as_tensor(demos.returns))
