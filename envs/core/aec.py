"""The shared PettingZoo AEC adapter: any :class:`~envs.core.game.Game` becomes an env.

The guarantees that PettingZoo's generic wrappers give (order enforcement, action
bounds, illegal moves) are checked here cheaply, so that ``env()`` is both safe and
fast (PettingZoo's generic wrappers cost most of a light env's step rate): only an
integer in the legal set is an action (``True``, ``0.9`` or ``"1"`` are refused, not
converted), and ``step``, ``last``, ``observe`` or ``agent_iter`` before ``reset()``, or
after every agent is done, raise :class:`~envs.core.errors.OrderError`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from . import window
from .config import validate
from .errors import (
    ConfigError,
    IllegalActionError,
    OrderError,
    OtrioError,
    StateError,
    checked_action,
    is_integer_action,
)
from .game import TERMINAL, Game
from .rewards import TERMINATED, TRUNCATED, settle
from .rng import make_rng

SAVE_FORMAT = 1
MASK_CACHE_SIZE = 4096  # distinct legal sets whose masks an env keeps (then starts over)


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


class BoardGameEnv(AECEnv):
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
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    low=-np.inf, high=np.inf, shape=(info.observation_size,), dtype=np.float32
                ),
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
        self._max_decisions = info.max_decisions
        self._terminate_illegal = self.config.illegal_action == "terminate"
        self.illegal_end: dict[str, Any] | None = None  # why an illegal action ended the game

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; the same seed gives the same game."""
        rng = make_rng(seed)
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
            self._legal = [] if self.state_.is_terminal() else self.state_.legal_actions()
        return self._legal

    def action_name(self, action: int) -> str:
        """Readable name of an action id."""
        return self.game.action_name(action)

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
        action = int(err.action) if is_integer_action(err.action) else _show(err.action)
        self.illegal_end = {"agent": agent, "action": action, "legal": list(err.legal)}
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
        :func:`envs.core.rewards.settle`)."""
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
        return self._full_state().space

    def state(self) -> np.ndarray:
        """The full-information state (PettingZoo's ``state()``, for centralised
        critics): every seat's observation in seat order, then what no seat sees
        (:mod:`envs.core.full_state`). It is never part of any seat's observation."""
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
        """The whole table: text (``"ansi"``), an ``H x W x 3`` uint8 picture
        (``"rgb_array"``, see :meth:`Game.picture`), or for ``"human"`` that picture in a
        window updated in place where a display exists (:mod:`envs.core.window`), else
        the text printed."""
        if self.state_ is None:
            raise OtrioError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self.game.picture(self.state_).to_rgb()
        if self.render_mode == "human" and self._show_in_window():
            return None
        text = self.game.render(self.state_)
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
        picture = self.game.picture(self.state_).to_rgb()
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

    # ---------------------------------------------------------- save and load
    def save_state(self) -> dict[str, Any]:
        """The whole env (game state, generator, reward bookkeeping) as a JSON-able dict."""
        return {
            "format": SAVE_FORMAT,
            "env_id": self.game.info.env_id,
            "config": self.config.model_dump(mode="json"),
            "state": self.state_.to_dict(),
            "decisions": self.decisions,
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "cumulative_rewards": dict(self._cumulative_rewards),
            "rewards": dict(self.rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "last_scores": list(self._last_scores),
            "illegal_end": self.illegal_end,
        }

    def load_state(self, saved: dict[str, Any]) -> None:
        """Restore an env saved by :meth:`save_state`; the game continues exactly.

        Everything is checked before anything changes: the game state by its game
        (shape and the invariants of reachable positions, generator included), and the
        env's own fields (see :meth:`_checked_env_fields`). Bad data raises
        :class:`StateError` naming the field, and leaves the env as it was.
        """
        if not isinstance(saved, dict) or saved.get("format") != SAVE_FORMAT:
            raise StateError("not a saved otrio env state (missing or unknown 'format')")
        if saved.get("env_id") != self.game.info.env_id:
            raise StateError(
                f"saved state is for {saved.get('env_id')!r}, this env is {self.game.info.env_id!r}"
            )
        missing = [key for key in _SAVED_KEYS if key not in saved]
        if missing:
            raise StateError(f"corrupt saved state: no {', '.join(map(repr, missing))}")
        try:
            config = validate(self.game.config_model, saved["config"])
        except ConfigError as err:
            raise StateError(f"corrupt saved state: config: {err}") from None
        if config != self.config:
            raise StateError("saved state was made with another config; build the env with it")
        state = self.game.state_from_dict(saved["state"])
        fields = self._checked_env_fields(saved, state)
        self.state_ = state
        (self.decisions, self.agents, self.agent_selection, self._cumulative_rewards,
         self.rewards, self.terminations, self.truncations, self._last_scores) = fields[:-1]
        self.illegal_end = fields[-1]
        self.infos = {a: {} for a in self.agents}
        if self.illegal_end is not None:
            for agent in self.agents:
                self.infos[agent] = {"terminated_by": "illegal_action",
                                     "illegal_action": dict(self.illegal_end)}
        self._skip_agent_selection = None
        self._legal = None if self.illegal_end is None else []
        self._set_acting()

    def _checked_env_fields(self, saved: dict[str, Any], state) -> tuple:
        """The env's own saved fields, checked against each other and the game state.

        The state plays this env's config (its player count, its config but for
        ``dense_reward``, which only the env reads); ``decisions``
        is an integer in 0..max_decisions; ``agents`` are this env's agents in seat order,
        all of them until the game is done; rewards and cumulative rewards are finite
        numbers and terminations and truncations true/false, for exactly those agents;
        the agents are terminated or truncated exactly as the transition rule ends the
        saved state (:func:`_saved_end`: terminated when the game is over, truncated if it
        stopped at a configured cap or the decision cap is reached); until then
        ``agent_selection`` is the agent of the state's current player (after it, one of
        the agents left); ``last_scores`` are one finite number per seat (the state's
        scores with dense rewards, which pay their changes).
        """
        n, possible = self.num_players, self.possible_agents
        if state.num_players != n:
            raise StateError(f"corrupt saved state: state num_players = {state.num_players} "
                             f"disagrees with config num_players = {n}")
        inner = getattr(state, "config", None)  # its dense_reward is the env's business
        dense = {"dense_reward": self.config.dense_reward}
        if inner is not None and inner.model_copy(update=dense) != self.config:
            raise StateError("corrupt saved state: state config disagrees with config")
        decisions = saved["decisions"]
        limit = self._max_decisions
        if not _is_int(decisions) or not 0 <= decisions <= limit:
            raise StateError(f"corrupt saved state: decisions = {_show(decisions)} is not an "
                             f"integer in 0..{limit}")
        agents = saved["agents"]
        if (not isinstance(agents, list) or not all(isinstance(a, str) for a in agents)
                or agents != [a for a in possible if a in agents]):
            raise StateError(f"corrupt saved state: agents = {_show(agents)} are not this "
                             f"env's agents {possible} in seat order")
        tables = {}
        for key, is_value in (("cumulative_rewards", _is_finite), ("rewards", _is_finite),
                              ("terminations", _is_bool), ("truncations", _is_bool)):
            table = saved[key]
            if not isinstance(table, dict) or set(table) != set(agents):
                raise StateError(f"corrupt saved state: {key} is not a table of the agents "
                                 f"{agents}")
            for agent, value in table.items():
                if not is_value(value):
                    kind = "a finite number" if is_value is _is_finite else "true/false"
                    raise StateError(f"corrupt saved state: {key}[{agent!r}] = {_show(value)} "
                                     f"is not {kind}")
            tables[key] = {a: float(v) if is_value is _is_finite else v
                           for a, v in table.items()}
        illegal_end = _checked_illegal_end(saved.get("illegal_end"), possible,
                                           self._terminate_illegal)
        end = _saved_end(state, decisions, limit, illegal_end)
        done = end is not None
        for agent in agents:
            flags = (tables["terminations"][agent], tables["truncations"][agent])
            if flags != (end == TERMINATED, end == TRUNCATED):
                where = ("on" if end is None else f"over ({end})" if state.is_terminal()
                         or illegal_end is not None else f"at the decision cap ({end})")
                raise StateError(
                    f"corrupt saved state: terminations/truncations of {agent!r} = {flags}, "
                    f"but the game is {where}")
        if not done and agents != possible:
            raise StateError(f"corrupt saved state: agents = {agents}, but the game is on")
        selection = saved["agent_selection"]
        if not done:
            expected = possible[state.current_player()]
            if selection != expected:
                raise StateError(f"corrupt saved state: agent_selection = {_show(selection)}, "
                                 f"but {expected} (seat {state.current_player()}) is to act")
        elif selection not in (agents or possible):
            raise StateError(f"corrupt saved state: agent_selection = {_show(selection)} is "
                             f"none of the agents {agents or possible}")
        last_scores = saved["last_scores"]
        if (not isinstance(last_scores, list) or len(last_scores) != n
                or not all(map(_is_finite, last_scores))):
            raise StateError(f"corrupt saved state: last_scores = {_show(last_scores)} are not "
                             f"{n} finite numbers")
        if self._dense and list(last_scores) != list(state.scores()):
            raise StateError(f"corrupt saved state: last_scores = {last_scores} are not the "
                             f"state's scores {list(state.scores())} (dense rewards pay changes)")
        return (decisions, list(agents), selection, tables["cumulative_rewards"],
                tables["rewards"], tables["terminations"], tables["truncations"],
                list(last_scores), illegal_end)


def _saved_end(state, decisions: int, max_decisions: int,
               illegal_end: dict[str, Any] | None) -> str | None:
    """How a saved game stands: None while it goes on, else ``TERMINATED`` or
    ``TRUNCATED``, as :func:`envs.core.rewards.settle` (the one transition rule, read
    here without rewards) ends ``state`` after ``decisions``; an illegal action's end
    (``illegal_end``) terminates."""
    if illegal_end is not None:
        return TERMINATED
    return settle(state, [], False, 1.0, decisions, max_decisions)[3]


def _checked_illegal_end(value, possible: list[str], terminate: bool) -> dict[str, Any] | None:
    """A saved ``illegal_end`` (absent in saves made before it existed): None, or what
    :meth:`BoardGameEnv._end_by_illegal_action` recorded, in an env that terminates."""
    if value is None:
        return None
    if not terminate:
        raise StateError("corrupt saved state: illegal_end is set, but this env's "
                         "illegal_action is 'raise'")
    if (not isinstance(value, dict) or set(value) != {"agent", "action", "legal"}
            or value["agent"] not in possible or not isinstance(value["legal"], list)):
        raise StateError(f"corrupt saved state: illegal_end = {_show(value)} is not "
                         "{agent, action, legal} naming one of the agents")
    return {"agent": value["agent"], "action": value["action"], "legal": list(value["legal"])}


_SAVED_KEYS = ("config", "state", "decisions", "agents", "agent_selection",
               "cumulative_rewards", "rewards", "terminations", "truncations", "last_scores")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_bool(value) -> bool:
    return isinstance(value, bool)


def _is_finite(value) -> bool:
    """A real number (an int or float, not a bool) that is neither NaN nor infinite."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["BoardGameEnv", "MaskCache", "TERMINAL"]
