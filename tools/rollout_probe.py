"""How much better than greedy can a seat play? A Monte Carlo rollout probe.

The PPO agents clone greedy and play at its level; a target above greedy's own (Otontin
against two random players, 95%; any game against greedy, 55%) needs headroom that a
stronger player shows exists. This probe plays one such player, **rollout greedy**, in a
seat against ``--opponent`` players, and greedy itself in the same seat on the same seeds:

* at each decision greedy values the legal actions; its best ``--top`` candidates within
  ``--margin`` of the best are kept (one candidate: greedy's move is played at once);
* for each of ``--k`` worlds (what the seat cannot know re-drawn by
  ``Game.resample_hidden``: the others' secret choices and the future draws), every
  candidate is played out to the end in a copy of that world, by greedy for the seat and
  by the opponent's own kind of agent for the others (an exact model when they are
  random players), with the same generator for every candidate of a world;
* the candidate with the best mean outcome is played: 1 for a victory (a shared one
  counts ``shared_win``, 1 as in tournaments unless a caller says otherwise) plus
  ``--margin-weight`` per point of score over the best rival, a tie-breaker.

It is a search that reads the game state (re-drawing what is hidden), so it measures
what a better policy could reach, not an agent to ship.

Usage::

    python tools/rollout_probe.py otontin_v0 3 --opponent random --games 300 --k 8
    python tools/rollout_probe.py otontin_v0 3 --opponent greedy --games 200 --k 8

Games are split over ``--workers`` processes; each prints its share as it finishes.
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import numpy as np

import agents
import envs
from agents.arena import play_seated
from agents.stats import wilson
from envs.core.rng import make_rng

MARGIN_WEIGHT = 0.01  # default outcome per point of score over the best rival (a tie-breaker)
SEED_BOUND = 1 << 30


class RolloutGreedy(agents.Agent):
    """Greedy whose close calls are settled by Monte Carlo rollouts (module docstring)."""

    def __init__(self, env, seat: int, seed: int, opponent: str, k: int, margin: float, top: int,
                 margin_weight: float = MARGIN_WEIGHT, final_only: bool = False,
                 shared_win: float = 1.0):
        super().__init__()
        self.env, self.seat, self.k, self.margin, self.top = env, seat, k, margin, top
        self.margin_weight, self.final_only, self.shared_win = margin_weight, final_only, shared_win
        self.game = env.unwrapped.game
        self.greedy = agents.make("greedy", env)
        self.greedy.reset(seed)
        self.num_players = len(env.possible_agents)
        self.players = [agents.make("greedy" if s == seat else opponent, env)
                        for s in range(self.num_players)]
        self.search_rng = make_rng(seed + 1)
        self.scratch = np.zeros(self.game.info.observation_size, np.float32)
        self.mask = np.zeros(self.game.info.num_actions, np.int8)
        self.close_calls = self.changed = 0

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Greedy's choice, unless rollouts favour another close candidate."""
        values = self.greedy.action_values(observation)
        best = max(values.values())
        first = self.greedy.choose_best(values)
        near = sorted((a for a, v in values.items() if v >= best - self.margin),
                      key=lambda a: (a != first, -values[a]))[: self.top]
        state = self.env.unwrapped.state_
        if len(near) < 2 or (self.final_only and not state.final_round):
            return first
        self.close_calls += 1
        totals = dict.fromkeys(near, 0.0)
        for _ in range(self.k):
            world = self.game.resample_hidden(state, self.seat, self.search_rng)
            world_seed = int(self.search_rng.integers(SEED_BOUND))
            for action in near:
                totals[action] += self.play_out(world, action, world_seed)
        choice = max(near, key=lambda a: (totals[a], a == first))
        self.changed += choice != first
        return choice

    def play_out(self, world, action: int, seed: int) -> float:
        """``action`` in a copy of ``world``, then every seat's model to the end."""
        state = world.clone()
        state.rng = make_rng(seed)
        for player in self.players:
            player.reset(seed)
        state.apply_action(action)
        mask = self.mask
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            seat = state.current_player()
            player = self.players[seat]
            if not player.reads_observation:
                state.apply_action(player.act_legal(legal))
                continue
            mask[:] = 0
            mask[legal] = 1
            observed = {"observation": self.game.observation(state, seat, self.scratch),
                        "action_mask": mask}
            state.apply_action(player.act(observed))
        scores, winners = state.scores(), state.winners()
        rival = max(s for seat, s in enumerate(scores) if seat != self.seat)
        win = 1.0 if winners == [self.seat] else self.shared_win if self.seat in winners else 0.0
        return win + self.margin_weight * (scores[self.seat] - rival)


def play_games(job: tuple) -> tuple[int, int, int, int, int]:
    """Wins of rollout greedy and of greedy in the same seats, games, close calls,
    changed choices."""
    env_name, num_players, opponent, seeds, search = job
    env = envs.make(env_name, num_players=num_players)
    wins = {"rollout": 0, "greedy": 0}
    calls = changed = 0
    for seed in seeds:
        mine = seed % num_players
        for kind in wins:
            env.reset(seed=seed)
            players = [agents.make(opponent, env) for _ in range(num_players)]
            if kind == "rollout":
                players[mine] = RolloutGreedy(env, mine, seed, opponent, **search)
            else:
                players[mine] = agents.make("greedy", env)
            for seat, player in enumerate(players):
                player.reset(seed * num_players + seat)
            play_seated(env, players)
            wins[kind] += mine in env.unwrapped.state_.winners()
            if kind == "rollout":
                calls += players[mine].close_calls
                changed += players[mine].changed
    return wins["rollout"], wins["greedy"], len(seeds), calls, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env", help="environment id, e.g. otontin_v0")
    parser.add_argument("players", type=int, help="number of players")
    parser.add_argument("--opponent", default="random", help="agent spec of every other seat")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=700000, help="first game seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--k", type=int, default=8, help="worlds per close call")
    parser.add_argument("--margin", type=float, default=1.0, help="close-call margin (greedy's units)")
    parser.add_argument("--top", type=int, default=3, help="candidates at most")
    parser.add_argument("--margin-weight", type=float, default=MARGIN_WEIGHT,
                        help="a rollout's outcome per point of score over the best rival")
    parser.add_argument("--final-only", action="store_true",
                        help="search only in the game's final round (Otontin: state.final_round)")
    args = parser.parse_args()
    seeds = list(range(args.seed, args.seed + args.games))
    parts = [seeds[i::8 * args.workers] for i in range(8 * args.workers) if seeds[i::8 * args.workers]]
    search = {"k": args.k, "margin": args.margin, "top": args.top,
              "margin_weight": args.margin_weight, "final_only": args.final_only}
    jobs = [(args.env, args.players, args.opponent, p, search) for p in parts]
    start = time.perf_counter()
    totals = np.zeros(5, np.int64)
    with Pool(args.workers) as pool:
        for done, result in enumerate(pool.imap_unordered(play_games, jobs), 1):
            totals += result
            print(f"  {done}/{len(jobs)} parts, {totals[2]} games, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    rollout, greedy, games, calls, changed = (int(x) for x in totals)
    for name, wins in (("rollout greedy", rollout), ("greedy", greedy)):
        low, high = wilson(wins, games)
        print(f"{name:15s} {wins / games:.3f} [{low:.3f}, {high:.3f}] against {args.opponent} "
              f"({games} games, {args.players} players)")
    print(f"{search}: {calls / games:.1f} close calls and "
          f"{changed / games:.1f} changed choices a game")


if __name__ == "__main__":
    main()
