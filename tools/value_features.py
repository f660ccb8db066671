"""Is a network's trunk a better basis for a value than the raw observation?

    python tools/value_features.py runs/values/oceanos_5p_net \
        --net agents/pretrained/oceanos_net.json [--hidden 64] [--max-gib 20]

On one value-data run (``otrio value data``), the same value fit (``otrio value fit``'s
split, standardisation, early stopping; ``--hidden`` its layers) is made twice: on the
seats' observations and on the network's trunk output for them (its shared features,
``agents/net.py``). Both, and the network's own value head as a score, are judged by the
calibration gate on the run's test games; the table prints AUC and Brier per quarter
beside the score margin's (the head's Brier is not a probability's: it was trained on
another target, so read its AUC alone). A basis that loses here is not worth a value
agent.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from otrio import envs
from otrio.agents.net import load_net
from otrio.agents.value import ValueModel
from otrio.training.value_data import load_rows
from otrio.training.value_fit import ValueFitConfig, fit
from otrio.training.value_report import gate
from otrio.training.value_store import read_manifest

BATCH = 4096


class Head:
    """The network's own value head, squashed to (0, 1): a score to rank seats by."""

    def __init__(self, forward):
        self.forward = forward

    def win(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.forward.values(x)))


def compare(folder: str, net: str, hidden: list[int], max_gib: float = 20.0) -> dict:
    """The gate of the raw-observation fit, the features fit and the network's head."""
    config = read_manifest(Path(folder))["config"]
    env = envs.make(config["env"], num_players=min(config["players"]))
    scale = env.unwrapped.game.info.score_scale
    forward, _ = load_net(net, env)
    rows = load_rows(folder, max_bytes=int(max_gib * 2**30))
    features = np.concatenate([forward.features(rows["obs"][k:k + BATCH])
                               for k in range(0, len(rows["obs"]), BATCH)]).astype(np.float32)
    cfg = ValueFitConfig(hidden=hidden, epochs=20, patience=2)
    out = {}
    for name, basis in (("observation", rows), ("features", {**rows, "obs": features})):
        tensors, _ = fit(basis, scale, cfg, progress=False)
        out[name] = gate(basis, ValueModel.from_fit(tensors, scale), scale)
    out["value head"] = gate(rows, Head(forward), scale)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="a value-data run folder")
    parser.add_argument("--net", required=True, help="an exported network (X.json)")
    parser.add_argument("--hidden", default="", help="the fit's hidden layers, e.g. 64 or 64,64")
    parser.add_argument("--max-gib", type=float, default=20.0)
    args = parser.parse_args()
    hidden = [int(h) for h in args.hidden.split(",") if h]
    out = compare(args.data, args.net, hidden, args.max_gib)
    names = list(out)
    print("| players | quarter | rows | AUC margin | " + " | ".join(f"AUC {n}" for n in names)
          + " | " + " | ".join(f"Brier {n}" for n in names) + " |")
    print("|---" * (4 + 2 * len(names)) + "|")
    for entries in zip(*(out[n]["table"] for n in names)):
        e = entries[0]
        print(f"| {e['players']} | {e['quarter']} | {e['rows']} | {e['margin']['auc']:.3f} | "
              + " | ".join(f"{x['model']['auc']:.3f}" for x in entries) + " | "
              + " | ".join(f"{x['model']['brier']:.4f}" for x in entries) + " |")


if __name__ == "__main__":
    main()
