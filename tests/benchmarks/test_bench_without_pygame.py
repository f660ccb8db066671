"""``otrio bench`` on the core install (no pygame, which PettingZoo's connect_four_v3,
the bench's reference, imports): one line naming the extra, not a traceback."""

import sys

import pytest

from otrio.cli import main

# the modules that import pygame on the way to the reference, dropped so that they
# import again (and meet the missing pygame); monkeypatch puts them back afterwards
REIMPORTED = ("otrio.benchmarks.speed.bench", "otrio.benchmarks.speed.throughput",
              "pettingzoo.classic.connect_four_v3", "pettingzoo.classic.connect_four",
              "pettingzoo.classic.connect_four.connect_four")


def test_bench_without_pygame_names_the_extra_in_one_line(tmp_path, monkeypatch, capsys):
    for name in REIMPORTED:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "pygame", None)  # `import pygame` raises ImportError
    out_file = tmp_path / "bench.json"
    assert main(["bench", "--steps", "10", "--rounds", "1", "--json", str(out_file)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "Traceback" not in err and err.count("\n") == 0, err
    assert err.startswith("otrio") and "pygame" in err
    assert "pip install 'otrio[dev]'" in err and "pip install pygame" in err
    assert not out_file.exists() and captured.out == ""


def test_another_missing_module_is_not_blamed_on_pygame(tmp_path, monkeypatch):
    """Only pygame's absence gets the message; any other import error stays itself."""
    for name in REIMPORTED:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "otrio.benchmarks.speed.throughput", None)
    with pytest.raises(ImportError):
        main(["bench", "--steps", "10", "--rounds", "1", "--json", str(tmp_path / "b.json")])
