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
(:mod:`otrio.envs.core.rewards`, summed in the same order; a test replays its episodes
through the AEC env and compares every reward bit for bit).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from otrio import agents, envs
from otrio.agents.hints import make_hints, observation_bounds
from otrio.agents.net import forward_of
from otrio.agents.weights import is_sb3_zip, load_policy, read_manifest
from otrio.envs.core.aec import MaskCache, offence
from otrio.envs.core.errors import (
    ConfigError,
    IllegalActionError,
    OrderError,
    OtrioError,
    StateError,
    checked_action,
)
from otrio.envs.core.rewards import TRUNCATED, settle
from otrio.envs.core.rng import derive_seed, make_rng, rng_from_dict, rng_to_dict

SELF = "self"  # opponent kind: a frozen snapshot of the learner
ILLEGAL = "illegal_action"  # how an episode ended by an illegal action ends (``_end``)


class SnapshotAgent(agents.Agent):
    """A frozen learner snapshot playing a seat, sampling its policy with its own seeded
    generator (so a game's moves follow from its seed alone, whatever the process or
    the torch generator); with ``hints`` (the learner's kind, for its seat) it reads
    them as the learner does.

    A snapshot is an exported agent (``X.json`` + ``X.safetensors``,
    ``agents/weights.py``): loading it runs nothing. ``sha256``, when given, is the
    weights' hash the pool expects: a manifest naming other weights is refused.
    """

    _policies: dict[tuple[str, str | None], tuple[Any, Any]] = {}  # (path, sha256) -> policy, forward

    def __init__(self, path: str, hints=None, sha256: str | None = None):
        super().__init__()
        self.path = path
        self.policy, self.forward = self.load(path, sha256)
        self.hints = hints
        if hints is not None:
            self.forward = None  # the numpy forward does not read hints: torch does

    @classmethod
    def load(cls, path: str, sha256: str | None = None):
        """``(policy, numpy forward or None)`` of the snapshot at ``path`` (cached)."""
        key = (str(path), sha256)
        if key not in cls._policies:
            if is_sb3_zip(path):
                raise ConfigError(f"self-play snapshot {path} is a Stable-Baselines3 zip, which "
                                  "runs code when loaded: snapshots are exported agents "
                                  "(X.json + X.safetensors; otrio export-checkpoint writes them)")
            if sha256 is not None and read_manifest(path).weights.sha256 != sha256:
                raise ConfigError(f"self-play snapshot {path} is not the one its run recorded "
                                  "(its weights' sha256 differs)")
            policy, _ = load_policy(path)
            cls._policies[key] = (policy, forward_of(policy))
        return cls._policies[key]

    @classmethod
    def forget_except(cls, keep: set[tuple[str, str | None]]) -> None:
        """Drop the cached snapshots not in ``keep`` (those out of the pool)."""
        for key in [k for k in cls._policies if k not in keep]:
            del cls._policies[key]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.hints is not None:
            self.hints.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        if self.forward is not None:
            logits = self.forward.logits(observation["observation"], mask).astype(np.float64)
        else:
            import torch  # deferred: torch (~1 s)

            if self.hints is not None:
                observation = self.hints.augment(observation)
            with torch.no_grad():
                obs = torch.as_tensor(observation["observation"], dtype=torch.float32)[None]
                dist = self.policy.get_distribution(obs, action_masks=mask.astype(bool)[None])
                logits = dist.distribution.logits[0].numpy().astype(np.float64)
        legal = mask.astype(bool)
        weights = np.where(legal, np.exp(logits - logits[legal].max()), 0.0)
        return int(self.rng.choice(len(weights), p=weights / weights.sum()))


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
        # the learner's observation: each piece's declared range, then the hints' [0, 1]
        self.observation_space = gymnasium.spaces.Box(*observation_bounds(self.aec, hints),
                                                      dtype=np.float32)
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
        self._digests: dict[str, str | None] = {}  # snapshot -> the weights' expected sha256
        self.rng = make_rng(seed)
        self._pool = {kind: [agents.make(kind, self.aec) for _ in range(self.num_players)]
                      for kind in ("random", "greedy") if kind in weights}
        self.seat = 0  # the learner's seat this episode
        self.learner = "player_0"
        self.seat_agents: list[agents.Agent | None] = []
        self.state = None
        self.decisions = 0
        self._dense, self._scale = self.config.dense_reward, info.score_scale
        self._max_decisions = self.game.decision_cap(self.config)
        self._terminate_illegal = self.config.illegal_action == "terminate"
        self._scratch = np.zeros(info.observation_size, np.float32)
        self._masks = MaskCache(info.num_actions)
        self._legal: list[int] = []
        self._scores: list = []  # the scores after the last transition (dense rewards)
        self._seat_to_act = 0  # after the last transition (TERMINAL once over)
        self._end: str | None = None  # how the game ended (None: it goes on)
        self._carried_reward = 0.0
        self._observation = np.zeros(info.observation_size, np.float32)
        # what replays the game in progress (resume_state): the episode's start and the
        # learner's actions since
        self._episode_start: dict[str, Any] | None = None
        self._actions: list[int] = []

    # -------------------------------------------------------------- pool
    def set_snapshots(self, paths: list[str], sha256: list[str | None] | None = None) -> None:
        """The frozen learner snapshots that ``self`` opponents draw from: exported
        agents (``X.json``), each with the sha256 of its weights when ``sha256`` is given
        (a snapshot whose manifest names other weights is then refused when drawn)."""

        digests = list(sha256) if sha256 is not None else [None] * len(paths)
        if len(digests) != len(paths):
            raise ValueError("set_snapshots: one sha256 per path")
        for path in paths:
            if is_sb3_zip(path):
                raise ConfigError(f"self-play snapshot {path} is a Stable-Baselines3 zip, which "
                                  "runs code when loaded: snapshots are exported agents "
                                  "(X.json + X.safetensors; otrio export-checkpoint writes them)")
        pool = [(str(p), d) for p, d in zip(paths, digests) if Path(p).exists()]
        self.snapshots = [p for p, _ in pool]
        self._digests = dict(pool)
        SnapshotAgent.forget_except({*pool, *((a.path, self._digests.get(a.path))
                                             for a in self.seat_agents
                                             if isinstance(a, SnapshotAgent))})

    def _opponent(self, seat: int) -> agents.Agent:
        kind = self.kinds[self.rng.choice(len(self.kinds), p=self._shares)]
        if kind == SELF:
            if not self.snapshots:
                kind = "random" if "random" in self._pool else "greedy"
            else:
                path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                return SnapshotAgent(path, make_hints(self.hints_kind, self.aec),
                                     self._digests.get(path))
        if kind not in self._pool:
            self._pool[kind] = [agents.make(kind, self.aec) for _ in range(self.num_players)]
        return self._pool[kind][seat]

    # ----------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.base_seed, self.episode = seed, 0
            self.rng = make_rng(seed)
        return self._start_episode()

    def _start_episode(self):
        """Draw the learner's seat and the opponents, deal the game and play up to the
        learner's first decision (the body of :meth:`reset`)."""
        self._episode_start = {"base_seed": self.base_seed, "episode": self.episode,
                               "rng": rng_to_dict(self.rng),
                               "snapshots": [[p, self._digests.get(p)] for p in self.snapshots]}
        self._actions = []
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
        if self._end is not None or self.state is None:
            raise OrderError("step() after the episode ended (or before the first reset()): "
                             "call reset()")
        try:
            action = checked_action(action, self.learner, self._legal, self.game.action_name)
        except IllegalActionError as err:
            if not self._terminate_illegal:
                raise
            return self._end_by_illegal_action(err)
        self._actions.append(int(action))
        reward = self._carried_reward + self._transition(action)
        self._carried_reward = 0.0
        more, done = self._advance()
        reward += more
        obs = self._observation if not done else np.zeros(self.observation_space.shape, np.float32)
        truncated = self._end == TRUNCATED
        return obs, float(reward), done and not truncated, truncated, {}

    def _end_by_illegal_action(self, err: IllegalActionError):
        """``illegal_action="terminate"``: the episode ends with -1 to the learner (the AEC
        env's rule), its info naming the offence; the next step must be a reset."""
        self._end = ILLEGAL
        reward, self._carried_reward = self._carried_reward - 1.0, 0.0
        info = {"terminated_by": "illegal_action", "illegal_action": offence(self.learner, err)}
        return np.zeros(self.observation_space.shape, np.float32), reward, True, False, info

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

    # ------------------------------------------------------------ resume
    def resume_state(self) -> dict[str, Any]:
        """What replays this env to where it is now, as JSON: the generator and pool at
        the start of the game in progress, the learner's actions since, and the pool and
        generator now. :meth:`restore_resume_state` replays it exactly (opponents,
        their generators and caches, hints: every draw is made again from its seed)."""
        if self._episode_start is None:
            raise StateError("resume_state() before the first reset()")
        return {"start": copy.deepcopy(self._episode_start), "actions": list(self._actions),
                "snapshots": [[p, self._digests.get(p)] for p in self.snapshots],
                "rng": rng_to_dict(self.rng)}

    def restore_resume_state(self, saved: dict[str, Any]) -> np.ndarray:
        """Replay :meth:`resume_state`'s game to where it was saved; return the learner's
        observation there. A state that does not replay is a :class:`StateError`."""
        try:
            start, actions = saved["start"], [int(a) for a in saved["actions"]]
            self.base_seed, self.episode = int(start["base_seed"]), int(start["episode"])
            self.rng = rng_from_dict(start["rng"])
            paths, digests = zip(*start["snapshots"]) if start["snapshots"] else ((), ())
            self.set_snapshots(list(paths), list(digests))
            if self.snapshots != list(paths):
                raise StateError("a self-play snapshot of the game in progress is missing")
            self._start_episode()
            for action in actions:
                if self._end is not None:
                    raise StateError("the saved game ends before its last action")
                try:
                    self.step(action)
                except IllegalActionError as err:
                    raise StateError(f"the saved game does not replay: {err}"[:300]) from None
            if self._end is not None:
                raise StateError("the saved game is over: it cannot be in progress")
            if rng_to_dict(self.rng) != saved["rng"]:
                raise StateError("the saved game's draws do not replay")
            paths, digests = zip(*saved["snapshots"]) if saved["snapshots"] else ((), ())
            self.set_snapshots(list(paths), list(digests))
        except OtrioError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            raise StateError(f"corrupt self-play resume state: {err!r}"[:300]) from None
        return self._observation

    def try_restore_resume_state(self, saved: dict[str, Any]) -> tuple[np.ndarray | None, str | None]:
        """:meth:`restore_resume_state` for a vector env's ``env_method``: ``(observation,
        None)``, or ``(None, why)`` where it fails (an exception would end a subprocess
        worker instead of reaching the caller)."""
        try:
            return self.restore_resume_state(saved), None
        except OtrioError as err:
            return None, str(err)
