"""otrio: three tabletop games (Oceanos, Otys, Otontin) as reinforcement-learning
environments. Play them at the terminal, run tournaments and balance sweeps, train and
evaluate PPO agents, measure search strength and throughput, and replay recorded games
as HTML pages. `otrio COMMAND --help` describes each command and every option's default."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from otrio.agents.outputs import (
    check_output_file,
    check_output_folder,
    make_output_folder,
    os_error_message,
    write_text_atomic,
)
from otrio.envs.core.errors import OtrioError
from otrio.envs.core.paths import PRETRAINED  # the shipped agents, in a clone or an installed wheel

DEMO_GAMES = {  # env id -> (config, lineup) for the demo tournaments
    "oceanos_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otys_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otontin_v0": ({"num_players": 3}, ["greedy", "random", "random"]),
}


class UsageError(Exception):
    """A command line argparse refuses: reported by :func:`main` in one line."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless the help already says what it
    is (``default``) or there is none to show (a flag that is off, a value that falls
    back on a config's, a required option)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.required or "default" in text
                or action.default is None or action.default is False
                or action.default == argparse.SUPPRESS):  # 0 is a default to show
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors reach :func:`main` (one line on stderr, exit code 2)
    instead of printing the usage and exiting from inside the parser; its help shows
    every option's default (:class:`HelpFormatter`)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

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


def natural_arg(text: str) -> int:
    """A whole number >= 0 (0: skip)."""
    return _whole_number(text, 0)


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
    game = env_id.rsplit("_v", 1)[0]
    others = lineup[1:]
    checkpoint = PRETRAINED / f"{game}_ppo.json"  # the safe format
    if checkpoint.exists():
        specs["ppo"] = f"ppo:{checkpoint}"
        lineups += [["ppo", "greedy"] + others[1:], ["ppo"] + others]
    network = PRETRAINED / f"{game}_net.json"  # distilled from search (issue 28)
    if network.exists():
        specs["net"] = f"net:{network}"
        lineups.append(["net", "greedy"] + others[1:])
    model = PRETRAINED / f"{game}_value.json"  # a value model: the fast value agent
    if model.exists():
        specs["value"] = f"value:{model}"
        lineups.append(["value", "greedy"] + others[1:])
    return config, specs, lineups


def _demo(args: argparse.Namespace) -> int:
    """Short tournaments on every game: greedy against random, the pretrained PPO agent
    (where one is shipped) against greedy and against random, and the network distilled
    from search and the fast value agent (where one is shipped) against greedy."""
    import hashlib
    import json

    from otrio import envs
    from otrio.agents.greedy import has_greedy
    from otrio.agents.records import run_identity
    from otrio.benchmarks.tournament.report import leaderboard_markdown
    from otrio.benchmarks.tournament.tournament import TournamentConfig, run
    from otrio.envs.core.config import validate
    from otrio.envs.core.errors import ConfigError

    make_output_folder(args.output, "--output folder")
    replayed = None
    for env_id in envs.available():
        if not has_greedy(env_id.rsplit("_v", 1)[0]):
            print(f"\n## {env_id}: no greedy agent yet, skipped")
            continue
        # the demo's folder holds one folder per game, which holds the run folders
        make_output_folder(Path(args.output) / env_id, "demo folder")
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
    from otrio.agents.records import load_record
    from otrio.benchmarks.play import play_game
    from otrio.benchmarks.replay.html import build_page
    from otrio.benchmarks.tournament.tournament import build_tasks

    record = load_record(folder, 0)
    if "replay" not in record:  # a demo folder from before records kept their actions:
        record = play_game(build_tasks(cfg)[0])  # the same game, played again
    html, _, facts = build_page(record, source=f"{folder} game 0")
    path = output / f"replay_{cfg.game}_game0.html"
    write_text_atomic(path, html)
    print(f"\nreplay of one demo game ({facts['frames'] - 1} decisions, "
          f"{facts['html_bytes'] / 1e3:.0f} kB): {path} (open it in a browser; "
          f"`otrio replay RUN_DIR --game K --output FILE.html` replays any recorded game)")
    return path


def _replay(args: argparse.Namespace) -> int:
    """One recorded game of a tournament or balance run as a self-contained HTML page."""
    from otrio.agents.records import load_record
    from otrio.benchmarks.replay.html import write_replay

    run, game = Path(args.run), args.game
    if game is None:  # the only game recorded there (else an error naming them)
        game = load_record(run).get("game")
    if args.output:
        output = args.output
    elif run.is_file():  # a file of records (otrio play --save): the page beside it
        output = str(run.with_suffix(".html") if args.game is None
                     else run.with_name(f"{run.stem}_game{game}.html"))
    else:
        output = str(run / f"replay_game{game}.html")
    check_output_file(output, "--output file")
    path, facts = write_replay(args.run, game, output)
    print(f"{path}: {facts['frames'] - 1} decisions, {facts['pictures']} distinct pictures, "
          f"{facts['html_bytes'] / 1e3:.0f} kB")
    return 0


def _play(args: argparse.Namespace) -> int:
    """Play one game in the terminal: humans against agents."""
    from otrio import agents
    from otrio.agents.human import QuitGame
    from otrio.benchmarks.play import play_in_terminal

    if args.save is not None:
        check_output_file(args.save, "--save file")  # before the game, not after it
    env_id = args.game if args.game.endswith("_v0") else f"{args.game}_v0"
    try:
        play_in_terminal(env_id, agents.split_specs(args.seats), args.seed, save=args.save)
    except EOFError as err:  # a human seat's input ended
        raise OtrioError(f"{err or 'input closed'}; the game is abandoned") from None
    except QuitGame as err:
        print(f"\n{err}: the game is abandoned" + (" (nothing saved)" if args.save else ""))
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from otrio.benchmarks.tournament.tournament import load_config, run

    cfg = load_config(args.config, workers=args.workers, backend=args.backend,
                      output=args.output, games_per_seating=args.games_per_seating)
    check_output_folder(cfg.output, "output folder")
    folder = run(cfg, progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                 repair=args.repair, verify=args.verify)
    print((folder / "report.md").read_text())
    print(f"run folder: {folder.resolve()} (report.md, games.jsonl)")
    return 0


def _train(args: argparse.Namespace) -> int:
    from otrio.training.config import load_train_config
    from otrio.training.train import train

    cfg = load_train_config(args.config, smoke=args.smoke, output=args.output,
                            total_timesteps=args.timesteps)
    check_output_folder(cfg.output, "output folder")
    if cfg.distill is not None:
        from otrio.training.distill import distill

        net = distill(cfg, workers=args.workers, backend=args.backend,
                      ray_address=args.ray_address, progress=not args.quiet)
        print(f"distilled network: {net} (play it as net:{net})", flush=True)
        return 0
    train(cfg, progress=not args.quiet)
    return 0


def _value_args(args: argparse.Namespace) -> int:
    """Split ``otrio value``'s paths by action, then run it."""
    paths = list(args.paths)
    if args.action == "data":
        if len(paths) != 1:
            raise OtrioError("value data takes one config")
        args.config = paths[0]
    elif args.action == "fit":
        if not args.output:
            raise OtrioError("value fit needs --output X (writes X.json and X.safetensors)")
        args.data = paths
    else:
        if len(paths) < 2:
            raise OtrioError("value gate takes the model's .json, then the data run folders")
        args.model, args.data = paths[0], paths[1:]
    return _value(args)


def _value(args: argparse.Namespace) -> int:
    from otrio.envs.core.config import load_yaml, validate
    from otrio.training import value_data, value_fit, value_report

    if args.action == "data":
        cfg = validate(value_data.ValueDataConfig, load_yaml(args.config, "value-data config"))
        out = Path(args.output or f"runs/values/{Path(args.config).stem}")
        summary = value_data.generate(cfg, out, args.workers, args.backend, args.ray_address,
                                      progress=not args.quiet)
        print(json.dumps(summary), flush=True)
    elif args.action == "fit":
        cfg = validate(value_fit.ValueFitConfig,
                       load_yaml(args.config, "value-fit config") if args.config else {})
        path = value_fit.fit_and_export(args.data, args.output, cfg, progress=not args.quiet)
        print(f"value model: {path} (judge it: otrio value gate {path} {' '.join(args.data)})")
    else:
        out = Path(args.output or Path(args.model).with_suffix("").as_posix() + "_gate")
        result = value_report.write_gate(args.data, args.model, out)
        print(value_report.gate_markdown(result, f"Value gate: {args.model}"))
        print(f"written to {out}/ (gate.json, gate.md, reliability.png)")
    return 0


def _evaluate_run(args: argparse.Namespace) -> int:
    from otrio.training.train import evaluate_snapshots

    evaluate_snapshots(Path(args.run), args.games)
    print(f"written to {Path(args.run) / 'eval_snapshots.jsonl'}")
    return 0


def _export(args: argparse.Namespace) -> int:
    source = Path(args.source)
    if not source.exists():
        raise OtrioError(f"export-checkpoint: the source {source} does not exist")
    if not source.is_file():
        raise OtrioError(f"export-checkpoint: the source {source} is not a checkpoint file")
    from otrio.agents.weights import MANIFEST_SUFFIX, WEIGHTS_SUFFIX, agent_stem

    if Path(args.target).is_dir():
        raise OtrioError(f"export-checkpoint: the target {args.target} is a folder; name the "
                         f"agent's manifest, e.g. {Path(args.target) / 'agent.json'}")
    stem = agent_stem(args.target)  # X, X.json or X.safetensors name X.json + X.safetensors
    for suffix in (MANIFEST_SUFFIX, WEIGHTS_SUFFIX):
        check_output_file(stem.with_suffix(suffix), "export target")
    from otrio.training.train import export_checkpoint  # torch: after the quick checks

    manifest = export_checkpoint(Path(args.source), Path(args.target))
    weights = manifest.with_suffix(".safetensors")
    print(f"exported {args.source} -> {manifest} and {weights.name} "
          f"({weights.stat().st_size / 1e6:.1f} MB); play it as ppo:{manifest}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from otrio.benchmarks.speed.bench import format_table, run_bench, write_json

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
    from otrio.benchmarks.speed.search import SearchBenchConfig, run
    from otrio.envs.core.config import validate
    from otrio.envs.core.errors import ConfigError

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
    if not args.report_only:
        check_output_folder(cfg.output, "--output folder")
    command = "otrio " + " ".join(a for a in sys.argv[1:] if a != "--report-only")
    folder = run(cfg, progress=not args.quiet, command=command, play=not args.report_only,
                 repair=args.repair)
    print((folder / "report.md").read_text())
    return 0


def _balance(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance import search, sweep

    cfg = sweep.load_config(args.config, workers=args.workers, backend=args.backend,
                            output=None if args.search else args.output,
                            games_per_setup=args.games_per_setup)
    options = dict(progress=not args.quiet, command="otrio " + " ".join(sys.argv[1:]),
                   repair=args.repair, verify=args.verify)
    if not args.search:
        check_output_folder(cfg.output, "output folder")
    if args.search:  # the config's search: section, into a folder of its own
        folder = search.run(cfg, output=args.output, **options)
    else:
        folder = sweep.run(cfg, **options)
    print(f"report: {folder / 'report.md'}")
    return 0


def _skill_ceiling(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance import skill_ceiling

    cfg = skill_ceiling.load_config(args.config, workers=args.workers, output=args.output,
                                    games_per_lineup=args.games_per_lineup)
    folder = skill_ceiling.run(cfg, progress=not args.quiet,
                               command="otrio " + " ".join(sys.argv[1:]))
    print(f"report: {folder / 'README.md'}")
    return 0


def _dossier(args: argparse.Namespace) -> int:
    from otrio.benchmarks.balance.dossier import write_dossier

    for game in args.games:
        print(f"dossier: {write_dossier(game, Path(args.results), args.output)}")
    return 0


def _ray_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend`` and ``--ray-address`` of a command whose ``what`` can run on Ray."""
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help=f"where {what} run: local processes or Ray")
    parser.add_argument("--ray-address", default=None,
                        help="a running Ray cluster for --backend ray (default: start one here)")


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
            "--verify", choices=["all", "sample", "none"], default="all",
            help="records already in the run folder re-played through the engine on resume "
                 "to check their results: all (default; seconds per thousand games, with "
                 "a progress bar), a sample of 8 (opt-in: an edited record outside the "
                 "sample counts), or none (schema checks only)")


def _one_line(text: str, limit: int = 2000) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _fail(message: str) -> int:
    """Report a failure in one line on stderr; the exit code of a user error (2)."""
    print(f"otrio: error: {_one_line(message)}", file=sys.stderr)
    return 2


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    """Warnings of the command as one line each (``otrio: warning: ...``)."""
    kind = "" if category is UserWarning else f"{category.__name__}: "
    return f"otrio: warning: {kind}{_one_line(message)}\n"


def version() -> str:
    """The installed project's version (pyproject.toml's, through the package metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("otrio")
    except PackageNotFoundError:  # the sources on sys.path, never installed
        return "unknown (not installed: pip install .)"


def build_parser() -> Parser:
    """The ``otrio`` command line: every subcommand, each option with its help and default."""
    parser = Parser(prog="otrio", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="the main job: short tournaments on every game (greedy "
                                       "against random, each shipped agent against greedy) "
                                       "and the HTML replay of one of their games")
    demo.add_argument("--games", type=count_arg, default=25, help="games per seating")
    demo.add_argument("--seed", type=seed_arg, default=0, help="master seed of the tournaments")
    demo.add_argument("--output", default="runs/demo",
                      help="folder of the demo's runs and replay page")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)

    play = sub.add_parser("play", help="play in the terminal against agents")
    play.add_argument("game", help="oceanos, otys or otontin (or its env id, e.g. oceanos_v0)")
    play.add_argument("--seats", required=True,
                      help="comma-separated specs, one a seat in seat order, e.g. "
                      "human,greedy,mcts:iterations=64,top=4 (human: you type the moves)")
    play.add_argument("--seed", type=seed_arg, default=0, help="the game's seed")
    play.add_argument("--save", metavar="FILE",
                      help="write the finished game to FILE as a replayable record (one "
                      "JSON line, as a tournament's games.jsonl holds); watch it with "
                      "`otrio replay FILE` (default: not saved)")
    _trust_flag(play)
    play.set_defaults(func=_play)

    tour = sub.add_parser("tournament", help="run a tournament from a YAML config")
    tour.add_argument("config", help="the tournament's YAML config (configs/tournament/)")
    tour.add_argument("--workers", type=int,
                      help="processes that play games; the records are the same on any "
                      "number (default: the config's workers, 1 if it names none)")
    tour.add_argument("--backend", choices=["local", "ray"],
                      help="local processes or a Ray cluster (default: the config's, local "
                      "if it names none)")
    tour.add_argument("--output", help="the run folder (default: the config's output)")
    tour.add_argument("--games-per-seating", type=int,
                      help="games for each seating of the lineup (default: the config's)")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    _trust_flag(tour)
    _records_flags(tour)
    tour.set_defaults(func=_tournament)

    tr = sub.add_parser("train", help="train an agent from YAML: MaskablePPO self-play, or "
                        "distillation from search (a config with a distill: section)")
    tr.add_argument("config", help="the training run's YAML config (configs/train/)")
    tr.add_argument("--output", help="the run folder (default: the config's output)")
    tr.add_argument("--timesteps", type=count_arg,
                    help="override total_timesteps (PPO) and nothing else: the warm start "
                    "(imitation.games) and the evaluations (every eval.interval timesteps, "
                    "eval.games each) stay the config's, so a short run may write none "
                    "(default: the config's total_timesteps); with --smoke, the smoke run's "
                    "length (default 2048, or the config's if less)")
    tr.add_argument("--smoke", action="store_true",
                    help="a quick end-to-end run of the config (about a minute): at most "
                    "2048 timesteps, 4 PPO updates or more, a warm start from at most 20 "
                    "teacher games (1 epoch), one evaluation at the end with at most 10 "
                    "games per opponent, snapshots and checkpoints every half, into the "
                    "config's output + '_smoke' unless --output")
    tr.add_argument("--workers", type=count_arg, default=1,
                    help="processes for a distillation's teacher games (the same games on "
                    "any number)")
    _ray_flags(tr, "a distillation's teacher games")
    tr.add_argument("--quiet", action="store_true", help="no progress bars")
    tr.set_defaults(func=_train)

    value = sub.add_parser(
        "value", help="value models: self-play data, the fit, and the calibration gate",
        description="Win-probability models from cheap self-play: 'data CONFIG' plays a "
        "value-data run (configs/values/), 'fit DATA... --output X' fits and exports X.json, "
        "'gate MODEL DATA...' compares its predictions with the score margin's on held-out "
        "games (AUC, Brier, log-loss per quarter of the game) and draws a reliability plot.")
    value.add_argument("action", choices=["data", "fit", "gate"], help="what to do")
    value.add_argument("paths", nargs="+", help="data: the YAML config; fit: the data run "
                       "folders; gate: the model's .json, then the data run folders")
    value.add_argument("--output", help="data: the run folder (default runs/values/NAME); fit: "
                       "the model's path X (writes X.json, X.safetensors; required); gate: the "
                       "report folder (default: beside the model)")
    value.add_argument("--config", help="fit: a YAML of fit settings (default: the defaults "
                       "of training/value_fit.py)")
    value.add_argument("--workers", type=count_arg, default=1,
                       help="data: processes that play (the same shards on any number)")
    _ray_flags(value, "data: the self-play games")
    value.add_argument("--quiet", action="store_true", help="no progress bars")
    value.set_defaults(func=_value_args)

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

    search = sub.add_parser("search-bench", help="mcts strength against budget (win rate vs greedy)")
    search.add_argument("game", help="environment id, e.g. oceanos_v0")
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
    _records_flags(search, verify=False)
    search.set_defaults(func=_search_bench)

    rep = sub.add_parser(
        "replay", help="one recorded game as a self-contained HTML page",
        description="Replay game K of a tournament or balance run, or the game `otrio play "
                    "--save FILE` saved (checking every step against the record) into one "
                    "self-contained HTML file: the table at every decision, step forward "
                    "and back, jump to a round, play/pause, and the point of view of the "
                    "whole table or of any seat (its own view hides what that seat cannot "
                    "see).")
    rep.add_argument("run", metavar="RUN_DIR|FILE",
                     help="a run folder (holds games.jsonl), or a file of records: a "
                     "games.jsonl, or a game saved by otrio play --save")
    rep.add_argument("--game", type=seed_arg, metavar="K",
                     help="the game's number (its 'game' field in games.jsonl); needed "
                     "where more than one game is recorded (default: the only one)")
    rep.add_argument("--output", metavar="FILE.html",
                     help="the HTML file to write (default: RUN_DIR/replay_gameK.html, or "
                     "FILE with .html for a file of records)")
    rep.set_defaults(func=_replay)

    bal = sub.add_parser("balance", help="run a balance sweep from a YAML config")
    bal.add_argument("config", help="the sweep's YAML config (configs/balance/)")
    bal.add_argument("--workers", type=int,
                     help="processes that play games; the records are the same on any "
                     "number (default: the config's workers, 1 if it names none)")
    bal.add_argument("--backend", choices=["local", "ray"],
                     help="local processes or a Ray cluster (default: the config's, local "
                     "if it names none)")
    bal.add_argument("--output", help="the run folder (default: the config's output)")
    bal.add_argument("--games-per-setup", type=int,
                     help="games for each setup of every sweep (default: the config's)")
    bal.add_argument("--quiet", action="store_true", help="no progress bar")
    bal.add_argument("--search", action="store_true",
                     help="run the config's search: section (the setup closest to its target, "
                          "then a pre-registered confirmation) instead of its sweeps")
    _records_flags(bal)
    bal.set_defaults(func=_balance)

    ceil = sub.add_parser(
        "skill-ceiling", help="how much skill each game rewards: agents against greedy, "
        "up to the clairvoyant search (a research cheat), on paired seeds",
        description="Play each agent of the config in one seat among greedy, and greedy "
        "everywhere, on the same seeds (one balance run per game and player count), then "
        "report win shares, the headroom used and the luck share (README.md, summary.json).")
    ceil.add_argument("config", help="the report's YAML config (configs/balance/"
                      "skill_ceiling.yaml); it must say reference: true")
    ceil.add_argument("--workers", type=int, help="processes that play games (default: "
                      "the config's workers, 1 if it names none)")
    ceil.add_argument("--output", help="the report folder (default: the config's output)")
    ceil.add_argument("--games-per-lineup", type=int,
                      help="games of each lineup in each group (default: the config's)")
    ceil.add_argument("--quiet", action="store_true", help="no progress bar")
    ceil.set_defaults(func=_skill_ceiling)

    dos = sub.add_parser(
        "dossier", help="write one game's balance dossier (a docs page) from the results",
        description="Write one Markdown page per game (and its PNG plots) from the balance "
        "results already there: seat advantage by skill tier, setup effects, skill depth, "
        "the fairest setup and its confirmation, skill ceiling and luck share.")
    dos.add_argument("games", nargs="+", choices=["oceanos", "otys", "otontin"],
                     help="the game(s) to write a dossier for")
    dos.add_argument("--results", default="benchmarks/results/balance",
                     help="the folder of balance result folders to read")
    dos.add_argument("--output", default="docs/dossiers",
                     help="the folder the pages and plots go to (a docs site folder)")
    dos.set_defaults(func=_dossier)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``otrio`` command."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        print(err, file=sys.stderr)
        return 2
    from otrio.agents.weights import trusting

    formatwarning, warnings.formatwarning = warnings.formatwarning, _one_line_warning
    try:
        with trusting(getattr(args, "trust_checkpoint", False)):
            return args.func(args)
    except OtrioError as err:
        return _fail(str(err))
    except OSError as err:  # a full disk, a folder made read-only during the run, ...
        return _fail(os_error_message(err))
    except KeyboardInterrupt:  # Ctrl-C: records written so far stay, and a run resumes
        print(flush=True)  # end an open prompt line
        print("otrio: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = formatwarning


if __name__ == "__main__":
    sys.exit(main())
