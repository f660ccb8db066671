"""The study commands of ``otrio``: tournament, balance, skill-ceiling, dossier,
search-bench and bench (each plays games, or reads their results, into a run folder or
a report)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from otrio.arena.outputs import check_output_file
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.registry import game_name

from .cli_args import (
    GAME_HELP,
    code_trust_flag,
    command,
    config_run_flags,
    count_arg,
    game_arg,
    natural_arg,
    override_flags,
    override_sets,
    records_flags,
    trust_flag,
)


def match_config(args: argparse.Namespace):
    """The tournament a command line says without a config (``--game``, ``--agents``)."""
    from otrio.agents import split_specs  # deferred: start-up
    from otrio.benchmarks.tournament.tournament import match  # deferred: start-up

    if not (args.game and args.agents):
        raise ConfigError("tournament: give a config, or --game and --agents (one spec a "
                          "seat, e.g. --game oceanos --agents strong,greedy,greedy)")
    if args.games_per_seating:
        raise ConfigError("tournament: without a config, say the games in all with --games")
    specs = split_specs(args.agents)
    if args.players is not None and args.players != len(specs):
        raise ConfigError(f"tournament: --players {args.players}, but --agents names "
                          f"{len(specs)} (one spec a seat: {', '.join(specs)})")
    return match(args.game, specs, args.games or 200, override_sets(args),
                 workers=args.workers, backend=args.backend, output=args.output)


def _tournament(args: argparse.Namespace) -> int:
    from otrio.benchmarks.tournament.tournament import load_config, run  # deferred: start-up

    if args.config is None:
        cfg = match_config(args)
    else:
        if args.game or args.agents or args.games or args.players:
            raise ConfigError("tournament: --game, --players, --agents and --games say a match "
                              "without a config; with a config, change it with --set KEY=VALUE")
        cfg = load_config(args.config, override_sets(args), workers=args.workers,
                          backend=args.backend, output=args.output,
                          games_per_seating=args.games_per_seating)
    folder = run(cfg, progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                 repair=args.repair, verify=args.verify)
    print((folder / "report.md").read_text())
    print(f"run folder: {folder.resolve()} (report.md, games.jsonl)")
    return 0


def _bench(args: argparse.Namespace) -> int:
    try:
        from otrio.benchmarks.speed.bench import (  # deferred: start-up
            format_table,
            run_bench,
            write_json,
        )
    except ModuleNotFoundError as err:  # the reference's renderer: not in the core install
        if (err.name or "").partition(".")[0] != "pygame":
            raise
        raise ConfigError("bench: its reference, PettingZoo's connect_four_v3, needs pygame, "
                          "which is not installed: pip install 'otrio[dev]' (in a clone: "
                          "pip install -e '.[dev]'), or pip install pygame alone") from None

    check_output_file(args.json, "--json file")  # before the benchmark, not after it
    print(f"otrio bench: {args.rounds} round(s) of {args.steps} AEC steps a measurement; "
          f"the results go to {Path(args.json).resolve()} (--json FILE to change)", flush=True)

    def progress(text: str) -> None:
        print(f"  {text} ...", file=sys.stderr, flush=True)

    result = run_bench(args.steps, args.obs_samples, args.ppo_timesteps, args.tournament_games,
                       args.rounds, progress=None if args.quiet else progress)
    result["command"] = "otrio bench " + " ".join(sys.argv[2:])
    write_json(result, Path(args.json))
    print(format_table(result))
    print(f"\nwritten to {Path(args.json).resolve()}")
    return 0


def _search_bench(args: argparse.Namespace) -> int:
    from otrio.benchmarks.speed.search import SearchBenchConfig, run  # deferred: start-up
    from otrio.envs.core.config import validate  # deferred: start-up
    from otrio.envs.core.errors import ConfigError  # deferred: start-up

    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
        games_for = {int(b): int(g) for b, g in
                     (item.split("=") for item in args.games_for.split(",") if item.strip())}
    except ValueError:
        raise ConfigError("--budgets takes integers like 8,32,128 and --games-for pairs like "
                          "128=60") from None
    cfg = validate(SearchBenchConfig, dict(
        game=args.game, num_players=args.players, budgets=budgets, options=args.options,
        opponent=args.opponent, games=args.games, games_for=games_for, seed=args.seed,
        workers=args.workers, output=args.output))
    command = "otrio " + " ".join(a for a in sys.argv[1:] if a != "--report-only")
    folder = run(cfg, progress=not args.quiet, command=command, play=not args.report_only,
                 repair=args.repair)
    print((folder / "report.md").read_text())
    return 0


def _balance(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance import search, sweep  # deferred: start-up
    from otrio.benchmarks.balance.config import load_config  # deferred: start-up

    cfg = load_config(args.config, override_sets(args), workers=args.workers,
                      backend=args.backend, output=None if args.search else args.output,
                            games_per_setup=args.games_per_setup)
    options = dict(progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                   repair=args.repair, verify=args.verify)
    if args.search:  # the config's search: section, into a folder of its own
        folder = search.run(cfg, output=args.output, **options)
    else:
        if cfg.sweeps:
            print("\n".join(balance_plan(cfg, sweep.build_setups(cfg))), flush=True)
        folder = sweep.run(cfg, **options)
    print(f"report: {folder / 'report.md'}")
    return 0


def balance_plan(cfg, setups) -> list[str]:
    """The games a balance run plays, sweep by sweep, and why a setup may play more
    games than asked: its count is rounded up to a multiple of its player count (every
    seat rotation of a lineup equally often), and each lineup plays them all."""
    lines, total, rounded = [], 0, False
    asked = {sweep.name: sweep.games_per_setup or cfg.games_per_setup for sweep in cfg.sweeps}
    for name in dict.fromkeys(setup.sweep for setup in setups):
        groups = Counter((s.players, s.games, len(s.lineups) or 1)
                         for s in setups if s.sweep == name)
        parts, games_of_sweep = [], 0
        for (players, games, lineups), count in groups.items():
            games_of_sweep += count * games * lineups
            rounded |= games != asked[name]
            parts.append(f"{count} setup{'s' * (count > 1)} at {players} players x {games} "
                         f"games" + (f" x {lineups} lineups" if lineups > 1 else ""))
        total += games_of_sweep
        lines.append(f"  sweep {name} ({asked[name]} games a setup asked): "
                     f"{', '.join(parts)} = {games_of_sweep} games")
    why = (" A setup's games are rounded up to a multiple of its player count, so that "
           "each seat rotation of a lineup plays equally often." if rounded else "")
    if any(len(s.lineups) > 1 for s in setups):
        why += " Each lineup plays every game of a setup, on the same seeds."
    count = f"{len(setups)} setup{'s' * (len(setups) != 1)}"
    return [f"otrio balance: {total} games in {count}.{why}", *lines]


def _skill_ceiling(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance import skill_ceiling  # deferred: start-up

    cfg = skill_ceiling.load_config(args.config, override_sets(args), workers=args.workers,
                                    output=args.output,
                                    games_per_lineup=args.games_per_lineup)
    only = [g.strip() for g in args.only.split(",") if g.strip()] if args.only is not None \
        else None
    folder = skill_ceiling.run(cfg, progress=not args.quiet, only=only,
                               command="otrio " + " ".join(sys.argv[1:]))
    print(f"report: {folder / 'README.md'}")
    return 0


def _dossier(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance.dossier import (  # deferred: start-up
        SOURCES_FILE,
        write_dossier,
    )

    for env_id in dict.fromkeys(args.games):  # env ids (game_arg); the dossier names games
        page = write_dossier(game_name(env_id), Path(args.results), args.output)
        sources = json.loads((page.parent / SOURCES_FILE).read_text())[game_name(env_id)]
        print(f"dossier: {page} (from {len(sources['runs'])} runs in {Path(args.results)}: "
              f"{', '.join(sources['runs']) or 'none'})")
    return 0


def add_parsers(sub) -> None:
    """The study subcommands."""
    tour = command(
        sub, "tournament", "a tournament between agents, from a YAML config",
        "Play every seating of a YAML config's lineup (or ladder of lineups), a set number "
        "of games each, resuming the run folder where it holds records. Writes the run "
        "folder (games.jsonl, a record a game; summary.json; report.md with win shares, "
        "seat win rates and OpenSkill ratings, and its plots) and prints the report.")
    tour.add_argument("config", nargs="?", default=None,
                      help="the tournament's YAML config (configs/tournament/); without one, "
                      "--game, --agents and --games say the match")
    config_run_flags(tour)
    tour.add_argument("--games-per-seating", type=int,
                      help="games for each seating of the lineup (default: the config's)")
    tour.add_argument("--game", type=game_arg,
                      help=f"without a config: {GAME_HELP} (default: the config's)")
    tour.add_argument("--agents", help="without a config: one spec a seat, comma-separated "
                      "(strong,greedy,greedy; an option list stays with its spec: "
                      "mcts:iterations=64,top=4,greedy; default: the config's)")
    tour.add_argument("--games", type=count_arg, default=None,
                      help="without a config: the games in all, rounded up to a multiple of "
                      "the seats (default 200)")
    tour.add_argument("--players", type=count_arg, default=None,
                      help="without a config: the player count, a check on --agents (one "
                      "spec a seat; default: as many as --agents names)")
    override_flags(tour)
    code_trust_flag(tour)
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    trust_flag(tour)
    records_flags(tour)
    tour.set_defaults(func=_tournament)

    bal = command(
        sub, "balance", "a balance sweep over game setups, from a YAML config",
        "Play every setup of a YAML config's sweeps (a factor's values, a player count, a "
        "list of setups) with its agents or skill tiers, each seat rotation equally often, "
        "and measure how each setup moves the results. Writes the run folder (games.jsonl, "
        "setups.json, summary.json, report.md and its plots), which a second run resumes; "
        "--search runs the config's search for the fairest setup instead.")
    bal.add_argument("config", help="the sweep's YAML config (configs/balance/)")
    config_run_flags(bal)
    bal.add_argument("--games-per-setup", type=count_arg,
                     help="games for each setup of every sweep, rounded up to a multiple of "
                     "the setup's player count so that each seat rotation plays equally "
                     "often (2 at 4 players plays 4), and played by each lineup of a "
                     "sweep by tiers on the same seeds (default: the config's)")
    bal.add_argument("--quiet", action="store_true", help="no progress bar")
    bal.add_argument("--search", action="store_true",
                     help="run the config's search: section (the setup closest to its target, "
                          "then a pre-registered confirmation) instead of its sweeps")
    override_flags(bal)
    code_trust_flag(bal)
    records_flags(bal)
    bal.set_defaults(func=_balance)

    ceil = command(
        sub, "skill-ceiling", "how much skill each game rewards: agents against greedy, up "
        "to the clairvoyant search",
        "Play each agent of the config in one seat among greedy, and greedy everywhere, on "
        "the same seeds (one balance run per game and player count; the clairvoyant search "
        "is a research cheat that sees every hand). Writes the report folder: README.md "
        "(win shares, the headroom used, the luck share) and summary.json.")
    ceil.add_argument("config", help="the report's YAML config (configs/balance/"
                      "skill_ceiling.yaml); it must say reference: true")
    ceil.add_argument("--workers", type=int, help="processes that play games (default: "
                      "the config's workers, 1 if it names none)")
    ceil.add_argument("--output", help="the report folder (default: the config's output)")
    ceil.add_argument("--games-per-lineup", type=int,
                      help="games of each lineup in each group (default: the config's)")
    ceil.add_argument("--only", metavar="GROUPS", help="play only these groups, by "
                      "folder (otontin_3p,otys_2p): a slice of a big config; the report "
                      "keeps the groups earlier slices summarised into the same folder (default: every "
                      "group)")
    ceil.add_argument("--quiet", action="store_true", help="no progress bar")
    override_flags(ceil)
    ceil.set_defaults(func=_skill_ceiling)

    dos = command(
        sub, "dossier", "one game's balance dossier (a docs page) from the results",
        "Write one Markdown page per game, GAME.md, and its PNG plots from the balance "
        "results already there (nothing is played): seat advantage by skill tier, setup "
        "effects, skill depth, the fairest setup and its confirmation, skill ceiling and "
        "luck share.")
    dos.add_argument("games", nargs="+", type=game_arg, metavar="GAME",
                     help=f"the game(s) to write a dossier for: {GAME_HELP.removeprefix('the game: ')}")
    dos.add_argument("--results", default="benchmarks/results/balance",
                     help="the folder of balance result folders to read")
    dos.add_argument("--output", default="docs/dossiers",
                     help="the folder the pages and plots go to (a docs site folder)")
    dos.set_defaults(func=_dossier)
    bench = command(
        sub, "bench", "throughput of every game next to connect_four_v3",
        "Time every game's AEC steps and its observe+mask cost, round by round beside "
        "PettingZoo's connect_four_v3 on the same machine (medians reported); optionally "
        "the environment's share of MaskablePPO's training time and the speed-up of a "
        "second tournament worker. Prints a table and writes the measurements to --json. "
        "The reference needs pygame (in the [dev] extra, or pip install pygame).")
    bench.add_argument("--steps", type=count_arg, default=20_000,
                       help="AEC steps per measurement")
    bench.add_argument("--obs-samples", type=count_arg, default=2_000,
                       help="observations timed per setup for the observe+mask cost")
    bench.add_argument("--rounds", type=count_arg, default=3,
                       help="rounds (the reference either side of every game); medians reported")
    bench.add_argument("--ppo-timesteps", type=natural_arg, default=0,
                       help="MaskablePPO timesteps per game for the environment's share of "
                       "training time; 0: skip (default 0)")
    bench.add_argument("--tournament-games", type=natural_arg, default=0,
                       help="games per seating for the 1-vs-2-worker speed-up; 0: skip "
                       "(default 0)")
    bench.add_argument("--json", default="runs/bench.json",
                       help="the JSON file of the measurements (a relative path is under "
                       "the current folder)")
    bench.add_argument("--quiet", action="store_true", help="no progress lines")
    bench.set_defaults(func=_bench)

    search = command(
        sub, "search-bench", "mcts strength against budget (win rate against greedy)",
        "Play the mcts agent at each budget (iterations a decision) in one seat, its seat "
        "rotating, against --opponent in every other, and measure its win rate and its "
        "time a decision. Writes the run folder (games.jsonl, summary.json, report.md, "
        "strength.png), prints the report, and resumes the folder when run again.")
    search.add_argument("game", type=game_arg, help=GAME_HELP)
    search.add_argument("--players", type=int, required=True, help="player count of every game")
    search.add_argument("--budgets", required=True, help="mcts iterations a decision, e.g. 8,32,128")
    search.add_argument("--options", default="",
                        help="further mcts options, e.g. top=4,gap=1 (default: none)")
    search.add_argument("--opponent", default="greedy", help="agent spec of every other seat")
    search.add_argument("--games", type=int, default=200, help="games per budget")
    search.add_argument("--games-for", default="",
                        help="other game counts for some budgets, e.g. 8=100,128=60 (default: "
                        "--games for every budget)")
    search.add_argument("--seed", type=int, default=0, help="master seed of the games")
    search.add_argument("--workers", type=int, default=1,
                        help="processes that play games (the same records on any number)")
    search.add_argument("--output", default="runs/search", help="the run folder")
    search.add_argument("--quiet", action="store_true", help="no progress bar")
    search.add_argument("--report-only", action="store_true",
                        help="write the report of the games recorded so far; play none")
    records_flags(search, verify=False)
    search.set_defaults(func=_search_bench)

