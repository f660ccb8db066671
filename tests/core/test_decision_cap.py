"""Each game's decision cap (``Game.decision_cap``): the env truncates there and OpenSpiel's
``max_game_length`` is it, so it must bound every game played and stay near their lengths."""

import importlib

import pytest

from otrio import agents, envs
from otrio.envs.core.registry import ENV_MODULES

GAMES = 6  # per agent kind
SANE = 50  # the cap is within this factor of the longest game played (it was 170-1,600)


def _game(env_id: str):
    return importlib.import_module(ENV_MODULES[env_id]).GAME


def _length(env_id: str, spec: str, seed: int) -> int:
    """Decisions of one game of ``spec`` agents at the game's default setup."""
    env = envs.make(env_id)
    env.reset(seed=seed)
    players = {a: agents.make(spec, env) for a in env.possible_agents}
    for i, agent in enumerate(players.values()):
        agent.reset(100 * seed + i)
    decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert not trunc or getattr(env.unwrapped.state_, "capped", False)  # not the cap
            env.step(None)
            continue
        env.step(players[name].act(obs))
        decisions += 1
    return decisions


@pytest.mark.parametrize("env_id", sorted(ENV_MODULES))
def test_games_played_stay_under_the_cap_and_near_it(env_id):
    game = _game(env_id)
    cap = game.decision_cap(game.config_model())
    longest = max(_length(env_id, spec, seed) for spec in ("random", "greedy")
                  for seed in range(GAMES))
    assert longest < cap <= SANE * longest, (longest, cap)


@pytest.mark.parametrize("env_id", sorted(ENV_MODULES))
def test_the_cap_is_the_envs_and_at_most_the_ceiling(env_id):
    game = _game(env_id)
    info = game.info
    for n in (info.min_players, info.max_players):
        env = envs.make(env_id, num_players=n)
        cap = game.decision_cap(env.unwrapped.config)
        assert env.unwrapped._max_decisions == cap <= info.max_decisions
    largest = {"num_players": info.max_players}
    round_cap = getattr(importlib.import_module(f"otrio.envs.{info.name}.data"),
                        "MAX_ROUND_CAP", None)
    if round_cap is not None:
        largest["round_cap"] = round_cap
    assert game.decision_cap(game.config_model(**largest)) <= info.max_decisions


@pytest.mark.parametrize("env_id", ["otys_v0", "otontin_v0"])
def test_the_cap_follows_the_round_cap(env_id):
    game = _game(env_id)
    short, long = (game.decision_cap(game.config_model(num_players=3, round_cap=r))
                   for r in (10, 20))
    assert short < long < 2 * short + 200
