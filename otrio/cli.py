"""otrio: three tabletop games (Oceanos, Otys, Otontin) as reinforcement-learning
environments. Play them at the terminal, run tournaments and balance sweeps, train and
evaluate PPO agents, measure search strength and throughput, and replay recorded games
as HTML pages. `otrio COMMAND --help` describes each command and every option's default.

Each command imports the modules that run it when it runs, not when the command line
starts: ``otrio --help`` takes about 0.5 s, and 0.9 s with every command's modules loaded
at start-up (measured on the 2-core development machine, December 2026)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import sys
import sysconfig
import warnings
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed
from pathlib import Path

from otrio.arena.outputs import (
    check_output_file,
    os_error_message,
)
from otrio.arena.run_folder import KINDS, RunFile, RunFolder, RunKind, register
from otrio.envs.core.errors import OtrioError
from otrio.envs.core.files import write_text_atomic
from otrio.envs.core.paths import PRETRAINED  # the shipped agents, in a clone or an installed wheel

from . import cli_agents, cli_play, cli_studies
from .cli_args import (
    GAME_HELP,
    Parser,
    UsageError,
    command,
    count_arg,
    count_list,
    game_arg,
    override_flags,
    override_sets,
    ray_flags,
    seed_arg,
    trust_flag,
)

DEMO_GAMES = {  # env id -> (config, lineup) for the demo tournaments
    "oceanos_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otys_v0": ({"num_players": 2}, ["greedy", "random"]),
    "otontin_v0": ({"num_players": 3}, ["greedy", "random", "random"]),
}


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


COMMAND_MODULES = (  # the modules of the commands that write folders: each declares its kind
    "otrio.benchmarks.tournament.tournament", "otrio.benchmarks.balance.sweep",
    "otrio.benchmarks.balance.search", "otrio.benchmarks.balance.skill_ceiling",
    "otrio.benchmarks.balance.dossier", "otrio.benchmarks.speed.search", "otrio.training.train",
    "otrio.training.distill", "otrio.training.value_data", "otrio.training.value_report",
    "otrio.training.value_curve", "otrio.training.value_pipeline")


def run_kinds() -> dict[str, RunKind]:
    """Every run kind the commands declare (:data:`otrio.arena.run_folder.KINDS`), their
    modules imported first."""
    import importlib  # deferred: start-up

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    return dict(KINDS)


DEMO_FILE = "demo.json"
DEMO = register(RunKind(
    name="demo", command="otrio demo", marker=DEMO_FILE, files=(
        RunFile(DEMO_FILE, "marker", "the demo's games a seating and seed"),
        RunFile("*_v0", "sub-run", "one folder a game, holding its tournament runs"),
        RunFile("*_v0/*", "sub-run", "a tournament run"),
        RunFile("replay_*.html", "derived", "the replay of one demo game")),
    folders=("*_v0",)))


def _demo(args: argparse.Namespace) -> int:
    """Short tournaments on every game: greedy against random, the pretrained PPO agent
    (where one is shipped) against greedy and against random, and the network distilled
    from search and the fast value agent (where one is shipped) against greedy."""

    from otrio import envs  # deferred: start-up
    from otrio.agents.greedy import has_greedy  # deferred: start-up

    demo = RunFolder(DEMO, args.output, "--output folder")
    demo.check()
    plan = {env_id: _demo_lineups(env_id) for env_id in envs.available()
            if has_greedy(env_id.rsplit("_v", 1)[0])}
    lineups = [lineup for _, _, game_lineups in plan.values() for lineup in game_lineups]
    print(f"otrio demo: {len(lineups)} short tournaments on {len(plan)} games, "
          f"{sum(args.games * len(lineup) for lineup in lineups)} games in all "
          f"({args.games} per seating; a few minutes on two cores), then the HTML replay "
          f"of one of them. Output: {args.output}")
    with demo:
        write_text_atomic(demo.path / DEMO_FILE, json.dumps(
            {"games_per_seating": args.games, "seed": args.seed}, sort_keys=True) + "\n")
        return _demo_games(args, plan, demo)


def _demo_games(args: argparse.Namespace, plan: dict, demo) -> int:
    """The demo's tournaments, each in ``OUTPUT/ENV/LINEUP``, and its last words."""
    from otrio import envs  # deferred: start-up
    from otrio.arena.records import run_identity  # deferred: start-up
    from otrio.benchmarks.tournament.report import leaderboard_markdown  # deferred: start-up
    from otrio.benchmarks.tournament.tournament import TournamentConfig, run  # deferred: start-up
    from otrio.envs.core.config import validate  # deferred: start-up
    from otrio.envs.core.errors import ConfigError  # deferred: start-up

    replayed, shown = None, []
    for env_id in envs.available():
        if env_id not in plan:
            print(f"\n## {env_id}: no greedy agent yet, skipped")
            continue
        demo.sub(env_id)  # one folder a game, which holds its tournament run folders
        config, specs, lineups = plan[env_id]
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
            shown.append((env_id, lineup, summary, folder))
            replayed = replayed or _demo_replay(folder, cfg, Path(args.output))
    _demo_summary(shown, replayed, Path(args.output))
    return 0


def _demo_summary(shown: list, replayed: tuple | None, output: Path) -> None:
    """The demo's last words: what it showed, what to run next, and the replay's path."""
    print("\n## What the demo showed\n\nGreedy (one hand-written heuristic a game) against "
          "random, and the shipped agents (ppo: PPO self-play; net: distilled from search; "
          "value: greedy's moves judged by a value model) against greedy and random. Win "
          "rates:\n")
    for env_id, lineup, summary, _ in shown:
        rates = ", ".join(f"{r['agent']} {r['win_rate']:.2f}" for r in summary["leaderboard"])
        print(f"- {env_id}, {' / '.join(lineup)}: {rates} ({summary['games']} games)")
    first = shown[0][3] if shown else output / "GAME" / "LINEUP"

    # the command as the user can run it: otrio where it is on PATH (an activated venv),
    # else this interpreter's script (make demo's .venv/bin/otrio): its path relative to
    # the current folder where it lies below it, else its absolute path
    otrio = "otrio"
    script = shutil.which("otrio", path=sysconfig.get_path("scripts"))
    if script and not shutil.which("otrio"):
        relative = os.path.relpath(script)
        if relative.startswith(".."):
            relative = script
        elif os.sep not in relative:  # a bare name would be looked up on PATH
            relative = os.path.join(".", relative)
        otrio = shlex.quote(relative)
    print(f"\nEach tournament's report (leaderboard with intervals, seats, head-to-head, "
          f"plots) is its folder's report.md, under {output}.\n\nNext:\n"
          f"  {otrio} play oceanos --seats human,greedy            # play greedy yourself\n"
          f"  {otrio} tournament configs/tournament/oceanos.yaml   # 1,000 games, with a report\n"
          f"  {otrio} replay {first} --game 1   # watch another game\n"
          f"  {otrio} --help                                       # every command")
    if replayed is not None:
        path, facts = replayed
        print(f"\nThe replay of one demo game ({facts['frames'] - 1} decisions, "
              f"{facts['html_bytes'] / 1e3:.0f} kB), to open in a browser:\n  {path}")


def _demo_replay(folder: Path, cfg, output: Path) -> tuple[Path, dict]:
    """Write the HTML replay of the first game of a demo tournament: its path and facts."""
    from otrio.arena.games import play_game  # deferred: start-up
    from otrio.arena.records import load_record  # deferred: start-up
    from otrio.benchmarks.replay.html import build_page  # deferred: start-up
    from otrio.benchmarks.tournament.tournament import build_tasks  # deferred: start-up

    record = load_record(folder, 0)
    if "replay" not in record:  # a demo folder from before records kept their actions:
        record = play_game(build_tasks(cfg)[0])  # the same game, played again
    html, _, facts = build_page(record, source=f"{folder} game 0")
    path = output / f"replay_{cfg.game}_game0.html"
    write_text_atomic(path, html)
    return path, facts


def _replay(args: argparse.Namespace) -> int:
    """One recorded game of a tournament or balance run as a self-contained HTML page."""
    from otrio.arena.records import load_record  # deferred: start-up
    from otrio.benchmarks.replay.html import write_replay  # deferred: start-up

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


def _train(args: argparse.Namespace) -> int:
    from otrio.training.config import load_train_config  # deferred: start-up
    from otrio.training.train import train  # deferred: start-up

    cfg = load_train_config(args.config, smoke=args.smoke, sets=override_sets(args),
                            output=args.output, total_timesteps=args.timesteps)
    if cfg.distill is not None:
        from otrio.training.distill import distill  # deferred: start-up

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
    elif args.action == "all":
        if len(paths) != 1:
            raise OtrioError("value all takes one value-data config (--config: the fit's)")
        args.config_data = paths[0]
    elif args.action == "curve":
        if len(paths) != 1 or not args.sizes or not args.output:
            raise OtrioError("value curve takes one data run folder, --sizes N,N,... and "
                             "--output DIR")
        args.data = paths[0]
    else:
        if len(paths) < 2:
            raise OtrioError("value gate takes the model's .json, then the data run folders")
        args.model, args.data = paths[0], paths[1:]
    return _value(args)


def _value(args: argparse.Namespace) -> int:
    from otrio.envs.core.config import apply_sets, load_yaml, validate  # deferred: start-up
    from otrio.envs.core.paths import find_file, where_looked  # deferred: start-up
    from otrio.training import value_data, value_fit, value_report  # deferred: start-up

    sets = override_sets(args)
    data_sets = [s for s in sets if not s.startswith("fit.")]  # value all: fit.KEY is the fit's
    fit_sets = ([s.removeprefix("fit.") for s in sets if s.startswith("fit.")]
                if args.action == "all" else sets)

    suffix = "_smoke" if args.smoke else ""

    def fit_config():
        data = load_yaml(find_file(args.config), "value-fit config") if args.config else {}
        cfg = validate(value_fit.ValueFitConfig, apply_sets(data or {}, fit_sets,
                                                            "value-fit config"))
        return value_fit.smoke_config(cfg) if args.smoke else cfg

    def data_config(path: str):
        file = find_file(path)  # a shipped config (configs/values/...) from any folder
        data = load_yaml(file, "value-data config", where_looked(file)) or {}
        cfg = validate(value_data.ValueDataConfig, apply_sets(
            data if isinstance(data, dict) else {"": data}, data_sets, "value-data config"))
        return value_data.smoke_config(cfg) if args.smoke else cfg

    if args.action == "data":
        cfg = data_config(args.config)
        out = Path(args.output or f"runs/values/{Path(args.config).stem}{suffix}")
        summary = value_data.generate(cfg, out, args.workers, args.backend, args.ray_address,
                                      progress=not args.quiet)
        print(json.dumps(summary), flush=True)
    elif args.action == "fit":
        cfg = fit_config()
        value_data.data_runs(args.data, args.partial)  # the data's problems first
        check_output_file(Path(args.output).with_suffix(".json"), "value model (--output)")
        path = value_fit.fit_and_export(args.data, args.output, cfg, progress=not args.quiet,
                                        partial=args.partial)
        print(f"value model: {path} (judge it: otrio value gate {path} {' '.join(args.data)})")
    elif args.action == "all":
        from otrio.training.value_pipeline import run_all  # deferred: start-up

        data_cfg = data_config(args.config_data)
        fit_cfg = fit_config()
        out = Path(args.output or f"runs/values/{Path(args.config_data).stem}_all{suffix}")
        result = run_all(data_cfg, fit_cfg, out, args.workers, args.backend, args.ray_address,
                         progress=not args.quiet)
        print(value_report.gate_markdown(result["gate"], f"Value gate: {result['model']}"))
        print(f"written to {out}/ (data/, model.json, model.safetensors, gate/)")
    elif args.action == "curve":
        from otrio.training.value_curve import curve_markdown, run_curve  # deferred: start-up

        cfg = fit_config()
        record = run_curve(args.data, cfg, args.sizes, args.output, args.play, args.players,
                           args.games, args.play_seed, args.workers, progress=not args.quiet)
        print(curve_markdown(record))
        print(f"written to {args.output}/ (models/, curve.json, curve.md, curve.png)")
    else:
        out = Path(args.output or Path(args.model).with_suffix("").as_posix() + "_gate")
        cfg = fit_config()  # its max_games and max_gib, if given
        result = value_report.write_gate(args.data, args.model, out,
                                         args.max_games or cfg.max_games, cfg.max_gib,
                                         partial=args.partial)
        print(value_report.gate_markdown(result, f"Value gate: {args.model}"))
        print(f"written to {out}/ (gate.json, gate.md, reliability.png)")
    return 0


def _evaluate_run(args: argparse.Namespace) -> int:
    from otrio.training.train import evaluate_snapshots  # deferred: start-up

    evaluate_snapshots(Path(args.run), args.games)
    print(f"written to {Path(args.run) / 'eval_snapshots.jsonl'}")
    return 0


def _export(args: argparse.Namespace) -> int:
    source = Path(args.source)
    if not source.exists():
        raise OtrioError(f"export-checkpoint: the source {source} does not exist")
    if not source.is_file():
        raise OtrioError(f"export-checkpoint: the source {source} is not a checkpoint file")
    from otrio.agents.weights import (  # deferred: start-up
        MANIFEST_SUFFIX,
        WEIGHTS_SUFFIX,
        agent_stem,
    )

    if Path(args.target).is_dir():
        raise OtrioError(f"export-checkpoint: the target {args.target} is a folder; name the "
                         f"agent's manifest, e.g. {Path(args.target) / 'agent.json'}")
    stem = agent_stem(args.target)  # X, X.json or X.safetensors name X.json + X.safetensors
    for suffix in (MANIFEST_SUFFIX, WEIGHTS_SUFFIX):
        check_output_file(stem.with_suffix(suffix), "export target")
    from otrio.training.train import export_checkpoint  # deferred: start-up

    manifest = export_checkpoint(Path(args.source), Path(args.target), game=args.game,
                                 players=args.players)
    weights = manifest.with_suffix(".safetensors")
    print(f"exported {args.source} -> {manifest} and {weights.name} "
          f"({weights.stat().st_size / 1e6:.1f} MB); play it as ppo:{manifest}")
    return 0


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

    try:
        return installed("otrio")
    except PackageNotFoundError:  # the sources on sys.path, never installed
        return "unknown (not installed: pip install .)"


def build_parser() -> Parser:
    """The ``otrio`` command line: every subcommand, each option with its help and default."""
    parser = Parser(prog="otrio", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, title="commands",
                                metavar="COMMAND")

    demo = command(
        sub, "demo", "the main job: short tournaments on every game, and one game's replay",
        "Play short tournaments on every game: greedy against random, then each agent "
        "shipped for the game against greedy (the PPO agent, the network distilled from "
        "search, the fast value agent), and the PPO agent against random. Writes one run "
        "folder per tournament, OUTPUT/ENV_ID/LINEUP/ (report.md, games.jsonl), and the "
        "HTML replay of the first game played, OUTPUT/replay_ENV_ID_game0.html; run again, "
        "it resumes them.")
    demo.add_argument("--games", type=count_arg, default=25, help="games per seating")
    demo.add_argument("--seed", type=seed_arg, default=0, help="master seed of the tournaments")
    demo.add_argument("--output", default="runs/demo",
                      help="folder of the demo's runs and replay page")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)

    cli_play.add_parser(sub)

    rep = command(
        sub, "replay", "one recorded game as a self-contained HTML page",
        "Replay game K of a tournament or balance run, or the game `otrio play --save FILE` "
        "saved (checking every step against the record) into one self-contained HTML file: "
        "the table at every decision, step forward and back, jump to a round, play/pause, "
        "and the point of view of the whole table or of any seat (its own view hides what "
        "that seat cannot see). Writes RUN_DIR/replay_gameK.html unless --output.")
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

    cli_studies.add_parsers(sub)
    cli_agents.add_parsers(sub)

    tr = command(
        sub, "train", "train an agent from YAML: PPO self-play, or distillation from search",
        "Train an agent from a YAML config: MaskablePPO self-play, or, for a config with a "
        "distill: section, a network that imitates search. Writes the run folder "
        "(config.json, eval.jsonl, checkpoints/, snapshots/step_N.json and final.json; a "
        "distillation's net.json), which a second run of the same config resumes.")
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
    ray_flags(tr, "a distillation's teacher games")
    tr.add_argument("--quiet", action="store_true", help="no progress bars")
    override_flags(tr)
    tr.set_defaults(func=_train)

    value = command(
        sub, "value", "value models: self-play data, the fit, and the calibration gate",
        "Win-probability models from cheap self-play: 'data CONFIG' plays a value-data run "
        "(configs/values/) into a folder of shards, 'fit DATA... --output X' fits a model "
        "and writes X.json and X.safetensors, 'gate MODEL DATA...' compares its predictions "
        "with the score margin's on held-out games (AUC, Brier, log-loss per quarter of the "
        "game) and writes gate.json, gate.md and a reliability plot. 'all CONFIG --config "
        "FIT --workers N' does the three in one folder (for a big machine: the games run on "
        "every worker). 'curve DATA --sizes N,N,... --output DIR [--play SPEC]' fits a model "
        "on the run's first N games for each N, gates each on the same test games and, with "
        "--play, plays each model's agent among greedy players on the same seeds: strength "
        "against compute, as a table and a plot.")
    value.add_argument("action", choices=["data", "fit", "gate", "all", "curve"],
                       help="what to do")
    value.add_argument("paths", nargs="+", help="data, all: the YAML config; fit: the data run "
                       "folders; gate: the model's .json, then the data run folders")
    value.add_argument("--output", help="data: the run folder (default runs/values/NAME); fit: "
                       "the model's path X (writes X.json, X.safetensors; required); gate: the "
                       "report folder (default: beside the model); all: the folder of all "
                       "three (default runs/values/NAME_all)")
    value.add_argument("--config", help="fit, all, curve: a YAML of fit settings (default: "
                       "the defaults of training/value_fit.py); gate: its max_games and max_gib")
    value.add_argument("--workers", type=count_arg, default=1,
                       help="data, all: processes that play (the same shards on any number)")
    ray_flags(value, "data, all: the self-play games")
    value.add_argument("--max-games", type=count_arg, default=None,
                       help="gate: judge on the test games among each run's first N games "
                       "only (default: all; a run too big to hold in memory is refused and "
                       "says so; the fit's is its config's max_games)")
    value.add_argument("--sizes", type=count_list, default=None,
                       help="curve: the data sizes in games, comma-separated (e.g. "
                       "300,1000,3000; required, no default)")
    value.add_argument("--play", default=None,
                       help="curve: the agent spec to play each model with, {model} standing "
                       "for its path (e.g. 'value:{model},depth=8,judge=mixed'); default: no play")
    value.add_argument("--players", type=count_list, default=None,
                       help="curve: the player counts to play at (default: the data's)")
    value.add_argument("--games", type=count_arg, default=300,
                       help="curve: games a size and player count (default 300)")
    value.add_argument("--play-seed", type=seed_arg, default=0,
                       help="curve: the seed of the games played (default 0)")
    override_flags(value, "the config (data, all: the value-data config, fit.KEY for the fit "
                   "config's keys in all; fit, curve, gate: the fit config)")
    value.add_argument("--partial", action="store_true",
                       help="fit, gate: take a value-data run that is not finished (its "
                       "shards so far; said in a warning) instead of refusing it")
    value.add_argument("--smoke", action="store_true",
                       help="data, all: the same run sized to seconds (a few games, a short "
                       "fit), into its default folder plus _smoke: to check a config or an "
                       "install")
    value.add_argument("--quiet", action="store_true", help="no progress bars")
    value.set_defaults(func=_value_args)

    evaluate_run = command(
        sub, "evaluate-run", "evaluate every snapshot of a training run",
        "Play every snapshot of a training run (snapshots/step_N.json, then final.json) "
        "against the run's evaluation opponents, on the seeds of its periodic evaluation. "
        "Appends one line a snapshot (win rates with 95% intervals) to the run folder's "
        "eval_snapshots.jsonl; an interrupted call resumes.")
    evaluate_run.add_argument("run", help="the run folder (holds config.json and snapshots/)")
    evaluate_run.add_argument("--games", type=count_arg, default=None,
                              help="games per opponent, at least 1 (default: the run's eval.games)")
    trust_flag(evaluate_run)
    evaluate_run.set_defaults(func=_evaluate_run)
    export = command(
        sub, "export-checkpoint",
        "a play-only copy of a checkpoint that loads without running code (safetensors)",
        "Writes a play-only copy of an agent a training run wrote, or of an SB3 .zip, in "
        "the safe format: TARGET.json (the manifest) and TARGET.safetensors (the weights), "
        "which load without running anything from the file. Play it as ppo:TARGET.json."
        "\n\n"
        "An SB3 .zip (a MaskablePPO model, e.g. of examples/sb3_maskable_ppo.py --save "
        "X.zip) needs --trust-checkpoint (loading one unpickles, and so runs, code stored in "
        "it) and its game: either its metadata X.json beside it -- one JSON object with "
        "env_id, observation_size, num_actions, game_config (e.g. {\"num_players\": 2}), "
        "hints (null) and, for the record, timesteps and seed; otrio.agents.ppo."
        "write_metadata writes it -- or --game and --players: `otrio export-checkpoint "
        "X.zip agent.json --game oceanos --players 2 --trust-checkpoint`. A zip whose "
        "network does not read that game's observation or choose among its actions is "
        "refused.")
    export.add_argument("source", help="an agent a training run wrote (final.json, "
                        "snapshots/step_N.json), or an SB3 .zip (needs --trust-checkpoint)")
    export.add_argument("target", help="the agent's manifest, X.json (X.safetensors beside it)")
    export.add_argument("--game", type=game_arg, default=None,
                        help="for a .zip with no metadata beside it: the game it was trained "
                        "on, " + GAME_HELP.removeprefix("the game: ") + " (default: the "
                        "metadata's; given with metadata, it must agree)")
    export.add_argument("--players", type=count_arg, default=None,
                        help="for a .zip with no metadata beside it: the player count it was "
                        "trained at (default: the game's default count)")
    trust_flag(export)
    export.set_defaults(func=_export)

    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``otrio`` command."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        print(err, file=sys.stderr)
        return 2
    from otrio.agents.custom import TRUST_ENV  # deferred: start-up
    from otrio.agents.weights import trusting  # deferred: start-up

    formatwarning, warnings.formatwarning = warnings.formatwarning, _one_line_warning
    if getattr(args, "trust_code", False):  # python: agents may import their module, in
        os.environ[TRUST_ENV] = "1"  # this process and its workers
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
