"""The shipped training configs load and name games that exist."""

from pathlib import Path

import pytest

from otrio import envs
from otrio.training.config import load_train_config

CONFIGS = sorted((Path(__file__).parents[2] / "configs" / "train").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_shipped_training_config_is_valid(path):
    cfg = load_train_config(path)
    env = envs.make(cfg.game, **cfg.game_config)
    assert env.unwrapped.num_players == cfg.game_config["num_players"]
    assert cfg.torch_threads == 1


def test_every_game_has_a_training_config():
    games = {load_train_config(p).game for p in CONFIGS}
    assert games == set(envs.available())


def test_every_shipped_training_config_is_named_in_a_readme():
    """configs/train/ holds only configs a user runs, each named where a user reads."""
    root = Path(__file__).parents[2]
    readmes = " ".join(p.read_text() for p in root.rglob("README.md")
                       if ".venv" not in p.parts and "runs" not in p.parts)
    unnamed = [p.name for p in CONFIGS if p.name not in readmes]
    assert not unnamed, f"no README names {unnamed}"
