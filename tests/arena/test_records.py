"""The records reader (arena/records.py) on hostile input: whatever bytes or JSON a
games file holds, reading it either returns checked records or raises StateError /
ConfigError naming the line, quickly; a repair loses no line; links are never followed."""

import contextlib
import hashlib
import json
import os
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otrio.arena import records as records_module
from otrio.arena.records import (
    RECORDS_FILE,
    REJECTED_FILE,
    RecordSchema,
    RecordWriter,
    Verification,
    open_run,
    read_records,
    write_atomic,
)
from otrio.benchmarks.tournament import tournament
from otrio.envs.core.errors import ConfigError, StateError

CONFIG = {"study": 1}


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """(schema, the lines) of a finished 4-game tournament."""
    folder = tmp_path_factory.mktemp("t") / "run"
    cfg = tournament.TournamentConfig(
        game="oceanos_v0", game_config={"num_players": 2},
        agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random"],
        games_per_seating=2, seed=7, output=str(folder))
    tournament.run(cfg, progress=False)
    schema = tournament.record_schema(cfg, tournament.build_tasks(cfg))
    return schema, (folder / RECORDS_FILE).read_bytes().splitlines(keepends=True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["game", "seed", "scores", "winners", "ranks", "seating", "replay",
                         "rotation", "x"]) | st.text(max_size=5), children, max_size=5),
    max_leaves=20)


@st.composite
def hostile_line(draw, real_lines):
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.binary(max_size=120))
    if kind == 1:
        return json.dumps(draw(json_values)).encode()
    if kind == 2:  # a real record with one field replaced
        record = json.loads(draw(st.sampled_from(real_lines)))
        record[draw(st.sampled_from(sorted(record) + ["extra"]))] = draw(json_values)
        return json.dumps(record).encode()
    if kind == 3:  # deep nesting, long numbers, constants
        return draw(st.sampled_from([b"[" * 5000, b"{\"a\":" * 3000 + b"1" + b"}" * 3000,
                                     b"1" * 5000, b'{"game": NaN}', b'{"game": 1e999}',
                                     b'{"game": -Infinity}', b"\xff\xfe\x00", b""]))
    return draw(st.sampled_from(real_lines)).rstrip(b"\n")  # a real record, maybe repeated


EXAMPLES = int(os.environ.get("OTRIO_RECORDS_FUZZ_EXAMPLES", "150"))  # 1,500 passed once


@settings(max_examples=EXAMPLES, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_lines_raise_only_the_suites_errors_and_repair_loses_none(real, data):
    schema, real_lines = real
    lines = data.draw(st.lists(hostile_line(real_lines), max_size=8))
    torn = data.draw(st.booleans())
    body = b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines)
    if torn:
        body += b'{"game": 3, "se'
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        folder.mkdir()
        path = folder / RECORDS_FILE
        path.write_bytes(body)
        start = time.perf_counter()
        try:
            got = read_records(path, schema)
            assert all(isinstance(r, dict) for r in got)
        except (StateError, ConfigError) as err:
            assert "\n" not in str(err) and len(str(err)) < 2000
        for verify in ("all", "sample"):
            try:
                with quiet():
                    got = open_run(folder, CONFIG, schema=schema, verify=verify)
                assert all(isinstance(r, dict) for r in got)
            except (StateError, ConfigError) as err:
                assert "\n" not in str(err) and len(str(err)) < 2000
                assert path.read_bytes() == body  # a refusal changes nothing
        with quiet():
            kept = open_run(folder, CONFIG, schema=schema, repair=True, verify="all")
        assert time.perf_counter() - start < 20
        # every complete line is either still there or in the side file
        rejected = (folder / REJECTED_FILE).read_bytes() if (folder / REJECTED_FILE).exists() \
            else b""
        complete = body.splitlines(keepends=True)
        if torn:
            complete = complete[:-1]
        assert sorted(path.read_bytes().splitlines(keepends=True)
                      + rejected.splitlines(keepends=True)) == sorted(complete)
        assert read_records(path, schema) == kept


@contextlib.contextmanager
def quiet():
    """Warnings (of lines moved aside) ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_a_line_that_is_too_long_is_bad_not_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(records_module, "MAX_LINE_BYTES", 100)
    path = tmp_path / RECORDS_FILE
    path.write_bytes(b'{"game": 0}\n' + b'{"x": "' + b"a" * 10_000 + b'"}\n' + b'{"game": 1}\n')
    with pytest.raises(StateError, match="line 2: longer than"):
        read_records(path)
    with quiet():
        assert open_run(tmp_path, CONFIG, repair=True) == [{"game": 0}, {"game": 1}]
    assert (tmp_path / REJECTED_FILE).read_bytes() == b'{"x": "' + b"a" * 10_000 + b'"}\n'


def test_no_file_is_read_or_written_through_a_link(tmp_path):
    target = tmp_path / "target"
    target.write_text('{"game": 0}\n')
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(StateError, match="symbolic link"):
        read_records(link)
    with pytest.raises(StateError, match="symbolic link"):
        RecordWriter(link)
    with pytest.raises(StateError, match="symbolic link"):  # neither followed nor replaced
        write_atomic(link, b"new\n")
    assert link.is_symlink() and target.read_text() == '{"game": 0}\n'
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "games.jsonl.tmp").symlink_to(target)  # a planted temporary file
    (folder / RECORDS_FILE).write_text('{"game": 0}\n{"game": 0}\n')
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        assert open_run(folder, CONFIG, unique_by=("game",)) == [{"game": 0}]
    assert target.read_text() == '{"game": 0}\n'


def test_run_file_bombs_are_one_line(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    for text, message in [("[1, 2, 3]", "not a JSON object but a list"),
                          ("[" * 100_000, "nested deeper than"),
                          ('{"a": NaN}', "NaN is not a number"),
                          ("{", "not JSON")]:
        (folder / "run.json").write_text(text)
        with pytest.raises(StateError, match=message):
            open_run(folder, CONFIG)


def test_schemaless_reading_needs_objects_only(tmp_path):
    path = tmp_path / RECORDS_FILE
    path.write_text('{"a": 1}\n{"b": [1, {"c": null}]}\n{"torn"')
    assert read_records(path) == [{"a": 1}, {"b": [1, {"c": None}]}]
    assert read_records(tmp_path / "missing.jsonl") == []
    path.write_text('{"a": 1}\n"text"\n')
    with pytest.raises(StateError, match="line 2: not a JSON object but a string"):
        read_records(path)
    assert open_run(tmp_path / "fresh", CONFIG, schema=RecordSchema(unique_by=())) == []
    with pytest.raises(ConfigError, match="verify must be one of"):
        open_run(tmp_path / "fresh", CONFIG, verify="most")
    assert os.listdir(tmp_path / "fresh") == ["run.json"]


def test_a_resume_says_what_it_replayed(tmp_path):
    """open_run verifies every record by default and says so (Records.verification)."""
    assert open_run.__defaults__[-2:] == ("all", False)  # verify="all", no progress bar
    fresh = open_run(tmp_path / "fresh", CONFIG)
    assert fresh == [] and fresh.verification == Verification(mode="all")
    assert fresh.verification.describe() == "no recorded games to check (a fresh run)"
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / RECORDS_FILE).write_text('{"game": 0}\n{"game": 1}\n')
    found = open_run(folder, CONFIG, verify="none")
    assert found == [{"game": 0}, {"game": 1}]
    assert found.verification.describe() == ("2 recorded games checked against the run's "
                                             "schema, none re-played (--verify none)")
    assert Verification("all", 480, 480, 3.14).describe() == (
        "480 recorded games checked, every one re-played through the engine in 3.1 s "
        "(--verify all)")
    assert Verification("sample", 480, 8, 0.04).describe() == (
        "480 recorded games checked, 8 of them re-played through the engine in 0.0 s "
        "(--verify sample); the others counted unchecked")


def test_a_network_replaced_in_place_is_another_run(tmp_path, monkeypatch):
    """A run names its networks and value models by path (net:PATH, value:PATH, mcts's
    net=PATH and value=PATH in an agent or in search-bench's options); their content is part of the run's identity."""
    from otrio.arena.records import run_identity

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text('{"weights": 1}')
    configs = [{"agents": {"n": "net:a.json"}}, {"agents": {"m": "mcts:prior=net,net=a.json"}},
               {"options": "crn=1,net=a.json,rollout=net"}, {"tiers": ["greedy", "net:a.json"]},
               {"agents": {"v": "value:a.json,margin=0.1"}},
               {"options": "crn=1,depth=30,leaf=value,value=a.json"}]
    before = [run_identity(c) for c in configs]
    assert all(b["checkpoints"] for b in before)
    (tmp_path / "a.json").write_text('{"weights": 2}')
    assert all(run_identity(c) != b for c, b in zip(configs, before))
    assert run_identity({"agents": {"g": "greedy"}, "output": "runs/x"}) == {
        "agents": {"g": "greedy"}, "output": "runs/x"}


def test_a_shipped_file_named_from_another_folder_is_part_of_the_identity(tmp_path, monkeypatch):
    """An agent reads ``agents/pretrained/X`` from the installed package where the current
    folder has no such file; the run records the digest of the file it will read."""
    from otrio.arena.records import run_identity
    from otrio.envs.core.paths import PRETRAINED

    monkeypatch.chdir(tmp_path)  # no agents/ here
    spec = "mcts:iterations=48,leaf=value,value=agents/pretrained/otys_value.json"
    digest = hashlib.sha256((PRETRAINED / "otys_value.json").read_bytes()).hexdigest()
    assert run_identity({"agents": {"search": spec}})["checkpoints"] == {
        "value=agents/pretrained/otys_value.json": digest}


def test_a_tier_is_tied_to_the_zoo_only_where_it_is_played_by_its_name():
    """``agents: {strong: strong}`` plays whatever the zoo names now (the zoo's digest is
    recorded); ``agents: {strong: SPEC}`` names its player, the tier only a label."""
    from otrio.arena.records import run_identity

    assert "zoo" in run_identity({"agents": {"strong": "strong"}, "lineup": ["strong"]})[
        "checkpoints"]
    assert "checkpoints" not in run_identity({"agents": {"strong": "greedy"},
                                              "lineups": [["strong", "greedy"]]})
    assert "zoo" in run_identity({"tiers": ["greedy", "fast"]})["checkpoints"]
