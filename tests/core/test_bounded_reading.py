"""Configs, saved states and the bounded-reading helpers (issue 29, "bounded loading").

Every YAML config goes through one reader, ``otrio.envs.core.config.load_yaml``: a "billion
laughs" file (which hung ``otrio tournament`` and ``otrio balance`` for minutes and
printed the expanded input), a deep, a huge or a non-UTF-8 file, a device or a FIFO
are each one line and exit code 2 within a second. A saved state nested 100,000 deep
is a ``StateError``, not a ``RecursionError``; a huge value in a save or a config is
quoted in a few dozen characters.
"""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otrio import envs
from otrio.cli import main
from otrio.envs.core.bounded import check_nesting, clip, parse_json, read_bytes, short_repr
from otrio.envs.core.config import MAX_CONFIG_BYTES, load_yaml
from otrio.envs.core.errors import ConfigError, StateError


def laughs(levels: int = 9) -> str:
    """The classic: each anchor repeats the one before nine times (9**levels values)."""
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        lines.append(f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def deep_flow(depth: int) -> str:
    return "game: oceanos_v0\nx: " + "[" * depth + "]" * depth + "\n"


def deep_block(depth: int) -> str:
    return "game: oceanos_v0\n" + "".join(" " * i + f"k{i}:\n" for i in range(depth)) + " " * depth + "v\n"


BAD_YAML = {
    "billion laughs": (laughs(), "more than 100000 values, aliases expanded"),
    "deep flow": (deep_flow(100), "nested deeper than 32 levels"),
    "very deep flow": (deep_flow(30_000), "nest"),  # libyaml stops at 1,000 itself
    "deep block": (deep_block(60), "nested deeper than 32 levels"),
    "alias cycle": ("game: oceanos_v0\nx: &a [1, *a]\n", "repeats no complete anchor"),
    "unknown alias": ("game: oceanos_v0\nx: *nowhere\n", "nowhere"),
    "non-UTF-8": (b"game: oceanos_v0\nseed: \xff\xfe\n", "not UTF-8 text (byte 0xff at offset 23)"),
    "huge": ("game: oceanos_v0\n" + "# filler\n" * 10_000, f"over the limit of {MAX_CONFIG_BYTES}"),
    "python tag": ("game: !!python/object/apply:os.system [ls]\n", "could not determine a constructor"),
    "bad date": ("game: oceanos_v0\nseed: 2001-13-45\n", "month must be in 1..12"),
    "5000 digits": ("game: oceanos_v0\nseed: " + "9" * 5000 + "\n", "limit"),
    "duplicate key": ("game: oceanos_v0\ngame_config:\n  num_players: 2\n  seed: 1\n"
                      "  num_players: 4\n", "key 'num_players' is given twice in one mapping "
                                              "(lines 3 and 5)"),
    "duplicate flow key": ("game: oceanos_v0\nagents: {r: random, r: greedy}\n",
                           "key 'r' is given twice in one mapping (line 2)"),
    "duplicate top key": ("seed: 1\ngame: oceanos_v0\n'seed': 2\n",
                          "key 'seed' is given twice in one mapping (lines 1 and 3)"),
}


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(BAD_YAML))
def test_a_bad_yaml_is_one_config_error_line(tmp_path, name):
    text, needle = BAD_YAML[name]
    path = write(tmp_path / "c.yaml", text)
    start = time.perf_counter()
    with pytest.raises(ConfigError) as err:
        load_yaml(path, "tournament config")
    assert time.perf_counter() - start < 1.0
    message = str(err.value)
    assert needle in message and "\n" not in message and len(message) < 400, message
    assert str(path) in message


@pytest.mark.parametrize("command", ["tournament", "balance", "train"])
@pytest.mark.parametrize("name", ["billion laughs", "deep flow", "deep block", "non-UTF-8", "huge",
                                  "duplicate key"])
def test_the_cli_refuses_a_bad_yaml_in_one_line_with_exit_2(tmp_path, capsys, command, name):
    # today: billion laughs hangs tournament and balance for minutes; deep and non-UTF-8
    # YAML give tracebacks
    text, needle = BAD_YAML[name]
    path = write(tmp_path / "c.yaml", text)
    start = time.perf_counter()
    assert main([command, str(path)]) == 2
    assert time.perf_counter() - start < 1.0
    err = capsys.readouterr().err.strip()
    assert err.startswith("otrio: error: ") and "\n" not in err and "Traceback" not in err, err
    assert needle in err and len(err) < 400, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]  # nothing made


@pytest.mark.parametrize("command", ["tournament", "balance"])
def test_the_cli_refuses_a_device_or_a_fifo_as_a_config(tmp_path, capsys, command):
    assert main([command, "/dev/zero"]) == 2
    assert "/dev/zero is a device, not a regular file" in capsys.readouterr().err
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)  # reading it would wait for a writer
    assert main([command, str(fifo)]) == 2
    assert "is a FIFO, not a regular file" in capsys.readouterr().err


def test_aliases_within_the_limits_still_read(tmp_path):
    path = write(tmp_path / "c.yaml", "base: &b {x: 1, y: [1, 2]}\nother: *b\nmore: {<<: *b, z: 3}\n")
    assert load_yaml(path) == {"base": {"x": 1, "y": [1, 2]}, "other": {"x": 1, "y": [1, 2]},
                               "more": {"x": 1, "y": [1, 2], "z": 3}}
    assert load_yaml(write(tmp_path / "e.yaml", "")) is None
    # a mapping's own key overrides a merged one (YAML's merge rule), not a duplicate
    path = write(tmp_path / "m.yaml", "base: &b {x: 1, y: 2}\nmore:\n  <<: *b\n  x: 3\n"
                                      "again: [{x: 1}, {x: 2}]\n")
    assert load_yaml(path) == {"base": {"x": 1, "y": 2}, "more": {"x": 3, "y": 2},
                               "again": [{"x": 1}, {"x": 2}]}


def test_every_shipped_config_reads():
    configs = sorted((Path(__file__).parents[2] / "configs").rglob("*.yaml"))
    assert len(configs) > 20
    for path in configs:
        assert isinstance(load_yaml(path), dict), path


def test_a_huge_or_numerous_bad_config_value_is_quoted_briefly(tmp_path):
    from otrio.benchmarks.tournament.tournament import load_config

    path = write(tmp_path / "t.yaml", "game: oceanos_v0\nagents: {r: random}\nlineup: [r, r]\n"
                 "seed: '" + "x" * 60_000 + "'\n")
    with pytest.raises(ConfigError, match="seed") as err:
        load_config(path)
    assert len(str(err.value)) < 600
    path = write(tmp_path / "t.yaml", "game: oceanos_v0\nagents: {r: random}\nlineup: [r, r]\n"
                 "nope: 1\n" + "".join(f"nope{i}: 1\n" for i in range(500)))
    with pytest.raises(ConfigError, match="and 498 more") as err:  # 3 of 501 named
        load_config(path)
    assert len(str(err.value)) < 4000


# ------------------------------------------------------------- saved states
def nested(depth: int, leaf=0):
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@pytest.mark.parametrize("game,players", [("oceanos_v0", 2), ("otys_v0", 2), ("otontin_v0", 3)])
def test_a_deep_or_huge_saved_state_is_a_state_error(game, players):
    # today: RecursionError from every field whose message quotes the value, and 20 s
    # for a 10 MB string where a list belongs
    env = envs.make(game, num_players=players)
    env.reset(seed=3)
    saved = env.unwrapped.save_state()
    keys = ["decisions", "agents", "last_scores", "config"] + sorted(saved["state"])[:6]
    for bomb, needle in ((nested(100_000), "nested deeper than 32 levels"),
                         ("x" * 10**7, "more than 1000 characters"),
                         (list(range(300_000)), "more than 200000 values")):
        for key in keys:
            broken = copy.deepcopy(saved)
            (broken["state"] if key in saved["state"] and key not in saved else broken)[key] = bomb
            start = time.perf_counter()
            with pytest.raises(StateError, match=needle) as err:
                env.unwrapped.load_state(broken)
            assert time.perf_counter() - start < 1.0 and len(str(err.value)) < 200, key
    env.unwrapped.load_state(saved)  # and the env is as it was


def test_a_saved_state_with_a_cycle_is_refused():
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=0)
    saved = env.unwrapped.save_state()
    loop: list = []
    loop.append(loop)
    saved["agents"] = loop
    with pytest.raises(StateError, match="nested deeper"):
        env.unwrapped.load_state(saved)


# ----------------------------------------------------------------- helpers
@pytest.mark.parametrize("value", [0, -3, 1.5, float("nan"), None, True, "abc", "it's", b"x\x00",
                                   [1, [2, (3,)]], (), (1,), {"a": [1, 2], 3: None}, {1, 2},
                                   {"k": {"j": {"i": []}}}])
def test_short_repr_is_repr_for_what_fits(value):
    assert short_repr(value, 60) == repr(value)


def test_short_repr_is_bounded_for_what_does_not():
    assert short_repr("x" * 10**8, 40) == repr("x" * 37)[:37] + "..."
    assert short_repr(10**100000, 60) == "<an integer of 332193 bits>"
    assert len(short_repr(nested(10**5), 60)) <= 60  # no RecursionError
    assert short_repr(list(range(10**6)), 20) == "[0, 1, 2, 3, 4, 5..."
    assert short_repr(repr(0) * 100, 10) == "'000000..."


def test_clip_gives_one_short_line():
    assert clip("a\nb\r\nc") == "a b c"
    assert clip("y" * 10**8, 50) == "y" * 47 + "..."


def test_parse_json_bounds_depth_values_and_constants():
    with pytest.raises(StateError, match="nested deeper than 64"):
        parse_json("[" * 200_000 + "]" * 200_000, "a record", StateError)
    with pytest.raises(StateError, match="nested deeper than 3"):
        parse_json("[[[[1]]]]", "a record", StateError, max_depth=3)
    assert parse_json("[[[1]]]", "a record", StateError, max_depth=3) == [[[1]]]
    with pytest.raises(ConfigError, match="more than 5 values"):
        parse_json("[1, 2, 3, 4, 5]", "x", max_nodes=5)
    with pytest.raises(ConfigError, match="Infinity is not a JSON number"):
        parse_json('{"a": Infinity}', "x")
    assert parse_json('{"a": NaN}', "x", allow_nan=True)["a"] != 0
    with pytest.raises(ConfigError, match="not UTF-8"):
        parse_json(b'"\xc3"', "x")


def test_read_bytes_refuses_what_is_not_a_small_regular_file(tmp_path):
    with pytest.raises(ConfigError, match="over the limit of 10"):
        read_bytes(write(tmp_path / "big", "x" * 11), 10, "a file")
    os.symlink(tmp_path / "big", tmp_path / "link")
    assert read_bytes(tmp_path / "link", 20, "a file") == b"x" * 11
    with pytest.raises(ConfigError, match="symbolic link"):
        read_bytes(tmp_path / "link", 20, "a file", follow_symlinks=False)
    with pytest.raises(ConfigError, match="cannot be read: No such file"):
        read_bytes(tmp_path / "none", 20, "a file")


def test_check_nesting_walks_any_depth():
    check_nesting(nested(31), "x", max_depth=32)
    with pytest.raises(ConfigError):
        check_nesting(nested(10**6), "x", max_depth=32)


@settings(max_examples=200, deadline=None, database=None)
@given(text=st.text(alphabet=st.sampled_from('[]{}",:0123456789.eE-+ ntrufalsNIy\\\n'),
                    max_size=200))
def test_parse_json_of_any_text_is_a_value_or_one_error(text):
    try:
        parse_json(text, "x", max_depth=8)
    except ConfigError as err:
        assert "\n" not in str(err)
