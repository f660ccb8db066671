"""A person at the terminal: the table is rendered and the legal moves listed by name."""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from .base import Agent


class HumanAgent(Agent):
    """Asks for a move on standard input; a wrong entry asks again."""

    spec = "human"

    def __init__(self, env, stdin: TextIO | None = None, stdout: TextIO | None = None):
        super().__init__()
        self.env = env
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def act(self, observation: dict[str, np.ndarray]) -> int:
        game = self.env.unwrapped.game
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        out = self.stdout
        print(self.env.unwrapped.render_for_seat(), file=out)
        print("Your moves:", file=out)
        for k, a in enumerate(legal):
            print(f"  {k:2d}) {game.action_name(a)}", file=out)
        while True:
            print("Choose a number (or an action name): ", end="", file=out, flush=True)
            line = self.stdin.readline()
            if not line:
                raise EOFError(f"input closed before {self.env.unwrapped.agent_selection} "
                               "(human) chose a move")
            entry = line.strip()
            number = _number(entry)
            if number is not None and number < len(legal):
                return legal[number]
            names = {game.action_name(a): a for a in legal}
            if entry in names:
                return names[entry]
            print(f"'{entry}' is not one of the moves listed; try again.", file=out)


def _number(entry: str) -> int | None:
    """The list number typed, or None: digits only ('²' is a digit to ``isdigit`` but
    no number to ``int``), no sign."""
    if not entry.isdecimal():
        return None
    try:
        return int(entry)
    except ValueError:
        return None
