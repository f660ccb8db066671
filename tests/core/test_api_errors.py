"""The env API refuses bad calls with the suite's own errors (issue 29, "Tracebacks
instead of one line"): seeds and config numbers are checked, calls before ``reset``
are order errors, action ids are checked, and every message of a refused save is one
line naming the field."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, OrderError, StateError

GAMES = ["oceanos_v0", "otys_v0", "otontin_v0"]


# ------------------------------------------------------------------- seeds
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [-1, -(2**70), "abc", "3", 1.5, 2.0, math.nan, math.inf, True,
                                  False, np.bool_(True), np.float64(3.0), [1], b"1"], ids=repr)
def test_a_seed_that_is_not_a_whole_number_from_zero_is_a_config_error(game, seed):
    env = envs.make(game)
    with pytest.raises(ConfigError, match=r"^seed must be None or an integer >= 0, got "):
        env.reset(seed=seed)
    with pytest.raises(OrderError):  # nothing was started
        env.last()


@pytest.mark.parametrize("game", GAMES)
def test_a_refused_seed_leaves_the_game_as_it_was(game):
    env = envs.make(game)
    env.reset(seed=3)
    saved = env.unwrapped.save_state()
    with pytest.raises(ConfigError):
        env.reset(seed=-1)
    assert env.unwrapped.save_state() == saved


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.uint64, np.uint8])
def test_python_and_numpy_integer_seeds_give_the_same_game(game, kind):
    one, two = envs.make(game), envs.make(game)
    one.reset(seed=7)
    two.reset(seed=kind(7))
    assert one.unwrapped.save_state() == two.unwrapped.save_state()


def test_none_and_huge_seeds_are_taken():
    env = envs.make("oceanos_v0")
    env.reset(seed=None)
    env.reset(seed=2**100)
    env.reset()


# ---------------------------------------------------------- config numbers
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", ["3", 3.0, True, b"3"], ids=repr)
def test_the_player_count_is_an_integer_not_text_a_float_or_a_bool(game, players):
    with pytest.raises(ConfigError, match=r"'num_players': must be an integer, got "):
        envs.make(game, num_players=players)


@pytest.mark.parametrize("game", GAMES)
def test_flags_and_counts_are_strict_alike(game):
    with pytest.raises(ConfigError, match="dense_reward"):
        envs.make(game, dense_reward=1)
    with pytest.raises(ConfigError, match="num_players"):
        envs.make(game, num_players="3")


def test_numbers_inside_lists_are_numbers_too():
    with pytest.raises(ConfigError, match=r"'kraken.values': item 1 must be an integer, got str"):
        envs.make("oceanos_v0", num_players=2, kraken={"mode": "fixed", "values": [1, "2", 3]})
    with pytest.raises(ConfigError, match=r"'treasure_tokens': item 0 must be an integer"):
        envs.make("oceanos_v0", num_players=2, treasure_tokens=[1.0] * 16)


def test_every_config_of_the_suite_takes_integers_strictly():
    from otrio.benchmarks.tournament.tournament import TournamentConfig
    from otrio.training.config import PPOParams

    base = dict(game="oceanos_v0", agents={"r": "random"}, lineup=["r", "r"])
    with pytest.raises(ConfigError, match="games_per_seating"):
        validate(TournamentConfig, {**base, "games_per_seating": "2"})
    with pytest.raises(ConfigError, match="n_steps"):
        validate(PPOParams, {"n_steps": 64.0})
    with pytest.raises(ConfigError, match="learning_rate"):
        validate(PPOParams, {"learning_rate": True})
    # YAML 1.1 (PyYAML) reads 3e-4 as text: a real-number key still takes it
    assert validate(PPOParams, {"learning_rate": "3e-4"}).learning_rate == 3e-4
    assert validate(TournamentConfig, {**base, "games_per_seating": np.int64(2)}) \
        .games_per_seating == 2


# -------------------------------------------------------------- before reset
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("call", ["save_state", "legal_actions", "acting_mask_view", "state",
                                  "render"])
def test_queries_before_reset_are_order_errors(game, call):
    env = envs.make(game, render_mode="ansi")
    with pytest.raises(OrderError, match=rf"call reset\(\) before {call if call != 'acting_mask_view' else 'legal_actions'}\(\)"):
        getattr(env.unwrapped, call)()


# ---------------------------------------------------------------- action ids
@pytest.mark.parametrize("game", GAMES)
def test_action_name_checks_its_id(game):
    from otrio.envs.core.errors import UnknownActionError

    core = envs.make(game).unwrapped
    n = core.game.info.num_actions
    assert core.action_name(0) == core.action_name(np.int64(0))
    core.action_name(n - 1)
    for bad in (-1, -n, n, 10**30, True, 1.0, "1", None, np.int8(-1)):
        with pytest.raises(UnknownActionError, match=rf"action ids are the integers 0\.\.{n - 1}"):
            core.action_name(bad)
    assert issubclass(UnknownActionError, ValueError)


# ------------------------------------------------------- state-load messages
def _saved(game: str, steps: int = 5, **config) -> tuple:
    env = envs.make(game, **config)
    env.reset(seed=1)
    for _ in range(steps):
        env.step(env.unwrapped.legal_actions()[0])
    return env, json.loads(json.dumps(env.unwrapped.save_state()))


def _refused(env, saved: dict, *needles: str) -> str:
    with pytest.raises(StateError) as err:
        env.unwrapped.load_state(saved)
    text = str(err.value)
    assert "\n" not in text and len(text) <= 300, text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def test_a_bad_card_table_in_a_saved_oceanos_state_is_one_line_naming_it():
    env, saved = _saved("oceanos_v0", num_players=2)
    saved["state"]["config"]["cards"][0][0][4] = "no-such-crystal"
    _refused(env, saved, "corrupt Oceanos state: config:", "'cards'")
    env, saved = _saved("oceanos_v0", num_players=2)
    saved["state"]["config"]["cards"][2][12][2] = math.nan
    _refused(env, saved, "'cards': item 2.12.2 must be an integer, got float")


def test_a_bad_saved_config_is_quoted_to_a_readable_length():
    env, saved = _saved("oceanos_v0", num_players=2)
    saved["config"]["cards"][0][0][4] = "no-such-crystal"
    text = _refused(env, saved, "corrupt saved state: config:", "'cards'")
    assert len(text) < 400
    env, saved = _saved("otys_v0", num_players=2)
    saved["state"]["config"]["components"]["hacker_capacity"] = [9, 9, 9, 9, 9]
    _refused(env, saved, "corrupt Otys state: config:", "components")


def test_a_saved_state_of_another_config_names_the_keys_that_differ():
    env, saved = _saved("oceanos_v0", num_players=2)
    saved["config"]["two_player_variant"] = not saved["config"]["two_player_variant"]
    _refused(env, saved, "another config", "two_player_variant")
    env, saved = _saved("otontin_v0", num_players=3)
    saved["state"]["config"]["bean_target"] += 1
    _refused(env, saved, "state.config", "bean_target")


@pytest.mark.parametrize("game, field, value, needle", [
    ("oceanos_v0", "divers", 3, "divers"),
    ("oceanos_v0", "program", None, "program"),
    ("otys_v0", "deck", [None], "deck"),
    ("otontin_v0", "theft", 1.5, "theft"),
    ("otontin_v0", "round", "x" * 10_000, "round"),
])
def test_a_saved_field_of_the_wrong_kind_is_one_line_naming_it(game, field, value, needle):
    env, saved = _saved(game)
    saved["state"][field] = value
    text = _refused(env, saved, needle)
    assert "Error(" not in text, text  # no repr of a Python exception


@pytest.mark.parametrize("game", GAMES)
def test_a_missing_saved_field_is_named(game):
    env, saved = _saved(game)
    field = next(k for k in saved["state"] if k not in ("game", "format", "config", "rng"))
    del saved["state"][field]
    _refused(env, saved, f"no field '{field}'")


def test_a_huge_env_id_is_not_copied_into_the_message():
    env, saved = _saved("oceanos_v0")
    saved["env_id"] = "x" * 1_000_000
    _refused(env, saved, "env_id")
