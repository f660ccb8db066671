"""The fixed facts of a game, declared once (OpenSpiel's ``_GAME_INFO``).

The spaces, the truncation guard and the generic tests are all built from this
declaration, so a size is never stated twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError


@dataclass(frozen=True)
class GameInfo:
    """What never changes for a game, whatever its configuration."""

    name: str  # registry name without version, e.g. "oceanos"
    version: int  # env version, e.g. 0 -> "oceanos_v0"
    min_players: int
    max_players: int
    default_players: int
    num_actions: int  # size of the fixed action table
    observation_size: int  # length of the flat float32 observation
    max_decisions: int  # the most decisions any config's game may take (Game.decision_cap)
    score_scale: float = 1.0  # divides score deltas for the optional dense reward

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"

    def check_players(self, num_players: int) -> None:
        """Raise a clear error if the game cannot be played by ``num_players``."""

        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"num_players={num_players} is not allowed for {self.name}: "
                f"it plays {self.min_players} to {self.max_players} players"
            )
