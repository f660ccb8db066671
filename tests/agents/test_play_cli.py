"""``otrio play``: a human at the terminal plays a whole game against an agent."""

import io

from otrio_cli import main


def test_play_a_whole_game_with_scripted_input(monkeypatch, capsys):
    # a wrong entry first, then always the first legal move
    monkeypatch.setattr("sys.stdin", io.StringIO("nonsense\n" + "0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "'nonsense' is not one of the moves listed" in out
    assert "player_1 (random):" in out and "Winner(s):" in out
