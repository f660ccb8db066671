"""Does greedy play better with other value weights? A sweep against a fixed opponent.

Each named weight (a module constant of the game's greedy modules,
``agents/greedy/<game>*.py``, or a field of such a module's ``WEIGHTS`` dataclass) is scaled in turn by each of ``--scales``, or one variant
takes the changes given with ``--set NAME=VALUE``. Every variant plays greedy in one
seat (seat = seed mod players) against ``--opponent`` players on the same seeds, next
to an unchanged copy (``stock``), whose score shows the noise of the seed set. A
victory counts when the seat is among the winners, as in tournaments.

Usage::

    python tools/greedy_weights.py otontin_v0 3 --opponent random --games 2400 \\
        --weights WARRIOR_VALUE,FINAL_WARRIOR_VALUE,WIN_VALUE,RIVAL_WEIGHT,KILL_VALUE
    python tools/greedy_weights.py otontin_v0 3 --opponent greedy --set WIN_VALUE=20

The variant is patched into every greedy module of the game that holds the name, in the
worker process, before its agents are made. (Otys' own sweep, which also tries weights
against greedy, is ``tools/otys_teachers.py weights``.)
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import pkgutil
from multiprocessing import Pool

import agents
import agents.greedy
import envs
from agents.arena import play_seated
from agents.stats import wilson


def greedy_modules(game: str) -> list:
    """The game's greedy modules (``agents.greedy.<game>*``)."""
    names = [m.name for m in pkgutil.iter_modules(agents.greedy.__path__) if m.name.startswith(game)]
    return [importlib.import_module(f"agents.greedy.{name}") for name in names]


def stock_value(game: str, weight: str) -> float:
    """A weight's stock value; SystemExit if no greedy module of the game has it."""
    for module in greedy_modules(game):
        if isinstance(getattr(module, weight, None), int | float):
            return getattr(module, weight)
        if isinstance(getattr(_weights(module), weight, None), int | float):
            return getattr(module.WEIGHTS, weight)
    raise SystemExit(f"no weight {weight!r} in the {game} greedy modules")


def _weights(module):
    """The module's ``WEIGHTS`` dataclass instance, or None."""
    weights = getattr(module, "WEIGHTS", None)
    return weights if dataclasses.is_dataclass(weights) else None


def play_variant(job: tuple) -> tuple[str, int, int]:
    """Wins of greedy with ``changes`` in its seat over ``seeds``."""
    name, changes, env_name, num_players, opponent, seeds = job
    game = env_name.split("_")[0]
    for module in greedy_modules(game):
        for weight, value in changes.items():
            if hasattr(module, weight):
                setattr(module, weight, value)
            elif hasattr(_weights(module), weight):
                module.WEIGHTS = dataclasses.replace(module.WEIGHTS, **{weight: value})
    env = envs.make(env_name, num_players=num_players)
    wins = 0
    for seed in seeds:
        mine = seed % num_players
        env.reset(seed=seed)
        players = [agents.make(opponent, env) for _ in range(num_players)]
        players[mine] = agents.make("greedy", env)
        for seat, player in enumerate(players):
            player.reset(seed * num_players + seat)
        play_seated(env, players)
        wins += mine in env.unwrapped.state_.winners()
    return name, wins, len(seeds)


def variants_to_play(game: str, args) -> dict[str, dict[str, float]]:
    """``stock`` and the variants the arguments ask for."""
    variants: dict[str, dict[str, float]] = {"stock": {}}
    if args.set:
        changes = {}
        for item in args.set:
            weight, _, value = item.partition("=")
            stock_value(game, weight)
            changes[weight] = float(value)
        variants["set"] = changes
        return variants
    for weight in filter(None, args.weights.split(",")):
        stock = stock_value(game, weight)
        for scale in (float(s) for s in args.scales.split(",")):
            variants[f"{weight}*{scale:g}"] = {weight: round(stock * scale, 6)}
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env", help="environment id, e.g. otontin_v0")
    parser.add_argument("players", type=int)
    parser.add_argument("--opponent", default="random", help="agent spec of every other seat")
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=900000, help="first game seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--weights", default="", help="comma-separated weight names to scale")
    parser.add_argument("--scales", default="0.5,2", help="comma-separated scales")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="one variant with these changes (repeatable)")
    args = parser.parse_args()
    game = args.env.split("_")[0]
    variants = variants_to_play(game, args)
    seeds = list(range(args.seed, args.seed + args.games))
    parts = [seeds[i::4] for i in range(4) if seeds[i::4]]
    jobs = [(name, changes, args.env, args.players, args.opponent, part)
            for name, changes in variants.items() for part in parts]
    totals: dict[str, list[int]] = {}
    with Pool(args.workers, maxtasksperchild=1) as pool:  # a fresh process per variant's part
        for name, wins, games in pool.imap_unordered(play_variant, jobs):
            total = totals.setdefault(name, [0, 0])
            total[0] += wins
            total[1] += games
    print(f"greedy in one seat against {args.opponent}, {args.games} games, {args.players} players")
    for name, (wins, games) in sorted(totals.items(), key=lambda kv: -kv[1][0] / kv[1][1]):
        low, high = wilson(wins, games)
        print(f"{wins / games:.3f} [{low:.3f}, {high:.3f}]  {name:24s} {variants[name]}")


if __name__ == "__main__":
    main()
