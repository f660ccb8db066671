"""The value commands (``otrio value data|fit|gate|all|curve``) and ``otrio skill-ceiling``
held to the suite's promises on their folders, as ``otrio tournament`` is: every
reproduction of the hardening issue ends in one line (a clear error naming the file
and the field, exit status 2 from the command line, no traceback) or an unchanged
result; nothing is written outside a run folder or into a folder that holds none of
the command's runs; no number is believed from a side file that a record beside it
contradicts; an unfinished run is refused by fit and gate unless ``--partial``; a value
model's weights are checked finite, its fit's layers bounded, and an agent whose cost a
decision (worlds x depth x top) is beyond a stated ceiling is refused with the number.

Every situation is built from scratch in a tmp folder from tiny runs (a value-data run
of a few Otys games at 2 players, a model of one hidden layer of 4 fitted for 1 epoch);
each command is called in-process (``otrio.cli.main``), and an exception that escapes it
(a traceback for the user) fails the test with its type.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import tracemalloc
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import yaml

from otrio import agents, envs
from otrio.agents.value import load_value_model, save_value_model
from otrio.cli import main
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import PRETRAINED
from otrio.training.value_data import ValueDataConfig, generate
from otrio.training.value_fit import ValueFitConfig, fit_and_export
from otrio.training.value_store import content_digest, read_shard, shard_path, write_shard
from tests.attacks.tiny_runs import CONFIGS

DATA = {**CONFIGS["value data"], "games": 6}  # 3 shards of 2 games: test, valid, train games
FIT = {"hidden": [4], "epochs": 1, "batch": 16}  # a model in about a second
OTYS_VALUE = PRETRAINED / "otys_value.json"  # the shipped model of 2-3 player Otys games


# ------------------------------------------------------------------ helpers
@dataclass
class Ran:
    """What one ``otrio`` command did: exit code, stdout, stderr, warnings raised."""

    rc: int
    out: str
    err: str
    warned: list[str]

    @property
    def said(self) -> str:
        """Everything the command told its user."""
        return "\n".join([self.out, self.err, *self.warned])


def otrio(capsys, *argv) -> Ran:
    """``otrio ARGV`` in-process; an exception that escapes the command (which the user
    sees as a traceback) fails the test, named. ``otrio value`` runs with ``--quiet``:
    its progress bars would be lines on stderr."""
    argv = [str(a) for a in argv]
    if argv[0] == "value" and "--quiet" not in argv:
        argv.append("--quiet")
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rc = main(argv)
        except AssertionError:  # a test's own spy
            raise
        except Exception as err:  # noqa: BLE001 -- any escape is the bug reproduced
            captured = capsys.readouterr()
            pytest.fail(f"otrio {' '.join(argv)} ended in a traceback, not one line and exit "
                        f"2: {type(err).__name__}: {str(err)[:300]} (stderr: "
                        f"{captured.err[-300:]!r})")
    captured = capsys.readouterr()
    return Ran(rc, captured.out, captured.err, [str(w.message) for w in caught])


def one_line(ran: Ran, *needles: str | re.Pattern) -> str:
    """Check that the command failed in one line on stderr (exit 2, no traceback) that
    names each of ``needles`` (a text, or a pattern to search for); the line."""
    lines = ran.err.strip().splitlines()
    assert ran.rc == 2, (ran.rc, ran.err[-500:], ran.out[-500:])
    assert len(lines) == 1, ran.err
    assert "Traceback" not in ran.err + ran.out, ran.err
    assert lines[0].startswith("otrio"), lines[0]
    for needle in needles:
        found = needle.search(lines[0]) if isinstance(needle, re.Pattern) else needle in lines[0]
        assert found, (needle, lines[0])
    return lines[0]


def refused(capsys, argv: list, *needles: str | re.Pattern) -> str:
    """``otrio ARGV`` fails in one line naming ``needles``."""
    return one_line(otrio(capsys, *argv), *needles)


def write_yaml(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def tree(path: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``path`` (or ``path`` itself) with its bytes and inode: a file
    replaced by an identical copy (written atomically: renamed into place) shows."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p.relative_to(path) if p != path else p.name): (p.read_bytes(), p.stat().st_ino)
            for p in files}


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


def manifest_of(folder: Path) -> dict:
    return json.loads((Path(folder) / "manifest.json").read_text())


def edit_manifest(folder: Path, change) -> None:
    data = manifest_of(folder)
    change(data)
    (Path(folder) / "manifest.json").write_text(json.dumps(data, indent=1))


def copy_run(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def model_out(tmp_path: Path) -> Path:
    """Where a test's ``value fit --output`` goes: ``m/model`` in a folder that exists (a
    model's folder is made only under the current one, and these tests run elsewhere)."""
    (tmp_path / "m").mkdir(exist_ok=True)
    return tmp_path / "m" / "model"


def copy_model(model: Path, folder: Path) -> Path:
    """The model ``X.json`` and ``X.safetensors`` copied into ``folder``; the copy's
    manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(model, folder / model.name)
    shutil.copy(model.with_suffix(".safetensors"), folder / model.with_suffix(".safetensors").name)
    return folder / model.name


# ------------------------------------------------------------------ tiny runs, made once
@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A 6-game Otys value-data run (3 shards) and a model fitted on it; a 4-game
    Oceanos run. Tests copy what they change."""
    root = tmp_path_factory.mktemp("value_hardening")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate(ValueDataConfig(**DATA), root / "otys_run", progress=False)
        generate(ValueDataConfig(**{**CONFIGS["value data"], "env": "oceanos_v0"}),
                 root / "oceanos_run", progress=False)
        model = fit_and_export([root / "otys_run"], root / "model" / "model",
                               ValueFitConfig(**FIT), progress=False)
    return {"data": root / "otys_run", "oceanos": root / "oceanos_run", "model": model,
            "root": root}


@contextlib.contextmanager
def _in(folder: Path):
    """Run in ``folder`` as the current one (module fixtures cannot use monkeypatch)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def curve_site(tmp_path_factory):
    """A folder holding ``data/`` (a 10-game Otys run), ``fit.yaml`` and ``cv/``, a
    finished value curve of size 10 played 4 games by ``value:{model}``: made with the
    folder as the current one, so that its paths are relative and a copy works alike."""
    site = tmp_path_factory.mktemp("curve_site")
    with _in(site), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate(ValueDataConfig(**{**CONFIGS["value data"], "games": 10, "shard_games": 5}),
                 Path("data"), progress=False)
        write_yaml(Path("fit.yaml"), FIT)
        assert main(["value", "curve", "data", "--sizes", "10", "--output", "cv", "--config",
                     "fit.yaml", "--play", "value:{model}", "--games", "4", "--quiet"]) == 0
    return site


CURVE_ARGS = ["value", "curve", "data", "--sizes", "10", "--output", "cv", "--config",
              "fit.yaml", "--play", "value:{model}", "--games", "4", "--quiet"]


@pytest.fixture
def curve(curve_site, tmp_path, monkeypatch):
    """A copy of the finished curve site, as the current folder."""
    site = copy_run(curve_site, tmp_path / "site")
    monkeypatch.chdir(site)
    return site


@pytest.fixture(scope="module")
def all_done(tmp_path_factory):
    """A finished ``otrio value all`` folder (data/, model.json, gate/) and its configs."""
    root = tmp_path_factory.mktemp("value_all")
    data_cfg = write_yaml(root / "data.yaml", DATA)
    fit_cfg = write_yaml(root / "fit.yaml", FIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["value", "all", str(data_cfg), "--config", str(fit_cfg), "--output",
                     str(root / "all"), "--quiet"]) == 0
    return root


CEILING = {"reference": True, "baseline": "greedy", "games_per_lineup": 2, "seed": 0,
           "games": [{"game": "oceanos_v0", "players": [2, 3],
                      "agents": {"clair": "mcts:iterations=2,depth=2,rollout=random,"
                                          "clairvoyant=1"}}]}


def ceiling_config(tmp_path: Path, **extra) -> Path:
    return write_yaml(tmp_path / "ceiling.yaml",
                      {**CEILING, "output": str(tmp_path / "ceiling"), **extra})


# ==================================================================== point 1
# tracebacks instead of one line


@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_point1_gate_on_a_missing_or_empty_folder_is_one_line(base, tmp_path, capsys, folder):
    """`value gate MODEL FOLDER` on a folder with no run: TypeError today (the manifest
    reader returns None); `value fit` on the same folder is clear."""
    data = tmp_path / folder
    if folder == "empty":
        data.mkdir()
    refused(capsys, ["value", "gate", base["model"], data, "--output", tmp_path / "gate"],
            str(data))
    assert not (tmp_path / "gate").exists()


@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point1_a_manifest_whose_config_lacks_env_is_one_line(base, tmp_path, capsys, command):
    """A value-data manifest whose ``config`` lacks ``env``: KeyError today in fit and
    gate; a clear error naming the manifest and the field."""
    data = copy_run(base["data"], tmp_path / "data")
    edit_manifest(data, lambda m: m["config"].pop("env"))
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    argv = (["value", "fit", data, "--output", model_out(tmp_path), "--config", fit,
             "--quiet"]
            if command == "fit" else
            ["value", "gate", base["model"], data, "--output", tmp_path / "gate", "--quiet"])
    refused(capsys, argv, "manifest.json", "env")


def _retyped(arrays: dict, how: str) -> None:
    """A shard's arrays changed in dtype or shape (each a crash in today's shard check)."""
    if how == "obs flattened":  # ValueError: cannot reshape
        arrays["obs"] = arrays["obs"].ravel()
    elif how == "offsets as floats":  # TypeError: slice indices must be integers
        arrays["offsets"] = arrays["offsets"].astype(np.float64)
    elif how == "actions as floats":  # TypeError: list indices must be integers
        arrays["actions"] = arrays["actions"].astype(np.float32)
    elif how == "seat as a column":  # ValueError: could not broadcast (on reading)
        arrays["seat"] = arrays["seat"].reshape(-1, 1)
    else:
        raise AssertionError(how)


RETYPED = ["obs flattened", "offsets as floats", "actions as floats", "seat as a column"]


def _plant_retyped_shard(src: Path, dst: Path, how: str) -> Path:
    """A copy of the run whose shard 0 is of another dtype or shape, its digest in the
    manifest recomputed (so only the shard check can find it)."""
    data = copy_run(src, dst)
    path = shard_path(data, 0)
    arrays = read_shard(path)
    _retyped(arrays, how)
    write_shard(path, arrays)
    edit_manifest(data, lambda m: m["shards"]["0"].update(digest=content_digest(arrays)))
    return data


@pytest.mark.parametrize("how", RETYPED)
def test_point1_value_data_plays_again_a_shard_of_another_dtype_or_shape(base, tmp_path,
                                                                        capsys, how):
    """`value data` on a run whose shard has another dtype or shape (digest recomputed):
    TypeError/ValueError today; the shard is played again, as any shard that does not
    hold, and the run ends as the untouched one."""
    want = manifest_of(base["data"])["shards"]["0"]["digest"]
    data = _plant_retyped_shard(base["data"], tmp_path / "data", how)
    config = write_yaml(tmp_path / "data.yaml", DATA)
    ran = otrio(capsys, "value", "data", config, "--output", data, "--quiet")
    assert ran.rc == 0, ran.err
    assert "Traceback" not in ran.err
    assert manifest_of(data)["shards"]["0"]["digest"] == want
    assert content_digest(read_shard(shard_path(data, 0))) == want


@pytest.mark.parametrize("how", RETYPED)
@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point1_fit_and_gate_refuse_a_shard_of_another_dtype_or_shape(base, tmp_path, capsys,
                                                                     command, how):
    """fit and gate on a run whose shard has another dtype or shape (digest recomputed):
    TypeError/ValueError today; refused in one line naming the shard."""
    data = _plant_retyped_shard(base["data"], tmp_path / "data", how)
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    argv = (["value", "fit", data, "--output", model_out(tmp_path), "--config", fit,
             "--quiet"]
            if command == "fit" else
            ["value", "gate", base["model"], data, "--output", tmp_path / "gate", "--quiet"])
    refused(capsys, argv, re.compile(r"shard_00000\.npz|shard 0\b"))
    assert not (tmp_path / "m" / "model.json").exists() and not (tmp_path / "gate").exists()


def test_point1_fit_on_a_run_of_fewer_than_3_games_is_one_line(tmp_path, capsys):
    """`value fit` on a 2-game run (a test and a validation game, none to train on):
    ValueError today; one line saying the run has too few games."""
    data = tmp_path / "two_games"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate(ValueDataConfig(**{**CONFIGS["value data"], "games": 2}), data, progress=False)
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    refused(capsys, ["value", "fit", data, "--output", model_out(tmp_path), "--config", fit],
            "games")
    assert not (tmp_path / "m" / "model.json").exists()


@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point1_folders_of_two_different_games_are_one_line(base, tmp_path, capsys, command):
    """fit or gate given an Otys run and an Oceanos run: numpy's concatenate fails
    today; one line naming both (the folders are named after their games, so either
    the folders or the env ids do)."""
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    runs = [base["data"], base["oceanos"]]
    argv = (["value", "fit", *runs, "--output", model_out(tmp_path), "--config", fit]
            if command == "fit" else
            ["value", "gate", base["model"], *runs, "--output", tmp_path / "gate"])
    refused(capsys, argv, "otys", "oceanos")
    assert not (tmp_path / "m" / "model.json").exists() and not (tmp_path / "gate").exists()


def test_point1_a_data_config_with_no_player_count_is_one_line(tmp_path, capsys):
    """A value-data config with ``players: []``: ZeroDivisionError today."""
    config = write_yaml(tmp_path / "data.yaml", {**DATA, "players": []})
    refused(capsys, ["value", "data", config, "--output", tmp_path / "run", "--quiet"], "players")
    assert listing(tmp_path) == ["data.yaml"]


@pytest.mark.parametrize("mixture", [
    {"greedy": float("nan")},
    {"greedy": float("inf")},
    {"greedy": 1e308, "explore": 1e308},
    {"greedy": 1.0, "net:": 1.0},
], ids=["nan", "inf", "two-of-1e308", "net-without-path"])
def test_point1_a_mixture_that_is_not_one_is_one_line(tmp_path, capsys, mixture):
    """A mixture weight ``.nan``, ``.inf``, two weights of ``1e308`` (their sum
    overflows) or the key ``"net:"``: numpy's or pathlib's error today."""
    config = write_yaml(tmp_path / "data.yaml", {**DATA, "mixture": mixture})
    refused(capsys, ["value", "data", config, "--output", tmp_path / "run", "--quiet"],
            "mixture")
    assert listing(tmp_path) == ["data.yaml"]


@pytest.mark.parametrize("field", ["settings", "sizes"])
def test_point1_a_curve_record_whose_field_is_a_list_is_one_line(curve, capsys, field):
    """A ``curve.json`` whose ``settings`` or ``sizes`` is a list: AttributeError today.
    curve.json is derived (its run kind says so): a re-run never reads its numbers, and
    writes it again whole, as the records make it; or it refuses in one line naming it."""
    before = json.loads(Path("cv/curve.json").read_text())
    record = dict(before)
    record[field] = [record[field]]
    Path("cv/curve.json").write_text(json.dumps(record))
    ran = otrio(capsys, *CURVE_ARGS)
    if ran.rc != 0:
        one_line(ran, "curve.json", field)
        return
    assert json.loads(Path("cv/curve.json").read_text()) == before


def test_point1_a_negative_hidden_layer_is_one_line(base, tmp_path, capsys):
    """The fit config's ``hidden: [-4]``: torch's RuntimeError today."""
    fit = write_yaml(tmp_path / "fit.yaml", {**FIT, "hidden": [-4]})
    refused(capsys, ["value", "fit", base["data"], "--output", model_out(tmp_path),
                     "--config", fit], "hidden")
    assert not (tmp_path / "m" / "model.json").exists()


# ==================================================================== point 2
# links followed, folders that are not runs written into, parents made anywhere


@pytest.mark.parametrize("planted", ["data", "gate"])
def test_point2_value_all_does_not_follow_a_link_planted_in_its_folder(all_done, tmp_path,
                                                                        capsys, planted):
    """`value all` resumed on its folder where ``data/`` or ``gate/`` is a link to a
    folder elsewhere: today it rewrites the target's manifest.json / writes the gate
    there. One line naming the link; the target untouched; nothing made beside it."""
    case = tmp_path / "case"
    case.mkdir()
    folder = copy_run(all_done / "all", case / "all")
    outside = case / "outside"
    shutil.move(str(folder / planted), str(outside))
    (folder / planted).symlink_to(outside, target_is_directory=True)
    before = tree(outside)
    refused(capsys, ["value", "all", all_done / "data.yaml", "--config", all_done / "fit.yaml",
                     "--output", folder, "--quiet"], planted)
    assert tree(outside) == before
    assert sorted(os.listdir(case)) == ["all", "outside"]


def test_point2_value_curve_does_not_follow_a_link_at_models(curve, tmp_path, capsys):
    """`value curve` resumed (with another fit, so that it fits again) where ``models/``
    is a link to a folder elsewhere: today the new models are written there."""
    outside = tmp_path / "outside"
    shutil.move("cv/models", str(outside))
    Path("cv/models").symlink_to(outside, target_is_directory=True)
    write_yaml(Path("fit.yaml"), {**FIT, "seed": 1})
    before = tree(outside)
    refused(capsys, CURVE_ARGS, "models")
    assert tree(outside) == before
    assert sorted(os.listdir(tmp_path)) == ["outside", "site"]


@pytest.mark.parametrize("command", ["data", "all", "curve", "gate"])
def test_point2_a_folder_of_the_users_own_files_is_never_written(base, tmp_path, capsys,
                                                                 command, monkeypatch):
    """`value data|all|curve|gate --output MINE` where MINE holds the user's own files
    (a curve.md, a gate.md, notes) and none of the command's runs: today the command
    writes there, replacing them. One line saying the folder is not empty; MINE as it
    was."""
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("my notes\n")
    (mine / "curve.md").write_text("my curve\n")
    (mine / "gate.md").write_text("my gate\n")
    (mine / "gate").mkdir()
    (mine / "gate" / "gate.md").write_text("my other gate\n")
    before = tree(mine)
    data_cfg = write_yaml(tmp_path / "data.yaml", DATA)
    fit_cfg = write_yaml(tmp_path / "fit.yaml", FIT)
    if command == "curve":  # a run of at least 10 games for a size of 10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            generate(ValueDataConfig(**{**DATA, "games": 10, "shard_games": 5}),
                     tmp_path / "data10", progress=False)
    argv = {"data": ["value", "data", data_cfg, "--output", mine, "--quiet"],
            "all": ["value", "all", data_cfg, "--config", fit_cfg, "--output", mine, "--quiet"],
            "curve": ["value", "curve", tmp_path / "data10", "--sizes", "10", "--output", mine,
                      "--config", fit_cfg, "--quiet"],
            "gate": ["value", "gate", base["model"], base["data"], "--output", mine]}[command]
    refused(capsys, argv, re.compile(r"not empty|holds no"))
    assert tree(mine) == before
    assert sorted(os.listdir(mine)) == ["curve.md", "gate", "gate.md", "notes.md"]


@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point2_an_output_makes_no_missing_parents_outside_the_current_folder(
        base, tmp_path, capsys, monkeypatch, command):
    """`value fit --output` and `value gate --output` under missing folders outside the
    current one: today they are made; the suite's rule (and `value data`) refuses."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    target = tmp_path / "away" / "deep" / ("model" if command == "fit" else "gate")
    argv = (["value", "fit", base["data"], "--output", target, "--config", fit]
            if command == "fit" else
            ["value", "gate", base["model"], base["data"], "--output", target])
    refused(capsys, argv, "away")
    assert not (tmp_path / "away").exists()
    assert listing(cwd) == []


# ==================================================================== point 3
# numbers believed from side files


def test_point3_a_rerun_curve_does_not_believe_the_gate_and_play_numbers_of_curve_json(
        curve, capsys):
    """A re-run `value curve` whose model digest matches keeps today the gate tables and
    play shares of curve.json as found: an AUC edited to 0.999 and every game edited to
    a win reach curve.md. They must be recomputed (or the record refused)."""
    record = json.loads(Path("cv/curve.json").read_text())
    table = record["sizes"]["10"]["gate"]["table"]
    auc = table[0]["model"]["auc"]
    assert auc != 0.999
    shares = record["play"]["10_2p"]["shares"]
    forged = [0.0] * len(shares) if all(s == 1.0 for s in shares) else [1.0] * len(shares)
    table[0]["model"]["auc"] = 0.999
    record["play"]["10_2p"]["shares"] = forged
    Path("cv/curve.json").write_text(json.dumps(record, indent=1))
    ran = otrio(capsys, *CURVE_ARGS)
    if ran.rc != 0:  # refusing the record is as good
        one_line(ran, "curve.json")
        return
    again = json.loads(Path("cv/curve.json").read_text())
    assert again["sizes"]["10"]["gate"]["table"][0]["model"]["auc"] == auc
    assert again["play"]["10_2p"]["shares"] == shares
    md = Path("cv/curve.md").read_text()
    assert "0.999" not in md
    rate = sum(forged) / len(forged)
    assert f"| 2 | 10 | {rate:.3f} |" not in md, md


def test_point3_skill_ceiling_only_recomputes_the_other_groups_from_their_records(
        tmp_path, capsys, monkeypatch):
    """`skill-ceiling --only G` copies today the other groups from the folder's
    summary.json as found: a share edited to 0.987 reaches the README though that
    group's records lie beside it. The group must be read from its records (or the
    summary refused)."""
    monkeypatch.chdir(tmp_path)
    config = ceiling_config(tmp_path)
    assert otrio(capsys, "skill-ceiling", config, "--quiet").rc == 0
    summary_path = tmp_path / "ceiling" / "summary.json"
    summary = json.loads(summary_path.read_text())
    other = next(g for g in summary["groups"] if g["folder"] == "oceanos_3p")
    true_share = other["shares"]["clair"]["share"]
    assert true_share != 0.987
    other["shares"]["clair"]["share"] = 0.987
    summary_path.write_text(json.dumps(summary, indent=1))
    ran = otrio(capsys, "skill-ceiling", config, "--only", "oceanos_2p", "--quiet")
    if ran.rc != 0:  # refusing the summary is as good
        one_line(ran, "summary.json")
        return
    assert "0.987" not in (tmp_path / "ceiling" / "README.md").read_text()
    again = json.loads(summary_path.read_text())
    group = next(g for g in again["groups"] if g["folder"] == "oceanos_3p")
    assert group["shares"]["clair"]["share"] == true_share


def _earlier_summary(path: Path, share, n) -> Path:
    """A hand-made earlier skill-ceiling summary whose 2-player Oceanos group's
    clairvoyant played ``n`` games at ``share``."""
    spec = CEILING["games"][0]["agents"]["clair"]
    group = {"folder": "oceanos_2p", "game": "oceanos_v0", "players": 2, "baseline": "greedy",
             "clairvoyant": "clair", "command": "otrio skill-ceiling earlier.yaml",
             "shares": {"clair": {"spec": spec, "share": share, "n": n}}}
    path.write_text(json.dumps({"command": "earlier", "groups": [group]}, allow_nan=True))
    return path


@pytest.mark.parametrize("n", [10**30, 10**400], ids=["1e30", "1e400"])
def test_point3_pool_with_refuses_an_impossible_game_count_before_any_game(tmp_path, capsys,
                                                                          monkeypatch, n):
    """``pool_with`` takes today a clairvoyant game count of any size: 10**30 is
    believed, 10**400 passes the first check and raises OverflowError after every game
    is played. Refused in one line naming the summary, before any game."""
    monkeypatch.chdir(tmp_path)
    earlier = _earlier_summary(tmp_path / "earlier_summary.json", 0.6, n)
    config = ceiling_config(tmp_path, pool_with=str(earlier))
    refused(capsys, ["skill-ceiling", config, "--quiet"], "earlier_summary.json")
    assert not (tmp_path / "ceiling" / "oceanos_2p").exists()


def test_point3_pool_with_a_nan_share_over_no_games_gives_no_nan_gap(tmp_path, capsys,
                                                                     monkeypatch):
    """A NaN share with n = 0 in the pooled summary gives today a NaN pooled gap with
    exit status 0. Either refused in one line naming the summary, or the pooled gap
    (if any) is a number."""
    monkeypatch.chdir(tmp_path)
    earlier = _earlier_summary(tmp_path / "earlier_summary.json", float("nan"), 0)
    config = ceiling_config(tmp_path, pool_with=str(earlier))
    ran = otrio(capsys, "skill-ceiling", config, "--quiet")
    if ran.rc != 0:
        one_line(ran, "earlier_summary.json")
        return
    summary = json.loads((tmp_path / "ceiling" / "summary.json").read_text())
    group = next(g for g in summary["groups"] if g["folder"] == "oceanos_2p")
    pooled = group.get("pooled_gap")
    if pooled is not None:
        for key in ("value", "low", "high"):
            assert isinstance(pooled[key], (int, float)) and math.isfinite(pooled[key]), pooled


# ==================================================================== point 4
# silent partial data


def _interrupted(data: Path) -> None:
    """The run as killed before its last shard: no entry, no file."""
    edit_manifest(data, lambda m: m["shards"].pop("2"))
    shard_path(data, 2).unlink()


def _lost_entry(data: Path) -> None:
    """The manifest lost a shard's entry (the shard file stays)."""
    edit_manifest(data, lambda m: m["shards"].pop("1"))


def _games_lowered(data: Path) -> None:
    """The manifest's config asks for fewer games than its shards hold (6 -> 4): the
    third shard is named but no task of the config."""
    edit_manifest(data, lambda m: m["config"].update(games=4))


DAMAGE = {"interrupted": _interrupted, "lost entry": _lost_entry}


def _fit_or_gate(command: str, base, tmp_path: Path, data: Path, *extra) -> list:
    fit = write_yaml(tmp_path / "fit.yaml", FIT)
    if command == "fit":
        return ["value", "fit", data, "--output", model_out(tmp_path), "--config", fit,
                *extra]
    return ["value", "gate", base["model"], data, "--output", tmp_path / "gate", *extra]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point4_fit_and_gate_refuse_an_unfinished_run(base, tmp_path, capsys, command, damage):
    """fit/gate on an interrupted run, or one whose manifest lost a shard's entry: today
    they read whatever shards are named, exit 0, no word. Refused in one line naming
    the run's folder (``--partial`` accepts one)."""
    data = copy_run(base["data"], tmp_path / "unfinished_run")
    DAMAGE[damage](data)
    refused(capsys, _fit_or_gate(command, base, tmp_path, data), "unfinished_run")
    assert not (tmp_path / "m" / "model.json").exists() and not (tmp_path / "gate").exists()


@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point4_fit_and_gate_refuse_a_manifest_whose_games_were_lowered(base, tmp_path, capsys,
                                                                         command):
    """The manifest's config ``games`` lowered below the shards it names: today fit and
    gate read the first shards only, exit 0, no word. Refused in one line naming the
    run's folder or its manifest."""
    data = copy_run(base["data"], tmp_path / "lowered_run")
    _games_lowered(data)
    line = one_line(otrio(capsys, *_fit_or_gate(command, base, tmp_path, data)))
    assert "lowered_run" in line or "manifest.json" in line, line


@pytest.mark.parametrize("command", ["fit", "gate"])
def test_point4_partial_accepts_an_unfinished_run_and_says_so(base, tmp_path, capsys, command):
    """With ``--partial`` fit and gate take an interrupted run, and say that it is
    partial (``--partial`` is an unknown option today)."""
    data = copy_run(base["data"], tmp_path / "unfinished_run")
    _interrupted(data)
    ran = otrio(capsys, *_fit_or_gate(command, base, tmp_path, data, "--partial"))
    assert ran.rc == 0, ran.err
    assert re.search(r"partial|unfinished", ran.said, re.IGNORECASE), ran.said
    if command == "fit":
        assert (tmp_path / "m" / "model.json").is_file()
    else:
        assert (tmp_path / "gate" / "gate.json").is_file()


# ==================================================================== point 5
# unbounded


def test_point5_resume_does_not_read_a_seated_models_manifest_whole(base, tmp_path, capsys,
                                                                    monkeypatch):
    """On resume the value-data run digests each seated ``value:`` model's manifest with
    Path.read_bytes before the bounded loader sees it: a sparse file of 512 MB there is
    read into memory today. The resume must stay small in memory (and end in one line:
    the file is no model it seated)."""
    monkeypatch.chdir(tmp_path)
    model = copy_model(base["model"], tmp_path / "m")
    config = write_yaml(tmp_path / "data.yaml", {
        **CONFIGS["value data"], "games": 2, "mixture": {f"value:{model}": 1.0, "greedy": 1.0}})
    assert otrio(capsys, "value", "data", config, "--output", tmp_path / "run", "--quiet").rc == 0
    model.unlink()
    with open(model, "wb") as fh:  # sparse: no disk used, 512 MB to whoever reads it
        fh.truncate(512 << 20)
    tracemalloc.start()
    try:
        ran = otrio(capsys, "value", "data", config, "--output", tmp_path / "run", "--quiet")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"the resume held {peak / 2**20:.0f} MB at its peak"
    one_line(ran)


@pytest.mark.parametrize("hidden", [[0], [9000], [100_000], [8] * 9],
                         ids=["zero", "9000", "100000", "nine-layers"])
def test_point5_the_fit_configs_hidden_layers_are_bounded(hidden):
    """The fit config's ``hidden`` has no bounds today: 0, 9000, 100000 units or 9
    layers train a whole network that export (or loading) then refuses. The config is
    refused, naming ``hidden``, before any row is read."""
    with pytest.raises(ConfigError, match="hidden") as caught:
        validate(ValueFitConfig, {**FIT, "hidden": hidden})
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("hidden", [[0], [9000], [8] * 9], ids=["zero", "9000", "nine-layers"])
def test_point5_value_fit_refuses_unbounded_layers_in_one_line(base, tmp_path, capsys, hidden,
                                                              monkeypatch):
    """`value fit --config` with such a ``hidden``: one line naming it, no model, and no
    row read (today nine layers are trained, then refused by the export)."""
    from otrio.training import value_fit

    def no_rows(*args, **kwargs):
        raise AssertionError("rows were read (and a network trained) before the fit "
                             "config's hidden layers were checked")

    monkeypatch.setattr(value_fit, "load_rows", no_rows)
    fit = write_yaml(tmp_path / "fit.yaml", {**FIT, "hidden": hidden})
    refused(capsys, ["value", "fit", base["data"], "--output", model_out(tmp_path),
                     "--config", fit], "hidden")
    assert not (tmp_path / "m" / "model.json").exists()


# ==================================================================== point 6
# smaller


def test_point6_an_unknown_value_option_is_named_unknown_with_the_known_ones():
    """An unknown ``value:`` option is reported today as "out of range" (the ConfigError
    is caught by an ``except ValueError``)."""
    env = envs.make("otys_v0", num_players=2)
    with pytest.raises(ConfigError) as caught:
        agents.make(f"value:{OTYS_VALUE},speed=2", env)
    message = str(caught.value)
    assert "unknown" in message and "speed" in message, message
    assert "out of range" not in message, message
    for option in ("top", "margin", "net", "worlds", "depth", "judge"):
        assert option in message, (option, message)


def test_point6_the_gate_of_a_two_game_run_holds_no_nan(base, tmp_path, capsys):
    """`value gate` on a 2-game run (no train game for the margin's baseline) writes
    NaN into gate.json today. Either refused in one line, or gate.json is strict JSON."""
    data = tmp_path / "two_games"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate(ValueDataConfig(**{**CONFIGS["value data"], "games": 2}), data, progress=False)
    ran = otrio(capsys, "value", "gate", base["model"], data, "--output", tmp_path / "gate")
    if ran.rc != 0:
        one_line(ran)
        return

    def no_constant(name):
        raise AssertionError(f"gate.json holds {name}")

    json.loads((tmp_path / "gate" / "gate.json").read_text(), parse_constant=no_constant)


def _overflowing_model(base, folder: Path) -> Path:
    """The base model with every weight 3e38 (finite in float32; its forward overflows)."""
    import safetensors.numpy

    source = base["model"]
    manifest = json.loads(source.read_text())
    tensors = safetensors.numpy.load_file(str(source.with_suffix(".safetensors")))
    huge = {k: np.full_like(v, 3e38, dtype=np.float32) for k, v in tensors.items()}
    return save_value_model(folder / "huge", manifest["env_id"], manifest["score_scale"], huge,
                            manifest["made"])


def test_point6_a_value_model_with_overflowing_weights_is_refused(base, tmp_path):
    """A value model whose weights are 3e38 is accepted today and silently plays
    greedy's favourite (every chance NaN). Loading it, as a model or as the agent
    ``value:PATH``, is a ConfigError naming the file and the non-finite values."""
    path = _overflowing_model(base, tmp_path)
    env = envs.make("otys_v0", num_players=2)
    for load in (lambda: load_value_model(path, env), lambda: agents.make(f"value:{path}", env)):
        with pytest.raises(ConfigError) as caught:
            load()
        message = str(caught.value)
        assert "huge" in message, message
        assert re.search(r"finite|overflow", message, re.IGNORECASE), message


def test_point6_a_value_agent_beyond_the_cost_ceiling_is_refused_with_the_number():
    """``value:...,top=64,worlds=64,depth=1000`` is within each option's documented
    limit, and a game does not finish in a minute. Refused with its cost a decision
    (worlds x depth x top = 4,096,000) and the ceiling; the shipped configs' options
    (worlds=4, depth=8) still load."""
    env = envs.make("otys_v0", num_players=2)
    agents.make(f"value:{OTYS_VALUE},worlds=4,depth=8", env)  # as the shipped configs play
    with pytest.raises(ConfigError) as caught:
        agents.make(f"value:{OTYS_VALUE},top=64,worlds=64,depth=1000", env)
    message = str(caught.value)
    assert re.search(r"4[,_ ]?096[,_ ]?000", message), message
    for option in ("worlds", "depth", "top"):
        assert option in message, (option, message)
    numbers = {int(re.sub(r"[,_]", "", x)) for x in re.findall(r"\d[\d,_]*\d|\d", message)}
    assert numbers - {64, 1000, 4_096_000}, f"no ceiling named: {message}"
