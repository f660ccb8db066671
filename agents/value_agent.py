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
from .options import Option, OptionTable
from .value import load_value_model

MAX_TOP = 64
# greedy's favourite is kept unless another candidate's chance is higher by this much;
# chosen on Otys' tuning seeds (benchmarks/results/values/README.md): at 0 the model's
# argmax is exploited, at 0.1 it overrules greedy where it is sure
DEFAULT_MARGIN = 0.1
MAX_TURN = 200  # decisions of the seat's own turn played out after a candidate
MAX_WORLDS = 64
MAX_DEPTH = 1000


# judge every decision (at ``depth``), only the first of each own turn, or every decision
# with the look-ahead (``depth``) at the turn's first only
JUDGE = ("all", "turn", "mixed")
# a decision plays top x worlds x max(depth, 1) look-ahead decisions at most (greedy's, each
# some tens of microseconds): beyond this a decision takes seconds and a game hours
MAX_COST = 20_000
VALUE_OPTIONS = OptionTable("value", (
    Option("top", int, 3, "the candidates judged: greedy's (or the network's) best top moves",
           1, MAX_TOP),
    Option("margin", float, DEFAULT_MARGIN, "the favourite is kept unless another candidate's "
           "chance is higher by more than this", 0, 1),
    Option("net", str, None, "an exported network (X.json) that ranks the candidates instead "
           "of greedy"),
    Option("worlds", int, 1, "re-drawn worlds each candidate is played in (its chance: the "
           "mean)", 1, MAX_WORLDS),
    Option("depth", int, 0, "decisions greedy plays after the seat's turn before the model "
           "judges", 0, MAX_DEPTH),
    Option("judge", str, "all", "which decisions are judged: all, the first of each own turn, "
           "or every one with the look-ahead at the turn's first only", choices=JUDGE),
), argument="PATH, the value model's .json")


class ValueSpec(NamedTuple):
    """A value agent's options (``net`` None: greedy ranks the candidates)."""

    path: str
    top: int = 3
    margin: float = DEFAULT_MARGIN
    net: str | None = None
    worlds: int = 1
    depth: int = 0
    judge: str = "all"

    def cost(self) -> int:
        """Look-ahead decisions a decision plays at most: top x worlds x max(depth, 1)."""
        return self.top * self.worlds * max(self.depth, 1)


def parse_value_spec(text: str) -> ValueSpec:
    """The options of a spec's argument ``PATH[,top=K,margin=D,net=NET,worlds=W,depth=N,
    judge=J]`` (:data:`VALUE_OPTIONS`); a ConfigError line for an unknown option, a bad
    value, or options whose cost a decision is over :data:`MAX_COST`."""
    path, *items = [part.strip() for part in text.split(",")]
    if not path:
        raise ConfigError("value agent: give the value model's path (value:PATH)")
    spec = ValueSpec(path, **{**VALUE_OPTIONS.defaults(), **VALUE_OPTIONS.parse(items)})
    if spec.cost() > MAX_COST:
        raise ConfigError(f"value agent: top x worlds x depth = {spec.top} x {spec.worlds} x "
                          f"{max(spec.depth, 1)} = {spec.cost():,} look-ahead decisions a "
                          f"decision, over the ceiling of {MAX_COST:,} (about a second a "
                          "decision): lower top, worlds or depth")
    return spec


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
