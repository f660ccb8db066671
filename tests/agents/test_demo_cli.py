"""``otrio demo``: every game's short tournaments, resumable, and a folder left by a demo
of another config (say, a checkpoint updated since) kept, not refused or overwritten; it
says first what it will play and ends with what it showed, what to run next and, last,
where its replay is."""

import json
import shlex
from pathlib import Path

from otrio import agents
from otrio.cli import build_parser, main


def test_demo_plays_every_game_and_steps_beside_a_folder_of_another_config(tmp_path, capsys):
    assert main(["demo", "--games", "1", "--output", str(tmp_path), "--quiet"]) == 0
    folders = sorted(p.parent for p in tmp_path.glob("*/*/summary.json"))
    _check_start_and_summary(capsys.readouterr().out, tmp_path, len(folders))
    assert {f.parent.name for f in folders} == {"oceanos_v0", "otys_v0", "otontin_v0"}
    # each game's shipped PPO agent, and its distilled network where one ships, play greedy
    pretrained = Path(agents.__file__).parent / "pretrained"
    for game in ("oceanos_v0", "otys_v0", "otontin_v0"):
        names = [f.name for f in folders if f.parent.name == game]
        assert any(n.startswith("ppo_vs_greedy") for n in names)
        assert (any(n.startswith("net_vs_greedy") for n in names)
                == (pretrained / f"{game[:-3]}_net.json").exists())
        assert (any(n.startswith("value_vs_greedy") for n in names)
                == (pretrained / f"{game[:-3]}_value.json").exists())
    # pretend one folder holds a demo played with another checkpoint
    changed = tmp_path / "otontin_v0" / "ppo_vs_random"
    run_file = changed / "run.json"
    saved = json.loads(run_file.read_text())
    saved["checkpoints"] = {spec: "0" * 64 for spec in saved["checkpoints"]}
    run_file.write_text(json.dumps(saved))
    records = (changed / "games.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["demo", "--games", "1", "--output", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"{changed} holds a demo of another config" in out
    beside = [p for p in changed.parent.glob("ppo_vs_random_*") if (p / "summary.json").exists()]
    assert len(beside) == 1
    assert (changed / "games.jsonl").read_bytes() == records  # the old demo is kept as it was


def _check_start_and_summary(out: str, output: Path, tournaments: int) -> None:
    """The plan first; at the end one line per tournament, the next commands (each one
    the CLI parses), and the replay's path as the last line, printed nowhere before."""
    lines = out.rstrip("\n").splitlines()
    games = sum(json.loads(f.read_text())["games"] for f in output.glob("*/*/summary.json"))
    assert lines[0].startswith(f"otrio demo: {tournaments} short tournaments on 3 games, "
                               f"{games} games in all")
    summary = out[out.index("## What the demo showed"):]
    assert "|" not in summary  # after every leaderboard
    assert sum(line.startswith("- ") for line in summary.splitlines()) == tournaments
    assert "greedy / random" in summary and "report.md" in summary
    next_lines = summary.split("Next:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    commands = [shlex.split(line.split("#")[0])[1:] for line in next_lines]
    assert ["play", "oceanos", "--seats", "human,greedy"] in commands
    for command in commands:
        if command != ["--help"]:
            build_parser().parse_args(command)  # a usage error raises
    replay = output / "replay_oceanos_v0_game0.html"
    assert replay.is_file() and lines[-1] == f"  {replay}"
    assert out.count(str(replay)) == 1
