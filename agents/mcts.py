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

The one exception is the research reference ``clairvoyant=1``: its worlds come from
``Game.resample_future`` (the true present, only the future re-drawn), a cheat that
tournaments and sweeps refuse without ``reference: true`` (``otrio.agents.check_spec``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from otrio.envs.core.errors import ConfigError
from otrio.envs.core.game import Game
from otrio.envs.core.rewards import end_rewards
from otrio.envs.core.rng import clone_rng, make_rng

from .base import Agent
from .greedy import greedy_agent
from .hints import encode
from .net import load_net
from .search_options import SearchOptions
from .value import load_value_model


@dataclass(frozen=True)
class RootStats:
    """What one search learned at its root: the candidate actions it compared, each
    one's mean value to the acting seat (None: a single candidate, played unsearched)
    and how many times each was played out."""

    candidates: list[int]
    values: list[float] | None
    visits: list[int] | None


def squashed_margins(scores, scale: float) -> list[float]:
    """Each seat's score lead over its best rival, squashed into (-1, 1) by
    ``tanh(lead / scale)`` (``scale``: the game's ``score_scale``)."""
    n = len(scores)
    return [math.tanh((scores[s] - max(scores[t] for t in range(n) if t != s)) / scale)
            for s in range(n)]


def outcome_values(scores, winners, scale: float, margin: float) -> list[float]:
    """Each seat's value of a finished game, as the search scores it: the suite's end
    reward (+1 a winner, -1 the others, 0 for all if all share) plus ``margin`` times
    the squashed margin (:func:`squashed_margins`); the distillation's value target."""
    n = len(scores)
    rewards = end_rewards(winners, n) or [0.0] * n
    return [r + margin * m for r, m in zip(rewards, squashed_margins(scores, scale))]


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
        self.net = None
        self.hinted = False  # the network reads greedy's hints (prior=net alone: load_net)
        if options.uses_net():
            self.net, manifest = load_net(options.net, env, hints_ok=not (
                options.rollout == "net" or options.leaf == "net"))
            self.hinted = manifest.hints is not None
            self.seat_rows = np.zeros((self.num_players, info.observation_size), np.float32)
        self.value_model = None
        if options.leaf == "value":
            self.value_model = load_value_model(options.value, env)
            self.value_rows = np.zeros((self.num_players, info.observation_size), np.float32)
        self.greedy = None
        if options.uses_greedy() or self.hinted:
            self.greedy = greedy_agent(env)
        # the worlds searched: re-drawn from what the seat may know, or (clairvoyant, a
        # research cheat) from the true present with only the future re-drawn
        self.redraw = self.game.resample_future if options.clairvoyant else self.game.resample_hidden
        if options.clairvoyant and type(self.game).resample_future is Game.resample_future:
            raise ConfigError(f"mcts option clairvoyant=1: {info.name} does not say what is "
                              "present and what is future (no resample_future)")
        self.iterations_done = 0  # of the last search (for measurements)
        # the last decision's root statistics (a teacher's soft targets): see search()
        self.last_search: RootStats | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.greedy is not None:
            self.greedy.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            self.iterations_done = 0
            self.last_search = None
            return legal[0]
        return self.search(self.env.unwrapped.state_, legal, observation)

    # ------------------------------------------------------------------ search
    def search(self, state, legal: list[int], observation=None) -> int:
        """The most visited root action after the budget (ties: greedy's order).

        Leaves the root's statistics in ``last_search``: the candidates searched, each
        one's mean value to the acting seat and its visits (a single candidate left by
        ``top``/``gap`` is played unsearched: no values)."""
        seat = state.current_player()
        options, rng = self.options, self.rng
        root = _Node(self.num_players)
        if self.greedy is None and options.prior != "net":
            root.order = list(legal)
        else:
            root.order, values = self._ranked(observation, legal)
            if options.gap:
                best = values.get(root.order[0], -math.inf)
                root.order = [a for a in root.order if values.get(a, -math.inf) >= best - options.gap]
            if options.top:
                root.order = root.order[: options.top]
            if len(root.order) == 1:  # the prior's choice is clear: no search
                self.iterations_done = 0
                self.last_search = RootStats(root.order, None, None)
                return root.order[0]
        allowed = set(root.order)
        deadline = time.perf_counter() + options.seconds if options.seconds else None
        if options.crn:
            return self._sweep(state, seat, root.order, deadline)
        done = 0
        while done < options.iterations:
            world = self.redraw(state, seat, rng)
            self._iterate(root, world, allowed)
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations_done = done
        tried = [a for a in root.order if a in root.children]
        self.last_search = RootStats(
            tried, [root.children[a].totals[seat] / root.children[a].visits for a in tried],
            [root.children[a].visits for a in tried])
        rank = {a: k for k, a in enumerate(root.order)}
        return max(root.children.items(), key=lambda item: (item[1].visits, -rank[item[0]]))[0]

    def _sweep(self, state, seat: int, candidates: list[int], deadline) -> int:
        """Flat search with common random numbers: in each round one re-drawn world
        and one rollout generator serve every candidate, so candidates are compared on
        the same luck; the best mean value wins (ties: the earlier candidate). With
        ``halving`` the rounds come in phases, each dropping the worse half."""
        totals = [0.0] * len(candidates)
        alive = list(range(len(candidates)))
        phases = max(1, math.ceil(math.log2(len(candidates)))) if self.options.halving else 1
        budget = self.options.iterations
        played = [0] * len(candidates)
        for phase in range(phases):
            rounds = max(1, budget // (phases * len(alive)))
            for _ in range(rounds):
                world = self.redraw(state, seat, self.rng)
                luck = make_rng(int(self.rng.integers(2**63)))
                leaves = []
                for k in alive:
                    copy = world.clone()
                    copy.apply_action(candidates[k])
                    leaves.append(self._rollout(copy, clone_rng(luck), judge=False))
                for k, value in zip(alive, self._judge(leaves)):
                    totals[k] += value[seat]
                    played[k] += 1
                if deadline is not None and time.perf_counter() >= deadline:
                    break
            if phase < phases - 1 and len(alive) > 1:
                alive.sort(key=lambda k: (-totals[k] / played[k], k))
                alive = sorted(alive[: max(1, (len(alive) + 1) // 2)])
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations_done = sum(played)
        means = [totals[k] / played[k] if played[k] else -math.inf for k in range(len(candidates))]
        self.last_search = RootStats(list(candidates), [m if played[k] else None for k, m in
                                                        enumerate(means)], played)
        return candidates[max(alive, key=lambda k: (means[k], -k))]

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

    def _rollout(self, world, rng: np.random.Generator, judge: bool = True):
        """Play the rollout policy for ``depth`` decisions (or to the end); the value
        (``judge=False``: the world reached, for :meth:`_judge` to value in a batch)."""
        left = self.options.depth
        policy = self.options.rollout
        while left != 0 and not world.is_terminal():
            legal = world.legal_actions()
            if len(legal) == 1:
                world.apply_action(legal[0])
                continue
            if policy == "greedy":
                world.apply_action(self._greedy_action(world, world.current_player(), legal))
            elif policy == "net":
                world.apply_action(self._net_action(world, world.current_player(), legal))
            else:
                world.apply_action(legal[int(rng.integers(len(legal)))])
            left -= 1
        return self._value(world) if judge else world

    def _value(self, world) -> list[float]:
        """Each seat's value: end reward plus a squashed margin, or the leaf's judge."""
        return self._judge([world])[0]

    def _judge(self, worlds: list) -> list[list[float]]:
        """Each seat's value in each world: a finished game's end reward plus a squashed
        margin; a cut one's by the ``leaf`` judge (the margin, the network, or the value
        model on every seat's observation of every cut world in one batch)."""
        out: list = [None] * len(worlds)
        cut = []
        for k, world in enumerate(worlds):
            if world.is_terminal():
                out[k] = outcome_values(world.scores(), world.winners(), self.scale,
                                        self.options.margin)
            elif self.options.leaf == "net":
                out[k] = self._net_values(world)
            elif self.options.leaf == "value":
                cut.append(k)
            else:
                out[k] = squashed_margins(world.scores(), self.scale)
        if cut:
            n = self.num_players
            rows = np.zeros((len(cut) * n, self.game.info.observation_size), np.float32)
            for j, k in enumerate(cut):
                for seat in range(n):
                    self.game.observe(worlds[k], seat, rows[j * n + seat])
            p = self.value_model.win(rows).reshape(len(cut), n)
            p /= np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
            for j, k in enumerate(cut):
                out[k] = (2.0 * p[j] - 1.0).tolist()
        return out

    # ------------------------------------------------------------ greedy's view
    def _greedy_values(self, world, seat: int, legal: list[int]) -> dict[int, float]:
        """Greedy's values of ``legal`` for ``seat`` in ``world``, read off the seat's
        structured view of the re-drawn world (``Game.view``: what that seat may know,
        no float round trip); the same numbers greedy gives the seat's observation."""
        return self.greedy.values_of_view(self.game.view(world, seat), legal)

    def _greedy_action(self, world, seat: int, legal: list[int]) -> int:
        values = self._greedy_values(world, seat, legal)
        return max(legal, key=lambda a: values.get(a, -math.inf))

    def _ranked(self, observation, legal: list[int]) -> tuple[list[int], dict[int, float]]:
        """``legal`` from the prior's favourite down (ties in id order), and the prior's
        values: greedy's (an action greedy leaves unvalued ranks last), or the network's
        logits with ``prior=net``."""
        if self.options.prior == "net":
            hints = self.greedy.action_values(observation) if self.hinted else None
            logits = self._prior_logits(observation["observation"], hints)
            values = {a: float(logits[a]) for a in legal}
        else:
            values = self.greedy.action_values(observation)
        return sorted(legal, key=lambda a: -values.get(a, -math.inf)), values

    def _ranked_state(self, world, mover: int, legal: list[int]) -> list[int]:
        """``legal`` in the prior's order for ``mover`` in a tree node's ``world``."""
        if self.options.prior == "net":
            self.game.observe(world, mover, self.scratch)
            hints = self._greedy_values(world, mover, legal) if self.hinted else None
            logits = self._prior_logits(self.scratch, hints)
            return sorted(legal, key=lambda a: -logits[a])
        if self.options.prior == "greedy" and self.greedy is not None:
            values = self._greedy_values(world, mover, legal)
            return sorted(legal, key=lambda a: -values.get(a, -math.inf))
        order = list(legal)
        self.rng.shuffle(order)
        return order

    # ----------------------------------------------------------- the network
    def _prior_logits(self, observation: np.ndarray, greedy_values) -> np.ndarray:
        """The network's logits for one observation vector; a hinted network reads it
        with the hints of ``greedy_values`` (greedy's values of the same position)."""
        if self.hinted:
            observation = np.concatenate(
                [observation, encode(greedy_values, self.game.info.num_actions)])
        return self.net.logits(observation)

    def _net_action(self, world, seat: int, legal: list[int]) -> int:
        """The network's favourite legal move for ``seat`` in ``world``."""
        self.game.observe(world, seat, self.scratch)
        logits = self.net.logits(self.scratch)
        return max(legal, key=logits.__getitem__)

    def _net_values(self, world) -> list[float]:
        """The network's value of ``world`` for each seat, from that seat's observation."""
        for seat in range(self.num_players):
            self.game.observe(world, seat, self.seat_rows[seat])
        return self.net.values(self.seat_rows).tolist()
