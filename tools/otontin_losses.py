"""How does a seat lose three-player Otontin to two random players? A loss anatomy.

Plays ``--agent`` (greedy by default) in one seat (seat = seed mod 3) against two random
players and sorts its losses: those where the final war took every bean it held (an
unblocked attack into a city with no resting warriors left), and the rest (a rival
ended richer). It prints the win rate, the share of each kind of loss, the losing
margins and the seat's beans at the end of its losses, so a reader can see whether the
losses are close calls a better policy could turn, or blow-outs.

Usage::

    python tools/otontin_losses.py --games 3000
"""

from __future__ import annotations

import argparse
from collections import Counter
from statistics import median

import agents
import envs
from agents.arena import play_seated
from agents.stats import wilson

NUM_PLAYERS = 3


def play(agent_spec: str, games: int, first_seed: int) -> dict:
    """Wins and the anatomy of the losses of ``agent_spec`` against two random players."""
    env = envs.make("otontin_v0", num_players=NUM_PLAYERS)
    state_of = env.unwrapped
    wins, kinds, margins, beans_left = 0, Counter(), [], []
    beans_before_last_action: list[int] = []  # every seat's, before the final war

    def note_beans(agent: str, action: int) -> None:
        beans_before_last_action[:] = state_of.state_.beans

    for seed in range(first_seed, first_seed + games):
        mine = seed % NUM_PLAYERS
        env.reset(seed=seed)
        players = [agents.make("random", env) for _ in range(NUM_PLAYERS)]
        players[mine] = agents.make(agent_spec, env)
        for seat, player in enumerate(players):
            player.reset(seed * NUM_PLAYERS + seat)
        play_seated(env, players, on_action=note_beans)
        beans_before_war = beans_before_last_action[mine]
        state = state_of.state_
        if mine in state.winners():
            wins += 1
            continue
        scores = state.scores()
        stripped = beans_before_war > 0 and scores[mine] == 0
        kinds["stripped in the final war" if stripped else "a rival ended richer"] += 1
        margins.append(max(s for seat, s in enumerate(scores) if seat != mine) - scores[mine])
        beans_left.append(scores[mine])
    return {"games": games, "wins": wins, "kinds": kinds, "margins": margins,
            "beans_left": beans_left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="greedy", help="agent spec of the measured seat")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    args = parser.parse_args()
    result = play(args.agent, args.games, args.seed)
    games, wins = result["games"], result["wins"]
    low, high = wilson(wins, games)
    losses = games - wins
    print(f"{args.agent} against two random players: {wins / games:.3f} [{low:.3f}, {high:.3f}] "
          f"in {games} games; {losses} losses")
    for kind, count in result["kinds"].most_common():
        print(f"  {kind}: {count} ({count / max(losses, 1):.0%} of the losses)")
    if losses:
        print(f"  losing margin: median {median(result['margins'])} beans, "
              f"{sum(m <= 3 for m in result['margins'])} losses by 3 beans or fewer")
        print(f"  beans at the end of a loss: median {median(result['beans_left'])}, "
              f"{sum(b == 0 for b in result['beans_left'])} losses with none")


if __name__ == "__main__":
    main()
