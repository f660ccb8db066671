"""``otrio demo``'s "Next:" lines name the command as the user can run it: ``otrio`` where
it is on PATH (an activated venv), else the running interpreter's script, as
``.venv/bin/otrio`` from the clone that ``make demo`` runs in."""

import shlex
import shutil
import sysconfig
from pathlib import Path

import pytest

from otrio.cli import _demo_summary, build_parser


def _next_lines(capsys, output: Path) -> list[list[str]]:
    _demo_summary([], None, output)
    summary = capsys.readouterr().out
    lines = summary.split("Next:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [shlex.split(line.split("#")[0]) for line in lines]


def _which(on_path: bool, script: str):
    """``shutil.which`` with otrio on PATH or not, and ``script`` in the venv's scripts."""
    scripts = sysconfig.get_path("scripts")

    def which(name, path=None):
        if name != "otrio":
            return None
        if path == scripts:
            return script
        return script if on_path else None

    return which


@pytest.mark.parametrize("on_path", [True, False])
def test_next_lines_name_the_command_the_user_can_run(tmp_path, capsys, monkeypatch, on_path):
    clone = tmp_path / "clone"
    script = clone / ".venv" / "bin" / "otrio"
    script.parent.mkdir(parents=True)
    script.write_text("")
    monkeypatch.chdir(clone)
    monkeypatch.setattr(shutil, "which", _which(on_path, str(script)))
    commands = _next_lines(capsys, tmp_path / "demo")
    program = "otrio" if on_path else ".venv/bin/otrio"
    assert [c[0] for c in commands] == [program] * 4
    assert ["play", "oceanos", "--seats", "human,greedy"] in [c[1:] for c in commands]
    for command in commands:
        if command[1:] != ["--help"]:
            build_parser().parse_args(command[1:])  # a usage error raises


def test_from_another_folder_the_script_is_named_by_its_full_path(tmp_path, capsys, monkeypatch):
    script = tmp_path / "my venv" / "bin" / "otrio"  # a space: quoted, one word
    script.parent.mkdir(parents=True)
    script.write_text("")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setattr(shutil, "which", _which(False, str(script)))
    assert {c[0] for c in _next_lines(capsys, tmp_path / "demo")} == {str(script)}


def test_without_a_script_it_says_otrio(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    assert {c[0] for c in _next_lines(capsys, tmp_path / "demo")} == {"otrio"}
