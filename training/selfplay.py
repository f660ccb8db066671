"""A single-agent gymnasium view of any suite environment, for MaskablePPO self-play.

The learner takes one seat (random each episode by default); every other seat is
played by an opponent drawn from a pool: ``random``, ``greedy`` and frozen snapshots
of the learner. Written from the AEC semantics, not from PettingZoo's SB3 tutorial:
the learner observes only its own seat, and it receives every reward that reaches
its seat, including rewards that arrive during the others' turns and at the end of
the game (so a losing learner does get its final -1).

Like the AEC env, this view is an adapter over the game's rules state (Pgx's split):
it plays the state directly, so that the two opponent moves of a three-player game
cost no AEC bookkeeping, and pays the same rewards by the same rule
(:mod:`envs.core.rewards`, summed in the same order; a test replays its episodes
through the AEC env and compares every reward bit for bit).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import agents
import envs
from agents.hints import make_hints, observation_size
from agents.ppo import policy_action
from envs.core.aec import MaskCache
from envs.core.errors import checked_action
from envs.core.rewards import TRUNCATED, settle
from envs.core.rng import derive_seed, make_rng

SELF = "self"  # opponent kind: a frozen snapshot of the learner


class SnapshotAgent(agents.Agent):
    """A frozen learner snapshot (sb3 zip) playing a seat, sampling its policy; with
    ``hints`` (the learner's kind, for its seat) it reads them as the learner does."""

    _models: dict[str, Any] = {}

    def __init__(self, path: str, hints=None):
        super().__init__()
        self.path = path
        if path not in self._models:
            from agents.weights import load_sb3_zip

            # the learner's own snapshots, written by this run: trusted like its resume
            self._models[path] = load_sb3_zip(path, trust=True, device="cpu")
        self.model = self._models[path]
        self.hints = hints

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.hints is not None:
            self.hints.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return policy_action(self.model, observation, deterministic=False, hints=self.hints)


class SelfPlayEnv(gymnasium.Env):
    """One learner seat of a suite env; the other seats are played by the pool."""

    metadata = {"render_modes": []}

    def __init__(self, env_id: str, game_config: dict[str, Any] | None = None,
                 opponents: dict[str, float] | None = None, learner_seat: int | None = None,
                 seed: int = 0, hints: str | None = None):
        super().__init__()
        # the AEC env validates the config and builds the opponents; it is never stepped
        self.aec = envs.make(env_id, **(game_config or {}))
        base = self.aec.unwrapped
        self.game, self.config = base.game, base.config
        info = self.game.info
        self.num_players = base.num_players
        self.hints_kind = hints
        self.hints = make_hints(hints, self.aec)  # the learner's (None: no hints)
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, (observation_size(self.aec, hints),), np.float32)
        self.action_space = gymnasium.spaces.Discrete(info.num_actions)
        weights = opponents or {"random": 1.0}
        unknown = set(weights) - {"random", "greedy", SELF}
        if unknown:
            raise ValueError(f"unknown opponent kinds {sorted(unknown)}; use random, greedy, self")
        self.kinds = sorted(weights)
        total = sum(weights.values())
        self._shares = [weights[k] / total for k in self.kinds]
        self.fixed_seat = learner_seat
        self.base_seed = seed
        self.episode = 0
        self.snapshots: list[str] = []
        self.rng = make_rng(seed)
        self._pool = {kind: [agents.make(kind, self.aec) for _ in range(self.num_players)]
                      for kind in ("random", "greedy") if kind in weights}
        self.seat = 0  # the learner's seat this episode
        self.learner = "player_0"
        self.seat_agents: list[agents.Agent | None] = []
        self.state = None
        self.decisions = 0
        self._dense, self._scale = self.config.dense_reward, info.score_scale
        self._max_decisions = info.max_decisions
        self._scratch = np.zeros(info.observation_size, np.float32)
        self._masks = MaskCache(info.num_actions)
        self._legal: list[int] = []
        self._scores: list = []  # the scores after the last transition (dense rewards)
        self._seat_to_act = 0  # after the last transition (TERMINAL once over)
        self._end: str | None = None  # how the game ended (None: it goes on)
        self._carried_reward = 0.0
        self._observation = np.zeros(info.observation_size, np.float32)

    # -------------------------------------------------------------- pool
    def set_snapshots(self, paths: list[str]) -> None:
        """The frozen learner snapshots that ``self`` opponents draw from."""
        self.snapshots = [p for p in paths if Path(p).exists()]

    def _opponent(self, seat: int) -> agents.Agent:
        kind = self.kinds[self.rng.choice(len(self.kinds), p=self._shares)]
        if kind == SELF:
            if not self.snapshots:
                kind = "random" if "random" in self._pool else "greedy"
            else:
                path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                return SnapshotAgent(path, make_hints(self.hints_kind, self.aec))
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
        self.seat, self.learner = seat, self.aec.possible_agents[seat]
        self.seat_agents = []
        for s in range(self.num_players):
            agent = None if s == seat else self._opponent(s)
            if agent is not None:
                agent.reset(derive_seed(game_seed, "opponent", s))
            self.seat_agents.append(agent)
        if self.hints is not None:
            self.hints.reset(derive_seed(game_seed, "hints"))
        # the same game as the AEC env's reset(seed=game_seed)
        self.state = self.game.new_state(self.config, make_rng(game_seed))
        self.decisions, self._end = 0, None
        self._scores, self._seat_to_act = list(self.state.scores()), self.state.current_player()
        # a reward that reaches the seat before its first decision is paid with the
        # first step (gymnasium's reset returns none)
        self._carried_reward, done = self._advance()
        assert not done, "a game cannot end before the learner's first decision"
        return self._observation, {"learner_seat": seat, "game_seed": game_seed}

    def step(self, action):
        action = checked_action(action, self.learner, self._legal, self.game.action_name)
        reward = self._carried_reward + self._transition(action)
        self._carried_reward = 0.0
        more, done = self._advance()
        reward += more
        obs = self._observation if not done else np.zeros(self.observation_space.shape, np.float32)
        truncated = self._end == TRUNCATED
        return obs, float(reward), done and not truncated, truncated, {}

    def _transition(self, action: int) -> float:
        """Play ``action``; the reward it pays the learner's seat, as the AEC env would."""
        self.state.apply_action(action)
        self.decisions += 1
        paid, self._scores, self._seat_to_act, self._end = settle(
            self.state, self._scores, self._dense, self._scale, self.decisions,
            self._max_decisions)
        return 0.0 if paid is None else paid[self.seat]

    def _advance(self) -> tuple[float, bool]:
        """Play the other seats until the learner must decide or the game ends.

        Returns the reward that reached the learner's seat meanwhile and whether the
        game is over.
        """
        state, reward = self.state, 0.0
        while True:
            if self._end is not None:
                return reward, True
            seat = self._seat_to_act
            legal = self._legal = state.legal_actions()
            if seat == self.seat:
                self._observation = self._observe(seat)
                if self.hints is not None:
                    self._observation = self.hints.hinted(
                        {"observation": self._observation, "action_mask": self._masks.mask(legal)})
                return reward, False
            opponent = self.seat_agents[seat]
            if opponent.reads_observation:
                action = opponent.act({"observation": self._observe(seat),
                                       "action_mask": self._masks.mask(legal).copy()})
            else:  # neither observation nor mask for an agent that reads the legal set alone
                action = opponent.act_legal(legal)
            reward += self._transition(action)

    def _observe(self, seat: int) -> np.ndarray:
        """``seat``'s observation of the state (the caller's own array)."""
        return self.game.observation(self.state, seat, self._scratch)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for sb3-contrib MaskablePPO, which stacks them
        into its own array): shared and read-only, copy it to change it."""
        return self._masks.bool_mask(self._legal)
