"""The structured encoders moved from training/encoders.py to agents/encoders.py (agents
rebuild exported networks from them, and agents sit below training), then the top-level
package ``agents`` became ``otrio.agents``. An SB3 zip pickled before a move names them by
the old module; it still loads, through otrio.agents.weights."""

import sys
import zipfile

import pytest

from otrio.agents import encoders
from otrio.agents.weights import load_sb3_zip
from otrio.envs.core.errors import ConfigError

OLD_NAMES = ["training.encoders", "agents.encoders"]


def _old_zip(path, monkeypatch, old_name="training.encoders"):
    """A zip whose pickles name the encoder ``OLD_NAME.OtysPairs``, as the code before
    the move wrote it."""
    from sb3_contrib import MaskablePPO

    from otrio.training.selfplay import SelfPlayEnv

    env = SelfPlayEnv("otys_v0", {"num_players": 2}, {"random": 1.0})
    with monkeypatch.context() as old:
        old.setitem(sys.modules, old_name, encoders)
        old.setattr(encoders.OtysPairs, "__module__", old_name)
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16,
                            policy_kwargs=encoders.policy_kwargs("otys_pairs", [8]))
        model.save(str(path))
    with zipfile.ZipFile(path) as archive:
        assert old_name.encode() in archive.read("data")
    assert old_name not in sys.modules
    return path


@pytest.mark.parametrize("old_name", OLD_NAMES)
def test_a_zip_pickled_before_the_move_loads_with_the_moved_encoder(tmp_path, monkeypatch,
                                                                     old_name):
    path = _old_zip(tmp_path / "old.zip", monkeypatch, old_name)
    model = load_sb3_zip(path, trust=True, device="cpu")
    assert model.policy.features_extractor_class is encoders.OtysPairs
    assert isinstance(model.policy.features_extractor, encoders.OtysPairs)
    assert old_name not in sys.modules  # the old name lives only while loading


def test_without_the_old_name_such_a_zip_would_not_load(tmp_path, monkeypatch):
    """What the alias is for: the same zip, loaded with no moved modules, fails."""
    path = _old_zip(tmp_path / "old.zip", monkeypatch)
    monkeypatch.setattr("otrio.agents.weights.MOVED_MODULES", {})
    with pytest.raises(ConfigError, match="training.encoders"):
        load_sb3_zip(path, trust=True, device="cpu")
