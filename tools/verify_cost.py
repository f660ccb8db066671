"""What verifying every record of a resumed run costs: records re-played a second.

    python tools/verify_cost.py --records 2000 [--games oceanos_v0:2,otys_v0:2,otontin_v0:3]
        [--json benchmarks/results/verify/verify_cost.json]

For each game, a seeded tournament of ``--records`` games between random players is
played into a scratch run folder (random play is the cheapest to record; a replay runs
no agent, so who played does not change its cost beyond the game's length), then the
folder is opened as a resume opens it (:func:`otrio.arena.records.open_run` with the
tournament's schema) twice: ``verify="none"`` (read and schema checks only) and
``verify="all"`` (every record also re-played through the engine, the default). The
replay seconds are the :class:`otrio.arena.records.Verification`'s own clock; records and
decisions a second follow, with the machine's load average, so a figure measured on a
busy machine says so. The clock only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from otrio.arena.records import open_run  # noqa: E402
from otrio.benchmarks.tournament import tournament  # noqa: E402

DEFAULT_GAMES = "oceanos_v0:2,otys_v0:2,otontin_v0:3"


def measure(env_id: str, players: int, records: int, folder: Path, seed: int = 0) -> dict:
    """Play ``records`` random games of ``env_id`` into ``folder``, then time a resume's
    checks of them without and with replays (see the module docstring)."""
    per_seating = max(1, -(-records // players))
    cfg = tournament.TournamentConfig(
        game=env_id, game_config={"num_players": players}, agents={"r": "random"},
        lineup=["r"] * players, games_per_seating=per_seating, seed=seed, output=str(folder))
    start = time.perf_counter()
    tournament.run(cfg, progress=False)
    played = time.perf_counter() - start
    schema = tournament.record_schema(cfg, tournament.build_tasks(cfg))
    identity = cfg.identity()
    start = time.perf_counter()
    found = open_run(folder, identity, tournament.RESUME_IGNORES, schema=schema, verify="none")
    read = time.perf_counter() - start
    start = time.perf_counter()
    checked = open_run(folder, identity, tournament.RESUME_IGNORES, schema=schema, verify="all")
    total = time.perf_counter() - start
    seconds = checked.verification.seconds
    decisions = sum(r["decisions"] for r in found)
    return {"env_id": env_id, "players": players, "records": len(found),
            "replayed": checked.verification.replayed, "decisions": decisions,
            "play_seconds": round(played, 2), "read_seconds": round(read, 2),
            "replay_seconds": round(seconds, 2), "resume_seconds": round(total, 2),
            "records_per_s": round(len(found) / seconds, 1),
            "decisions_per_s": round(decisions / seconds),
            "seconds_per_1000": round(1000 * total / len(found), 2),
            "load_average": round(os.getloadavg()[0], 2)}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Measure each game of ``--games`` and print (and with ``--json`` write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000,
                        help="games recorded, then verified, per game (default 2000)")
    parser.add_argument("--games", default=DEFAULT_GAMES,
                        help=f"ENV:PLAYERS,... to measure (default {DEFAULT_GAMES})")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="verify_cost_") as scratch:
        for item in args.games.split(","):
            env_id, _, players = item.partition(":")
            row = measure(env_id, int(players), args.records, Path(scratch) / item.replace(":", "_"))
            rows.append(row)
            print(f"{env_id} {row['players']}p: {row['records']} records ({row['decisions']:,} "
                  f"decisions) re-played in {row['replay_seconds']:.2f} s: "
                  f"{row['records_per_s']:,.0f} records/s, {row['decisions_per_s']:,} "
                  f"decisions/s; a resume of 1000 records costs {row['seconds_per_1000']:.2f} s "
                  f"(reading and schema checks alone: {row['read_seconds']:.2f} s for all "
                  f"{row['records']}); load {row['load_average']}", flush=True)
    if args.json:
        command = "python tools/verify_cost.py " + " ".join(shlex.quote(a) for a in
                                                            (argv if argv is not None else sys.argv[1:]))
        out = {"command": command, "commit": _commit(),
               "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
               "machine": f"{platform.machine()}, python {platform.python_version()}, "
                          f"{os.cpu_count()} cores", "games": rows}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
