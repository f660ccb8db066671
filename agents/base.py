"""One small interface for every agent, and what an agent may read.

An agent chooses from what its seat's player could know at the table:

- ``act(observation)`` gets the observation dict that ``env.last()`` returns for the
  acting seat (``observation`` and ``action_mask``). Most agents read nothing else:
  random, greedy, the networks (``net:``, ``ppo:``), a person at the terminal.
- An agent that looks ahead -- the search (``mcts``) and the value agent (``value:``) --
  also holds the env and reads its state (``env.unwrapped.state_``) for two purposes
  only: to hand it to ``Game.resample_hidden(state, seat, rng)``, which returns a world
  with everything the seat cannot see drawn anew, where it then plays its look-ahead,
  and to ``Game.view(state, seat)``, the seat's own view. It never reads a field of the
  true state itself. (OpenSpiel's bots take the state for the same reason,
  ``Bot.step(state)``, and its IS-MCTS re-draws it through ``ResampleFromInfostate``.)
- The one exception is named as such: the clairvoyant reference
  (``mcts:...,clairvoyant=1``), a research cheat that sees the true present, which
  tournaments, ladders and balance sweeps refuse unless a config says ``reference: true``.

``tests/agents/test_agent_contract.py`` holds every honest agent kind to this: from the
same seed it plays the same move in the true state and in a twin that differs only in
what the seat cannot see, and a cheat that reads the true state is caught.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from otrio.envs.core.rng import make_rng


class Agent(ABC):
    """``reset(seed)`` before a game; ``act(observation) -> action id`` at each decision."""

    spec: str = "agent"
    resolved: str | None = None  # a zoo tier's agent: the spec the tier names (agents/zoo.py)
    # False: the agent looks at the legal actions alone, and implements act_legal()
    reads_observation: bool = True

    def __init__(self) -> None:
        self.rng = make_rng(0)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; the same seed gives the same choices."""
        self.rng = make_rng(seed)

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray]) -> int:
        """An action id allowed by ``observation["action_mask"]``."""

    def act_legal(self, legal: list[int]) -> int:
        """An action id from ``legal`` (sorted ids), for agents that look at nothing
        else (``reads_observation`` False): callers that hold the legal list skip the
        mask."""
        raise NotImplementedError(f"{type(self).__name__} reads its observation")

    def choose_best(self, values: dict[int, float], tolerance: float = 1e-9) -> int:
        """The action with the highest value, ties broken by the seeded generator."""
        best = max(values.values())
        ties = sorted(a for a, v in values.items() if v >= best - tolerance)
        return ties[int(self.rng.integers(len(ties)))] if len(ties) > 1 else ties[0]


class ValuingAgent(Agent):
    """An agent that values every legal action and plays a best one (the greedy agents).

    ``action_values`` is public so that others can read the heuristic's opinion
    (teacher hints, ``agents/hints.py``); it draws nothing from the generator.
    """

    @classmethod
    def for_env(cls, env) -> ValuingAgent:
        """The agent for ``env`` (``otrio.agents.make``): an agent that reads the game's
        config (to decode its observations) takes it from ``env`` here."""
        return cls()

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        """Legal action id -> its value to the acting seat (higher is better)."""
        raise NotImplementedError

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.choose_best(self.action_values(observation))


class RandomAgent(Agent):
    """Uniform over the legal actions, seeded."""

    spec = "random"
    reads_observation = False

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.act_legal(observation["action_mask"].nonzero()[0])  # the mask is 1-D

    def act_legal(self, legal) -> int:
        return int(legal[self.rng.integers(len(legal))])
