"""Teacher games for distillation: records of what a search learned at each decision,
and the arrays a network trains on.

**A teacher game** (:func:`teacher_game`) is a seeded game with the teacher in every
seat, or (DAgger) with a ``player`` in every seat whose decisions the teacher labels
without playing them: the teacher is asked at each of the player's positions, and the
player's move is played. Its record is plain JSON, one line of the round's
``games.jsonl``:

- ``game``, ``seed``, ``num_players``, ``teacher`` (the spec), ``player`` (the player's
  spec, in a DAgger game only), ``scores``, ``winners``, ``truncated``, ``decisions``,
  ``wall_time``;
- ``replay``: the env, config and every action (:mod:`otrio.arena.replay`), which replays
  the game exactly;
- ``labels``: one ``[step, seat, candidates, values]`` per decision with more than one
  legal action: the root candidates the search compared and each one's mean value to
  the acting seat (``values`` null where one candidate was left and played unsearched;
  a teacher that does not search labels the move it chose). In a teacher's own game the
  move played is among its candidates; in a DAgger game it is the player's, which the
  teacher may not have chosen.

A resumed round checks the records already in its folder against its tasks
(:func:`teacher_schema`, applied by :mod:`otrio.arena.records`) before it counts them.
Before a network learns from them, :func:`audit` checks every label against the move
played (listed among its candidates; valued highest where the teacher plays its best
value) and plays one game in :data:`AUDIT_EVERY` again with its teacher, which must
give the same record: labels are verified as game records are, by re-playing them.

No observation is stored: :func:`examples` re-plays each record (checking every action
and the recorded result, so a record that was tampered with is refused) and takes the
acting seat's observation at each labelled step. A game's data depends only on its task
(the seed and the teacher), so 1 worker, N workers and Ray write the same records.

**Targets.** The policy target of a labelled decision is ``softmax(values /
temperature)`` over its candidates (every other action 0; temperature 0: the best
candidate alone; an unsearched decision: its one candidate). With ``overrule`` (a value
margin) the target is one action instead: the teacher's first candidate -- its prior's
favourite, greedy's for a search ranked by greedy -- unless another candidate's value
beats it by more than ``overrule``, then the best one; a student so taught keeps the
prior's move where the teacher is close to indifferent and learns the teacher's clear
departures from it. The value target is the
acting seat's value of the finished game as the search scores a game's end
(:func:`otrio.agents.mcts.outcome_values`: +1 a winner, -1 the others, plus ``margin`` times
the squashed score margin), mixed with ``value_mix`` of the search's own estimate of the
position where it searched (its best candidate's mean value): one game's outcome is a
single noisy draw shared by all of its ~80 positions, the search's estimate a mean of
many played-out futures of that position.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import Field, ValidationInfo, model_validator
from tqdm import tqdm

from otrio import agents, envs
from otrio.agents.hints import hint_size, make_hints
from otrio.agents.mcts import MCTSAgent, outcome_values, squashed_margins
from otrio.arena.play import GameTask, env_and_agents, outcome, play_task
from otrio.arena.records import Fields, RecordModel, RecordSchema, ReplayField, plain
from otrio.arena.replay import (
    REPLAY_FORMAT,
    ReplayError,
    record_actions,
    replay_field,
    replay_record,
)
from otrio.envs.core.aec import live_turns
from otrio.envs.core.errors import StateError
from otrio.envs.core.rng import derive_seed

# the most rows one call of examples() allocates: 2 GB of Oceanos observations
MAX_EXAMPLES = 200_000
# one teacher game in AUDIT_EVERY (at least one a fit) is played again before a network
# learns from its round's games: about 6% more teacher compute per fit
AUDIT_EVERY = 16


@dataclass(frozen=True)
class TeacherTask:
    """One teacher game: which env and config, the teacher's spec, and its seed."""

    game: int  # index of the game in its round
    env_id: str
    config: dict[str, Any]  # the game config, num_players included
    teacher: str
    seed: int
    player: str | None = None  # DAgger: who plays; the teacher labels its positions


def teacher_game(task: TeacherTask) -> dict[str, Any]:
    """Play ``task`` with the teacher in every seat (or the player, the teacher labelling
    its positions) and return its record (see the module docstring)."""
    if task.player is not None:
        return _labelled_game(task)

    start = time.perf_counter()
    n = int(task.config["num_players"])
    game_task = GameTask(game=task.game, env_id=task.env_id, config=dict(task.config),
                         seating=("teacher",) * n, specs={"teacher": task.teacher}, seed=task.seed)
    env, seat_agents = env_and_agents(game_task)  # the objects play_task seats (cached)
    seats = {agent: k for k, agent in enumerate(env.possible_agents)}
    actions: list[int] = []
    labels: list[list] = []

    def record(agent: str, action: int) -> None:
        step = len(actions)
        actions.append(int(action))
        if len(env.unwrapped.legal_actions()) < 2:
            return
        seat = seats[agent]
        stats = getattr(seat_agents[seat], "last_search", None)
        if stats is None:  # a teacher that does not search: the move it played
            labels.append([step, seat, [int(action)], None])
        else:
            values = None if stats.values is None else [round(v, 4) for v in stats.values]
            labels.append([step, seat, [int(a) for a in stats.candidates], values])

    env, decisions = play_task(game_task, on_action=record)
    scores, winners, truncated = outcome(env.unwrapped.state_)
    return {
        "game": task.game, "seed": task.seed, "num_players": n, "teacher": task.teacher,
        "scores": scores, "winners": winners, "truncated": truncated, "decisions": decisions,
        "labels": labels,
        "replay": replay_field(task.env_id, task.config, env.unwrapped.game.info.num_actions,
                               actions),
        "wall_time": round(time.perf_counter() - start, 3),
    }


def _labelled_game(task: TeacherTask) -> dict[str, Any]:
    """A DAgger game: the player in every seat plays; at each decision with a choice the
    seat's teacher (its own agent, seeded apart from the player's) is asked at the same
    position and its search statistics are the label. Deterministic in the task, as a
    teacher's own game is."""
    start = time.perf_counter()
    n = int(task.config["num_players"])
    play = GameTask(game=task.game, env_id=task.env_id, config=dict(task.config),
                    seating=("player",) * n, specs={"player": task.player}, seed=task.seed)
    teach = GameTask(game=task.game, env_id=task.env_id, config=dict(task.config),
                     seating=("teacher",) * n, specs={"teacher": task.teacher}, seed=task.seed)
    env, players = env_and_agents(play)
    _, teachers = env_and_agents(teach)  # the same env object (cached by game and config)
    for seat in range(n):
        players[seat].reset(derive_seed(task.seed, "agent", seat))
        teachers[seat].reset(derive_seed(task.seed, "teacher", seat))
    env.reset(seed=task.seed)
    seats = {agent: k for k, agent in enumerate(env.possible_agents)}
    actions: list[int] = []
    labels: list[list] = []
    for agent, obs in live_turns(env):
        seat = seats[agent]
        if int(obs["action_mask"].sum()) >= 2:
            chosen = int(teachers[seat].act(obs))
            stats = getattr(teachers[seat], "last_search", None)
            if stats is None:  # a teacher that does not search: the move it would play
                labels.append([len(actions), seat, [chosen], None])
            else:
                values = None if stats.values is None else [round(v, 4) for v in stats.values]
                labels.append([len(actions), seat, [int(a) for a in stats.candidates], values])
        action = int(players[seat].act(obs))
        actions.append(action)
        env.step(action)
    scores, winners, truncated = outcome(env.unwrapped.state_)
    return {
        "game": task.game, "seed": task.seed, "num_players": n, "teacher": task.teacher,
        "player": task.player, "scores": scores, "winners": winners, "truncated": truncated,
        "decisions": len(actions), "labels": labels,
        "replay": replay_field(task.env_id, task.config, env.unwrapped.game.info.num_actions,
                               actions),
        "wall_time": round(time.perf_counter() - start, 3),
    }


class TeacherRecord(RecordModel):
    """What :func:`teacher_game` writes, as the reader of a round's folder checks it
    (:mod:`otrio.arena.records`): one score a seat, winners distinct seats (none in a
    truncated game), labels as :func:`check_labels` wants them (each of a seat at the
    table and a step of the game), and the actions kept.
    The round fixes each game's seed, player count, teacher and replay config
    (:func:`teacher_schema`)."""

    game: int = Field(ge=0)
    seed: int = Field(ge=0)
    num_players: int = Field(ge=1)
    teacher: str
    player: str = None  # type: ignore[assignment]  # optional (DAgger games), never null
    scores: list[float]
    winners: list[int]
    truncated: bool
    decisions: int = Field(ge=0)
    labels: list[list[Any]]
    replay: ReplayField
    wall_time: float = Field(ge=0)

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo):
        n = self.num_players
        if len(self.scores) != n:
            raise ValueError(f"{len(self.scores)} scores for {n} players")
        if len(set(self.winners)) != len(self.winners) or not all(
                0 <= w < n for w in self.winners):
            raise ValueError(f"winners {self.winners} are not distinct seats 0..{n - 1}")
        if self.truncated and self.winners:
            raise ValueError("a truncated game has no winners")
        num_actions = (info.context or {}).get("num_actions")
        if num_actions is not None:
            try:
                check_labels({"game": self.game, "labels": self.labels}, num_actions)
            except StateError as err:
                raise ValueError(str(err)) from None
            for k, (step, seat, _, _) in enumerate(self.labels):  # shapes checked above
                if not (0 <= seat < n and 0 <= step < max(self.decisions, 1)):
                    raise ValueError(f"label {k} is of seat {seat} at step {step}, outside "
                                     f"{n} seats and {self.decisions} decisions")
        return self


def teacher_schema(tasks: list[TeacherTask], num_actions: int) -> RecordSchema:
    """What a record of a round of teacher games is: a :class:`TeacherRecord` of one of
    its tasks, with that task's seed, player count, teacher and replay config."""
    games = {(t.game,): {"game": t.game, "seed": t.seed,
                         "num_players": int(t.config["num_players"]), "teacher": t.teacher,
                         **({} if t.player is None else {"player": t.player}),
                         "replay": Fields(format=REPLAY_FORMAT, env_id=t.env_id,
                                          config=plain(t.config))}
             for t in tasks}
    return RecordSchema(name="teacher game record", model=TeacherRecord, unique_by=("game",),
                        games=games, context={"num_actions": num_actions}, replay=True)


@dataclass
class Examples:
    """Training rows: the acting seat's observation, its legal mask, the policy target
    (a distribution over actions) and the value target; the game each came from."""

    observations: np.ndarray  # (N, observation_size) float32
    masks: np.ndarray  # (N, num_actions) bool
    policy: np.ndarray  # (N, num_actions) float32, each row sums to 1
    value: np.ndarray  # (N,) float32
    game_index: np.ndarray  # (N,) int64: position of the record in the list given

    def __len__(self) -> int:
        return len(self.value)

    def subset(self, keep: np.ndarray) -> Examples:
        """The rows where ``keep`` is True (or at the indices ``keep`` lists)."""
        return Examples(self.observations[keep], self.masks[keep], self.policy[keep],
                        self.value[keep], self.game_index[keep])

    @staticmethod
    def concatenate(parts: list[Examples]) -> Examples:
        """The rows of every part, in order (game indices made distinct)."""
        offset, indices = 0, []
        for part in parts:
            indices.append(part.game_index + offset)
            offset += int(part.game_index.max()) + 1 if len(part) else 0
        return Examples(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                          ("observations", "masks", "policy", "value")),
                        np.concatenate(indices) if indices else np.zeros(0, np.int64))


def policy_target(candidates: list[int], values: list[float] | None, num_actions: int,
                  temperature: float, overrule: float | None = None) -> np.ndarray:
    """The policy target of one labelled decision (see the module docstring)."""
    target = np.zeros(num_actions, np.float32)
    if values is None or len(candidates) == 1:
        target[candidates[0]] = 1.0
        return target
    v = np.asarray(values, np.float64)
    if overrule is not None:
        best = int(np.argmax(v))  # ties: the earlier candidate
        target[candidates[best] if v[best] > v[0] + overrule else candidates[0]] = 1.0
        return target
    if temperature <= 0:
        target[candidates[int(np.argmax(v))]] = 1.0  # ties: the earlier candidate, as played
        return target
    w = np.exp((v - v.max()) / temperature)
    target[candidates] = w / w.sum()
    return target


def check_labels(record: dict[str, Any], num_actions: int) -> list[list]:
    """The labels of a record, each checked for shape and range; StateError naming the
    record and the label for anything else."""
    game = record.get("game", "?")
    labels = record.get("labels")
    if not isinstance(labels, list):
        raise StateError(f"teacher game {game}: labels must be a list")
    last = -1
    for k, label in enumerate(labels):
        bad = f"teacher game {game}: label {k} "
        if not (isinstance(label, list) and len(label) == 4):
            raise StateError(bad + "is not [step, seat, candidates, values]")
        step, seat, candidates, values = label
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (step, seat)):
            raise StateError(bad + "has a step or seat that is not an integer")
        if step <= last:
            raise StateError(bad + f"repeats or goes back to step {step}")
        last = step
        if (not isinstance(candidates, list) or not candidates
                or len(candidates) > num_actions
                or not all(isinstance(a, int) and not isinstance(a, bool) and 0 <= a < num_actions
                           for a in candidates)
                or len(set(candidates)) != len(candidates)):
            raise StateError(bad + f"has candidates that are not distinct action ids "
                             f"0..{num_actions - 1}")
        if values is not None and (
                not isinstance(values, list) or len(values) != len(candidates)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           and math.isfinite(v) and abs(v) <= 10 for v in values)):
            raise StateError(bad + "has values that are not one finite number (|v| <= 10) "
                             "per candidate")
    return labels


def plays_best_value(spec: str, env) -> bool:
    """Whether the teacher ``spec`` plays, at every decision it labels, the candidate of
    highest mean value (a flat search with common random numbers, ``crn=1``: see
    :mod:`otrio.agents.mcts`); a tree search plays its most visited candidate instead."""

    agent = agents.make(spec, env)
    return isinstance(agent, MCTSAgent) and bool(agent.options.crn)


def check_played(record: dict[str, Any], best_value: bool) -> None:
    """Each label of ``record`` names the move played at its step among its candidates
    and, when the teacher plays its best-valued candidate (``best_value``), gives that
    move the highest value (values are rounded to 4 places, which keeps the order): a
    label edited against the teacher's move is a StateError naming it."""

    if record.get("player") is not None:  # DAgger: the move played is the player's
        return
    actions = record_actions(record)[3]
    game = record.get("game", "?")
    for k, (step, _, candidates, values) in enumerate(record["labels"]):
        if step >= len(actions) or actions[step] not in candidates:
            raise StateError(f"teacher game {game}: label {k} (step {step}) does not list the "
                             "move played there among its candidates")
        if best_value and values is not None and \
                values[candidates.index(actions[step])] < max(values):
            raise StateError(f"teacher game {game}: label {k} (step {step}) values another "
                             "candidate above the move played, but the teacher plays its best "
                             "candidate: these are not the teacher's labels")


def audit(records: list[dict[str, Any]], every: int | None = None, rng=None) -> int:
    """Check teacher-game records before they are learned from: every label against the
    move played (:func:`check_played`), and one record in ``every`` (default
    :data:`AUDIT_EVERY`; at least one; drawn
    afresh each call) played again with its teacher from its seed, which must give the
    same record, labels and search values included (the teacher games are deterministic:
    see :func:`teacher_game`). Returns how many were played again. A StateError names
    the first record that fails."""
    if not records:
        return 0
    best: dict[tuple, bool] = {}
    for record in records:
        replay = record["replay"]
        key = (record["teacher"], replay["env_id"], json_key(replay["config"]))
        if key not in best:
            best[key] = plays_best_value(record["teacher"],
                                         envs.make(replay["env_id"], **replay["config"]))
        check_played(record, best[key])
    rng = rng or random.SystemRandom()
    every = max(AUDIT_EVERY if every is None else every, 1)
    chosen = rng.sample(records, max(1, -(-len(records) // every)))
    for record in chosen:
        replay = record["replay"]
        task = TeacherTask(game=record["game"], env_id=replay["env_id"],
                           config=dict(replay["config"]), teacher=record["teacher"],
                           seed=record["seed"], player=record.get("player"))
        again = teacher_game(task)
        if {k: v for k, v in again.items() if k != "wall_time"} != \
                {k: v for k, v in record.items() if k != "wall_time"}:
            differs = sorted(k for k in again if k != "wall_time" and again[k] != record.get(k))
            raise StateError(f"teacher game {record['game']} of {record['teacher']!r}: played "
                             f"again from its seed, the teacher gives another record (its "
                             f"{', '.join(differs)} differ): the record is not the teacher's")
    return len(chosen)


def json_key(value: Any) -> str:
    """A hashable key of a JSON value (its sorted dump)."""

    return json.dumps(value, sort_keys=True)


def examples(records: list[dict[str, Any]], temperature: float, margin: float,
             progress: bool = False, value_mix: float = 0.0,
             hints: str | None = None, overrule: float | None = None) -> Examples:
    """The training rows of teacher-game records (see the module docstring): each
    record is re-played and checked (:func:`otrio.arena.replay.replay_record`); a label whose
    seat is not the one to act or whose candidates are not legal there is refused.
    ``hints`` (``"greedy"``): each row's observation carries greedy's hints of it
    (:mod:`otrio.agents.hints`), as a network of that kind reads it when it plays."""
    if not records:
        raise StateError("no teacher games to learn from")

    env_id, config, _, _ = record_actions(records[0])
    info = envs.make(env_id, **config).unwrapped.game.info
    size, num_actions, scale = info.observation_size, info.num_actions, float(info.score_scale)
    if hints is not None:
        size += hint_size(num_actions)
    counted = [check_labels(r, num_actions) for r in records]
    total = sum(len(labels) for labels in counted)
    if total > MAX_EXAMPLES:
        raise StateError(f"{total:,} labelled decisions exceed the {MAX_EXAMPLES:,} rows one "
                         "training set may hold; train on fewer rounds (distill.window)")
    obs = np.zeros((total, size), np.float32)
    masks = np.zeros((total, num_actions), bool)
    policy = np.zeros((total, num_actions), np.float32)
    value = np.zeros(total, np.float32)
    game_index = np.zeros(total, np.int64)
    row = 0
    for g, (record, labels) in enumerate(tqdm(list(zip(records, counted)), unit="game",
                                              desc="re-playing teacher games",
                                              disable=not progress)):
        rid, _, _, _ = record_actions(record)
        if rid != env_id:
            raise StateError(f"teacher game {record.get('game')} is a game of {rid}, "
                             f"not {env_id}")
        by_step = {label[0]: label for label in labels}
        dagger = record.get("player") is not None  # the move played is the player's
        hinter = {}  # the game's hints, made with its env (greedy reads the game's config)

        def visit(step, env, action, by_step=by_step, record=record, g=g, hinter=hinter,
                  dagger=dagger):
            nonlocal row
            label = by_step.get(step)
            if label is None:
                return
            _, seat, candidates, values = label
            agent = env.agent_selection
            if env.possible_agents.index(agent) != seat:
                raise ReplayError(f"teacher game {record.get('game')}: label at step {step} "
                                  f"names seat {seat}, but {agent} is to act", step)
            seen = env.observe(agent)
            legal = seen["action_mask"].astype(bool)
            if not legal[candidates].all() or (action not in candidates and not dagger):
                raise ReplayError(f"teacher game {record.get('game')}: label at step {step} "
                                  "names a candidate that is not legal there, or not the "
                                  "move played", step)
            if hints is None:
                obs[row] = seen["observation"]
            else:
                if "hints" not in hinter:
                    hinter["hints"] = make_hints(hints, env)
                    hinter["hints"].reset(None)
                obs[row] = hinter["hints"].hinted(seen)
            masks[row] = legal
            policy[row] = policy_target(candidates, values, num_actions, temperature, overrule)
            game_index[row] = g
            row += 1

        start = row
        replay_record(record, visit)
        if row - start != len(labels):
            raise StateError(f"teacher game {record.get('game')}: {len(labels)} labels, "
                             f"{row - start} of them at steps the game has")
        n = int(record["num_players"]) if isinstance(record.get("num_players"), int) else None
        scores, winners = record["scores"], record["winners"]
        if n is None or len(scores) != n:
            raise StateError(f"teacher game {record.get('game')}: num_players does not match "
                             "its scores")
        seat_values = (squashed_margins(scores, scale) if record.get("truncated")
                       else outcome_values(scores, winners, scale, margin))
        for k, label in zip(range(start, row), labels):
            target = seat_values[label[1]]
            if value_mix and label[3] is not None:  # the search's own value of the position
                target = (1 - value_mix) * target + value_mix * max(label[3])
            value[k] = target
    return Examples(obs, masks, policy, value, game_index)


__all__ = ["AUDIT_EVERY", "Examples", "MAX_EXAMPLES", "TeacherTask", "audit", "check_labels",
           "check_played", "examples", "plays_best_value",
           "policy_target", "teacher_game"]
