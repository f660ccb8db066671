"""What a distillation round's teacher labels say, beside greedy and the students.

    python tools/distill_labels.py runs/train/otys_2p_dagger --round 1 \
        --student runs/train/otys_2p_dagger/round_1/net.json --out labels_round1.json

The round's records are re-played and audited as a fit reads them (the run's own policy
targets). Over the labelled decisions with a choice it reports:

- how often the teacher's favourite is one of greedy's best actions (``teacher_is_greedy``;
  with greedy's the search's prior, how often the search keeps its prior's move);
- how soft the targets are: the mean probability of a target's top action, the share above
  0.9, the mean entropy in nats;
- the value gap between the teacher's best candidate and its first (its prior's
  favourite): the share of decisions where the best beats the first by more than each
  margin (what ``distill.overrule`` keeps);
- for each student network: its agreement with the teacher's favourite, and split by
  whether the teacher departs from greedy, how often it follows the teacher and how often
  it plays greedy's best.

A student that plays greedy's move where the teacher agrees with greedy and follows the
teacher where it departs has learnt the teacher; one that follows neither has learnt
noise. The labels' own signal (how often and by how much the teacher departs) bounds what
any student can take from them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from otrio import envs  # noqa: E402
from otrio.agents.hints import block_offset  # noqa: E402
from otrio.agents.net import load_net  # noqa: E402
from otrio.envs.core.files import dumps_json, write_text  # noqa: E402
from otrio.training.distill import recorded_round, run_config  # noqa: E402
from otrio.training.distill_data import audit, examples  # noqa: E402

MARGINS = (0.02, 0.05, 0.1, 0.2)


def gaps(records: list[dict]) -> dict:
    """Shares of searched decisions whose best candidate beats the first by each margin."""
    gap = np.array([max(values) - values[0] for record in records
                    for _, _, candidates, values in record["labels"]
                    if values is not None and len(candidates) > 1])
    if not len(gap):
        return {"searched": 0}
    return {"searched": len(gap), "best_is_first": float(np.mean(gap <= 0)),
            **{f"best_beats_first_by_{m}": float(np.mean(gap > m)) for m in MARGINS}}


def measure(run: Path, k: int, students: list[str]) -> dict:
    """The report (see the module docstring)."""
    cfg = run_config(run)
    records = recorded_round(run, cfg, k)
    audit(records)
    p = cfg.distill
    rows = examples(records, p.temperature, p.margin, False, p.value_mix, "greedy", p.overrule)
    env = envs.make(cfg.game, **cfg.game_config)
    actions = rows.masks.shape[1]
    plain = rows.observations.shape[1] - 2 * actions  # the game's own observation
    choice = rows.masks.sum(1) > 1
    best_at = plain + block_offset("best", actions)
    greedy_best = rows.observations[choice, best_at:best_at + actions] > 0
    target = rows.policy[choice]
    favourite = target.argmax(1)
    at = np.arange(len(favourite))
    agrees = greedy_best[at, favourite]
    top = target.max(1)
    out = {"run": str(run), "round": k, "decisions": int(choice.sum()),
           "teacher_is_greedy": float(agrees.mean()),
           "target_top_mean": float(top.mean()), "target_top_over_0.9": float((top > 0.9).mean()),
           "target_entropy": float(-(target * np.log(np.clip(target, 1e-12, 1))).sum(1).mean()),
           **gaps(records), "students": {}}
    for path in students:
        forward, manifest = load_net(path, env, hints_ok=True)
        seen = rows.observations[choice]
        if manifest.hints is None:
            seen = seen[:, :plain]
        picks = np.array([int(np.argmax(forward.logits(o, m)))
                          for o, m in zip(seen, rows.masks[choice])])
        follows = picks == favourite
        plays_greedy = greedy_best[at, picks]
        out["students"][path] = {
            "agreement": float(follows.mean()),
            "teacher_departs_follows_teacher": float(follows[~agrees].mean()),
            "teacher_departs_plays_greedy": float(plays_greedy[~agrees].mean()),
            "teacher_is_greedy_plays_it": float(follows[agrees].mean())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a distillation run folder")
    parser.add_argument("--round", type=int, default=1)
    parser.add_argument("--student", action="append", default=[], help="a student's net .json")
    parser.add_argument("--out", type=Path, help="also write the report here (JSON)")
    args = parser.parse_args()
    report = measure(args.run, args.round, args.student)
    print(json.dumps(report, indent=1))
    if args.out is not None:
        write_text(args.out, dumps_json(report), args.out.parent)


if __name__ == "__main__":
    main()
