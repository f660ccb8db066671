"""The ``otrio`` command line: demo, play, tournament (and more as they land)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envs.core.errors import OtrioError

DEMO_GAMES = {  # env id -> (config, lineup) for the demo tournaments
    "oceanos_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otys_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otontin_v0": ({"num_players": 3}, ["greedy", "random", "random"]),
}


PRETRAINED = Path(__file__).parent / "agents" / "pretrained"


class UsageError(Exception):
    """A command line argparse refuses: reported by :func:`main` in one line."""


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors reach :func:`main` (one line on stderr, exit code 2)
    instead of printing the usage and exiting from inside the parser."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be >= {least}, got {value}")
    return value


def seed_arg(text: str) -> int:
    """A seed: a whole number >= 0."""
    return _whole_number(text, 0)


def count_arg(text: str) -> int:
    """A count: a whole number >= 1."""
    return _whole_number(text, 1)


def _demo_lineups(env_id: str) -> tuple[dict, dict[str, str], list[list[str]]]:
    """Config, agents and lineups of the demo tournaments of one game."""
    config, lineup = DEMO_GAMES[env_id]
    specs = {"greedy": "greedy", "random": "random"}
    lineups = [lineup]
    checkpoint = PRETRAINED / f"{env_id.rsplit('_v', 1)[0]}_ppo.json"  # the safe format
    if checkpoint.exists():
        specs["ppo"] = f"ppo:{checkpoint}"
        others = lineup[1:]
        lineups += [["ppo", "greedy"] + others[1:], ["ppo"] + others]
    return config, specs, lineups


def _demo(args: argparse.Namespace) -> int:
    """Short tournaments on every game: greedy against random, and the pretrained PPO
    agent (where one is shipped) against greedy and against random."""
    import hashlib
    import json

    import envs
    from agents.greedy import has_greedy
    from agents.records import run_identity
    from benchmarks.report import leaderboard_markdown
    from benchmarks.tournament import TournamentConfig, run
    from envs.core.config import validate
    from envs.core.errors import ConfigError

    replayed = None
    for env_id in envs.available():
        if not has_greedy(env_id.rsplit("_v", 1)[0]):
            print(f"\n## {env_id}: no greedy agent yet, skipped")
            continue
        config, specs, lineups = _demo_lineups(env_id)
        for lineup in lineups:
            used = {name: specs[name] for name in set(lineup)}
            name = "_vs_".join(dict.fromkeys(lineup))
            cfg = validate(TournamentConfig, dict(
                game=env_id, game_config=config, agents=used, lineup=lineup,
                games_per_seating=args.games, seed=args.seed,
                output=str(Path(args.output) / env_id / name),
            ))
            try:
                folder = run(cfg, progress=not args.quiet)
            except ConfigError as err:
                if "holds a run of another config" not in str(err):
                    raise  # not a folder of another config: a folder in use, a bad agent
                # the folder holds a demo of another config (say, a checkpoint updated
                # since): keep it, and play this one beside it
                identity = json.dumps(run_identity(cfg.identity()), sort_keys=True)
                digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
                cfg = cfg.model_copy(update={"output": f"{cfg.output}_{digest}"})
                print(f"\n{Path(cfg.output).parent / name} holds a demo of another config; "
                      f"playing this one in {cfg.output}")
                folder = run(cfg, progress=not args.quiet)
            summary = json.loads((folder / "summary.json").read_text())
            print(f"\n## {env_id}, {len(lineup)} players, {' / '.join(lineup)}: "
                  f"{summary['games']} games (report: {folder / 'report.md'})\n")
            print(leaderboard_markdown(summary))
            replayed = replayed or _demo_replay(folder, cfg, Path(args.output))
    return 0


def _demo_replay(folder: Path, cfg, output: Path) -> Path:
    """Write the HTML replay of the first game of a demo tournament; print its path."""
    from agents.replay import load_record
    from benchmarks.play import play_game
    from benchmarks.replay_html import build_page
    from benchmarks.tournament import build_tasks

    record = load_record(folder, 0)
    if "replay" not in record:  # a demo folder from before records kept their actions:
        record = play_game(build_tasks(cfg)[0])  # the same game, played again
    html, _, facts = build_page(record, source=f"{folder} game 0")
    path = output / f"replay_{cfg.game}_game0.html"
    path.write_text(html, encoding="utf-8")
    print(f"\nreplay of one demo game ({facts['frames'] - 1} decisions, "
          f"{facts['html_bytes'] / 1e3:.0f} kB): {path} (open it in a browser; "
          f"`otrio replay RUN_DIR --game K --output FILE.html` replays any recorded game)")
    return path


def _replay(args: argparse.Namespace) -> int:
    """One recorded game of a tournament or balance run as a self-contained HTML page."""
    from benchmarks.replay_html import write_replay

    output = args.output or str(Path(args.run) / f"replay_game{args.game}.html")
    path, facts = write_replay(args.run, args.game, output)
    print(f"{path}: {facts['frames'] - 1} decisions, {facts['pictures']} distinct pictures, "
          f"{facts['html_bytes'] / 1e3:.0f} kB")
    return 0


def _play(args: argparse.Namespace) -> int:
    """Play one game in the terminal: humans against agents."""
    import agents
    import envs
    from agents.arena import play_seated
    from envs.core.rng import derive_seed

    seats = agents.split_specs(args.seats)
    env = envs.make(args.game if args.game.endswith("_v0") else f"{args.game}_v0",
                    num_players=len(seats))
    players = [agents.make(spec, env) for spec in seats]
    env.reset(seed=args.seed)
    for seat, agent in enumerate(players):
        agent.reset(derive_seed(args.seed, "agent", seat))
    index = {a: k for k, a in enumerate(env.possible_agents)}

    def announce(agent: str, action: int) -> None:
        if seats[index[agent]] != "human":
            print(f"{agent} ({seats[index[agent]]}): {env.unwrapped.action_name(action)}")

    try:
        play_seated(env, players, on_action=announce)
    except EOFError as err:  # a human seat's input ended
        raise OtrioError(f"{err or 'input closed'}; the game is abandoned") from None
    print(env.unwrapped.game.render(env.unwrapped.state_))
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from benchmarks.tournament import load_config, run

    cfg = load_config(args.config, workers=args.workers, backend=args.backend,
                      output=args.output, games_per_seating=args.games_per_seating)
    folder = run(cfg, progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                 repair=args.repair, verify=args.verify)
    print((folder / "report.md").read_text())
    return 0


def _train(args: argparse.Namespace) -> int:
    from training.config import load_train_config
    from training.train import train

    cfg = load_train_config(args.config, output=args.output, total_timesteps=args.timesteps)
    if cfg.distill is not None:
        from training.distill import distill

        net = distill(cfg, workers=args.workers, backend=args.backend,
                      ray_address=args.ray_address, progress=not args.quiet)
        print(f"distilled network: {net} (play it as net:{net})", flush=True)
        return 0
    train(cfg, progress=not args.quiet)
    return 0


def _evaluate_run(args: argparse.Namespace) -> int:
    from training.train import evaluate_snapshots

    evaluate_snapshots(Path(args.run), args.games)
    print(f"written to {Path(args.run) / 'eval_snapshots.jsonl'}")
    return 0


def _export(args: argparse.Namespace) -> int:
    source = Path(args.source)
    if not source.exists():
        raise OtrioError(f"export-checkpoint: the source {source} does not exist")
    if not source.is_file():
        raise OtrioError(f"export-checkpoint: the source {source} is not a checkpoint file")
    from training.train import export_checkpoint

    manifest = export_checkpoint(Path(args.source), Path(args.target))
    weights = manifest.with_suffix(".safetensors")
    print(f"exported {args.source} -> {manifest} and {weights.name} "
          f"({weights.stat().st_size / 1e6:.1f} MB); play it as ppo:{manifest}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from benchmarks.bench import format_table, run_bench, write_json

    result = run_bench(args.steps, args.obs_samples, args.ppo_timesteps, args.tournament_games,
                       args.rounds)
    result["command"] = "otrio bench " + " ".join(sys.argv[2:])
    write_json(result, Path(args.json))
    print(format_table(result))
    print(f"\nwritten to {args.json}")
    return 0


def _search_bench(args: argparse.Namespace) -> int:
    from benchmarks.search import SearchBenchConfig, run
    from envs.core.config import validate
    from envs.core.errors import ConfigError

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
    from benchmarks import balance, balance_search

    cfg = balance.load_config(args.config, workers=args.workers, backend=args.backend,
                              output=None if args.search else args.output,
                              games_per_setup=args.games_per_setup)
    options = dict(progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                   repair=args.repair, verify=args.verify)
    if args.search:  # the config's search: section, into a folder of its own
        folder = balance_search.run(cfg, output=args.output, **options)
    else:
        folder = balance.run(cfg, **options)
    print(f"report: {folder / 'report.md'}")
    return 0


def _trust_flag(parser: argparse.ArgumentParser) -> None:
    """``--trust-checkpoint``: load Stable-Baselines3 zips (which run code stored in them)."""
    parser.add_argument(
        "--trust-checkpoint", action="store_true",
        help="allow Stable-Baselines3 .zip checkpoints, which run code stored in the file "
             "when loaded: only for files you made (same as OTRIO_TRUST_CHECKPOINTS=1)")


def _records_flags(parser: argparse.ArgumentParser, verify: bool = True) -> None:
    """``--repair`` (and ``--verify``): what a resume does with the records already in
    the run folder (agents/records.py)."""
    parser.add_argument(
        "--repair", action="store_true",
        help="move bad lines of games.jsonl to games.rejected.jsonl and go on (without it, "
             "a bad line stops the run and nothing is changed)")
    if verify:
        parser.add_argument(
            "--verify", choices=["sample", "all", "none"], default="sample",
            help="records re-played on resume to check their results: a sample (default), "
                 "all, or none")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``otrio`` command."""
    parser = Parser(prog="otrio", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="the main job: short greedy-vs-random tournaments "
                                       "and the HTML replay of one of their games")
    demo.add_argument("--games", type=count_arg, default=25, help="games per seating")
    demo.add_argument("--seed", type=seed_arg, default=0)
    demo.add_argument("--output", default="runs/demo")
    demo.add_argument("--quiet", action="store_true")
    demo.set_defaults(func=_demo)

    play = sub.add_parser("play", help="play in the terminal against agents")
    play.add_argument("game", help="oceanos, otys or otontin")
    play.add_argument("--seats", required=True,
                      help="comma-separated specs, e.g. human,greedy,mcts:iterations=64,top=4")
    play.add_argument("--seed", type=seed_arg, default=0)
    _trust_flag(play)
    play.set_defaults(func=_play)

    tour = sub.add_parser("tournament", help="run a tournament from a YAML config")
    tour.add_argument("config")
    tour.add_argument("--workers", type=int)
    tour.add_argument("--backend", choices=["local", "ray"])
    tour.add_argument("--output")
    tour.add_argument("--games-per-seating", type=int)
    tour.add_argument("--quiet", action="store_true")
    _trust_flag(tour)
    _records_flags(tour)
    tour.set_defaults(func=_tournament)

    tr = sub.add_parser("train", help="train an agent from YAML: MaskablePPO self-play, or "
                        "distillation from search (a config with a distill: section)")
    tr.add_argument("config")
    tr.add_argument("--output", help="the run folder (default: the config's output)")
    tr.add_argument("--timesteps", type=int, help="override total_timesteps (PPO)")
    tr.add_argument("--workers", type=count_arg, default=1,
                    help="processes for a distillation's teacher games (default 1; the "
                    "same games on any number)")
    tr.add_argument("--backend", choices=["local", "ray"], default="local",
                    help="where teacher games run: local processes or Ray (default local)")
    tr.add_argument("--ray-address", default=None,
                    help="a running Ray cluster for --backend ray (default: start one here)")
    tr.add_argument("--quiet", action="store_true")
    tr.set_defaults(func=_train)

    evaluate_run = sub.add_parser(
        "evaluate-run", help="evaluate every snapshot of a training run (eval_snapshots.jsonl)")
    evaluate_run.add_argument("run", help="the run folder (holds config.json and snapshots/)")
    evaluate_run.add_argument("--games", type=count_arg, default=None,
                              help="games per opponent, at least 1 (default: the run's eval.games)")
    _trust_flag(evaluate_run)
    evaluate_run.set_defaults(func=_evaluate_run)
    export = sub.add_parser(
        "export-checkpoint",
        help="a play-only copy of a checkpoint that loads without running code (safetensors)")
    export.add_argument("source", help="an agent a training run wrote (final.json, "
                        "snapshots/step_N.json), or an SB3 .zip of an older run (needs "
                        "--trust-checkpoint)")
    export.add_argument("target", help="the agent's manifest, X.json (X.safetensors beside it)")
    _trust_flag(export)
    export.set_defaults(func=_export)

    bench = sub.add_parser("bench", help="throughput of every game next to connect_four_v3")
    bench.add_argument("--steps", type=int, default=20_000, help="AEC steps per measurement")
    bench.add_argument("--obs-samples", type=int, default=2_000)
    bench.add_argument("--rounds", type=int, default=3,
                       help="rounds (the reference either side of every game); medians reported")
    bench.add_argument("--ppo-timesteps", type=int, default=0, help="0: skip the PPO share")
    bench.add_argument("--tournament-games", type=int, default=0,
                       help="games per seating for the 1-vs-2-worker speed-up; 0: skip")
    bench.add_argument("--json", default="runs/bench.json")
    bench.set_defaults(func=_bench)

    search = sub.add_parser("search-bench", help="mcts strength against budget (win rate vs greedy)")
    search.add_argument("game", help="environment id, e.g. oceanos_v0")
    search.add_argument("--players", type=int, required=True)
    search.add_argument("--budgets", required=True, help="mcts iterations a decision, e.g. 8,32,128")
    search.add_argument("--options", default="", help="further mcts options, e.g. top=4,gap=1")
    search.add_argument("--opponent", default="greedy", help="agent spec of every other seat")
    search.add_argument("--games", type=int, default=200, help="games per budget")
    search.add_argument("--games-for", default="", help="other game counts, e.g. 8=100,128=60")
    search.add_argument("--seed", type=int, default=0)
    search.add_argument("--workers", type=int, default=1)
    search.add_argument("--output", default="runs/search")
    search.add_argument("--quiet", action="store_true")
    search.add_argument("--report-only", action="store_true",
                        help="write the report of the games recorded so far; play none")
    _records_flags(search, verify=False)
    search.set_defaults(func=_search_bench)

    rep = sub.add_parser(
        "replay", help="one recorded game as a self-contained HTML page",
        description="Replay game K of a tournament or balance run (checking every step "
                    "against the record) into one self-contained HTML file: the table at "
                    "every decision, step forward and back, jump to a round, play/pause, "
                    "and the point of view of the whole table or of any seat (its own view "
                    "hides what that seat cannot see).")
    rep.add_argument("run", metavar="RUN_DIR", help="the run folder (holds games.jsonl)")
    rep.add_argument("--game", type=seed_arg, required=True, metavar="K",
                     help="the game's number (its 'game' field in games.jsonl)")
    rep.add_argument("--output", metavar="FILE.html",
                     help="the HTML file to write (default: RUN_DIR/replay_gameK.html)")
    rep.set_defaults(func=_replay)

    bal = sub.add_parser("balance", help="run a balance sweep from a YAML config")
    bal.add_argument("config")
    bal.add_argument("--workers", type=int)
    bal.add_argument("--backend", choices=["local", "ray"])
    bal.add_argument("--output")
    bal.add_argument("--games-per-setup", type=int)
    bal.add_argument("--quiet", action="store_true")
    bal.add_argument("--search", action="store_true",
                     help="run the config's search: section (the setup closest to its target, "
                          "then a pre-registered confirmation) instead of its sweeps")
    _records_flags(bal)
    bal.set_defaults(func=_balance)

    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        print(err, file=sys.stderr)
        return 2
    from agents.weights import trusting

    try:
        with trusting(getattr(args, "trust_checkpoint", False)):
            return args.func(args)
    except OtrioError as err:
        print(f"otrio: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: records written so far stay, and a run resumes
        print(flush=True)  # end an open prompt line
        print("otrio: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
