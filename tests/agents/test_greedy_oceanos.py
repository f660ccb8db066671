"""Greedy Oceanos reads seat views: its moves are held fixed by a digest over seeded
games, the value of a move is the same from the observation and from the state's view,
and its numbers are a Weights dataclass (varied without rewriting its source)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import numpy as np
import pytest

from otrio import agents, envs
from otrio.agents.greedy.oceanos import WEIGHTS, GreedyOceanos
from otrio.envs.core import testing
from otrio.envs.core.rng import make_rng
from otrio.envs.oceanos.config import Config
from otrio.envs.oceanos.env import GAME
from otrio.envs.oceanos.rules import State

# sha256 of the JSON list of every game's actions, greedy in every seat (see _moves);
# recorded before greedy read views, when it decoded the float observation itself
DIGESTS = {
    2: "30e6d1773436d73d048248d8d064762d572a425f9950f10cc4e985639ba5c72f",
    5: "c20e2328cbd70e13d9cb2abced9aa66776a759eccc77c9e7aebf8644301f9baa",
}
GAMES = 6


def _moves(num_players: int, games: int = GAMES) -> list[list[int]]:
    env = envs.make("oceanos_v0", num_players=num_players)
    players = [agents.make("greedy", env) for _ in range(num_players)]
    moves = []
    for game in range(games):
        for seat, player in enumerate(players):
            player.reset(1000 * game + seat)
        env.reset(seed=game)
        actions = []
        for name in env.agent_iter():
            observation, _, term, trunc, _ = env.last()
            action = None if term or trunc else players[env.possible_agents.index(name)].act(
                observation)
            if action is not None:
                actions.append(int(action))
            env.step(action)
        moves.append(actions)
    return moves


@pytest.mark.parametrize("num_players", sorted(DIGESTS))
def test_greedy_plays_the_recorded_moves(num_players):
    digest = hashlib.sha256(json.dumps(_moves(num_players)).encode()).hexdigest()
    assert digest == DIGESTS[num_players]


def test_values_from_the_view_equal_values_from_the_observation():
    greedy = GreedyOceanos()
    scratch = np.zeros(GAME.info.observation_size, np.float32)
    compared = 0
    for n in (2, 5):
        for state in testing.random_states(lambda seed, n=n: State(Config(num_players=n),
                                                                   make_rng(seed)), 2):
            if state.is_terminal():
                continue
            seat, legal = state.current_player(), state.legal_actions()
            mask = np.zeros(GAME.info.num_actions, np.int8)
            mask[legal] = 1
            observation = {"observation": GAME.observation(state, seat, scratch),
                           "action_mask": mask}
            assert greedy.action_values(observation) == greedy.values_of_view(
                GAME.view(state, seat), legal)
            compared += 1
    assert compared > 200


def test_weights_vary_without_rewriting_the_source():
    state = State(Config(num_players=3), make_rng(2))
    seat, legal = state.current_player(), state.legal_actions()
    stock = GreedyOceanos().values_of_view(GAME.view(state, seat), legal)
    richer = GreedyOceanos(replace(WEIGHTS, stars_per_coral=9.0)).values_of_view(
        GAME.view(state, seat), legal)
    assert stock.keys() == richer.keys()
    corals = [a for a in legal if GAME.view(state, seat).hand[a].corals]
    assert corals and all(richer[a] > stock[a] for a in corals)
