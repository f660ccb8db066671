"""Every kind of run holds its folder to one discipline (envs/core/files.py, issue 38):
a symbolic link planted at any file or sub-folder a run writes -- walked from a finished
run of each kind, then planted one at a time in a copy that the run resumes -- is a
one-line error naming it, its target is left untouched and nothing is written outside
the folder.
Also: a non-empty folder that holds no run of the kind is never written into, and the
setup search's pre-registration is read as untrusted data.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

from otrio.envs.core.errors import ConfigError, OtrioError, StateError
from tests.attacks.tiny_runs import (
    balance,
    distillation,
    evaluation,
    search_study,
    setup_search,
    tournament,
    training,
)


def _without_round_record(folder: Path, rel: str) -> None:
    """A distillation round without its record is exported and evaluated again, so
    that a resume writes every file of the round (and reads the fit state)."""
    if rel != "round_1/round.json":
        (folder / "round_1" / "round.json").unlink()


def _evaluated_training(output: Path):
    training(output)
    evaluation(output)


# kind: (make a finished run in a folder, resume one so that it reads and writes everything)
KINDS = {
    "tournament": (tournament, tournament),
    "balance": (balance, balance),
    "setup search": (setup_search, setup_search),
    "search study": (search_study, search_study),
    "training": (training, lambda out: training(out, total_timesteps=192)),
    "evaluation": (_evaluated_training, lambda out: evaluation(out, games=3)),
    "distillation": (distillation, distillation),
}
PREPARE = {"distillation": _without_round_record}  # before a link is planted
MINIMUM = {"distillation": 17, "training": 18}  # paths each finished tiny run holds


# evaluate-run reads a training run's config and agents and writes its own log: the
# training's checkpoints, logs and TensorBoard folders are no business of it
ONLY = {"evaluation": lambda rel: rel.split("/")[0] in (
    "config.json", "snapshots", "final.json", "final.safetensors", "eval_snapshots.jsonl")}
NOT_MOVABLE = {"search study"}  # a copy elsewhere is another study: made afresh in place


def written_paths(folder: Path) -> list[str]:
    """Every file and folder of a finished run, relative to it (TensorBoard's event
    files are named anew by each writer: their folders are planted instead)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if "tfevents" not in p.name)


def snapshot(path: Path) -> dict[str, bytes]:
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    made: dict[str, Path] = {}

    def get(kind: str) -> Path:
        if kind not in made:
            folder = tmp_path_factory.mktemp(kind.replace(" ", "_")) / "run"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                KINDS[kind][0](folder)
            made[kind] = folder
        return made[kind]
    return get


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_link_at_every_path_a_run_writes_is_a_one_line_error(kind, finished, tmp_path):
    done = finished(kind)
    paths = [rel for rel in written_paths(done) if ONLY.get(kind, lambda _: True)(rel)]
    assert len(paths) >= MINIMUM.get(kind, 5), paths
    for rel in paths:
        case = tmp_path / rel.replace("/", "_")
        folder = case / "run"
        case.mkdir()
        if kind in NOT_MOVABLE:  # the output folder is part of its run's identity
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                KINDS[kind][0](folder)
        else:
            shutil.copytree(done, folder, symlinks=True)
        PREPARE.get(kind, lambda *_: None)(folder, rel)
        planted, outside = folder / rel, case / "outside"
        if planted.is_dir():
            shutil.copytree(planted, outside)
            shutil.rmtree(planted)
        else:
            shutil.copy(planted, outside)
            planted.unlink()
        planted.symlink_to(outside)
        before = snapshot(outside)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(OtrioError) as caught:
                KINDS[kind][1](folder)
        message = str(caught.value)
        assert "\n" not in message and "symbolic link" in message, (rel, message)
        assert Path(rel).name in message, (rel, message)
        assert snapshot(outside) == before, rel  # the target untouched
        assert sorted(os.listdir(case)) == ["outside", "run"], rel  # nothing else outside
    print(f"{kind}: a link planted at {len(paths)} paths, {len(paths)} one-line errors")


@pytest.mark.parametrize("kind", ["tournament", "balance", "setup search", "search study",
                                  "training"])
def test_a_folder_of_the_users_own_files_is_never_written(kind, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "report.md").write_text("my notes")
    (folder / "summary.json").write_text('{"mine": true}')
    with pytest.raises(ConfigError, match="not empty .* holds no"):
        KINDS[kind][0](folder)
    assert sorted(os.listdir(folder)) == ["report.md", "summary.json"]
    assert (folder / "report.md").read_text() == "my notes"


@pytest.mark.parametrize("content", ["zero", "garbage", "nested", "list", "binary"])
def test_a_preregistration_that_is_not_one_is_a_one_line_error(content, finished, tmp_path):
    from otrio.benchmarks.balance.search import PREREGISTRATION_FILE

    folder = tmp_path / "run"
    shutil.copytree(finished("setup search"), folder)
    path = folder / PREREGISTRATION_FILE
    path.unlink()
    if content == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes({"garbage": b"\x00{{not json", "nested": b"[" * 100_000,
                          "list": b"[1]", "binary": b"\xff\xfe"}[content])
    with pytest.raises(OtrioError) as caught:
        setup_search(folder)
    message = str(caught.value)
    assert "\n" not in message and PREREGISTRATION_FILE in message, message


@pytest.mark.parametrize("kind", ["balance", "setup search"])
def test_a_timing_line_that_is_not_one_is_a_one_line_error(kind, finished, tmp_path):
    """Found by tests/attacks/run_folder_attack.py: a timing.jsonl line without its seconds
    (or games) was a KeyError in the report's wall-time sentence."""
    for n, line in enumerate(('{"games": 4, "workers": 1, "backend": "local"}',
                              '{"games": "4", "seconds": 0.0, "workers": 1, "backend": "x"}',
                              '{"games": 4, "seconds": -1, "workers": 1, "backend": "x"}',
                              '[1]')):
        folder = tmp_path / f"run{n}"
        shutil.copytree(finished(kind), folder)
        (folder / "timing.jsonl").write_text(line + "\n")
        with pytest.raises(StateError, match="timing.jsonl line 1") as caught:
            KINDS[kind][1](folder)
        assert "\n" not in str(caught.value)


def test_a_training_config_that_is_not_one_is_a_one_line_error(finished, tmp_path):
    for content in (b"[" * 100_000, b"[1, 2]", b"\xff", b"{"):
        folder = tmp_path / f"run{len(content)}_{content[:1].hex()}"
        shutil.copytree(finished("training"), folder)
        (folder / "config.json").write_bytes(content)
        for again in (training, evaluation):
            with pytest.raises(ConfigError) as caught:
                again(folder)
            assert "\n" not in str(caught.value) and "config.json" in str(caught.value)
    folder = tmp_path / "zero"
    shutil.copytree(finished("training"), folder)
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="config.json is a symbolic link"):
        training(folder)
    assert json.loads((finished("training") / "config.json").read_text())["game"] == "oceanos_v0"


def test_otrio_replay_of_a_record_without_scores_or_ranks(finished, tmp_path, capsys):
    """Issue 38, point 6: a record that keeps its actions but not its scores or ranks
    replays (the page shows what the replay reached), instead of a KeyError."""
    from otrio.benchmarks.replay.html import build_page
    from otrio.cli import main

    lines = (finished("tournament") / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    bare = {k: v for k, v in record.items() if k not in ("scores", "ranks")}
    path = tmp_path / "bare.jsonl"
    path.write_text(json.dumps(bare) + "\n")
    assert main(["replay", str(path), "--output", str(tmp_path / "bare.html")]) == 0
    _, data, _ = build_page(bare)
    _, full, _ = build_page(record)
    assert data["result"] == full["result"]  # the same final screen as the whole record's
