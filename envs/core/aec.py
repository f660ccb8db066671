"""The shared PettingZoo AEC adapter: any :class:`~otrio.envs.core.game.Game` becomes an env.

The guarantees that PettingZoo's generic wrappers give (order enforcement, action
bounds, illegal moves) are checked here cheaply, so that ``env()`` is both safe and
fast (PettingZoo's generic wrappers cost most of a light env's step rate): only an
integer in the legal set is an action (``True``, ``0.9`` or ``"1"`` are refused, not
converted), and ``step``, ``last``, ``observe`` or ``agent_iter`` before ``reset()``, or
after every agent is done, raise :class:`~otrio.envs.core.errors.OrderError`, as do
``legal_actions``, ``state``, ``save_state`` and ``render`` before ``reset()``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from . import window
from .config import validate
from .errors import (
    IllegalActionError,
    OrderError,
    OtrioError,
    checked_action,
    is_integer_action,
)
from .game import TERMINAL, Game
from .observer import describe
from .rewards import TRUNCATED, settle
from .rng import checked_seed, make_rng
from .saves import SaveLoad, show_value

MASK_CACHE_SIZE = 4096  # distinct legal sets whose masks an env keeps (then starts over)


def offence(agent: str, err: IllegalActionError) -> dict[str, Any]:
    """What ``illegal_action="terminate"`` records of an illegal action that ends a game
    (``info["illegal_action"]``): the agent, the action (an int, or a short text of a
    non-integer) and the legal ids."""
    action = int(err.action) if is_integer_action(err.action) else show_value(err.action)
    return {"agent": agent, "action": action, "legal": list(err.legal)}


class ObservationSpace(gymnasium.spaces.Dict):
    """The env's observation space, a gymnasium ``Dict`` of ``observation`` and
    ``action_mask``; asked for a Box's ``low`` or ``high`` (as SuperSuit's observation
    wrappers ask), it names the flat view instead of failing on a bare name."""

    def __getattr__(self, name: str):
        if name in ("low", "high"):
            raise AttributeError(
                f"the observation space has no {name!r}: it is a Dict of 'observation' and "
                "'action_mask', not a Box; for wrappers that take a Box (SuperSuit's "
                "normalize_obs_v0, dtype_v0, flatten_v0, ...), wrap the env in "
                "otrio.integrations.FlattenObservation first (the observation, then the mask)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class MaskCache:
    """The int8 action mask of each legal set met, built once: shared and read-only
    (copy one before handing it to a caller that may keep or change it)."""

    def __init__(self, num_actions: int):
        self.num_actions = num_actions
        self._masks: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}

    def _both(self, legal: list[int]) -> tuple[np.ndarray, np.ndarray]:
        key = tuple(legal)
        both = self._masks.get(key)
        if both is None:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[legal] = 1
            mask.flags.writeable = False
            if len(self._masks) >= MASK_CACHE_SIZE:
                self._masks.clear()
            both = self._masks[key] = (mask, mask.view(np.bool_))
        return both

    def mask(self, legal: list[int]) -> np.ndarray:
        """The int8 mask of ``legal``."""
        both = self._masks.get(tuple(legal))
        return (both or self._both(legal))[0]

    def bool_mask(self, legal: list[int]) -> np.ndarray:
        """The same mask as booleans (a read-only view of the int8 one)."""
        return self._both(legal)[1]


class BoardGameEnv(SaveLoad, AECEnv):
    """A turn-based board game as a PettingZoo AEC environment.

    Agents are ``player_0 … player_{n-1}`` in seat order. The observation of every
    agent is ``{"observation": float32[N], "action_mask": int8[A]}``; the mask is all
    zeros for agents that are not acting. Rewards: at the end each winner gets +1 and
    every other player -1 (0 for all if every player shares the victory), plus the
    score change divided by ``info.score_scale`` after each step when
    ``dense_reward=True``.
    """

    game: Game  # set by each game's subclass

    def __init__(self, render_mode: str | None = None, **config: Any):
        super().__init__()
        info = self.game.info
        self.metadata = {
            "name": info.env_id,
            "render_modes": ["ansi", "human", "rgb_array"],
            "is_parallelizable": False,
        }
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise OtrioError("render_mode must be None, 'ansi', 'human' or 'rgb_array', "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self._window: window.TableWindow | bool | None = None  # "human": None until first render
        config.setdefault("num_players", info.default_players)
        self.config = validate(self.game.config_model, config)
        info.check_players(self.config.num_players)
        self.num_players = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.game.observation_bounds(self.config)  # each piece's declared range
        obs_space = ObservationSpace(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(
                    low=0, high=1, shape=(info.num_actions,), dtype=np.int8
                ),
            }
        )
        act_space = gymnasium.spaces.Discrete(info.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_ = None
        self._obs_scratch = np.zeros(info.observation_size, dtype=np.float32)
        self._legal: list[int] | None = None
        self._acting: str | None = None  # the agent that decides now (None: the game is over)
        self._masks = MaskCache(info.num_actions)
        self._dense, self._scale = self.config.dense_reward, info.score_scale
        self._max_decisions = self.game.decision_cap(self.config)
        self._terminate_illegal = self.config.illegal_action == "terminate"
        self.illegal_end: dict[str, Any] | None = None  # why an illegal action ended the game
        self._state_space: gymnasium.spaces.Box | None = None  # built on first use

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """``Dict(observation=Box(float32, (N,)), action_mask=Box(int8, (A,)))`` with
        finite bounds, the same object at every call and for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """``Discrete(A)``: every id of the game's action table."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; the same seed gives the same game. ``seed``: None (fresh
        entropy) or an integer >= 0 (numpy's too); anything else (-1, ``True``, 1.5,
        NaN, text) raises :class:`~otrio.envs.core.errors.ConfigError`."""
        rng = make_rng(checked_seed(seed))
        self.state_ = self.game.new_state(self.config, rng)
        self._start_episode()

    def _start_episode(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.decisions = 0
        self.illegal_end = None
        self._last_scores = list(self.state_.scores())
        self._legal = None
        self._after_transition()

    # ---------------------------------------------------------------- queries
    def legal_actions(self) -> list[int]:
        """Legal action ids of the pending decision (cached per decision)."""
        if self._legal is None:
            if self.state_ is None:
                raise self._order_error("legal_actions")
            self._legal = [] if self.state_.is_terminal() else self.state_.legal_actions()
        return self._legal

    def action_name(self, action: int) -> str:
        """Readable name of an action id (an integer in ``0 .. num_actions - 1``; else
        :class:`~otrio.envs.core.errors.UnknownActionError`, a ``ValueError``)."""
        return self.game.action_name(action)

    def observation_names(self) -> list[str]:
        """One readable name per index of the observation vector, e.g.
        ``hand[5].present`` (the layout's pieces, then ``[i]`` for a numbered axis and
        ``.label`` for a named one); the same at every player count."""
        return list(self.game.observation_names())

    def describe(self, observation=None, zeros: bool = False) -> str:
        """An observation as readable lines, one per non-zero value (its name and
        value), then the legal actions by name where the observation has its mask:
        ``observation`` is a vector, the dict ``last()`` returns, or None (the acting
        agent's observation now). See :func:`otrio.envs.core.describe`."""
        if observation is None:
            observation = self.observe(self.agent_selection)
        return describe(observation, self, zeros=zeros)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """int8 mask of ``agent`` (default: the acting one); zeros when not acting."""
        acting = self._acting
        if acting is None or (agent is not None and agent != acting):
            return np.zeros(self.game.info.num_actions, dtype=np.int8)
        legal = self._legal if self._legal is not None else self.legal_actions()
        return self._masks.mask(legal).copy()

    def acting_mask_view(self) -> np.ndarray:
        """The acting seat's mask without a copy: shared and read-only (hot loops that
        only read it, like a mask-only opponent's move)."""
        return self._legal_mask()

    def _legal_mask(self) -> np.ndarray:
        """The mask of the pending decision's legal set (shared and read-only: copy it)."""
        return self._masks.mask(self.legal_actions())

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation now, its own copy: ``{"observation": float32[N],
        "action_mask": int8[A]}``, the mask all zeros unless ``agent`` acts."""
        # the game writes into one reused scratch buffer (its views can be cached) or
        # builds the array at once; the caller gets its own copy either way
        try:
            seat = self._seat_of[agent]
        except KeyError:
            raise OrderError(f"unknown agent {agent!r}; agents: "
                             f"{', '.join(self.possible_agents)}") from None
        if self.state_ is None:
            raise self._order_error("observe")
        observation = self.game.observation(self.state_, seat, self._obs_scratch)
        return {"observation": observation, "action_mask": self.action_mask(agent)}

    def last(self, observe: bool = True):
        """Observation, cumulative reward, terminated, truncated and info of the agent
        to act (PettingZoo's ``last``, with a clear error before reset or after the end)."""
        try:
            agent = self.agent_selection
            reward = self._cumulative_rewards[agent]
        except (AttributeError, KeyError):
            raise self._order_error("last") from None
        return (self.observe(agent) if observe else None, reward, self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63):
        """The agent to act, again and again until every agent is done (PettingZoo's;
        an :class:`~otrio.envs.core.errors.OrderError` before :meth:`reset`)."""
        if self.state_ is None:
            raise self._order_error("agent_iter")
        return super().agent_iter(max_iter)

    def _order_error(self, call: str) -> OrderError:
        """The error for ``call`` made before reset() or after every agent is done."""
        if self.state_ is None:
            return OrderError(f"call reset() before {call}()")
        return OrderError(f"{call}(): the game is over and every agent is done "
                          "(call reset() to play again)")

    # ------------------------------------------------------------------- step
    def step(self, action) -> None:
        """Play ``action`` (an id the mask allows; a Python or numpy integer) for the
        acting agent, or ``None`` for a done one (PettingZoo's dead step). An illegal
        action raises :class:`~otrio.envs.core.errors.IllegalActionError` naming the
        legal ones, or ends the game with ``illegal_action="terminate"``. The result
        is read with :meth:`last`."""
        try:
            agent = self.agent_selection
        except AttributeError:  # not reset yet (a try costs nothing until it catches)
            raise self._order_error("step") from None
        if agent != self._acting:  # the game is over: agent_selection is a dead agent
            self._dead_step(agent, action)
            return
        legal = self._legal if self._legal is not None else self.legal_actions()
        # the fast path: a plain int in the legal set; anything else (numpy integers,
        # and every non-integer, refused there) goes through checked_action
        if type(action) is not int or action not in legal:
            try:
                action = checked_action(action, agent, legal, self.game.action_name)
            except IllegalActionError as err:
                if not self._terminate_illegal:
                    raise
                self._end_by_illegal_action(agent, err)
                return
        self._cumulative_rewards[agent] = 0.0
        self.state_.apply_action(action)
        self.decisions += 1
        self._legal = None
        self._after_transition()
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_action(self, agent: str, err: IllegalActionError) -> None:
        """``illegal_action="terminate"``: the game ends at once, as PettingZoo's
        ``TerminateIllegalWrapper`` ends it: ``agent`` gets -1 and every other agent 0 for
        this step, every agent is terminated, and each agent's info names the offence."""
        self.illegal_end = offence(agent, err)
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = -1.0 if other == agent else 0.0
            self._cumulative_rewards[other] += self.rewards[other]
            self.terminations[other] = True
            self.infos[other] = {"terminated_by": "illegal_action",
                                 "illegal_action": dict(self.illegal_end)}
        self.agent_selection = self.agents[0]
        self._acting = None
        self._legal = []

    def _dead_step(self, agent: str, action) -> None:
        """PettingZoo's step of a done agent (``None`` only), or an OrderError once
        every agent is done."""
        if agent not in self.terminations:  # every agent is done and removed
            raise self._order_error("step")
        if action is not None:
            raise IllegalActionError(action, agent, [], reason=f"{agent} is done: the only "
                                     "valid action is None")
        self._was_dead_step(action)

    def _set_acting(self) -> None:
        """Note which agent decides now: the current player unless the game ended."""
        seat = self.state_.current_player()
        agent = self.possible_agents[seat] if seat != TERMINAL else None
        alive = agent is not None and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True))
        self._acting = agent if alive else None

    def _after_transition(self) -> None:
        """Set rewards, ends and the next agent after reset or a step (the rule:
        :func:`otrio.envs.core.rewards.settle`)."""
        paid, self._last_scores, seat, end = settle(
            self.state_, self._last_scores, self._dense, self._scale, self.decisions,
            self._max_decisions)
        rewards = self.rewards
        if paid is not None:
            cumulative = self._cumulative_rewards
            for agent, reward in zip(self.possible_agents, paid):
                rewards[agent] = reward
                cumulative[agent] += reward
        elif any(rewards.values()):
            for agent in rewards:
                rewards[agent] = 0.0
        if end is None:
            self.agent_selection = self._acting = self.possible_agents[seat]
            return
        if seat == TERMINAL:
            self.agent_selection = self.agents[0]
        else:  # the decision cap
            self.agent_selection = self.possible_agents[seat]
        ended = self.truncations if end == TRUNCATED else self.terminations
        for agent in self.agents:
            ended[agent] = True
        self._acting = None

    # ------------------------------------------------------------- full state
    @property
    def state_space(self) -> gymnasium.spaces.Box:
        """The space of :meth:`state`: one float32 vector, the same size at every player
        count of the game (its layout: the game's README)."""
        if self._state_space is None:
            self._state_space = self._full_state().space(self.config)
        return self._state_space

    def state(self) -> np.ndarray:
        """The full-information state (PettingZoo's ``state()``, for centralised
        critics): every seat's observation in seat order, then what no seat sees
        (:mod:`otrio.envs.core.full_state`). It is never part of any seat's observation."""
        if self.state_ is None:
            raise self._order_error("state")
        return self._full_state().vector(self.game, self.state_, self._obs_scratch)

    def _full_state(self):
        full = self.game.full_state
        if full is None:
            raise OtrioError(f"{self.game.info.env_id} has no full-state layout")
        return full

    # ----------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        """The table: text (``"ansi"``), an ``H x W x 3`` uint8 picture
        (``"rgb_array"``, see :meth:`Game.picture`), or for ``"human"`` that picture in a
        window updated in place where a display exists (:mod:`otrio.envs.core.window`), else
        the text printed. Drawn for the config's ``render_viewer``: None (the default)
        draws the whole table, hidden information included; a seat draws only what that
        seat knows."""
        if self.state_ is None:
            raise self._order_error("render")
        viewer = self.config.render_viewer
        if self.render_mode == "rgb_array":
            return self.game.picture(self.state_, viewer).to_rgb()
        if self.render_mode == "human" and self._show_in_window():
            return None
        text = (self.game.render(self.state_) if viewer is None
                else self.game.render_for(self.state_, viewer))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_for_seat(self, agent: str | None = None) -> str:
        """The text picture of the table as ``agent`` (default: the acting one) sees it."""
        if self.state_ is None:
            raise self._order_error("render_for_seat")
        agent = self.agent_selection if agent is None else agent
        return self.game.render_for(self.state_, self._seat_of[agent])

    def _show_in_window(self) -> bool:
        """Show the picture in the ``"human"`` window; False where no display exists
        (decided at the first render) or the window could not be opened."""
        if self._window is None:
            self._window = (window.TableWindow(self.game.info.env_id)
                            if window.display_available() else False)
        if not self._window:
            return False
        picture = self.game.picture(self.state_, self.config.render_viewer).to_rgb()
        try:
            self._window.show(picture)
        except Exception as err:  # a GUI toolkit that cannot reach its display
            warnings.warn(f"render_mode='human': no window ({type(err).__name__}: {err}); "
                          "printing the text picture instead", RuntimeWarning, stacklevel=3)
            self._window.close()
            self._window = False
            return False
        return True

    def close(self) -> None:
        """Close the ``"human"`` window if one is open."""
        if self._window:
            self._window.close()


def live_turns(env) -> Iterator[tuple[str, dict[str, Any]]]:
    """The game loop: each live decision of ``env`` (already reset), in turn, as
    ``(agent name, observation)``; the caller steps the env with its action before taking
    the next. The steps after the end (``step(None)`` for each finished agent) are taken
    here. Every runner that seats agents plays through this loop (the arena's
    :func:`~otrio.arena.play.play_seated`, imitation data, the search and speed
    measurements); the API checkers, which record the steps after the end too, and the
    throughput bench, whose loop is the measurement, keep their own."""
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield agent, obs


__all__ = ["BoardGameEnv", "MaskCache", "TERMINAL", "live_turns"]
