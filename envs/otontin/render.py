"""Readable text picture of an Otontin table (``render_mode="ansi"``)."""

from __future__ import annotations

import re

from .campaign import DECISION_NAMES, NO_DECISION
from .data import FACE_NAMES
from .orders import NO_ORDER, order_name
from .rules import CAMPAIGN, PHASE_NAMES, UNSAID, State


def _declared(order: int) -> str:
    if order == UNSAID:
        return ""
    return "nothing" if order == NO_ORDER else order_name(order)


_SEAT = re.compile(r"\bp(\d+)\b")


def _seats_named(entry: str) -> str:
    """A war-log entry with its seats named as everywhere else (``p2`` -> ``player_2``)."""
    return _SEAT.sub(r"player_\1", entry)


def render_text(state: State, viewer: int | None = None) -> str:
    """The table: leaders, pool, dice of the turn, declarations, the last war.

    Every line is public; with ``viewer`` that seat's own secret order of the round is
    shown too, once laid (what its player may see). No other seat's secret order is
    ever shown (``render_mode="ansi"`` shows none).
    """
    final = " (final)" if state.final_round else ""
    lines = [
        f"Otontin round {state.round}{final} | Starting Leader player_{state.start} | "
        f"phase {PHASE_NAMES[state.phase]} | pool {state.pool_warriors} warriors, "
        f"{state.pool_beans} beans | target {state.config.bean_target}",
        f"{'seat':<10}{'atk':>4}{'def':>4}{'beans':>6}  {'status':<8} declared",
    ]
    for s in range(state.n):
        mark = "*" if s == state.start else " "
        status = "busted" if state.busted[s] else ("done" if state.done[s] else "")
        lines.append(
            f"{f'player_{s}{mark}':<10}{state.attack[s]:>4}{state.defence[s]:>4}{state.beans[s]:>6}  "
            f"{status:<8} {_declared(state.declared[s])}"
        )
    if viewer is not None and state.committed[viewer] != NO_ORDER:
        lines.append(f"secret order of player_{viewer}: {order_name(state.committed[viewer])}")
    if state.phase == CAMPAIGN:
        bag = ", ".join(f"{c} {k}" for c, k in zip(state.colours, state.bag))
        aside = ", ".join(f"{c} {k}" for c, k in zip(state.colours, state.aside))
        rolled = ", ".join(f"{k} {f}" for f, k in zip(FACE_NAMES, state.rolled))
        last = ", ".join(f"{state.colours[k]}:{FACE_NAMES[f]}" for k, f in state.last_roll)
        lines.append(f"campaign of player_{state.active}: bag [{bag}] priests aside [{aside}]")
        lines.append(f"  rolled this turn: {rolled}; last roll: {last}")
        if state.takers:
            takers = ", ".join(f"player_{s}" for s in state.takers)
            lines.append(f"  saboteurs: {state.theft} each to {takers}")
    if state.decision != NO_DECISION:
        lines.append(f"pending: player_{state.current_player()} "
                     f"{DECISION_NAMES[state.decision]}")
    else:
        capped = " (round cap)" if state.capped else ""
        winners = ", ".join(f"player_{s}" for s in state.winners())
        lines.append(f"game over{capped}: winners {winners}")
    if state.revealed_round:
        lines.append(f"war of round {state.revealed_round}:")
        for s, order in enumerate(state.revealed):
            lines.append(f"  player_{s}: {'busted' if order == NO_ORDER else order_name(order)}")
        lines.extend(f"  {_seats_named(entry)}" for entry in state.war_log)
    return "\n".join(lines)
