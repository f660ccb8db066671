"""The data curve of a distillation round: a student's strength against its teacher's labels.

    python tools/distill_curve.py runs/train/otys_2p_dagger --round 1 \
        --games-of-labels 50,100,200,400 --eval-games 200 --seed 777 --out runs/curves/otys_2p

A fresh student (the run's trunk, fit settings and hints) is fitted on the labels of the
round's first ``N`` teacher games, for each ``N`` (the round's records re-played and
audited as a fit reads them, the held-out games of the run's rule kept aside), and
plays ``--eval-games`` games against each of the run's evaluation opponents on a seed of
its own (``--seed``: a tuning seed, not the seeds results are reported on). Printed and
written to ``--out`` (``curve.json``, ``curve.md``, ``curve.png``): labels, games, the
held-out agreement with the teacher's favourite, and the win rate with its 95% Wilson
interval. The budget of the next round is read off this curve: more labels of the same
teacher pay while the curve still climbs.

``--set distill.KEY=VALUE`` (or ``--set hints=...``) changes the student, not the labels:
another network shape or size, or fit settings, fitted on the same teacher labels
(``--set distill.encoder=hinted --set distill.hint_start=5``, ``--set
distill.trunk=[512,512]``). The rounds, the game and the seed stay the run's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from otrio.agents.weights import save_policy  # noqa: E402
from otrio.arena.outputs import pyplot  # noqa: E402
from otrio.envs.core.errors import ConfigError  # noqa: E402
from otrio.envs.core.files import dumps_json, save_figure, write_text  # noqa: E402
from otrio.envs.core.rng import derive_seed  # noqa: E402
from otrio.training.config import TrainConfig  # noqa: E402
from otrio.training.distill import (  # noqa: E402
    fit,
    held_out_games,
    net_meta,
    new_network,
    recorded_round,
    run_config,
)
from otrio.training.distill_data import audit, examples  # noqa: E402
from otrio.training.train import evaluate  # noqa: E402


def student_config(run: Path, sets: list[str]) -> TrainConfig:
    """The run's config with ``sets`` applied to its student's keys (``hints`` and
    ``distill.*`` but the rounds); ConfigError for any other key."""
    for item in sets:
        key = item.partition("=")[0].strip()
        if not (key == "hints" or key.startswith("distill.")) or key.startswith("distill.rounds"):
            raise ConfigError(f"--set {key}: a curve changes the student (hints, distill.* but "
                              "distill.rounds), not the run's labels")
    return run_config(run, sets)


def curve(run: Path, k: int, sizes: list[int], eval_games: int, seed: int, out: Path,
          progress: bool = True, sets: list[str] = ()) -> list[dict]:
    """One line a size (see the module docstring)."""
    cfg = student_config(run, list(sets))
    records = recorded_round(run, cfg, k, progress)
    audit(records)
    params = cfg.distill
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for size in sorted(sizes):
        if size > len(records):
            raise ConfigError(f"{size} games of labels asked, the round has {len(records)}")
        rows = examples(records[:size], params.temperature, params.margin, progress,
                        params.value_mix, cfg.hints, params.overrule)
        games = int(rows.game_index.max()) + 1
        # at least one game held out to measure agreement, and at least one to learn from
        aside = held_out_games(games, min(games - 1, max(1, int(round(games * params.held_out)))))
        aside = aside[rows.game_index]
        policy = new_network(cfg, derive_seed(cfg.seed, "distill-net"))
        start = time.perf_counter()
        (out / f"fit_{size}").mkdir(exist_ok=True)
        fitted = fit(policy, rows.subset(~aside), rows.subset(aside), params,
                     derive_seed(cfg.seed, "curve-fit", size), out / f"fit_{size}", progress)
        stem = out / f"net_{size}.json"
        save_policy(policy, stem, {**net_meta(cfg, k),
                                   "exported_from": f"{run} round {k}, {size} games of labels"})
        results = evaluate(stem, cfg, eval_games, seed)
        line = {"games": size, "labels": int((~aside).sum()),
                "held_out_agreement": fitted[-1].get("held_out_agreement"),
                "fit_seconds": round(time.perf_counter() - start, 1), "eval": results}
        lines.append(line)
        if progress:
            shown = "; ".join(f"vs {o} {v['win_rate']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
                              for o, v in results.items())
            print(f"{size} games ({line['labels']:,} labels): agreement "
                  f"{line['held_out_agreement']}, {shown}", flush=True)
    write_text(out / "curve.json", dumps_json({"run": str(run), "round": k, "seed": seed,
                                               "eval_games": eval_games, "student": list(sets),
                                               "lines": lines}), out)
    write_text(out / "curve.md", markdown(run, k, seed, lines, list(sets)), out)
    plot(lines, out / "curve.png")
    return lines


def markdown(run: Path, k: int, seed: int, lines: list[dict], sets: list[str] = ()) -> str:
    """The curve as a Markdown table."""
    opponents = list(lines[0]["eval"]) if lines else []
    head = ["teacher games", "labels", "held-out agreement",
            *[f"vs {o} (95%)" for o in opponents]]
    rows = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    for line in lines:
        agree = line["held_out_agreement"]
        cells = [f"{line['games']:,}", f"{line['labels']:,}",
                 "" if agree is None else f"{agree:.3f}"]
        cells += [f"{v['win_rate']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
                  for v in line["eval"].values()]
        rows.append(f"| {' | '.join(cells)} |")
    student = f" (the run's student with {', '.join(sets)})" if sets else ""
    return (f"# Data curve: {run}, round {k}\n\nA fresh student{student} fitted on the labels "
            f"of the round's first games; evaluation seed {seed}.\n\n" + "\n".join(rows) + "\n")


def plot(lines: list[dict], path: Path) -> None:
    """Win rate (with its interval) against labels, one line an opponent."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for opponent in (lines[0]["eval"] if lines else {}):
        xs = [line["labels"] for line in lines]
        ys = [line["eval"][opponent]["win_rate"] for line in lines]
        lo = [y - line["eval"][opponent]["low"] for y, line in zip(ys, lines)]
        hi = [line["eval"][opponent]["high"] - y for y, line in zip(ys, lines)]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {opponent}")
    ax.set_xscale("log")
    ax.set_xlabel("teacher labels (decisions)")
    ax.set_ylabel("student's win rate")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a distillation run folder")
    parser.add_argument("--round", type=int, default=1)
    parser.add_argument("--games-of-labels", required=True,
                        help="teacher games whose labels each student learns from: N,N,...")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=777, help="the evaluation's (tuning) seed")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                        help="the student's settings: hints or distill.KEY (not rounds)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.games_of_labels.split(",") if x.strip()]
    curve(args.run, args.round, sizes, args.eval_games, args.seed, args.out, sets=args.sets)


if __name__ == "__main__":
    main()
