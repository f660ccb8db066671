"""Compare one agent's results in two tournament runs played on the same seeds.

Expert iteration keeps a round only if its agent beats the last on fresh paired seeds:
two runs of one tournament config that differ only in the agent's spec play the same
games (seed, seating), so game ``g`` of each is a pair. This counts the games the agent
won in one run only, and the exact McNemar test on those discordant pairs:

    python tools/paired_runs.py runs/tournament/a runs/tournament/b --agent value

(``--agent`` names the agent in both runs' lineups, or in the first only with
``--agent-b`` naming it in the second, when two agents of other names took the same
seats; a game counts as won when any seat that agent holds is among the winners).
Records are read through the tournament's verified reader; runs whose games do not pair
(other seeds or seatings) are refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from otrio.arena.records import RECORDS_FILE, read_records
from otrio.arena.stats import mcnemar_exact


def _won(record: dict, agent: str) -> bool:
    return any(record["seating"][seat] == agent for seat in record["winners"])


def compare(folder_a: Path, folder_b: Path, agent: str, agent_b: str | None = None) -> dict:
    """Wins of ``agent`` in each run (``agent_b`` in the second, if given: its seats are
    ``agent``'s of the first), the discordant counts and the McNemar p."""
    agent_b = agent_b or agent
    runs = []
    for folder in (folder_a, folder_b):
        records = {r["game"]: r for r in read_records(folder / RECORDS_FILE)}
        runs.append(records)
    common = sorted(set(runs[0]) & set(runs[1]))
    for g in common:
        a, b = runs[0][g], runs[1][g]
        seating_b = [agent if name == agent_b else name for name in b["seating"]]
        if (a["seed"], a["seating"]) != (b["seed"], seating_b):
            raise SystemExit(f"game {g} does not pair: seed/seating {a['seed']}, "
                             f"{a['seating']} against {b['seed']}, {b['seating']}")
    wins = [[_won(run[g], name) for g in common] for run, name in zip(runs, (agent, agent_b))]
    only_a = sum(x and not y for x, y in zip(*wins))
    only_b = sum(y and not x for x, y in zip(*wins))
    return {"games": len(common), "wins_a": sum(wins[0]), "wins_b": sum(wins[1]),
            "only_a": only_a, "only_b": only_b, "p": mcnemar_exact(only_a, only_b)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--agent", required=True, help="the agent's name in both lineups")
    parser.add_argument("--agent-b", help="its name in the second run's lineup, if another")
    args = parser.parse_args(argv)
    out = compare(args.run_a, args.run_b, args.agent, args.agent_b)
    n = out["games"]
    print(f"{n} paired games: {args.agent} won {out['wins_a']} ({out['wins_a'] / n:.3f}) in "
          f"{args.run_a}, {args.agent_b or args.agent} {out['wins_b']} "
          f"({out['wins_b'] / n:.3f}) in {args.run_b}; "
          f"{out['only_a']} won in the first only, {out['only_b']} in the second only, "
          f"exact McNemar p = {out['p']:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
