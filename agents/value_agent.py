"""The fast value agent: ``value:PATH[,top=K,margin=D,net=NET,worlds=W,depth=N,judge=J]``.

At a decision with a choice it takes greedy's ``top`` best moves (with ``net=NET``, an
exported network's: its favourite first, by its logits), plays each in one re-drawn
world (``Game.resample_hidden``: what the seat cannot see is drawn anew) and lets greedy
finish the seat's own turn after it, then asks the value model (PATH, an exported
:mod:`otrio.agents.value` model) for the seat's chance to win from its observation there.
Judging after the rest of the turn, not right after the move, matters: mid-turn
positions are ones the model saw only as passing states. Greedy's own favourite (or the
network's) is kept unless another candidate's chance is higher by more than ``margin``
(default 0.1), so the model overrules greedy only where it sees a clear difference: a
value fitted on greedy's games is exploited by an argmax over it, which finds the
positions where it is wrong.

- ``worlds=W``: each candidate's chance is the mean over ``W`` re-drawn worlds (every
  candidate played in the same worlds);
- ``depth=N``: greedy plays ``N`` more decisions (every seat's) after the seat's turn
  ends before the model judges;
- ``judge=``: which decisions are judged: ``all`` (the default) every one with a choice;
  ``turn`` only the first of each of the seat's turns (the first after another seat's
  decision, or the game's first), the rest of the turn taking the favourite; ``mixed``
  every one, with the ``depth`` look-ahead at the turn's first only.

The defaults (one world, no look-ahead) are the fast agent. Which options each game and
player count plays best, measured on fresh seeds with their cost a decision, is
``benchmarks/results/values/README.md`` (the levers table) and the agent table of
docs/agents.md; they are not repeated here.

All the candidates are judged in one batch forward; a decision costs ``top`` short
greedy turns a world and one small matrix product (about a millisecond in Otys at one
world).

It reads the true state only to hand it to ``resample_hidden`` and to the seat's view
(``Game.view``: what the seat may know), like the search, so it is honest by
construction (the agent contract, :mod:`otrio.agents.base`;
``tests/agents/test_agent_contract.py`` runs the twin-state check).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from otrio.envs.core.errors import ConfigError

from .base import Agent
from .greedy import greedy_agent
from .hints import encode
from .net import load_net
from .value import load_value_model

MAX_TOP = 64
# greedy's favourite is kept unless another candidate's chance is higher by this much;
# chosen on Otys' tuning seeds (benchmarks/results/values/README.md): at 0 the model's
# argmax is exploited, at 0.1 it overrules greedy where it is sure
DEFAULT_MARGIN = 0.1
MAX_TURN = 200  # decisions of the seat's own turn played out after a candidate
MAX_WORLDS = 64
MAX_DEPTH = 1000


class ValueSpec(NamedTuple):
    """A value agent's options (``net`` None: greedy ranks the candidates)."""

    path: str
    top: int = 3
    margin: float = DEFAULT_MARGIN
    net: str | None = None
    worlds: int = 1
    depth: int = 0
    judge: str = "all"


# judge every decision (at ``depth``), only the first of each own turn, or every decision
# with the look-ahead (``depth``) at the turn's first only
JUDGE = ("all", "turn", "mixed")


def parse_value_spec(text: str) -> ValueSpec:
    """The options of a spec's argument
    ``PATH[,top=K,margin=D,net=NET,worlds=W,depth=N,judge=J]``."""
    path, *items = [part.strip() for part in text.split(",")]
    if not path:
        raise ConfigError("value agent: give the value model's path (value:PATH)")
    top, margin, net, worlds, depth, judge = 3, DEFAULT_MARGIN, None, 1, 0, "all"
    for item in items:
        key, _, raw = item.partition("=")
        try:
            if key == "net":
                net = raw.strip()
                ok = bool(net)
            elif key == "top":
                top = int(raw)
                ok = 1 <= top <= MAX_TOP
            elif key == "margin":
                margin = float(raw)
                ok = math.isfinite(margin) and 0 <= margin <= 1
            elif key == "worlds":
                worlds = int(raw)
                ok = 1 <= worlds <= MAX_WORLDS
            elif key == "depth":
                depth = int(raw)
                ok = 0 <= depth <= MAX_DEPTH
            elif key == "judge":
                judge = raw.strip()
                ok = judge in JUDGE
            else:
                raise ConfigError(f"value agent: unknown option {key[:40]!r} (known: top, "
                                  "margin, net, worlds, depth, judge)")
        except ValueError:
            ok = False
        if not ok:
            raise ConfigError(f"value agent: option {item[:60]!r} is out of range (top: 1 to "
                              f"{MAX_TOP}; margin: 0 to 1; net: a network's path; worlds: 1 "
                              f"to {MAX_WORLDS}; depth: 0 to {MAX_DEPTH}; judge: all, turn or mixed)")
    return ValueSpec(path, top, margin, net, worlds, depth, judge)


class ValueAgent(Agent):
    """Greedy's best few moves judged by a value model after the own turn (see the
    module docstring)."""

    def __init__(self, env, argument: str):
        super().__init__()

        spec = parse_value_spec(argument)
        path, self.top, self.margin, net, self.worlds, self.depth = spec[:6]
        self.judge = spec.judge
        self._last: tuple[int, int] | None = None  # (decision count, seat) of the last act
        self.env = env
        self.game = env.unwrapped.game
        self.model = load_value_model(path, env)
        self.greedy = greedy_agent(env)
        self.rows = np.zeros((self.top, self.game.info.observation_size), np.float32)
        self.net, self.hinted = None, False
        if net is not None:
            self.net, manifest = load_net(net, env, hints_ok=True)
            self.hinted = manifest.hints is not None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.greedy.reset(seed)
        self._last = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        env = self.env.unwrapped
        state, count = env.state_, env.decisions
        seat = state.current_player()
        # the turn's first decision: the game's first, or the first after another seat's
        first = self._last != (count - 1, seat)
        self._last = (count, seat)
        if len(legal) == 1:
            return legal[0]
        return self.choose_state(state, seat, legal, self.rng, turn_start=first)

    def search(self, state, legal: list[int], observation=None) -> int:
        """The move at ``state`` for its acting seat (the twin-state honesty check's
        entry point, as the search agent's)."""
        return self.choose_state(state, state.current_player(), legal, self.rng)

    def _greedy_move(self, world, seat: int, legal: list[int]) -> int:
        values = self.greedy.values_of_view(self.game.view(world, seat), legal)
        return max(legal, key=lambda a: values.get(a, -math.inf))

    def _ranked(self, state, seat: int, legal: list[int]) -> list[int]:
        """``legal`` from greedy's favourite down, or the network's (by its logits for the
        seat's observation, with greedy's hints where it reads them)."""
        values = (self.greedy.values_of_view(self.game.view(state, seat), legal)
                  if self.net is None or self.hinted else None)
        if self.net is None:
            return sorted(legal, key=lambda a: -values.get(a, -math.inf))
        self.game.observe(state, seat, self.rows[0])
        observation = self.rows[0]
        if self.hinted:
            observation = np.concatenate([observation, encode(values, self.game.info.num_actions)])
        logits = self.net.logits(observation)
        return sorted(legal, key=lambda a: -logits[a])

    def _judge(self, world, seat: int, ranked: list[int], depth: int) -> np.ndarray:
        """Each candidate's chance for ``seat`` in one re-drawn ``world``, after greedy
        finishes the seat's turn and plays ``depth`` more decisions (a game that ends
        there: its result)."""
        ended: dict[int, float] = {}
        for k, action in enumerate(ranked):
            copy = world.clone()
            copy.apply_action(action)
            for _ in range(MAX_TURN):
                if copy.is_terminal() or copy.current_player() != seat:
                    break
                options = copy.legal_actions()
                copy.apply_action(options[0] if len(options) == 1
                                  else self._greedy_move(copy, seat, options))
            for _ in range(depth):
                if copy.is_terminal():
                    break
                options, mover = copy.legal_actions(), copy.current_player()
                copy.apply_action(options[0] if len(options) == 1
                                  else self._greedy_move(copy, mover, options))
            self.game.observe(copy, seat, self.rows[k])
            if copy.is_terminal():
                won = copy.winners()
                ended[k] = 1.0 / len(won) if seat in won else 0.0
        chances = np.asarray(self.model.win(self.rows[: len(ranked)]), float)
        for k, share in ended.items():
            chances[k] = share
        return chances

    def choose_state(self, state, seat: int, legal: list[int], rng: np.random.Generator,
                     turn_start: bool = True) -> int:
        """The move for ``seat`` at ``state`` (read through a re-drawn world and the
        seat's view only); ``rng`` draws the world; ``turn_start``: the decision is the
        first of the seat's turn (with ``judge=turn`` the others take the favourite)."""
        ranked = self._ranked(state, seat, legal)[: self.top]
        if len(ranked) == 1 or (self.judge == "turn" and not turn_start):
            return ranked[0]
        depth = self.depth if self.judge == "all" or turn_start else 0
        chances = np.zeros(len(ranked))
        for _ in range(self.worlds):
            chances += self._judge(self.game.resample_hidden(state, seat, rng), seat, ranked, depth)
        chances /= self.worlds
        best = int(np.argmax(chances))
        return ranked[best] if chances[best] > chances[0] + self.margin else ranked[0]


__all__ = ["ValueAgent", "ValueSpec", "parse_value_spec"]
