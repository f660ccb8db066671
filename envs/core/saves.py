"""Saving and loading a whole env: :class:`SaveLoad`, mixed into
:class:`~otrio.envs.core.aec.BoardGameEnv`.

A save is a JSON-able dict (the game state with its generator, and the env's own
reward bookkeeping). Loading checks everything before anything changes, so a corrupt
or tampered save raises :class:`~otrio.envs.core.errors.StateError` naming the field and
leaves the env as it was.
"""

from __future__ import annotations

import math
from typing import Any

from .bounded import check_nesting, short_repr
from .config import validate
from .errors import ConfigError, StateError
from .fields import MESSAGE_LIMIT, one_line
from .rewards import TERMINATED, TRUNCATED, settle

# the layout of a save; 2: the game states' fields declared by their schemas
# (otrio.envs.core.schema), which format 1's states do not follow
SAVE_FORMAT = 2
MAX_SAVE_DEPTH = 32  # lists and dicts inside each other (the games' saves use at most 7)
MAX_SAVE_NODES = 200_000  # values in one save (the games' saves hold at most ~2,500)
MAX_SAVE_TEXT = 1_000  # characters of one text or key in a save (the games' use at most 33)


class SaveLoad:
    """``save_state`` / ``load_state`` for :class:`~otrio.envs.core.aec.BoardGameEnv`."""

    def save_state(self) -> dict[str, Any]:
        """The whole env (game state, generator, reward bookkeeping) as a JSON-able dict
        (:class:`~otrio.envs.core.errors.OrderError` before ``reset()``: there is no game yet)."""
        if self.state_ is None:
            raise self._order_error("save_state")
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
        :class:`StateError` naming the field, and leaves the env as it was; a save nested
        deeper than :data:`MAX_SAVE_DEPTH`, holding more than :data:`MAX_SAVE_NODES`
        values or a text longer than :data:`MAX_SAVE_TEXT` is refused before anything
        reads it (never a ``RecursionError``, nor minutes spent on a huge value).
        """
        try:
            self._load_state(saved)
        except StateError as err:  # one line of readable length, whatever said it
            text = str(err)
            if "\n" in text or len(text) > MESSAGE_LIMIT:
                raise StateError(one_line(text)) from None
            raise

    def _load_state(self, saved: dict[str, Any]) -> None:
        """:meth:`load_state` less the shape of its message."""
        check_nesting(saved, "saved state", StateError, MAX_SAVE_DEPTH, MAX_SAVE_NODES,
                      MAX_SAVE_TEXT)
        if not isinstance(saved, dict) or "format" not in saved:
            raise StateError("not a saved otrio env state (no 'format')")
        if saved["format"] != SAVE_FORMAT:
            raise StateError(f"a save in format {show_value(saved['format'])}, not {SAVE_FORMAT}: "
                             "it was made by another version of otrio, whose saves this one "
                             "cannot load")
        if saved.get("env_id") != self.game.info.env_id:
            raise StateError(f"saved state is for env_id {show_value(saved.get('env_id'))}, "
                             f"this env is {self.game.info.env_id!r}")
        missing = [key for key in _SAVED_KEYS if key not in saved]
        if missing:
            raise StateError(f"corrupt saved state: no {', '.join(map(repr, missing))}")
        try:
            config = validate(self.game.config_model, saved["config"])
        except ConfigError as err:
            raise StateError(f"corrupt saved state: config: {err}") from None
        if config != self.config:
            raise StateError(f"saved state was made with another config (differs in "
                             f"{_config_changes(config, self.config)}); build the env with it")
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
            raise StateError(f"corrupt saved state: state.config disagrees with config (in "
                             f"{_config_changes(inner.model_copy(update=dense), self.config)})")
        decisions = saved["decisions"]
        limit = self._max_decisions
        if not _is_int(decisions) or not 0 <= decisions <= limit:
            raise StateError(f"corrupt saved state: decisions = {show_value(decisions)} is not an "
                             f"integer in 0..{limit}")
        agents = saved["agents"]
        if (not isinstance(agents, list) or not all(isinstance(a, str) for a in agents)
                or agents != [a for a in possible if a in agents]):
            raise StateError(f"corrupt saved state: agents = {show_value(agents)} are not this "
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
                    raise StateError(f"corrupt saved state: {key}[{agent!r}] = {show_value(value)} "
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
                raise StateError(f"corrupt saved state: agent_selection = {show_value(selection)}, "
                                 f"but {expected} (seat {state.current_player()}) is to act")
        elif selection not in (agents or possible):
            raise StateError(f"corrupt saved state: agent_selection = {show_value(selection)} is "
                             f"none of the agents {agents or possible}")
        last_scores = saved["last_scores"]
        if (not isinstance(last_scores, list) or len(last_scores) != n
                or not all(map(_is_finite, last_scores))):
            raise StateError(f"corrupt saved state: last_scores = {show_value(last_scores)} are not "
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
    ``TRUNCATED``, as :func:`otrio.envs.core.rewards.settle` (the one transition rule, read
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
        raise StateError(f"corrupt saved state: illegal_end = {show_value(value)} is not "
                         "{agent, action, legal} naming one of the agents")
    return {"agent": value["agent"], "action": value["action"], "legal": list(value["legal"])}


_SAVED_KEYS = ("config", "state", "decisions", "agents", "agent_selection",
               "cumulative_rewards", "rewards", "terminations", "truncations", "last_scores")


def _config_changes(one, other) -> str:
    """The keys in which two configs of a game differ (dotted where nested), for a
    message."""
    def flat(data, prefix=""):
        out = {}
        for key, value in data.items():
            if isinstance(value, dict):
                out.update(flat(value, f"{prefix}{key}."))
            else:
                out[f"{prefix}{key}"] = value
        return out

    a, b = flat(one.model_dump(mode="json")), flat(other.model_dump(mode="json"))
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
    return shown or "nothing shown"


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


def show_value(value) -> str:
    """``repr(value)``, cut to 60 characters for an error message (in bounded time:
    :func:`otrio.envs.core.bounded.short_repr`)."""
    return short_repr(value, 60)
