"""What every ``otrio`` command shares: the parser whose usage errors are one line, the
help that shows each option's default, the argument types (numbers, games) and the
flags several commands take."""

from __future__ import annotations

import argparse
import textwrap

from otrio.envs.core.errors import ConfigError
from otrio.envs.core.registry import ENV_MODULES, game_name, resolve_env_id

# how every command that takes a game names it (resolve_env_id reads it)
GAME_HELP = (f"the game: {', '.join(dict.fromkeys(map(game_name, ENV_MODULES)))} "
             "(or its env id, e.g. oceanos_v0)")


class UsageError(Exception):
    """A command line argparse refuses: reported by :func:`otrio.cli.main` in one line."""


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help already says what it
    is (``default``) or there is none to show (a flag that is off, a value that falls
    back on a config's, a required option); a description keeps its paragraphs (split
    by a blank line), each wrapped to the terminal."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(textwrap.fill(" ".join(paragraph.split()), width,
                                         initial_indent=indent, subsequent_indent=indent)
                           for paragraph in text.split("\n\n"))

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.required or "default" in text
                or action.default is None or action.default is False
                or action.default == argparse.SUPPRESS):  # 0 is a default to show
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors reach :func:`otrio.cli.main` (one line on stderr, exit
    code 2) instead of printing the usage and exiting from inside the parser; its help
    shows every option's default (:class:`HelpFormatter`)."""

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


def count_list(text: str) -> list[int]:
    """Counts separated by commas (``300,1000,3000``), each a whole number >= 1."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("give whole numbers separated by commas, e.g. 2,3")
    return [count_arg(item) for item in items]


def game_arg(text: str) -> str:
    """A game, by short name or env id, as its env id (:func:`resolve_env_id`)."""
    try:
        return resolve_env_id(text)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def ray_flags(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend`` and ``--ray-address`` of a command whose ``what`` can run on Ray."""
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help=f"where {what} run: local processes or Ray")
    parser.add_argument("--ray-address", default=None,
                        help="a running Ray cluster for --backend ray (default: start one here)")


def config_run_flags(parser: argparse.ArgumentParser) -> None:
    """``--workers``, ``--backend`` and ``--output`` of a run whose config names its own
    (tournament, balance): each overrides the config's."""
    parser.add_argument("--workers", type=int,
                        help="processes that play games; the records are the same on any "
                        "number (default: the config's workers, 1 if it names none)")
    parser.add_argument("--backend", choices=["local", "ray"],
                        help="local processes or a Ray cluster (default: the config's, local "
                        "if it names none)")
    parser.add_argument("--output", help="the run folder (default: the config's output)")


def trust_flag(parser: argparse.ArgumentParser) -> None:
    """``--trust-checkpoint``: load Stable-Baselines3 zips (which run code stored in them)."""
    parser.add_argument(
        "--trust-checkpoint", action="store_true",
        help="allow Stable-Baselines3 .zip checkpoints, which run code stored in the file "
             "when loaded: only for files you made (same as OTRIO_TRUST_CHECKPOINTS=1)")


def override_flags(parser: argparse.ArgumentParser, what: str = "the config") -> None:
    """``--seed`` and ``--set KEY=VALUE``: a YAML-driven command's config changed on the
    command line, validated as the file is (:func:`otrio.envs.core.config.apply_sets`)."""
    parser.add_argument("--seed", type=seed_arg, default=None,
                        help=f"the master seed (default: {what}'s): --set seed=N")
    parser.add_argument("--set", dest="sets", action="append", default=[],
                        metavar="KEY=VALUE",
                        help=f"change a key of {what}, a dotted path (game_config.num_players=3, "
                        "agents.mine=mcts:iterations=64); the value is read as YAML and checked "
                        "as the file is; repeat for several")


def override_sets(args: argparse.Namespace) -> list[str]:
    """The ``--set`` items of ``args``, with ``--seed`` as ``seed=N`` last."""
    return [*args.sets, *([f"seed={args.seed}"] if args.seed is not None else [])]


def code_trust_flag(parser: argparse.ArgumentParser) -> None:
    """``--trust-code``: let ``python:MODULE:CLASS`` agents import their module."""
    parser.add_argument(
        "--trust-code", action="store_true",
        help="allow python:MODULE:CLASS agents, whose module is imported and so runs: only "
             "for your own code (same as OTRIO_TRUST_CODE=1)")


def records_flags(parser: argparse.ArgumentParser, verify: bool = True) -> None:
    """``--repair`` (and ``--verify``): what a resume does with the records already in
    the run folder (arena/records.py)."""
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


def command(sub, name: str, summary: str, description: str) -> argparse.ArgumentParser:
    """A subcommand: ``summary`` is its line in ``otrio --help``, ``description`` opens
    its own ``--help`` (what it does, what it writes)."""
    return sub.add_parser(name, help=summary, description=description)
