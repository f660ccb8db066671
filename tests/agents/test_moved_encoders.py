"""The structured encoders moved from training/encoders.py to agents/encoders.py (agents
rebuild exported networks from them, and agents sit below training). An SB3 zip pickled
before the move names them by the old module; it still loads, through agents.weights."""

import sys
import zipfile

import pytest

from agents import encoders
from agents.weights import load_sb3_zip
from envs.core.errors import ConfigError


def _old_zip(path, monkeypatch):
    """A zip whose pickles name the encoder ``training.encoders.OtysPairs``, as the code
    before the move wrote it."""
    from sb3_contrib import MaskablePPO

    from training.selfplay import SelfPlayEnv

    env = SelfPlayEnv("otys_v0", {"num_players": 2}, {"random": 1.0})
    with monkeypatch.context() as old:
        old.setitem(sys.modules, "training.encoders", encoders)
        old.setattr(encoders.OtysPairs, "__module__", "training.encoders")
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16,
                            policy_kwargs=encoders.policy_kwargs("otys_pairs", [8]))
        model.save(str(path))
    with zipfile.ZipFile(path) as archive:
        assert b"training.encoders" in archive.read("data")
    assert "training.encoders" not in sys.modules
    return path


def test_a_zip_pickled_before_the_move_loads_with_the_moved_encoder(tmp_path, monkeypatch):
    path = _old_zip(tmp_path / "old.zip", monkeypatch)
    model = load_sb3_zip(path, trust=True, device="cpu")
    assert model.policy.features_extractor_class is encoders.OtysPairs
    assert isinstance(model.policy.features_extractor, encoders.OtysPairs)
    assert "training.encoders" not in sys.modules  # the old name lives only while loading


def test_without_the_old_name_such_a_zip_would_not_load(tmp_path, monkeypatch):
    """What the alias is for: the same zip, loaded with no moved modules, fails."""
    path = _old_zip(tmp_path / "old.zip", monkeypatch)
    monkeypatch.setattr("agents.weights.MOVED_MODULES", {})
    with pytest.raises(ConfigError, match="training.encoders"):
        load_sb3_zip(path, trust=True, device="cpu")
