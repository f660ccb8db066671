"""The full-information state of a game as one fixed float32 vector (``env.state()``).

For centralised critics (MAPPO, QMIX) and libraries that ask a PettingZoo env for
``state()`` / ``state_space``. It is never part of any seat's observation.

The vector is built from the observation machinery: every seat's own observation,
in absolute seat order (so all hands and every secret choice are in it, each in the
observation of the seat that knows it), then what the rules hide from every seat
(each game names those pieces, e.g. face-down tokens; a deck's order is left out or
summarised). Its size depends on the game only, not on the player count: seats not
in play are zeros. :attr:`FullState.layout` is an
:class:`~otrio.envs.core.observer.ObservationLayout`, so its ``markdown()`` prints the
table each game's README carries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium
import numpy as np

from .observer import ObservationLayout, Values
from .spec import GameInfo

# the pieces every game's state starts with
COMMON = ("seats", "to_act", "observations")


class FullState:
    """One game's full-state layout and writer.

    ``hidden`` are ``(name, shape, description)`` or ``(name, shape, description,
    values)`` pieces for what no seat sees (``values``: an
    :class:`~otrio.envs.core.observer.Values`, their names and range), and
    ``write_hidden(state, views)`` fills them (``views`` maps each name to its view,
    zeroed first). ``observation`` is the game's observation layout: the rows of the
    ``observations`` piece take its names and bounds.
    """

    def __init__(self, info: GameInfo, hidden: Sequence[tuple] = (),
                 write_hidden: Callable[[object, dict[str, np.ndarray]], None] | None = None,
                 observation: ObservationLayout | None = None):
        if hidden and write_hidden is None:
            raise ValueError("hidden pieces need a write_hidden function")
        self.info = info
        m, size = info.max_players, info.observation_size
        if observation is not None and observation.size != size:
            raise ValueError(f"the observation layout has {observation.size} values, "
                             f"the game {size}")
        rows = Values(None, observation.names() if observation is not None else None,
                      low=lambda config: observation.bounds(config)[0],
                      high=lambda config: observation.bounds(config)[1],
                      ) if observation is not None else Values(low=-np.inf, high=np.inf)
        self.layout = ObservationLayout([
            ("seats", (m,), "1 for each seat in play (seat order)"),
            ("to_act", (m,), "the seat to act (one-hot; all zero once the game is over)"),
            ("observations", (m, size), "row k: seat k's own observation (the observation "
             "table above, from seat k's point of view); zeros for seats not in play", rows),
            *hidden,
        ], default_config=observation.default_config if observation is not None else None)
        self.size = self.layout.size
        self.write_hidden = write_hidden
        self._hidden_names = [name for name, *_ in hidden]

    def space(self, config) -> gymnasium.spaces.Box:
        """The ``Box`` of the full state of a game with ``config``: each piece's range
        (the observation's for the seats' rows), a new space on each call."""
        low, high = self.layout.bounds(config)
        return gymnasium.spaces.Box(low, high, dtype=np.float32)

    def vector(self, game, state, scratch: np.ndarray) -> np.ndarray:
        """The full state of ``state`` as a new float32 vector (``scratch``: the reusable
        observation buffer that :meth:`~otrio.envs.core.game.Game.observation` takes)."""
        out = np.zeros(self.size, np.float32)
        views = self.layout.views(out)
        n = state.num_players
        views["seats"][:n] = 1.0
        seat = state.current_player()
        if seat >= 0:
            views["to_act"][seat] = 1.0
        rows = views["observations"]
        for s in range(n):
            rows[s] = game.observation(state, s, scratch)
        if self.write_hidden is not None:
            self.write_hidden(state, {name: views[name] for name in self._hidden_names})
        return out

    def markdown(self) -> str:
        """The layout table for a README."""
        return self.layout.markdown()


__all__ = ["COMMON", "FullState"]
