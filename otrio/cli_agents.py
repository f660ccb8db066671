"""``otrio agents`` (the zoo, and what each agent kind takes) and ``otrio ladder`` (every
tier of a game round-robin, rated on one scale)."""

from __future__ import annotations

import argparse
import sys
from itertools import permutations
from typing import TYPE_CHECKING

from otrio.envs.core.errors import ConfigError
from otrio.envs.core.registry import ENV_MODULES, game_name, resolve_env_id

from .cli_args import (
    GAME_HELP,
    code_trust_flag,
    command,
    count_arg,
    game_arg,
    override_flags,
    override_sets,
    records_flags,
)

if TYPE_CHECKING:
    from otrio.benchmarks.tournament.tournament import TournamentConfig

# what the agent kinds without an option table take, for --describe
KINDS = {
    "random": "a uniformly random legal action, seeded by reset(seed); no options",
    "greedy": "the game's documented one-step heuristic (docs/agents.md, Greedy); no options",
    "human": "you, at the terminal (otrio play); no options",
    "net": "net:PATH, an exported network (X.json beside X.safetensors) played by its "
           "policy's favourite legal move; no options",
    "ppo": "ppo:PATH, the same as net:PATH, and also a Stable-Baselines3 .zip of your own "
           "if you trust it (--trust-checkpoint)",
    "python": "python:MODULE:CLASS, your own Agent subclass imported by name (--trust-code)",
    "fast": "the zoo's strongest player at 2 ms a decision or less, for the game and count",
    "strong": "the zoo's strongest player at 20 ms a decision or less",
    "search": "the zoo's strongest player at a quarter of a second a decision or less",
}


def _describe(kind: str) -> str:
    """What an agent kind takes: its option table, or a line."""
    from otrio.agents.search_options import MCTS_OPTIONS  # deferred: start-up
    from otrio.agents.value_agent import VALUE_OPTIONS  # deferred: start-up

    tables = {"mcts": MCTS_OPTIONS, "value": VALUE_OPTIONS}
    if kind in tables:
        return tables[kind].describe()
    if kind in KINDS:
        return f"`{kind}`: {KINDS[kind]}"
    raise ConfigError(f"unknown agent kind {kind!r}; known: {', '.join([*tables, *KINDS])}")


def zoo_lines(env_ids: list[str], players: int | None) -> list[str]:
    """The zoo as text: a table a game (its player counts, or ``players`` alone)."""
    from otrio import envs  # deferred: start-up
    from otrio.agents.zoo import RESOLVED, load_zoo  # deferred: start-up

    zoo = load_zoo()
    lines = []
    for env_id in env_ids:
        game = game_name(env_id)
        info = envs.make(env_id).unwrapped.game.info
        counts = [players] if players else range(info.min_players, info.max_players + 1)
        if players and not info.min_players <= players <= info.max_players:
            raise ConfigError(f"{game} plays {info.min_players}-{info.max_players} players, "
                              f"not {players}")
        lines += [f"## {game}", "", "| players | tier | spec | ms a decision | win share "
                  "among greedy (95%) | games |", "|---|---|---|---|---|---|"]
        for n in counts:
            for tier in RESOLVED:
                spec, note = zoo.resolve(tier, game, n)
                entry = zoo.entry(game, n, tier)
                if note or entry is None or entry.strength is None:
                    lines.append(f"| {n} | {tier} | `{spec}` | | {note} | |")
                    continue
                s = entry.strength
                lines.append(f"| {n} | {tier} | `{spec}` | {entry.ms:g} | {s.share:.3f} "
                             f"[{s.low:.3f}, {s.high:.3f}] (fair {1 / n:.3f}) | {s.games:,} |")
        lines.append("")
    return lines


def _agents(args: argparse.Namespace) -> int:
    if args.describe:
        print(_describe(args.describe))
        return 0
    env_ids = [args.game] if args.game else list(ENV_MODULES)
    print("\n".join(zoo_lines(env_ids, args.players)))
    print("Pick one by its tier: otrio.agents.make(\"strong\", env), --seats strong,greedy, "
          "lineup: [strong, greedy]. Each share was measured in one seat among greedy "
          "players, on seeds nothing was tuned on (agents/zoo.json names the runs).")
    return 0


def ladder_agents(game: str, players: int, specs: list[str]) -> tuple[dict[str, str], list[str]]:
    """``(agents, notes)``: the ladder's players by name, each tier (fast, strong, search)
    written as the zoo's spec for the game and count, so that the run records what played
    (and the digests of the files it read); a tier that resolves to a player already on
    the ladder is left off, and ``notes`` says so."""
    from otrio.agents.zoo import RESOLVED, load_zoo  # deferred: start-up

    agents: dict[str, str] = {}
    notes = []
    for spec in dict.fromkeys(specs):
        played, note = spec, ""
        if spec in RESOLVED:
            played, note = load_zoo().resolve(spec, game_name(game), players)
        if played in agents.values():
            same = next(name for name, other in agents.items() if other == played)
            notes.append(f"{spec} left off: {note or f'the same player as {same}'}")
            continue
        agents[spec] = played
    return agents, notes


def ladder_config(game: str, players: int, specs: list[str], games: int,
                  sets: list[str], against: str | None = None, **overrides
                  ) -> tuple[TournamentConfig, list[str]]:
    """The ladder's tournament: each pair of ``specs`` at the table, one of them in one
    seat among the other (every seat in turn), ``games`` games a pairing; with
    ``against``, only each other spec in one seat among ``against`` players (its win
    share against them). Tiers are written as the zoo's specs (:func:`ladder_agents`);
    ``notes`` say which were left off."""
    from otrio.benchmarks.tournament.tournament import TournamentConfig  # deferred: start-up
    from otrio.envs.core.config import apply_sets, validate  # deferred: start-up

    if against is not None:  # first, so that a tier that plays the same is the one left off
        specs = [against, *(spec for spec in specs if spec != against)]
    agents, notes = ladder_agents(game, players, specs)
    if len(agents) < 2:
        raise ConfigError("a ladder needs two agents or more")
    names = list(agents)
    if against is not None:
        lineups = [[a] + [against] * (players - 1) for a in names if a != against]
    else:
        lineups = [[a] + [b] * (players - 1) for a, b in permutations(names, 2)]
        if players == 2:  # a pair's two pairings are the same games, seats rotated
            lineups = [lineup for lineup in lineups
                       if names.index(lineup[0]) < names.index(lineup[1])]
    data = {"game": game, "game_config": {"num_players": players},
            "agents": agents, "lineups": lineups,
            "games_per_seating": -(-games // players), "seed": 0,
            "output": f"runs/ladder/{game_name(game)}_{players}p"}
    data = apply_sets(data, sets, "ladder")
    data.update({k: v for k, v in overrides.items() if v is not None})
    return validate(TournamentConfig, data), notes


def _ladder(args: argparse.Namespace) -> int:
    from otrio.agents import split_specs  # deferred: start-up
    from otrio.benchmarks.tournament.tournament import run  # deferred: start-up

    specs = [*args.tiers.split(","), *(split_specs(args.agents) if args.agents else [])]
    cfg, notes = ladder_config(resolve_env_id(args.game), args.players,
                        [s.strip() for s in specs if s.strip()], args.games,
                        override_sets(args), against=args.against, workers=args.workers,
                        output=args.output)
    for note in notes:
        print(f"ladder: {note}", file=sys.stderr)
    folder = run(cfg, progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                 repair=args.repair, verify=args.verify)
    print((folder / "report.md").read_text())
    print(f"run folder: {folder.resolve()} (report.md, games.jsonl)")
    return 0


def add_parsers(sub) -> None:
    """``agents`` and ``ladder``."""
    ag = command(
        sub, "agents", "the reference players by tier, and what each agent kind takes",
        "Prints the zoo: for each game and player count, the player of each tier (fast: "
        "2 ms a decision or less, strong: 20 ms, search: 0.25 s), its spec, its measured "
        "time and its win share among greedy players, or the lower tier it resolves to "
        "and why. --describe KIND prints what an agent kind takes (mcts and value: every "
        "option, its default and range).")
    ag.add_argument("game", nargs="?", type=game_arg, default=None,
                    help=f"{GAME_HELP} (default: every game)")
    ag.add_argument("--players", type=count_arg, default=None,
                    help="one player count (default: every count the game plays)")
    ag.add_argument("--describe", metavar="KIND", default=None,
                    help="what an agent kind takes (mcts, value, net, greedy, fast, ...; "
                    "default: the zoo instead)")
    ag.set_defaults(func=_agents)

    lad = command(
        sub, "ladder", "every tier of a game round-robin, on one rating scale",
        "Play each pair of the tiers (and any spec given) at the table, one in a seat "
        "among the other, every seat in turn. Writes a tournament run folder (resumable): "
        "win shares, head-to-head shares and OpenSkill ratings, and prints its report.")
    lad.add_argument("game", type=game_arg, help=GAME_HELP)
    lad.add_argument("--players", type=count_arg, required=True, help="the player count")
    lad.add_argument("--tiers", default="random,greedy,fast,strong,search",
                     help="the tiers on the ladder, comma-separated")
    lad.add_argument("--agents", default=None,
                     help="more agent specs on the ladder, comma-separated (your own too; "
                     "default: the tiers alone)")
    lad.add_argument("--against", default=None, metavar="SPEC",
                     help="play each other agent only in one seat among SPEC players (its "
                     "win share against them: --against greedy measures the zoo's shares), "
                     "not every pair (default: every pair)")
    lad.add_argument("--games", type=count_arg, default=40,
                     help="games a pairing, rounded up to a multiple of the seats")
    lad.add_argument("--workers", type=count_arg, default=None,
                     help="processes that play (default 1)")
    lad.add_argument("--output", default=None,
                     help="the run folder (default runs/ladder/GAME_Np)")
    lad.add_argument("--quiet", action="store_true", help="no progress bar")
    override_flags(lad, "the ladder's tournament config")
    code_trust_flag(lad)
    records_flags(lad)
    lad.set_defaults(func=_ladder)
