"""Scripted dice for table-driven Otontin tests: exact rolls instead of the generator's.

A test hook that stays in the tests: the rules draw every die from ``State.rng``, and
nothing of this is part of a state (a clone or a save rolls the generator's dice).
"""

from __future__ import annotations

from otrio.envs.otontin.data import DICE_PER_ROLL
from otrio.envs.otontin.rules import State


def script_rolls(state: State, rolls) -> None:
    """Make ``state`` roll exactly ``rolls`` next (each a list of ``(kind, face)``), in
    order, then the generator's dice again; a second call queues more. Each die must be
    in the bag when its roll is made."""
    queue = getattr(state.__dict__.get("_draw"), "queue", None)
    if queue is None:
        queue = []

        def draw() -> list[list[int]]:
            if not queue:
                return State._draw(state)
            roll, bag = queue.pop(0), state.bag
            if len(roll) != min(DICE_PER_ROLL, sum(bag)):
                raise ValueError(f"scripted roll {roll} has the wrong number of dice")
            for kind, face in roll:
                if bag[kind] <= 0 or face not in state.kinds[kind]:
                    raise ValueError(f"scripted die {kind}:{face} is not in the bag")
                bag[kind] -= 1
            return roll

        draw.queue = queue
        state._draw = draw
    queue.extend([list(die) for die in roll] for roll in rolls)
