"""Every snippet of the README and of the docs' own pages (docs/*.md; not the API pages
or the pages made from other files) works as written.

- Each ```python block runs: a page's blocks in order, in one namespace, in a fresh
  folder as the current directory; a line ``expr  # 'value'`` says what ``expr`` gives.
- Each ``otrio ...`` line of a ```bash / ```sh / ```console block names a subcommand
  whose arguments the command line's parser accepts (parsed, not run); ``--help`` and
  ``--version`` lines run. A block marked ``<!-- snippet: run -->`` on the line before
  it runs its ``otrio`` lines for real, in the same folder and order as the page's
  Python blocks, so that a later block may read what it wrote. ``make TARGET`` names a
  target of the Makefile.
- A block that cannot run here (a human at the terminal, minutes of training) is
  marked ``<!-- snippet: skip (why) -->`` on the line before it: the marks are counted
  and listed against :data:`SKIPS`, so nothing is skipped silently.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from otrio.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
# page -> the reasons of its skipped blocks, in order: a new skip is added here on purpose
SKIPS = {
    "docs/libraries.md": ["trains for minutes (20,000 PPO steps); the same route runs with a "
                          "tiny budget in tests/integrations/test_examples.py"],
}
SHELLS = {"bash", "sh", "console", "shell"}
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!--\s*snippet:\s*(.*?)\s*-->")


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    mark: str  # "", "run" or "skip (why)"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> list[Block]:
    """The fenced blocks of a page, with the snippet mark on the line before each."""
    text = (ROOT / page).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.fullmatch(before.strip())
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match.group(1),
                           match.group(2), mark.group(1) if mark else ""))
    return found


def shell_commands(code: str, lang: str) -> list[list[str]]:
    """Every simple command of a shell block, as words (comments, ``&&`` and ``;`` split
    out; a console block's commands are its ``$`` lines)."""
    lines = code.replace("\\\n", " ").splitlines()
    if lang == "console":
        lines = [ln[2:] for ln in lines if ln.startswith("$ ")]
    commands = []
    for line in lines:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        command: list[str] = []
        for word in lexer:
            if word in ("&&", "||", ";", "|", "&"):
                commands.append(command)
                command = []
            else:
                command.append(word)
        commands.append(command)
    return [c for c in commands if c]


def otrio_args(command: list[str]) -> list[str] | None:
    """The arguments of an ``otrio`` command (``otrio``, ``.venv/bin/otrio``,
    ``python -m otrio``), else None."""
    if Path(command[0]).name == "otrio":
        return command[1:]
    if "python" in Path(command[0]).name and command[1:3] == ["-m", "otrio"]:
        return command[3:]
    return None


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][\w-]*):", text, re.M))


def run_otrio(args: list[str]) -> int:
    try:
        return main(args)
    except SystemExit as stop:  # --help, --version
        return stop.code or 0


def check_shell(block: Block) -> int:
    """Check (or, marked ``run``, run) a shell block's commands; how many ran for real."""
    ran = 0
    for command in shell_commands(block.code, block.lang):
        if command[0] == "make":
            targets = [w for w in command[1:] if "=" not in w and not w.startswith("-")]
            assert set(targets) <= make_targets(), f"{block.where}: {shlex.join(command)}"
            continue
        args = otrio_args(command)
        if args is None:
            continue
        if block.mark == "run" or {"--help", "-h", "--version"} & set(args):
            assert run_otrio(args) == 0, f"{block.where}: {shlex.join(command)} failed"
            ran += 1
        else:
            try:
                build_parser().parse_args(args)
            except Exception as err:  # the parser's UsageError, or argparse's own exit
                raise AssertionError(f"{block.where}: {shlex.join(command)}: {err}") from None
    return ran


@pytest.mark.parametrize("page", PAGES)
def test_every_snippet_of_the_page_works(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "__snippet__"}
    skipped = []
    found = blocks(page)
    marks = len(MARK.findall((ROOT / page).read_text(encoding="utf-8")))
    assert marks == sum(bool(b.mark) for b in found), f"{page}: a snippet mark not on " \
        "the line right before a block"
    for block in found:
        lang = block.lang.lower()
        if lang != "python" and lang not in SHELLS:
            continue
        assert block.mark in ("", "run") or block.mark.startswith("skip ("), \
            f"{block.where}: unknown mark {block.mark!r}"
        if block.mark.startswith("skip"):
            assert block.mark.endswith(")") and len(block.mark) > 8, \
                f"{block.where}: a skip says why"
            skipped.append(block.mark[len("skip ("):-1])
        elif lang == "python":
            assert block.mark == "", f"{block.where}: python blocks always run"
            exec(compile(block.code, block.where, "exec"), namespace)
            for line in block.code.splitlines():  # ``expr  # 'value'``: the comment holds
                said = re.match(r"^(\S.*?)\s+#\s+('[^']*')\s*$", line)
                if said:
                    assert repr(eval(said.group(1), namespace)) == said.group(2), \
                        f"{block.where}: {line}"
        else:
            check_shell(block)
    capsys.readouterr()
    assert skipped == SKIPS.get(page, []), (
        f"{page}: skipped blocks {skipped}, expected {SKIPS.get(page, [])} (tests/test_snippets.py)")


def test_the_runner_finds_the_snippets_and_lists_every_skip():
    """The counts, so that a page's blocks cannot fall out of the test unnoticed: every
    page has its Python blocks and ``otrio`` lines found, and the skips are few."""
    counts = {"python": 0, "otrio": 0, "run": 0, "skip": 0}
    for page in PAGES:
        for block in blocks(page):
            if block.mark.startswith("skip"):
                counts["skip"] += 1
            elif block.lang == "python":
                counts["python"] += 1
            elif block.lang in SHELLS:
                lines = [c for c in shell_commands(block.code, block.lang) if otrio_args(c)]
                counts["otrio"] += len(lines)
                counts["run"] += len(lines) if block.mark == "run" else 0
    print(counts, {p: s for p, s in SKIPS.items()})
    assert counts["skip"] == sum(len(s) for s in SKIPS.values())
    assert counts["python"] >= 9 and counts["otrio"] >= 30 and counts["run"] >= 4
    assert counts["skip"] <= 3
