"""Replaying recorded games exactly: a record keeps its env, config, seed and actions.

Every game that :func:`otrio.arena.games.play_game` plays (tournaments, balance sweeps)
writes a ``replay`` field into its record::

    "replay": {"format": 1, "env_id": "oceanos_v0", "config": {"num_players": 2},
               "width": 1, "actions": "NNxAB..."}

``seed`` stays the record's own field. The actions are the ids of every decision in
order, each written as ``width`` base-64 digits (``A-Z a-z 0-9 - _``, most significant
first; one digit while a game has at most 64 actions, two up to 4096), so a game of
300 decisions costs 300 or 600 characters. :func:`replay_record` re-runs the engine
from ``(env_id, config, seed)``, checks that every action is legal for the seat to act,
and that the game ends where the record says, with its scores, winners, length and
summary; any difference raises :class:`ReplayError` naming the step that diverged.
Records written before this field existed still load for reports, but cannot be
replayed (a :class:`ReplayError` says so).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from otrio import envs
from otrio.arena.stats import ranks
from otrio.envs.core.errors import ConfigError, StateError

REPLAY_FORMAT = 1
DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_VALUE = {c: i for i, c in enumerate(DIGITS)}


class ReplayError(StateError):
    """A record cannot be replayed, or its replay does not reach what it recorded.

    ``step`` is the index (from 0) of the decision that diverged, or None when the
    record itself is unusable (no replay field, a bad encoding, another env).
    """

    def __init__(self, message: str, step: int | None = None):
        super().__init__(message)
        self.step = step


def action_width(num_actions: int) -> int:
    """Base-64 digits per action id for a game of ``num_actions`` actions."""
    width, reach = 1, len(DIGITS)
    while reach < num_actions:
        width, reach = width + 1, reach * len(DIGITS)
    return width


def encode_actions(actions: list[int], width: int) -> str:
    """``actions`` as ``width`` base-64 digits each (see the module docstring)."""
    base = len(DIGITS)
    out = []
    for action in actions:
        value = int(action)
        if not 0 <= value < base ** width:
            raise ValueError(f"action {value} does not fit {width} base-64 digit(s)")
        out.append("".join(DIGITS[(value // base ** k) % base] for k in range(width - 1, -1, -1)))
    return "".join(out)


def decode_actions(text: str, width: int) -> list[int]:
    """The action ids that :func:`encode_actions` wrote (ReplayError on bad text)."""
    if not isinstance(text, str) or not isinstance(width, int) or width < 1:
        raise ReplayError(f"corrupt replay: actions must be a string and width a whole "
                          f"number >= 1, got {type(text).__name__} and {width!r}")
    if len(text) % width:
        raise ReplayError(f"corrupt replay: {len(text)} action digits are not a multiple of "
                          f"the width {width}")
    actions = []
    for start in range(0, len(text), width):
        value = 0
        for char in text[start:start + width]:
            if char not in _VALUE:
                raise ReplayError(f"corrupt replay: action {start // width} holds {char!r}, "
                                  "not a base-64 digit", step=start // width)
            value = value * len(DIGITS) + _VALUE[char]
        actions.append(value)
    return actions


def replay_field(env_id: str, config: dict[str, Any], num_actions: int,
                 actions: list[int]) -> dict[str, Any]:
    """The ``replay`` field of a record: what replays its game with the record's seed."""
    width = action_width(num_actions)
    return {"format": REPLAY_FORMAT, "env_id": env_id, "config": dict(config),
            "width": width, "actions": encode_actions(actions, width)}


def record_actions(record: dict[str, Any]) -> tuple[str, dict[str, Any], int, list[int]]:
    """``(env_id, config, seed, actions)`` of a record, or ReplayError if it has none."""
    game = record.get("game", "?")
    replay = record.get("replay")
    if replay is None:
        raise ReplayError(f"game {game} has no 'replay' field: it was recorded before records "
                          "kept their actions (or by a study that keeps none, as search-bench); "
                          "it still counts in reports but cannot be replayed (a tournament or "
                          "balance run of this version records replayable games)")
    if not isinstance(replay, dict) or replay.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"game {game}: its replay field is not format {REPLAY_FORMAT}")
    env_id, config, seed = replay.get("env_id"), replay.get("config"), record.get("seed")
    if not isinstance(env_id, str) or not isinstance(config, dict):
        raise ReplayError(f"game {game}: corrupt replay field (env_id must be a string and "
                          "config a mapping)")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ReplayError(f"game {game}: the record's seed {seed!r} is not a whole number >= 0")
    return env_id, config, seed, decode_actions(replay.get("actions"), replay.get("width"))


Visit = Callable[[int, Any, "int | None"], None]


def replay_record(record: dict[str, Any], visit: Visit | None = None):
    """Re-play a record's game and check that it reaches what the record says.

    ``visit(step, env, action)`` is called at every decision before its action is
    played (``step`` counts from 0) and once at the end with ``action`` None. Returns
    the env at the end. Raises :class:`ReplayError` naming the step that diverged: an
    action that is not legal there, actions left over after the end or missing before
    it, or a final result (scores, winners, decisions, truncation, summary) that is not
    the recorded one.
    """

    env_id, config, seed, actions = record_actions(record)
    game = record.get("game", "?")
    try:
        env = envs.make(env_id, **config)
    except (ConfigError, KeyError, ValueError) as err:
        raise ReplayError(f"game {game}: cannot build {env_id!r} with {config}: {err}") from None
    game_def = env.unwrapped.game
    env.reset(seed=seed)
    for step, action in enumerate(actions):
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            raise ReplayError(f"game {game} diverged at step {step}: the game is already over "
                              f"but the record has {len(actions) - step} more action(s)", step)
        agent = env.agent_selection
        legal = env.unwrapped.legal_actions()
        if action not in legal:  # checked here whatever the env's illegal_action policy
            shown = ", ".join(f"{a}={_name(game_def, a)}" for a in legal)
            raise ReplayError(f"game {game} diverged at step {step}: action {action} "
                              f"({_name(game_def, action)}) is not legal for {agent}; legal "
                              f"actions: {shown}", step)
        if visit is not None:
            visit(step, env, action)
        env.step(action)
    _, _, term, trunc, _ = env.last(observe=False)
    if not (term or trunc):
        raise ReplayError(f"game {game} diverged at step {len(actions)}: the record's actions "
                          f"end there but the game goes on ({env.agent_selection} to act)",
                          len(actions))
    if visit is not None:
        visit(len(actions), env, None)
    _check_result(record, env, len(actions))
    return env


def _name(game_def, action: int) -> str:
    try:
        return game_def.action_name(action)
    except (IndexError, KeyError, ValueError, TypeError):
        return "no such action"


def final_result(env) -> dict[str, Any]:
    """What a record says of a finished game, computed from the env at its end."""

    state = env.unwrapped.state_
    truncated = not state.is_terminal()
    scores = list(state.scores())
    winners = [] if truncated else list(state.winners())
    result = {"scores": scores, "winners": winners, "ranks": ranks(scores, winners),
              "decisions": env.unwrapped.decisions, "truncated": truncated}
    summary = env.unwrapped.game.game_summary(state)
    if summary:
        result["summary"] = json.loads(json.dumps(summary))  # as a record reads back
    return result


def _check_result(record: dict[str, Any], env, steps: int) -> None:
    game = record.get("game", "?")
    replayed = final_result(env)
    for key, value in replayed.items():
        if key in record and record[key] != value:
            raise ReplayError(f"game {game} diverged at its end (step {steps}): the replay "
                              f"gives {key} = {value}, the record says {record[key]}", steps)


__all__ = ["ReplayError", "replay_record", "record_actions", "replay_field", "final_result",
           "encode_actions", "decode_actions", "action_width"]
