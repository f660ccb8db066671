"""An SB3 model of the documented recipe (``examples/sb3_maskable_ppo.py``; docs/libraries.md,
"Bringing a model back") comes back as a safe agent in one command, and plays in a
tournament: with the metadata the recipe's ``--save`` writes beside its zip, or with its
game named on the command line (``--game``, ``--players``) when there is none. A zip is
still loaded only behind ``--trust-checkpoint``."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from otrio.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _recipe():
    """The module ``examples/sb3_maskable_ppo.py``."""
    spec = importlib.util.spec_from_file_location("example_sb3_maskable_ppo",
                                                  ROOT / "examples" / "sb3_maskable_ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory):
    """The recipe's model after one tiny rollout, saved with ``--save``: the zip's path."""
    import torch

    threads = torch.get_num_threads()
    folder = tmp_path_factory.mktemp("sb3")
    try:
        result = _recipe().main(["--timesteps", "64", "--n-steps", "64", "--epochs", "1",
                                 "--eval-games", "1", "--quiet",
                                 "--save", str(folder / "sb3_model")])
    finally:
        torch.set_num_threads(threads)
    zipped = folder / "sb3_model.zip"
    assert result["saved"] == [str(zipped), str(folder / "sb3_model.json")]
    return zipped


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch):
    monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)


def _one_line_error(capsys, argv, *needles) -> str:
    """``otrio ARGV`` fails with exit 2 and one line naming each of ``needles``."""
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and err.count("\n") == 0, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def _plays_two_games(agent: Path, output: Path, capsys) -> None:
    """The exported agent plays a 2-game Oceanos tournament against random."""
    assert main(["tournament", "--game", "oceanos", "--agents", f"ppo:{agent},random",
                 "--games", "2", "--output", str(output), "--quiet"]) == 0
    capsys.readouterr()
    summary = json.loads((output / "summary.json").read_text())
    assert summary["games"] == 2


def test_the_recipe_writes_the_metadata_that_ties_its_zip_to_its_game(sb3_model):
    meta = json.loads(sb3_model.with_suffix(".json").read_text())
    assert meta == {"env_id": "oceanos_v0", "observation_size": meta["observation_size"],
                    "num_actions": meta["num_actions"], "game_config": {"num_players": 2},
                    "timesteps": 64, "seed": 0, "hints": None}


def test_a_saved_model_comes_back_in_one_command_and_plays(sb3_model, tmp_path, capsys):
    # still refused without trust: loading a zip unpickles
    _one_line_error(capsys, ["export-checkpoint", sb3_model, tmp_path / "agent.json"],
                    "--trust-checkpoint")
    assert main(["export-checkpoint", str(sb3_model), str(tmp_path / "agent.json"),
                 "--trust-checkpoint"]) == 0
    assert "play it as ppo:" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "agent.json").read_text())
    assert manifest["env_id"] == "oceanos_v0" and manifest["game_config"] == {"num_players": 2}
    assert manifest["timesteps"] == 64 and (tmp_path / "agent.safetensors").is_file()
    _plays_two_games(tmp_path / "agent.json", tmp_path / "tournament", capsys)


def test_a_zip_without_metadata_names_its_game_on_the_command_line(sb3_model, tmp_path, capsys):
    bare = tmp_path / "bare.zip"
    shutil.copyfile(sb3_model, bare)  # as SB3's own model.save leaves it: no metadata
    # played or exported as it is, it says how to name its game
    _one_line_error(capsys, ["tournament", "--game", "oceanos", "--agents",
                             f"ppo:{bare},random", "--games", "2", "--output",
                             tmp_path / "t0", "--trust-checkpoint", "--quiet"],
                    "has no metadata", "--game GAME --players N")
    _one_line_error(capsys, ["export-checkpoint", bare, tmp_path / "agent.json",
                             "--trust-checkpoint"], "has no metadata", "--game oceanos --players 2")
    assert main(["export-checkpoint", str(bare), str(tmp_path / "agent.json"), "--game",
                 "oceanos", "--players", "2", "--trust-checkpoint"]) == 0
    capsys.readouterr()
    manifest = json.loads((tmp_path / "agent.json").read_text())
    assert manifest["env_id"] == "oceanos_v0" and manifest["game_config"] == {"num_players": 2}
    assert manifest["timesteps"] == 64  # the model's own count
    _plays_two_games(tmp_path / "agent.json", tmp_path / "tournament", capsys)


def test_a_zip_that_does_not_fit_the_named_game_is_one_clear_line(sb3_model, tmp_path, capsys):
    bare = tmp_path / "bare.zip"
    shutil.copyfile(sb3_model, bare)
    _one_line_error(capsys, ["export-checkpoint", bare, tmp_path / "agent.json", "--game",
                             "otys", "--players", "2", "--trust-checkpoint"],
                    "does not fit otys_v0 at 2 players", "observations of shape (2549,)",
                    "--game, --players")
    assert not (tmp_path / "agent.json").exists()
    assert not (tmp_path / "agent.safetensors").exists()
    # a count the game refuses is its config's error
    _one_line_error(capsys, ["export-checkpoint", bare, tmp_path / "agent.json", "--game",
                             "oceanos", "--players", "9", "--trust-checkpoint"], "num_players")


def test_flags_that_disagree_with_the_metadata_are_refused(sb3_model, tmp_path, capsys):
    target = tmp_path / "agent.json"
    _one_line_error(capsys, ["export-checkpoint", sb3_model, target, "--game", "otys",
                             "--trust-checkpoint"], "env_id='oceanos_v0'", "otys_v0")
    _one_line_error(capsys, ["export-checkpoint", sb3_model, target, "--players", "3",
                             "--trust-checkpoint"], "says 2 players, --players says 3")
    # flags that agree change nothing
    assert main(["export-checkpoint", str(sb3_model), str(target), "--game", "oceanos_v0",
                 "--players", "2", "--trust-checkpoint"]) == 0
    capsys.readouterr()
    # an exported agent names its own game
    _one_line_error(capsys, ["export-checkpoint", target, tmp_path / "again.json", "--game",
                             "oceanos"], "an exported agent's manifest names its own game")


def test_metadata_that_does_not_fit_its_zip_is_refused(sb3_model, tmp_path, capsys):
    from otrio.agents.ppo import write_metadata, zip_metadata

    wrong = tmp_path / "wrong.zip"
    shutil.copyfile(sb3_model, wrong)
    write_metadata(wrong, zip_metadata("otontin", {"num_players": 3}))
    _one_line_error(capsys, ["export-checkpoint", wrong, tmp_path / "agent.json",
                             "--trust-checkpoint"], "does not fit otontin_v0 at 3 players",
                    "named by its metadata (wrong.json)", "correct its metadata (wrong.json)")
    write_metadata(wrong, {**zip_metadata("oceanos", {"num_players": 2}), "hints": "bogus"})
    _one_line_error(capsys, ["export-checkpoint", wrong, tmp_path / "agent.json",
                             "--trust-checkpoint"], "unknown hints 'bogus'")
    write_metadata(wrong, {**zip_metadata("oceanos", {"num_players": 2}), "game_config": [2]})
    _one_line_error(capsys, ["export-checkpoint", wrong, tmp_path / "agent.json",
                             "--trust-checkpoint"], "game_config (a mapping)")
    assert not list(tmp_path.glob("agent.*"))  # nothing written
