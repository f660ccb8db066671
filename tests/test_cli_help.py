"""``otrio --help`` (issue 32, item 5): every option of every subcommand says what it does
and shows its default, and the top-level text describes the whole command; every
subcommand opens with what it does and writes, and every game a command or a config
names is read one way, short name or env id (issue 39, point 7)."""

import argparse
import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from otrio.cli import build_parser, main
from otrio.cli_args import HelpFormatter

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


# ------------------------------------------------------ descriptions (issue 39)
@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_command_says_what_it_does_and_has_a_one_line_summary(name):
    parser = SUBCOMMANDS[name]
    description = " ".join((parser.description or "").split())
    assert len(description) >= 120 and description[0].isupper(), (name, description)
    writes = ("Writes", "writes", "Write ", "Appends", "Prints")
    assert any(word in description for word in writes), name
    summary = next(a.help for a in _subcommand_action()._choices_actions if a.dest == name)
    assert summary and len(summary) <= 95, (name, summary)
    listed = " ".join(PARSER.format_help().split())
    assert f"{name} {' '.join(summary.split())}" in listed  # otrio --help lists it


def _subcommand_action():
    return next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction))


def test_the_demo_help_names_every_kind_of_agent_it_plays():
    text = " ".join(SUBCOMMANDS["demo"].format_help().split())
    for words in ("greedy against random", "PPO agent", "distilled from search",
                  "value agent", "replay"):
        assert words in text, words


def test_games_per_setup_says_why_a_setup_plays_more_games():
    text = " ".join(SUBCOMMANDS["balance"].format_help().split())
    assert "rounded up to a multiple of the setup's player count" in text
    assert "(2 at 4 players plays 4)" in text


def test_a_balance_run_prints_its_plan_and_why_it_plays_more_games(tmp_path, capsys):
    config = tmp_path / "b.yaml"
    config.write_text(f"""
game: oceanos  # a short name
agents: {{r: random}}
lineup: [r]
fill_lineup: true
games_per_setup: 9
sweeps:
  - {{name: four, game_config: {{num_players: 4}}, setups: [{{label: base}}]}}
  - {{name: two, game: oceanos_v0, game_config: {{num_players: 2}}, setups: [{{label: a}}]}}
output: {tmp_path / "run"}
""")
    assert main(["balance", str(config), "--games-per-setup", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "otrio balance: 6 games in 2 setups. A setup's games are rounded up to a " \
           "multiple of its player count, so that each seat rotation of a lineup plays " \
           "equally often." in out
    assert "sweep four (2 games a setup asked): 1 setup at 4 players x 4 games = 4 games" in out
    assert "sweep two (2 games a setup asked): 1 setup at 2 players x 2 games = 2 games" in out
    records = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(records) == 6 and all('"env": "oceanos_v0"' in r for r in records)


# ----------------------------------------------------- game names (issue 39)
GAME_NAMES = {"oceanos": "oceanos_v0", "otys": "otys_v0", "otontin": "otontin_v0",
              "oceanos_v0": "oceanos_v0", "Otys": "otys_v0", " otontin_v0 ": "otontin_v0"}


def test_every_command_argument_that_names_a_game_reads_it_one_way():
    from otrio.cli_args import game_arg

    taking = set()
    for name, parser in SUBCOMMANDS.items():
        for action in _options(parser):
            if action.metavar == "GAME" or (not action.option_strings
                                            and action.dest in ("game", "games")):
                assert action.type is game_arg, (name, action.dest)
                taking.add(name)
    # the others name it in a config (tournament and export-checkpoint by --game, an option)
    assert taking == {"play", "search-bench", "dossier", "agents", "ladder"}


@pytest.mark.parametrize("given, env_id", sorted(GAME_NAMES.items()))
def test_play_search_bench_and_dossier_take_short_names_and_env_ids(given, env_id):
    assert PARSER.parse_args(["play", given, "--seats", "human,random"]).game == env_id
    assert PARSER.parse_args(["search-bench", given, "--players", "2",
                              "--budgets", "8"]).game == env_id
    assert PARSER.parse_args(["dossier", given, "otys"]).games == [env_id, "otys_v0"]


def test_a_search_bench_run_takes_a_short_name(tmp_path, capsys):
    assert main(["search-bench", "oceanos", "--players", "2", "--budgets", "2", "--games",
                 "2", "--output", str(tmp_path / "s"), "--quiet"]) == 0
    assert json.loads((tmp_path / "s" / "run.json").read_text())["game"] == "oceanos_v0"


def test_an_unknown_game_is_one_line_naming_the_known_ones(capsys):
    assert main(["search-bench", "chess", "--players", "2", "--budgets", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown env id 'chess'" in err
    assert "oceanos_v0" in err and "(oceanos, otontin, otys)" in err


CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _load(path: Path):
    """A shipped config, read by the loader of the command that runs it."""
    from otrio.benchmarks.balance import skill_ceiling
    from otrio.benchmarks.balance.config import load_config
    from otrio.benchmarks.tournament import tournament
    from otrio.envs.core.config import load_yaml, validate
    from otrio.training.config import load_train_config
    from otrio.training.value_data import ValueDataConfig

    folder = path.parent.name
    if folder == "values":
        return validate(ValueDataConfig, load_yaml(path))
    if folder == "train":
        return load_train_config(path)
    if folder == "tournament":
        return tournament.load_config(path)
    if "baseline" in (load_yaml(path) or {}):  # the key a skill-ceiling config names
        return skill_ceiling.load_config(path)
    return load_config(path)


def _games(value) -> list[str]:
    """Every value of a ``game`` or ``env`` key in a config (nested ones too)."""
    if isinstance(value, dict):
        return [v for k, item in value.items() for v in
                ([item] if k in ("game", "env") and isinstance(item, str) else _games(item))]
    if isinstance(value, list):
        return [v for item in value for v in _games(item)]
    return []


SHIPPED = sorted(p for p in CONFIGS.glob("*/*.yaml")
                 if re.search(r"^\s*-?\s*(game|env): \w+_v0", p.read_text(), re.M))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_config_takes_a_game_by_its_short_name(path, tmp_path):
    text = path.read_text()
    short = re.sub(r"^(\s*-?\s*(?:game|env): )(\w+)_v0\b", r"\1\2", text, flags=re.M)
    assert short != text
    copy = tmp_path / path.parent.name / path.name  # the folder names the loader
    copy.parent.mkdir()
    copy.write_text(short)
    games = _games(_load(path).model_dump())
    assert games and all(game.endswith("_v0") for game in games)
    assert _games(_load(copy).model_dump()) == games
