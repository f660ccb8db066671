"""``otrio --help`` (issue 32, item 5): every option of every subcommand says what it does
and shows its default, and the top-level text describes the whole command."""

import argparse
import io
from contextlib import redirect_stdout

import pytest

from otrio.cli import HelpFormatter, build_parser, main

PARSER = build_parser()
SUBCOMMANDS = next(a for a in PARSER._actions
                   if isinstance(a, argparse._SubParsersAction)).choices


def _options(parser: argparse.ArgumentParser):
    return [a for a in parser._actions if not isinstance(a, (argparse._HelpAction,
                                                             argparse._SubParsersAction))]


def test_the_top_level_text_describes_the_command():
    assert "(and more as they land)" not in PARSER.description
    for word in ("play", "tournament", "train", "replay", "balance"):
        assert word in PARSER.description


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_option_has_help_and_shows_its_default(name):
    parser = SUBCOMMANDS[name]
    assert isinstance(parser.formatter_class, type) and issubclass(
        parser.formatter_class, HelpFormatter)
    text = parser.format_help()
    for action in _options(parser):
        label = "/".join(action.option_strings) or action.dest
        assert action.help and len(action.help) >= 8, f"otrio {name} {label}: no help"
        if not action.option_strings or action.required or action.nargs == 0:
            continue  # positional, required, or a flag (off unless given)
        # a value option: its default is shown, or its help says what happens without it
        assert "default" in action.help or action.default is not None, (
            f"otrio {name} {label}: the help does not say its default")
        if action.default is not None and "default" not in action.help:
            assert f"(default: {action.default})" in " ".join(text.split()), (name, label)


def test_help_prints_defaults(capsys):
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["search-bench", "--help"])
    text = " ".join(out.getvalue().split())
    assert "master seed of the games (default: 0)" in text
    assert "the run folder (default: runs/search)" in text
