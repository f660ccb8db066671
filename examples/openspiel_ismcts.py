"""OpenSpiel: its information-set MCTS bot (``ISMCTSBot``) plays one of the suite's
games, registered with pyspiel by ``otrio.integrations.openspiel``, against random bots.

    pip install -e '.[openspiel]'
    .venv/bin/python examples/openspiel_ismcts.py --env oceanos_v0 --players 2 --games 4

The bot searches from worlds re-drawn from what its seat may know
(``state.resample_from_infostate``, the suite's ``resample_hidden``), keyed by the
seat's information-state string, and scores a leaf by one random rollout
(``RandomRolloutEvaluator``). It takes every seat in turn (game ``k``: seat
``k % players``); every generator is seeded (``--seed``), the bot's re-draws through
``otrio.integrations.openspiel.resampler``, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots import uniform_random

from otrio.envs.core.rng import derive_seed
from otrio.integrations import openspiel


def _random_state(seed: int, game: int, role: int) -> np.random.RandomState:
    """The generator of one role (search, rollouts, a random seat) in one game."""
    return np.random.RandomState(derive_seed(seed, game, role) % 2**32)


def main(argv: list[str] | None = None) -> dict:
    """Play ``--games`` games; print and return the bot's results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="oceanos_v0", choices=sorted(openspiel.GAMES),
                        help="the suite env whose OpenSpiel game is played (default: %(default)s)")
    parser.add_argument("--players", type=int, default=2,
                        help="players at the table (default: %(default)s)")
    parser.add_argument("--games", type=int, default=2,
                        help="games to play (default: %(default)s)")
    parser.add_argument("--simulations", type=int, default=100,
                        help="ISMCTS simulations per decision (default: %(default)s)")
    parser.add_argument("--uct-c", type=float, default=2.0,
                        help="UCT exploration constant (default: %(default)s)")
    parser.add_argument("--rollouts", type=int, default=1,
                        help="random rollouts per leaf (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the deals and of every bot (default: %(default)s)")
    args = parser.parse_args(argv)

    game = openspiel.load(args.env, players=args.players)
    n = game.num_players()
    returns, seats, decisions = [], [], 0
    start = time.perf_counter()
    for k in range(args.games):
        seat = k % n
        evaluator = mcts.RandomRolloutEvaluator(args.rollouts, _random_state(args.seed, k, 0))
        searcher = ismcts.ISMCTSBot(game, evaluator, args.uct_c, args.simulations,
                                    random_state=_random_state(args.seed, k, 1))
        searcher.set_resampler(openspiel.resampler(derive_seed(args.seed, k, 2)))
        bots = [searcher if p == seat
                else uniform_random.UniformRandomBot(p, _random_state(args.seed, k, 3 + p))
                for p in range(n)]
        state = game.new_initial_state_from_seed(derive_seed(args.seed, k))
        while not state.is_terminal():
            state.apply_action(int(bots[state.current_player()].step(state)))
            decisions += 1
        returns.append(state.returns())
        seats.append(seat)
    seconds = time.perf_counter() - start
    mine = [r[s] for r, s in zip(returns, seats)]
    result = {
        "game": str(game),
        "games": args.games,
        "simulations": args.simulations,
        "ismcts_seats": seats,
        "returns": returns,
        "ismcts_wins": sum(r > 0 for r in mine),
        "ismcts_mean_return": float(np.mean(mine)) if mine else 0.0,
        "decisions": decisions,
        "seconds": round(seconds, 2),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
