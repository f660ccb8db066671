"""Information-set Monte Carlo tree search: the agent spec ``mcts[:key=value,...]``.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). Each iteration of a
search re-draws the world the acting seat cannot see (``Game.resample_hidden``: the
others' hands, deck orders, secret choices, the future of the dice) and walks one tree
of decisions through it:

* **selection**: at a node, the children legal in this world compete by UCB1, with
  the number of times a child was *available* in place of its parent's visits, and
  each node maximises the value of the seat that moves there (max^n, any player count);
* **expansion**: the first untried legal action, greedy's favourite first when the
  node's mover is valued by greedy (``prior=greedy``), becomes a new child; below the
  root a node considers only its first ``1 + widen * sqrt(visits)`` actions in that
  order (progressive widening), so a small search follows greedy's line of play below
  the root and looks at alternatives as the visits grow;
* **rollout**: from there every seat plays the ``rollout`` policy (``greedy``, or
  ``random``) for at most ``depth`` decisions (``depth=-1``: to the end);
* **value** (one number per seat, in about [-1.5, 1.5]): at the end of the game the
  suite's end reward (+1 a winner, -1 the others, 0 for all if all share) plus
  ``margin`` times a squashed score margin over the best rival (a tie-breaker); at a
  depth-limited leaf, the squashed margin alone.

With ``crn=1`` the search is flat instead: in each round one re-drawn world and one
generator for the luck serve every root candidate (common random numbers), so the
candidates are compared on the same cards and dice, and the best mean value is played.
This is each game's default (``GAME_DEFAULTS``): the tree below the root keys nodes by
action ids, and a hand-slot action means another card in each re-drawn world.

Decisions with one legal action are played at once, in the game and in the tree. At
the root the candidates can be narrowed to greedy's ``top`` best moves and to those
within ``gap`` of greedy's best value; where one candidate is left, it is played
without a search (greedy's clear choices cost nothing).

The agent is honest by construction: it reads the true state only to hand it to
``resample_hidden`` (which keeps only what the seat may know) and to ask who is to
move; every search works on re-drawn worlds. With ``iterations`` as the budget
(``seconds=0``, the default) a seeded agent plays the same moves on any machine; a
``seconds`` cap makes the number of iterations, and so the moves, depend on speed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields, replace

import numpy as np

from envs.core.errors import ConfigError
from envs.core.rewards import end_rewards
from envs.core.rng import clone_rng, make_rng

from .base import Agent

ROLLOUTS = ("greedy", "random")
PRIORS = ("greedy", "none")


@dataclass(frozen=True)
class SearchOptions:
    """What a search may spend and how it values (the spec's ``key=value`` pairs)."""

    iterations: int = 200  # iterations a decision (the budget, unless seconds > 0)
    seconds: float = 0.0  # wall-clock cap a decision (0: none; breaks determinism)
    c: float = 0.7  # UCB exploration constant (values lie in about [-1.5, 1.5])
    rollout: str = "greedy"  # the policy of every seat after the tree: greedy or random
    depth: int = -1  # rollout decisions before the leaf is valued (-1: to the end)
    prior: str = "greedy"  # order of expansion: greedy's ranking, or none (random)
    top: int = 0  # root candidates: greedy's best ``top`` (0: every legal action)
    gap: float = 0.0  # root candidates: within ``gap`` of greedy's best value (0: any)
    widen: float = 0.5  # below the root, a node tries 1 + widen * sqrt(visits) actions
    crn: int = 0  # 1: flat rounds, every root candidate played in the same world
    margin: float = 0.25  # weight of the squashed score margin at the end of a game

    def check(self) -> SearchOptions:
        """Raise ``ConfigError`` naming the first option out of range."""
        rules = {
            "iterations": self.iterations >= 1,
            "seconds": self.seconds >= 0 and math.isfinite(self.seconds),
            "c": self.c >= 0 and math.isfinite(self.c),
            "rollout": self.rollout in ROLLOUTS,
            "depth": self.depth >= -1,
            "prior": self.prior in PRIORS,
            "top": self.top >= 0,
            "gap": self.gap >= 0 and math.isfinite(self.gap),
            "widen": self.widen >= 0 and math.isfinite(self.widen),
            "crn": self.crn in (0, 1),
            "margin": self.margin >= 0 and math.isfinite(self.margin),
        }
        for name, ok in rules.items():
            if not ok:
                raise ConfigError(f"mcts option {name}={getattr(self, name)!r} is out of range "
                                  f"({_HELP[name]})")
        return self


_HELP = {
    "iterations": "an integer >= 1",
    "seconds": "a number >= 0, 0 for no time cap",
    "c": "a number >= 0",
    "rollout": " or ".join(ROLLOUTS),
    "depth": "an integer >= -1, -1 for rollouts to the end",
    "prior": " or ".join(PRIORS),
    "top": "an integer >= 0, 0 for every legal action",
    "gap": "a number >= 0, 0 for no limit",
    "widen": "a number >= 0; 0: the tree is the root alone, the rollout plays on",
    "crn": "0 or 1",
    "margin": "a number >= 0",
}
# Per game: the defaults the budget studies picked (benchmarks/results/search/README.md).
# Below the root an ISMCTS tree mixes up the hand-slot actions of different re-drawn
# hands (slot k is another card in each world), so the defaults search the root alone:
# flat rounds on common random numbers over greedy's best few moves, each played out by
# greedy for every seat (to the end in Oceanos; depth-limited in the long Otys and in
# Otontin, whose greedy is costly). Otys searches only greedy's close calls (gap).
GAME_DEFAULTS: dict[str, dict] = {
    "oceanos": {"iterations": 48, "crn": 1, "top": 4},
    "otys": {"iterations": 48, "crn": 1, "top": 3, "gap": 1.0, "depth": 30},
    "otontin": {"iterations": 48, "crn": 1, "top": 3, "depth": 8},
}


def parse_options(text: str, game: str | None = None) -> SearchOptions:
    """Options from ``key=value,key=value`` over the game's defaults; a clear
    ``ConfigError`` for an unknown key or a bad value."""
    options = replace(SearchOptions(), **GAME_DEFAULTS.get(game or "", {}))
    types = {f.name: type(getattr(options, f.name)) for f in fields(SearchOptions)}
    given = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise ConfigError(f"mcts option {item!r} is not key=value")
        if key not in types:
            raise ConfigError(f"unknown mcts option {key!r}; known: {', '.join(types)}")
        try:
            given[key] = types[key](value.strip())
        except ValueError:
            raise ConfigError(f"mcts option {key}={value.strip()!r} is not "
                              f"{'a number' if types[key] is not str else 'valid'} "
                              f"({_HELP[key]})") from None
    return replace(options, **given).check()


class _Node:
    """One decision point of the tree (reached by a sequence of actions)."""

    __slots__ = ("children", "visits", "available", "totals", "order")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 0  # iterations in which this node's action was legal
        self.totals = [0.0] * num_players  # summed value of each seat over visits
        self.order: list[int] | None = None  # expansion order of the mover's actions


class MCTSAgent(Agent):
    """The ISMCTS agent (see the module docstring); ``options`` from the spec."""

    def __init__(self, env, options: SearchOptions):
        super().__init__()
        self.env = env
        self.options = options
        self.game = env.unwrapped.game
        self.num_players = len(env.possible_agents)
        info = self.game.info
        self.scale = float(info.score_scale)
        self.scratch = np.zeros(info.observation_size, np.float32)
        self.mask = np.zeros(info.num_actions, np.int8)
        self.greedy = None
        if options.rollout == "greedy" or options.prior == "greedy" or options.top or options.gap:
            from . import make

            self.greedy = make("greedy", env)
        self.iterations_done = 0  # of the last search (for measurements)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.greedy is not None:
            self.greedy.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            self.iterations_done = 0
            return legal[0]
        return self.search(self.env.unwrapped.state_, legal, observation)

    # ------------------------------------------------------------------ search
    def search(self, state, legal: list[int], observation=None) -> int:
        """The most visited root action after the budget (ties: greedy's order)."""
        seat = state.current_player()
        options, rng = self.options, self.rng
        root = _Node(self.num_players)
        if self.greedy is None:
            root.order = list(legal)
        else:
            root.order, values = self._ranked(observation, legal)
            if options.gap:
                best = values.get(root.order[0], -math.inf)
                root.order = [a for a in root.order if values.get(a, -math.inf) >= best - options.gap]
            if options.top:
                root.order = root.order[: options.top]
            if len(root.order) == 1:  # greedy's choice is clear: no search
                self.iterations_done = 0
                return root.order[0]
        allowed = set(root.order)
        deadline = time.perf_counter() + options.seconds if options.seconds else None
        if options.crn:
            return self._sweep(state, seat, root.order, deadline)
        done = 0
        while done < options.iterations:
            world = self.game.resample_hidden(state, seat, rng)
            self._iterate(root, world, allowed)
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations_done = done
        rank = {a: k for k, a in enumerate(root.order)}
        return max(root.children.items(), key=lambda item: (item[1].visits, -rank[item[0]]))[0]

    def _sweep(self, state, seat: int, candidates: list[int], deadline) -> int:
        """Flat search with common random numbers: in each round one re-drawn world
        and one rollout generator serve every candidate, so candidates are compared on
        the same luck; the best mean value wins (ties: the earlier candidate)."""
        totals = [0.0] * len(candidates)
        rounds = max(1, self.options.iterations // len(candidates))
        done = 0
        for _ in range(rounds):
            world = self.game.resample_hidden(state, seat, self.rng)
            luck = make_rng(int(self.rng.integers(2**63)))
            for k, action in enumerate(candidates):
                copy = world.clone()
                copy.apply_action(action)
                totals[k] += self._rollout(copy, clone_rng(luck))[seat]
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations_done = done * len(candidates)
        return candidates[max(range(len(candidates)), key=lambda k: (totals[k], -k))]

    def _iterate(self, root: _Node, world, allowed: set[int]) -> None:
        """One iteration in ``world`` (a re-drawn copy the search may change)."""
        path = [root]
        node = root
        c, widen = self.options.c, self.options.widen
        expanded = False
        while not world.is_terminal():
            if widen == 0 and node is not root:
                expanded = True  # the tree is the root alone: the rollout takes over
                break
            legal = world.legal_actions()
            if node is root:
                legal = [a for a in legal if a in allowed]
            if len(legal) == 1:
                world.apply_action(legal[0])
                continue
            mover = world.current_player()
            if node.order is None:
                node.order = self._ranked_state(world, mover, legal)
            # the node's actions legal in this world, in its prior's order; below the
            # root only the first 1 + widen * sqrt(visits) of them (progressive widening)
            legal_now = set(legal)
            ranked = [a for a in node.order if a in legal_now]
            if len(ranked) < len(legal):  # legal here but not where the node was made
                node.order += [a for a in legal if a not in node.order]
                ranked = [a for a in node.order if a in legal_now]
            if node is not root:
                ranked = ranked[: 1 + int(widen * math.sqrt(node.visits))]
            children = node.children
            untried = None
            for a in ranked:
                child = children.get(a)
                if child is None:
                    if untried is None:
                        untried = a
                else:
                    child.available += 1
            if untried is not None:
                child = children[untried] = _Node(self.num_players)
                child.available = 1
                world.apply_action(untried)
                path.append(child)
                expanded = True
                break
            best, best_score = ranked[0], -math.inf
            for a in ranked:
                child = children[a]
                score = (child.totals[mover] / child.visits
                         + c * math.sqrt(math.log(child.available) / child.visits))
                if score > best_score:
                    best, best_score = a, score
            node = children[best]
            world.apply_action(best)
            path.append(node)
        values = self._rollout(world, self.rng) if expanded else self._value(world)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for s, v in enumerate(values):
                totals[s] += v

    def _rollout(self, world, rng: np.random.Generator) -> list[float]:
        """Play the rollout policy for ``depth`` decisions (or to the end); the value."""
        left = self.options.depth
        greedy = self.options.rollout == "greedy"
        while left != 0 and not world.is_terminal():
            legal = world.legal_actions()
            if len(legal) == 1:
                world.apply_action(legal[0])
                continue
            if greedy:
                world.apply_action(self._greedy_action(world, world.current_player(), legal))
            else:
                world.apply_action(legal[int(rng.integers(len(legal)))])
            left -= 1
        return self._value(world)

    def _value(self, world) -> list[float]:
        """Each seat's value: end reward plus a squashed margin, or the margin alone."""
        scores = world.scores()
        n = len(scores)
        margins = []
        for s in range(n):
            rival = max(scores[t] for t in range(n) if t != s)
            margins.append(math.tanh((scores[s] - rival) / self.scale))
        if not world.is_terminal():
            return margins
        rewards = end_rewards(world.winners(), n) or [0.0] * n
        weight = self.options.margin
        return [r + weight * m for r, m in zip(rewards, margins)]

    # ------------------------------------------------------------ greedy's view
    def _observe(self, world, seat: int, legal: list[int]) -> dict[str, np.ndarray]:
        """``seat``'s observation of ``world`` (reused buffers: read it at once)."""
        if not self.game.writes_every_value:
            self.scratch.fill(0.0)
        self.game.observe(world, seat, self.scratch)
        self.mask[:] = 0
        self.mask[legal] = 1
        return {"observation": self.scratch, "action_mask": self.mask}

    def _greedy_action(self, world, seat: int, legal: list[int]) -> int:
        values = self.greedy.action_values(self._observe(world, seat, legal))
        return max(legal, key=lambda a: values.get(a, -math.inf))

    def _ranked(self, observation, legal: list[int]) -> tuple[list[int], dict[int, float]]:
        """``legal`` from greedy's favourite down (ties in id order), and greedy's values
        (an action greedy leaves unvalued ranks last)."""
        values = self.greedy.action_values(observation)
        return sorted(legal, key=lambda a: -values.get(a, -math.inf)), values

    def _ranked_state(self, world, mover: int, legal: list[int]) -> list[int]:
        if self.options.prior == "greedy" and self.greedy is not None:
            return self._ranked(self._observe(world, mover, legal), legal)[0]
        order = list(legal)
        self.rng.shuffle(order)
        return order
