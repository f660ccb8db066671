"""The reward rule, written once for every adapter that pays it.

The AEC env (:class:`otrio.envs.core.aec.BoardGameEnv`) and the single-agent self-play view
(:class:`otrio.training.selfplay.SelfPlayEnv`) both call :func:`settle` after each transition:
it pays the score change divided by ``info.score_scale`` when dense rewards are on,
and at the end of the game the winner rule of :func:`end_rewards`, and it says whether
the game ended and how (terminated, or truncated by a configured cap or the decision cap).
"""

from __future__ import annotations

from collections.abc import Iterable

from .game import TERMINAL, GameState

TERMINATED = "terminated"  # the game ended by its rules
TRUNCATED = "truncated"  # stopped early: a configured cap (``state.capped``) or max_decisions


def end_rewards(winners: Iterable[int], num_players: int) -> list[float] | None:
    """+1 for each winner and -1 for every other seat; ``None`` (nothing is paid) when
    every seat shares the victory."""
    won = set(winners)
    if len(won) >= num_players:
        return None
    return [1.0 if seat in won else -1.0 for seat in range(num_players)]


def settle(state: GameState, last_scores: list, dense: bool, scale: float, decisions: int,
           max_decisions: int) -> tuple[list[float] | None, list, int, str | None]:
    """What the transition that led to ``state`` pays, and where the game stands.

    ``last_scores`` are the scores after the previous transition (read only with
    ``dense``); ``decisions`` counts the decisions played so far. Returns
    ``(rewards, scores, seat, end)``: ``rewards`` per seat (``None`` when nothing is
    paid), each the score change / ``scale`` plus the end reward, summed in that order;
    ``scores`` the last scores for the next call; ``seat`` the seat to act (``TERMINAL``
    once over); ``end`` ``None`` while the game goes on, else :data:`TERMINATED` or
    :data:`TRUNCATED`. A game stopped by a configured cap (e.g. Otontin's round cap) is
    a truncation for RL, though its rules still name winners and pay end rewards.
    """
    rewards = None
    if dense:
        scores = list(state.scores())
        if scores != last_scores:  # most steps score nothing: nothing to pay
            rewards = [0.0] * len(scores)
            for seat, (now, last) in enumerate(zip(scores, last_scores)):
                if now != last:
                    rewards[seat] += (now - last) / scale
        last_scores = scores
    seat = state.current_player()
    if seat != TERMINAL:
        return rewards, last_scores, seat, (TRUNCATED if decisions >= max_decisions else None)
    ends = end_rewards(state.winners(), state.num_players)
    if ends is not None:
        if rewards is None:
            rewards = [0.0 + end for end in ends]
        else:
            rewards = [paid + end for paid, end in zip(rewards, ends)]
    return rewards, last_scores, seat, (TRUNCATED if getattr(state, "capped", False)
                                        else TERMINATED)


__all__ = ["TERMINATED", "TRUNCATED", "end_rewards", "settle"]
