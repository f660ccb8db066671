"""The zoo's strengths read again from committed ladder runs (``otrio ladder GAME
--players N --tiers ... --against greedy``), one cell at a time.

Each ladder folder's ``run.json`` names the game, the count, each tier's spec (the zoo's,
written when the ladder started) and its lineups; a lineup that seats one tier among
greedy players measures that tier's cell, and so does a lineup of an agent named by its
spec (``--agents SPEC``) where the zoo's cell names that spec. A cell's strength is pooled
over every folder given that measures it, with the 95% Wilson interval. Prints, for each
cell, the zoo's number beside the ladders'; ``--write`` puts the ladders' numbers (and the
runs they come from) into ``agents/zoo.json``. A tier's lineup that played another player
than the zoo names now (the cell's player was replaced since) counts for that player's
spec, not for the cell. ``tests/agents/test_zoo.py``
holds the written table equal to its runs.

    .venv/bin/python tools/zoo_from_ladders.py benchmarks/results/zoo/* [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from otrio.agents.zoo import RESOLVED, ZOO_FILE, load_zoo
from otrio.arena.stats import wilson
from otrio.envs.core.files import write_text_atomic
from otrio.envs.core.registry import game_name

ROOT = Path(__file__).resolve().parents[1]


def _named(folder: Path) -> str:
    """The folder as the zoo names a run: relative to the clone where it is inside."""
    folder = folder.resolve()
    return folder.relative_to(ROOT).as_posix() if folder.is_relative_to(ROOT) else str(folder)


def ladder_cells(folder: Path) -> list[dict]:
    """What one ladder folder measured: a row for each tier seated once among greedy."""
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    players = run["game_config"]["num_players"]
    rows = []
    for k, lineup in enumerate(run.get("lineups") or []):
        name = lineup[0]
        if (run["agents"][name] == "greedy" or lineup.count(name) != 1
                or any(run["agents"][other] != "greedy" for other in lineup[1:])):
            continue
        played = next(r for r in summary["lineups"] if r["lineup"] == k)
        share = played["agents"][name]
        rows.append({"game": game_name(run["game"]), "players": players,
                     "tier": name if name in RESOLVED else None, "agent": name,
                     "spec": run["agents"][name], "wins": share["wins"],
                     "games": share["entries"], "run": _named(folder)})
    return rows


def regenerate(folders: list[Path]) -> tuple[dict, list[str]]:
    """``(zoo as JSON data, lines)``: the shipped zoo with each cell a ladder measured
    given the ladders' pooled strength (a tier's lineups, and those of an agent the
    ladder named by the cell's spec); ``lines`` compare the two, and list the agents that
    are no cell's player (candidates that did not make the zoo) with their shares."""
    zoo = load_zoo()  # the shipped table is valid before it is changed
    found: dict[tuple, list[dict]] = defaultdict(list)  # a tier's lineups, by its cell
    named: dict[tuple, list[dict]] = defaultdict(list)  # other agents', by their spec
    for folder in folders:
        for row in ladder_cells(folder):
            key = (row["game"], row["players"], row["tier"])
            entry = zoo.entry(*key) if row["tier"] else None
            if row["tier"] and entry is None:
                raise SystemExit(f"{row['run']}: the zoo lists no cell {key}")
            if entry is not None and entry.spec == row["spec"]:
                found[key].append(row)
            else:  # another agent, or a tier's player that the zoo has since replaced
                named[(row["game"], row["players"], row["spec"])].append(row)
    raw = json.loads(ZOO_FILE.read_text(encoding="utf-8"))
    lines = ["| cell | zoo | ladders | games | runs |", "|---|---|---|---|---|"]
    for entry in raw["entries"]:
        key = (entry["game"], entry["players"], entry["tier"])
        rows = found.pop(key, [])
        cell = f"{key[0]} {key[1]}p {key[2]}"
        if entry.get("spec") is None:
            continue
        rows += named.pop((key[0], key[1], entry["spec"]), [])
        old = entry["strength"]
        if not rows:
            lines.append(f"| {cell} | {old['share']:.3f} ({old['games']}) | no ladder | | |")
            continue
        wins, games = sum(r["wins"] for r in rows), sum(r["games"] for r in rows)
        low, high = wilson(wins, games)
        entry["strength"] = {"share": round(wins / games, 3), "low": round(low, 3),
                             "high": round(high, 3), "games": games,
                             "runs": [{"run": r["run"], "agent": r["agent"]} for r in rows]}
        lines.append(f"| {cell} | {old['share']:.3f} ({old['games']}) | {wins / games:.3f} "
                     f"[{low:.3f}, {high:.3f}] | {games} | {len(rows)} |")
    for (game, players, spec), rows in sorted(named.items()):  # candidates, not players
        wins, games = sum(r["wins"] for r in rows), sum(r["games"] for r in rows)
        low, high = wilson(wins, games)
        lines.append(f"| {game} {players}p `{spec}` (no cell's player) | | {wins / games:.3f} "
                     f"[{low:.3f}, {high:.3f}] | {games} | {len(rows)} |")
    return raw, lines


def dump(raw: dict) -> str:
    """The zoo as ``agents/zoo.json`` writes it: one space of indent, a run a line."""
    text = json.dumps(raw, indent=1, ensure_ascii=False)
    out, i = [], 0
    lines = text.split("\n")
    while i < len(lines):
        line = lines[i]
        if line.strip() == "{" and i + 3 < len(lines) and lines[i + 1].strip().startswith('"run"'):
            pad = line[: len(line) - len(line.lstrip())]
            run, agent, end = (lines[i + k].strip() for k in (1, 2, 3))
            out.append(f"{pad}{{{run} {agent}}}{end[1:]}")
            i += 4
            continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="ladder run folders")
    parser.add_argument("--write", action="store_true", help="write agents/zoo.json")
    args = parser.parse_args(argv)
    raw, lines = regenerate(args.folders)
    print("\n".join(lines))
    if args.write:
        write_text_atomic(ZOO_FILE, dump(raw))
        print(f"wrote {ZOO_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
