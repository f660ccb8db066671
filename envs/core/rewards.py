"""The reward rule, written once for every adapter that pays it.

The AEC env (:class:`envs.core.aec.BoardGameEnv`) and the single-agent self-play view
(:class:`training.selfplay.SelfPlayEnv`) both pay, after each transition, the score
change divided by ``info.score_scale`` when dense rewards are on, and at the end of
the game the winner rule below.
"""

from __future__ import annotations

from collections.abc import Iterable


def end_rewards(winners: Iterable[int], num_players: int) -> list[float] | None:
    """+1 for each winner and -1 for every other seat; ``None`` (nothing is paid) when
    every seat shares the victory."""
    won = set(winners)
    if len(won) >= num_players:
        return None
    return [1.0 if seat in won else -1.0 for seat in range(num_players)]


__all__ = ["end_rewards"]
