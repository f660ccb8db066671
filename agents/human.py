"""A person at the terminal: the table is rendered and the legal moves listed by name.

Besides a move (its number in the list, or its name) the prompt takes ``help`` (what the
moves listed mean: the game's action table explains each kind of move,
:meth:`otrio.envs.core.actions.ActionTable.legend`), ``legend`` (every kind of move of the
game), ``save [FILE]`` where the agent has a :attr:`HumanAgent.saver` (``otrio play``
gives it one: the game so far is written, and play goes on) and ``quit`` (abandon the
game: :class:`QuitGame`).
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import TextIO

import numpy as np

from .base import Agent

HELP = ("help: what the moves listed mean; legend: every kind of move of this game; "
        "quit: abandon the game")
SAVE_HELP = "save [FILE]: write the game so far, to go on with otrio play --resume FILE"
QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "h", "?")
LEGEND_WORDS = ("legend",)
SAVE_WORD = "save"


class QuitGame(Exception):
    """The person at the terminal typed ``quit``: the game is abandoned."""


def legend_text(table, actions=None, width: int | None = None) -> str:
    """The legend of move names (``table.legend(actions)``) as indented, wrapped lines:
    each kind of move's name pattern, then what it means."""
    width = width or min(100, shutil.get_terminal_size((100, 24)).columns)
    rows = table.legend(actions)
    column = min(28, max((len(pattern) for pattern, _ in rows), default=0))
    lines = []
    for pattern, meaning in rows:
        head = f"  {pattern:<{column}}  "
        if len(pattern) > column:  # a long pattern gets a line of its own
            lines.append(f"  {pattern}")
            head = " " * (column + 4)
        lines.append(textwrap.fill(meaning or "(no explanation)", width=max(40, width),
                                   initial_indent=head,
                                   subsequent_indent=" " * (column + 4)))
    return "\n".join(lines)


class HumanAgent(Agent):
    """Asks for a move on standard input; a wrong entry asks again.

    ``saver``, where set, takes ``save [FILE]``: it is called with FILE (None when none
    is typed) and returns the line to show (where the game went, or why it could not)."""

    spec = "human"
    saver: Callable[[str | None], str] | None = None

    def __init__(self, env, stdin: TextIO | None = None, stdout: TextIO | None = None):
        super().__init__()
        self.env = env
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self._told = False  # the commands are named once, before the first move

    def act(self, observation: dict[str, np.ndarray]) -> int:
        game = self.env.unwrapped.game
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        out = self.stdout
        print(self.env.unwrapped.render_for_seat(), file=out)
        words = "help, legend, save, quit" if self.saver else "help, legend, quit"
        if not self._told:
            print(f"(Type a move's number or its name. {self._help()}.)", file=out)
            self._told = True
        print("Your moves:", file=out)
        for k, a in enumerate(legal):
            print(f"  {k:2d}) {game.action_name(a)}", file=out)
        names = {game.action_name(a): a for a in legal}
        while True:
            print(f"Choose a number or a move's name ({words}): ", end="", file=out, flush=True)
            line = self.stdin.readline()
            if not line:
                raise EOFError(f"input closed before {self.env.unwrapped.agent_selection} "
                               "(human) chose a move")
            entry = line.strip()
            number = _number(entry)
            if number is not None and number < len(legal):
                return legal[number]
            if entry in names:
                return names[entry]
            word = entry.lower()
            command, _, argument = entry.partition(" ")
            if command.lower() == SAVE_WORD and self.saver is not None:
                print(self.saver(argument.strip() or None), file=out)
                continue
            if word in QUIT_WORDS:
                raise QuitGame(f"{self.env.unwrapped.agent_selection} (human) quit")
            if word in HELP_WORDS:
                print("What the moves listed mean:", file=out)
                print(legend_text(game.actions, legal), file=out)
                print(self._help(), file=out)
                continue
            if word in LEGEND_WORDS:
                print(f"Every kind of move of {game.info.env_id}:", file=out)
                print(legend_text(game.actions), file=out)
                continue
            print(f"'{entry}' is not one of the moves listed; try again "
                  "(help explains them, quit ends the game).", file=out)

    def _help(self) -> str:
        """What the prompt takes besides a move."""
        return f"{HELP}; {SAVE_HELP}" if self.saver else HELP


def _number(entry: str) -> int | None:
    """The list number typed, or None: digits only ('²' is a digit to ``isdigit`` but
    no number to ``int``), no sign."""
    if not entry.isdecimal():
        return None
    try:
        return int(entry)
    except ValueError:
        return None
