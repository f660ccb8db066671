"""tools/value_features.py fits the same value on the observation and on a network's
trunk, and judges both and the network's head on the same test rows."""

import importlib.util
from pathlib import Path

from otrio.training.value_data import ValueDataConfig, generate

TOOL = Path(__file__).resolve().parents[1] / "tools" / "value_features.py"


def test_every_basis_is_judged_on_the_same_test_rows(tmp_path):
    spec = importlib.util.spec_from_file_location("value_features", TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    folder = tmp_path / "data"
    generate(ValueDataConfig(env="oceanos_v0", players=[2], games=40, shard_games=10,
                             positions=4, mixture={"net:agents/pretrained/oceanos_net.json": 1.0}),
             folder, progress=False)
    out = tool.compare(str(folder), "agents/pretrained/oceanos_net.json", [])
    assert set(out) == {"observation", "features", "value head"}
    tables = [[(e["players"], e["quarter"], e["rows"], e["margin"]) for e in out[n]["table"]]
              for n in out]
    assert tables[0] and tables[0] == tables[1] == tables[2]  # same rows, same margin baseline
    for name in out:
        for e in out[name]["table"]:
            assert 0.0 <= e["model"]["auc"] <= 1.0
