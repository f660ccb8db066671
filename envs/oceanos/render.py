"""Text rendering of an Oceanos table."""

from __future__ import annotations

from .data import KRAKEN_SIZES, NUM_ROUNDS, PARTS
from .rules import POINT_KINDS, State


def render_text(state: State, viewer: int | None = None) -> str:
    """A readable picture of the table.

    With ``viewer`` only that seat's hand is shown (what its player may see), and while
    keep choices are secret the other seats' hand sizes and fuel are shown as the
    viewer sees them (``State.public_counts``: as when the choices began); without,
    the true counts and the pending decider's hand are shown too (for logs).
    """
    t = state.table
    hands, ready = list(map(len, state.hands)), list(state.fuel_ready)
    if viewer is not None and state.choosing():
        public_hands, _, public_ready, _ = state.public_counts()
        for s in range(state.num_players):
            if s != viewer:
                hands[s], ready[s] = public_hands[s], public_ready[s]
    lines = [
        f"Oceanos — {state.num_players} players, round {state.round + 1}/{NUM_ROUNDS}, "
        f"turn {min(state.turn + 1, 5)}/5"
        + (f", Captain: player_{state.captain}" if state.captain_mode else ", two-player turn"),
        "Kraken: " + ", ".join(
            f"{size} {v if (i < state.round or state.over) else '?'}"
            for i, (size, v) in enumerate(zip(KRAKEN_SIZES, state.kraken))
        ) + f"   deck {len(state.decks[state.round])}, discards {len(state.discards[state.round])}",
    ]
    for s in range(state.num_players):
        levels = " ".join(f"{p[:4]}{lv}" for p, lv in zip(PARTS, state.levels[s]))
        lines.append(
            f"player_{s}: {state.score[s]:3d} stars | {levels} | fuel {ready[s]}"
            f" (+{state.fuel_fresh[s]}) | divers {state.divers_ready[s]} | crystals "
            f"G{state.green[s]} Y{state.yellow[s]} | hand {hands[s]}"
        )
        for r in range(NUM_ROUNDS):
            row = state.rows[s][r]
            if row:
                cells = []
                for c, card in enumerate(row):
                    diver = "*" if (r, c) in state.divers[s] else ""
                    cells.append(f"[{t.label(card)}{diver}]")
                lines.append(f"    row {r + 1}: " + " ".join(cells))
    if state.over:
        lines.append("Final: " + ", ".join(
            f"player_{s} {state.score[s]} ("
            + ", ".join(f"{k} {v}" for k, v in zip(POINT_KINDS, state.points[s])) + ")"
            for s in range(state.num_players)
        ))
        lines.append("Winner(s): " + ", ".join(f"player_{s}" for s in state.winners()))
    else:
        lines.append(f"Pending: player_{state.actor} decides {state.decision.name}")
        shown = state.actor if viewer is None else viewer
        hand = state.hands[shown]
        if hand:
            lines.append(f"  hand of player_{shown}: "
                         + " ".join(f"{k}:[{t.label(c)}]" for k, c in enumerate(hand)))
    return "\n".join(lines)
