"""A distillation run folder held to the run-folder discipline (issue 38, points 1, 3, 5;
the link planted at every path it writes is walked in tests/test_run_folders.py):

- the run believes only its own files: an ``eval.json`` edited to a self-consistent
  0.99, a network swapped in, a fit log edited are refused; a network the round's
  record does not name is never adopted (exported again); labels turned against the
  teacher's moves are refused before anything learns from them;
- side files as ``/dev/zero``, garbage, lists or deep nesting are one-line errors;
- a non-empty folder that holds no distillation run is never written into.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from otrio.arena.records import RECORDS_FILE
from otrio.arena.replay import record_actions
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, OtrioError, StateError
from otrio.training.config import TrainConfig
from otrio.training.distill import distill, round_tasks
from otrio.training.distill_data import audit, teacher_game

TEACHER = "mcts:iterations=2,depth=3,rollout=random,prior=none,top=0,crn=1"


def one_round(output: Path, **distill_kw) -> TrainConfig:
    params = {"rounds": [{"teacher": TEACHER, "games": {2: 2}}], "epochs": 1, "trunk": [8],
              "batch_size": 64, "held_out": 0.0}
    params.update(distill_kw)
    return validate(TrainConfig, {
        "game": "oceanos_v0", "game_config": {"num_players": 2}, "seed": 3,
        "output": str(output), "eval": {"games": 2, "opponents": ["random"]},
        "distill": params})


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished one-round run (copied by each test that changes it)."""
    folder = tmp_path_factory.mktemp("distill") / "run"
    distill(one_round(folder), progress=False)
    return folder


def copy_run(finished: Path, tmp_path: Path) -> tuple[Path, TrainConfig]:
    folder = tmp_path / "run"
    shutil.copytree(finished, folder, symlinks=True)
    return folder, one_round(folder)


def one_line(err: Exception) -> str:
    text = str(err)
    assert "\n" not in text and text, text
    return text


def test_links_in_a_fresh_folder(tmp_path):
    """A dangling config.json link creates nothing; a folder holding only a linked
    round_1/ is no run (nothing is written into either)."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.json").symlink_to(tmp_path / "created")
    with pytest.raises(ConfigError, match="config.json is a symbolic link"):
        distill(one_round(folder), progress=False)
    assert not (tmp_path / "created").exists()
    (folder / "config.json").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "round_1").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ConfigError, match="holds no distillation run"):
        distill(one_round(folder), progress=False)
    assert sorted(os.listdir(tmp_path)) == ["elsewhere", "run"] and not os.listdir(elsewhere)
    assert os.listdir(folder) == ["round_1"]


def test_an_edited_eval_is_refused_and_a_planted_network_never_adopted(finished, tmp_path):
    folder, cfg = copy_run(finished, tmp_path)
    here = folder / "round_1"
    original = json.loads((here / "eval.json").read_text())
    edited = json.loads(json.dumps(original))
    edited["results"]["random"].update(win_rate=0.99, low=0.95, high=1.0)
    (here / "eval.json").write_text(json.dumps(edited, indent=2, sort_keys=True) + "\n")
    with pytest.raises(StateError, match="eval.json has changed since the run wrote it"):
        distill(cfg, progress=False)
    (here / "eval.json").write_text(json.dumps(original, indent=2, sort_keys=True) + "\n")
    fit_log = (here / "fit.jsonl").read_text()
    (here / "fit.jsonl").write_text(fit_log.replace('"loss": ', '"loss": 0.0001'))
    with pytest.raises(StateError, match="fit.jsonl has changed"):
        distill(cfg, progress=False)
    (here / "fit.jsonl").write_text(fit_log)
    # another run's network swapped in, manifest and weights together
    other = tmp_path / "other"
    distill(one_round(other, trunk=[4]), progress=False)
    own = {name: (here / name).read_bytes() for name in ("net.json", "net.safetensors")}
    for name in own:
        shutil.copy(other / "round_1" / name, here / name)
    with pytest.raises(StateError, match="net.json has changed"):
        distill(cfg, progress=False)
    # in a round whose record names no network, a planted one is exported over, not used
    (here / "round.json").unlink()
    with pytest.warns(UserWarning, match="not named by the round's record"):
        distill(cfg, progress=False)
    assert {name: (here / name).read_bytes() for name in own}["net.safetensors"] == \
        own["net.safetensors"]
    assert json.loads((here / "eval.json").read_text()) == original  # measured again


def test_labels_turned_against_the_teachers_moves_are_refused(tmp_path):
    record = teacher_game(round_tasks(one_round(tmp_path / "x"), 1, TEACHER)[0])
    assert audit([record], every=1) == 1  # the genuine record passes, played again
    searched = [k for k, label in enumerate(record["labels"])
                if label[3] is not None and len(set(label[3])) > 1]
    assert searched
    k = searched[0]
    step, seat, candidates, values = record["labels"][k]
    turned = json.loads(json.dumps(record))
    turned["labels"][k][3] = [-v for v in values]  # the played move now valued lowest
    with pytest.raises(StateError, match=f"label {k} .* values another candidate above"):
        audit([turned], every=1)
    # a change that keeps the played move on top is caught by playing the game again
    kept = json.loads(json.dumps(record))
    best = max(values)
    kept["labels"][k][3] = [v if v == best else v - 0.5 for v in values]
    with pytest.raises(StateError, match="played again from its seed, the teacher gives another"):
        audit([kept], every=1)
    played = record_actions(record)[3][step]
    gone = json.loads(json.dumps(record))
    gone["labels"][k][2] = [a for a in candidates if a != played]
    gone["labels"][k][3] = [v for a, v in zip(candidates, values) if a in gone["labels"][k][2]]
    with pytest.raises(StateError, match="does not list the move played"):
        audit([gone], every=1)


def test_a_resumed_round_audits_its_labels_before_fitting(finished, tmp_path):
    folder, cfg = copy_run(finished, tmp_path)
    here = folder / "round_1"
    for name in ("round.json", "net.json", "net.safetensors", "fit.jsonl", "eval.json"):
        (here / name).unlink()
    shutil.rmtree(here / "fit")
    lines = (here / RECORDS_FILE).read_text().splitlines()
    record = json.loads(lines[0])
    k = next(i for i, label in enumerate(record["labels"])
             if label[3] is not None and len(set(label[3])) > 1)
    record["labels"][k][3] = [-v for v in record["labels"][k][3]]
    (here / RECORDS_FILE).write_text("\n".join([json.dumps(record, sort_keys=True)]
                                               + lines[1:]) + "\n")
    with pytest.raises(StateError, match="not the teacher's labels"):
        distill(cfg, progress=False)
    assert not (here / "net.json").exists()


@pytest.mark.parametrize("name", ["config.json", "round_1/round.json", "round_1/eval.json",
                                  "round_1/fit.jsonl"])
@pytest.mark.parametrize("content", ["zero", "garbage", "list", "nested", "binary"])
def test_side_files_that_are_not_what_they_say_are_one_line(finished, tmp_path, name, content):
    folder, cfg = copy_run(finished, tmp_path)
    path = folder / name
    path.unlink()
    if content == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes({"garbage": b"{not json", "list": b"[1, 2]\n",
                          "nested": b"[" * 100_000 + b"]" * 100_000,
                          "binary": b"\xff\xfe\x00"}[content])
    with pytest.raises(OtrioError) as caught:
        distill(cfg, progress=False)
    assert name.split("/")[-1] in one_line(caught.value)


@pytest.mark.parametrize("lines", [[1], {"epoch": 1}, [{"epoch": 2, "loss": 1.0}],
                                   [{"epoch": 1, "loss": "x"}], [{"epoch": 1}, {"epoch": 2}],
                                   "absent"])
def test_a_fit_state_whose_lines_are_not_epochs_is_one_line(finished, tmp_path, lines):
    """Found by tests/attacks/run_folder_attack.py: a fit state (round_1/fit/state.json) whose
    log line was a number was a TypeError when the fit's time was added to it."""
    folder, cfg = copy_run(finished, tmp_path)
    (folder / "round_1" / "round.json").unlink()  # the round exported again from its state
    state = folder / "round_1" / "fit" / "state.json"
    saved = json.loads(state.read_text())
    saved["meta"]["lines"] = lines
    if lines == "absent":  # its weights are after epoch 1: fitting "from epoch 0" on them
        del saved["meta"]["lines"]  # was another network (found by the attack pass too)
    state.write_text(json.dumps(saved))
    with pytest.raises(StateError, match="fit's epochs") as caught:
        distill(cfg, progress=False)
    assert "state.json" in one_line(caught.value)


def test_a_folder_of_the_users_own_files_is_never_written(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "report.md").write_text("my notes")
    (folder / "summary.json").write_text("{}")
    with pytest.raises(ConfigError, match="not empty .* holds no distillation run"):
        distill(one_round(folder), progress=False)
    assert sorted(os.listdir(folder)) == ["report.md", "summary.json"]
    assert (folder / "report.md").read_text() == "my notes"


def test_otrio_replay_plays_an_untouched_distillation_round(finished, tmp_path, capsys):
    """A teacher game's record has scores and winners but no ranks: the page shows the
    result the replay reached (issue 38, point 6: it ended in KeyError)."""
    from otrio.cli import main

    out = tmp_path / "game0.html"
    assert main(["replay", str(finished / "round_1"), "--game", "0", "--output", str(out)]) == 0
    assert "decisions" in capsys.readouterr().out
    assert out.stat().st_size > 1000
