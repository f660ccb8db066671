"""A single-agent gymnasium view of any suite environment, for MaskablePPO self-play.

The learner takes one seat (random each episode by default); every other seat is
played by an opponent drawn from a pool: ``random``, ``greedy`` and frozen snapshots
of the learner. Written from the AEC semantics, not from PettingZoo's SB3 tutorial:
the learner observes only its own seat, and it receives every reward that reaches
its seat, including rewards that arrive during the others' turns and at the end of
the game (so a losing learner does get its final -1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import agents
import envs
from envs.core.rng import derive_seed, make_rng

SELF = "self"  # opponent kind: a frozen snapshot of the learner


class SnapshotAgent(agents.Agent):
    """A frozen learner snapshot (sb3 zip) playing a seat, sampling its policy."""

    _models: dict[str, Any] = {}

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        if path not in self._models:
            from sb3_contrib import MaskablePPO

            self._models[path] = MaskablePPO.load(path, device="cpu")
        self.model = self._models[path]

    def act(self, observation: dict[str, np.ndarray]) -> int:
        action, _ = self.model.predict(observation["observation"],
                                       action_masks=observation["action_mask"].astype(bool),
                                       deterministic=False)
        return int(action)


class SelfPlayEnv(gymnasium.Env):
    """One learner seat of a suite env; the other seats are played by the pool."""

    metadata = {"render_modes": []}

    def __init__(self, env_id: str, game_config: dict[str, Any] | None = None,
                 opponents: dict[str, float] | None = None, learner_seat: int | None = None,
                 seed: int = 0):
        super().__init__()
        self.aec = envs.make(env_id, **(game_config or {}))
        info = self.aec.unwrapped.game.info
        self.num_players = self.aec.unwrapped.num_players
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (info.observation_size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(info.num_actions)
        weights = opponents or {"random": 1.0}
        unknown = set(weights) - {"random", "greedy", SELF}
        if unknown:
            raise ValueError(f"unknown opponent kinds {sorted(unknown)}; use random, greedy, self")
        self.kinds = sorted(weights)
        total = sum(weights.values())
        self.probs = np.array([weights[k] / total for k in self.kinds])
        self.fixed_seat = learner_seat
        self.base_seed = seed
        self.episode = 0
        self.snapshots: list[str] = []
        self.rng = make_rng(seed)
        self._pool = {kind: [agents.make(kind, self.aec) for _ in range(self.num_players)]
                      for kind in ("random", "greedy") if kind in weights}
        self.learner = "player_0"
        self._carried_reward = 0.0
        self.seat_agents: list[agents.Agent | None] = []
        self._mask = np.zeros(info.num_actions, np.int8)

    # -------------------------------------------------------------- pool
    def set_snapshots(self, paths: list[str]) -> None:
        """The frozen learner snapshots that ``self`` opponents draw from."""
        self.snapshots = [p for p in paths if Path(p).exists()]

    def _opponent(self, seat: int) -> agents.Agent:
        kind = self.kinds[int(self.rng.choice(len(self.kinds), p=self.probs))]
        if kind == SELF:
            if not self.snapshots:
                kind = "random" if "random" in self._pool else "greedy"
            else:
                path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                return SnapshotAgent(path)
        if kind not in self._pool:
            self._pool[kind] = [agents.make(kind, self.aec) for _ in range(self.num_players)]
        return self._pool[kind][seat]

    # ----------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.base_seed, self.episode = seed, 0
            self.rng = make_rng(seed)
        game_seed = derive_seed(self.base_seed, "episode", self.episode)
        self.episode += 1
        seat = self.fixed_seat if self.fixed_seat is not None else int(self.rng.integers(self.num_players))
        self.learner = self.aec.possible_agents[seat]
        self.seat_agents = []
        for s in range(self.num_players):
            agent = None if s == seat else self._opponent(s)
            if agent is not None:
                agent.reset(derive_seed(game_seed, "opponent", s))
            self.seat_agents.append(agent)
        self.aec.reset(seed=game_seed)
        # a reward that reaches the seat before its first decision is paid with the
        # first step (gymnasium's reset returns none)
        self._carried_reward, done = self._advance()
        assert not done, "a game cannot end before the learner's first decision"
        return self._observation(), {"learner_seat": seat}

    def step(self, action):
        self.aec.step(int(action))
        reward = self._carried_reward + self.aec.rewards.get(self.learner, 0.0)
        self._carried_reward = 0.0
        more, done = self._advance()
        reward += more
        obs = self._observation() if not done else np.zeros(self.observation_space.shape, np.float32)
        truncated = done and any(self.aec.truncations.values())
        return obs, float(reward), done and not truncated, truncated, {}

    def _advance(self) -> tuple[float, bool]:
        """Play the other seats until the learner must decide or the game ends.

        Returns the reward that reached the learner's seat meanwhile and whether the
        game is over.
        """
        aec = self.aec
        reward = 0.0
        seats = aec.unwrapped._seat_of
        while True:
            if aec.unwrapped.state_.is_terminal() or any(aec.truncations.values()):
                return reward, True
            agent = aec.agent_selection
            if agent == self.learner:
                obs = aec.observe(agent)
                self._last_obs = obs
                return reward, False
            opponent = self.seat_agents[seats[agent]]
            if opponent.reads_observation:
                obs = aec.observe(agent)
            else:  # no observation (nor mask copy) for an agent that reads only the mask
                obs = {"action_mask": aec.acting_mask_view()}
            aec.step(opponent.act(obs))
            reward += aec.rewards.get(self.learner, 0.0)

    def _observation(self) -> np.ndarray:
        return self._last_obs["observation"]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for sb3-contrib MaskablePPO)."""
        return self._last_obs["action_mask"].astype(bool)
