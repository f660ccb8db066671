"""``otrio play``: a human at the terminal plays a whole game against an agent; ``help``,
``legend`` and ``quit`` at the prompt, a legend of move names from each game's action
table, a line before an agent that takes seconds to load, and ``--save FILE`` writing
the game as a record that ``otrio replay FILE`` replays (issue 32, item 3); ``save`` at
the prompt and ``--resume FILE`` continue a game where it was left, as if never
stopped (issue 39, point 7)."""

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from otrio import envs
from otrio.arena.games import GameRecord
from otrio.arena.replay import replay_record
from otrio.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_play_a_whole_game_with_scripted_input(monkeypatch, capsys):
    # a wrong entry first, then always the first legal move
    monkeypatch.setattr("sys.stdin", io.StringIO("nonsense\n" + "0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "'nonsense' is not one of the moves listed" in out
    assert "player_1 (random):" in out and "Winner(s):" in out


@pytest.mark.parametrize("env_id", envs.available())
def test_every_kind_of_move_is_explained_where_the_names_are_made(env_id):
    table = envs.make(env_id).unwrapped.game.actions
    legend = table.legend()
    assert len(legend) == len(table.blocks)
    for pattern, meaning in legend:
        assert len(meaning) >= 15, pattern  # a sentence, not a placeholder
    for action in range(len(table)):  # each id's kind is the start of its name
        assert table.name(action).startswith(table.kind_of(action))


def test_the_legend_explains_otys_move_names(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("help\nlegend\nquit\n"))
    assert main(["play", "otys", "--seats", "human,greedy", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    help_part = out.split("What the moves listed mean:")[1].split("Every kind of move")[0]
    assert "xown:L<n>" in help_part and "own X key on level n" in help_part
    assert "sell:" not in help_part  # help explains the moves listed now
    legend = out.split("Every kind of move of otys_v0:")[1]
    assert "sell:<colour>:credits|pp" in legend and "M metal" in legend
    assert "player_0 (human) quit: the game is abandoned" in out


def _run_in_a_terminal(args: list[str], replies: list[tuple[str, str]], timeout: float = 60):
    """Run ``otrio ARGS`` with a pseudo-terminal as its stdin, stdout and stderr: for each
    ``(wait_for, reply)`` read until ``wait_for`` has appeared, then type ``reply``.
    Returns (exit code, everything it printed)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    proc = subprocess.Popen([sys.executable, "-m", "otrio.cli", *args], stdin=slave,
                            stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + timeout
    try:
        for wait_for, reply in replies + [(None, None)]:
            while wait_for is None or wait_for.encode() not in seen:
                assert time.monotonic() < deadline, seen.decode(errors="replace")[-2000:]
                ready, _, _ = select.select([master], [], [], 0.5)
                if ready:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:  # the child closed the terminal
                        chunk = b""
                    if not chunk:
                        break
                    seen += chunk
                elif proc.poll() is not None and wait_for is None:
                    break
            if reply is not None:
                seen = seen.replace(wait_for.encode(), b"<answered>", 1)
                os.write(master, (reply + "\n").encode())
        code = proc.wait(timeout=max(1, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, seen.decode(errors="replace").replace("\r\n", "\n")


def test_help_and_quit_at_a_real_terminal(tmp_path):
    saved = tmp_path / "never.jsonl"
    prompt = "Choose a number or a move's name (help, legend, save, quit): "
    code, out = _run_in_a_terminal(
        ["play", "oceanos", "--seats", "human,greedy", "--seed", "2", "--save", str(saved)],
        [(prompt, "help"), (prompt, "quit")])
    assert code == 0, out
    assert "What the moves listed mean:" in out
    assert "keep:slot<K>" in out and "keep card K of your hand" in out
    assert "player_0 (human) quit: the game is abandoned (nothing saved)" in out
    assert not saved.exists()


def test_a_saved_game_replays(tmp_path, monkeypatch, capsys):
    saved = tmp_path / "mygame.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,greedy", "--seed", "5",
                 "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    assert f"saved the game to {saved} (watch it: otrio replay {saved})" in out
    (line,) = saved.read_text().splitlines()
    record = json.loads(line)
    GameRecord.model_validate(record)  # the record a tournament writes
    assert record["seating"] == ["human", "greedy"] and record["seed"] == 5
    replay_record(record)  # every step legal, the recorded result reached
    assert main(["replay", str(saved)]) == 0  # no --game: the file's only game
    page = tmp_path / "mygame.html"
    assert f"{page}: {record['decisions']} decisions" in capsys.readouterr().out
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_replay_without_game_names_the_games_of_a_run(tmp_path, monkeypatch, capsys):
    lines = []
    for seed in (1, 2):
        saved = tmp_path / f"g{seed}.jsonl"
        monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 400))
        assert main(["play", "oceanos", "--seats", "human,random", "--seed", str(seed),
                     "--save", str(saved)]) == 0
        record = json.loads(saved.read_text())
        lines.append(json.dumps({**record, "game": seed}))
    records = tmp_path / "games.jsonl"  # the folder now reads as a run of two games
    records.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(tmp_path)]) == 2
    assert "holds 2 games: name one with --game K (games recorded: 1..2)" in capsys.readouterr().err
    assert main(["replay", str(records), "--game", "2"]) == 0
    assert (tmp_path / "games_game2.html").exists()


def test_a_line_before_an_agent_that_takes_seconds_to_load(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    agent = ROOT / "agents" / "pretrained" / "oceanos_ppo.json"
    assert main(["play", "oceanos", "--seats", f"human,ppo:{agent}"]) == 0
    out = capsys.readouterr().out
    before_table = out.split("Oceanos")[0]
    assert f"loading agent ppo:{agent} for player_1 ... ready (" in before_table
    assert "loading agent human" not in out


def _played(record: dict) -> dict:
    """A finished game's record less its wall time (the one field that differs run to run)."""
    return {key: value for key, value in record.items() if key != "wall_time"}


@pytest.mark.parametrize("env_id, seats, moves", [
    ("oceanos_v0", "human,random", 5),
    ("otys", "random,human,greedy", 4),  # a short name; the human moves second
    ("otontin_v0", "human,random,mcts:iterations=4", 3),
])
def test_a_game_saved_mid_way_resumes_to_the_end_it_would_have_had(
        env_id, seats, moves, tmp_path, monkeypatch, capsys):
    straight, resumed = tmp_path / "straight.jsonl", tmp_path / "resumed.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 3000))
    assert main(["play", env_id, "--seats", seats, "--seed", "7", "--save", str(straight)]) == 0
    # the same game, saved after the human's moves-th move, then abandoned
    saved = tmp_path / "game.save.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * moves + f"save {saved}\nquit\n"))
    assert main(["play", env_id, "--seats", seats, "--seed", "7", "--save", str(resumed)]) == 0
    out = capsys.readouterr().out
    assert f"to {saved}; continue it later with: otrio play --resume {saved}" in out
    assert f"the game is abandoned (the game so far is in {saved}" in out
    assert not resumed.exists()
    # resumed with its game, seats, seed and --save file: the same finished game
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 3000))
    assert main(["play", "--resume", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "replaying the" in out and "the saved game is where it was left" in out
    first, again = (json.loads(path.read_text()) for path in (straight, resumed))
    assert _played(again) == _played(first)
    assert first["seating"] == seats.split(",")


def test_a_resumed_game_saves_again_where_it_came_from(tmp_path, monkeypatch, capsys):
    saved = tmp_path / "g.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(f"0\nsave {saved}\nquit\n"))
    assert main(["play", "oceanos", "--seats", "human,greedy", "--seed", "2"]) == 0
    first = json.loads(saved.read_text())
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n0\nsave\nquit\n"))
    assert main(["play", "--resume", str(saved)]) == 0  # bare save: the file it came from
    again = json.loads(saved.read_text())
    assert len(again["replay"]["actions"]) > len(first["replay"]["actions"])
    assert again["replay"]["actions"].startswith(first["replay"]["actions"])


def test_a_save_that_fails_loses_nothing(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "a_folder"
    folder.mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO(f"0\nsave {folder}\n" + "0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"not saved: the save file {folder} is a folder, not a file; the game goes on" in out
    assert "Winner(s):" in out  # the game went on to its end


def test_only_otrio_play_offers_save(monkeypatch):
    from otrio.agents.human import HumanAgent

    env = envs.make("oceanos_v0")
    env.reset(seed=0)
    out = io.StringIO()
    human = HumanAgent(env, stdin=io.StringIO("save\n0\n"), stdout=out)
    human.act(env.last()[0])
    assert "'save' is not one of the moves listed" in out.getvalue()
    assert "(help, legend, quit)" in out.getvalue()
