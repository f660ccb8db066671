"""Readable text picture of an Otys table (the whole table: a referee's view)."""

from __future__ import annotations

from . import data as D
from .phases import PHASE_NAMES
from .rules import State

SIDE = ("basic", "adv")


def contract_text(state: State, card: int) -> str:
    """A contract as text, e.g. ``MMP 3pp+c`` or ``#2,1 2pp``."""
    if card < 0:
        return "--"
    tables = state.tables
    needs = tables.contract_needs[card]
    if tables.contract_number[card]:
        body = "#" + ",".join(str(x) for x in needs)
    else:
        body = "".join(D.COLOUR_LETTERS[c] * k for c, k in enumerate(needs))
    bonus = "+c" * tables.contract_credits[card] + "+b" * tables.contract_batteries[card]
    return f"{body} {tables.contract_pp[card]}pp{bonus}"


def token_text(state: State, tid: int) -> str:
    """A reward token as text, e.g. ``res(MP)/2c`` (front / back)."""
    if tid < 0:
        return "--"
    tables = state.tables
    kind = D.TOKEN_KINDS[tables.token_kind[tid]]
    colours = "".join(D.COLOUR_LETTERS[c] for c in tables.token_colours[tid])
    front = f"{kind}({colours})" if colours else kind
    back = f"{D.PERMANENT_CREDITS}c" if tables.token_back[tid] == D.BACK_CREDITS else f"{D.PERMANENT_PP}pp"
    return f"{front}/{back}"


def _resources(state: State, p: int, level: int) -> str:
    r = state.resources[p][level * D.NUM_COLOURS : (level + 1) * D.NUM_COLOURS]
    text = "".join(D.COLOUR_LETTERS[c] * k for c, k in enumerate(r))
    return f"[{text:<{state.tables.capacity[level]}}]"


def _seat(state: State, p: int) -> list[str]:
    tables = state.tables
    keys = "".join(D.KEY_NAMES[k] if state.keys_home[p][k] else "." for k in range(D.NUM_OWN_KEYS))
    track = ",".join(D.KEY_NAMES[k] for k in state.hacker_track[p])
    cap = tables.hacker_capacity[state.hacker[p]]
    lines = [
        f"player_{p}{' (first)' if p == 0 else ''}: {state.pp[p]} PP, {state.credits[p]} credits, "
        f"{state.batteries[p]} batteries, keys {keys} +{state.neutral_held[p]} neutral X, "
        f"Hacker track [{track}] holds {cap}, Mechanic reach {tables.moves[state.mechanic[p]]}, "
        f"{len(state.hands[p])} private contracts",
    ]
    for slot, dtype in enumerate(state.divers[p]):
        name = D.DIVER_NAMES[dtype] + ("*" if state.upgraded[p][dtype] else "")
        if slot < D.SURFACE_SLOTS:
            lines.append(f"    surface {slot}: {name}")
        else:
            level = slot - D.SURFACE_SLOTS
            tok = state.board_tokens[p][level]
            extra = f" reward {token_text(state, tok)}" if tok >= 0 else ""
            lines.append(f"    level {level + 1}: {name:<13} {_resources(state, p, level)}{extra}")
    return lines


def render_text(state: State, viewer: int | None = None) -> str:
    """The table as text: colony, store, contracts, every board, the pending decision.

    With ``viewer`` only that seat's private contracts (and drawn cards) are shown.
    """
    tables = state.tables
    lines = [f"Otys, {state.n} players, round {state.round}"]
    for level in range(D.NUM_LEVELS):
        tile = state.sponsors[level]
        toks = ", ".join(
            token_text(state, state.display[level * D.DISPLAY_TOKENS + i])
            for i in range(D.DISPLAY_TOKENS)
        )
        lines.append(f"  level {level + 1}: sponsor #{tile + 1} {SIDE[state.advanced[tile]]:<5} | {toks}")
    store = " ".join(f"{D.COLOUR_LETTERS[c]}:{state.store[c]}/{D.STORE_ROWS}" for c in range(4))
    lines.append(f"  store {store}")
    pub = " | ".join(contract_text(state, c) for c in state.public)
    lines.append(f"  public contracts: {pub}; deck {len(state.deck)}, discard {len(state.discard)}")
    lines.append(
        f"  bag {len(state.bag)} tokens, token discard {len(state.token_discard)}, "
        f"neutral X keys {state.neutral_supply}"
    )
    for p in range(state.n):
        lines.extend(_seat(state, p))
        if state.hands[p] and viewer in (None, p):
            lines.append("    hand: " + " | ".join(contract_text(state, c) for c in state.hands[p]))
    if state.over:
        how = "round cap" if state.capped else f"{tables.end_pp} PP"
        winners = ", ".join(f"player_{s}" for s in state.winners())
        lines.append(f"game over ({how}); winners: {winners}")
    else:
        key = D.KEY_NAMES[state.key] if state.key >= 0 else "-"
        where = f", key {key} at level {state.level + 1}" if state.level >= 0 else ""
        lines.append(f"player_{state.actor} to decide: {PHASE_NAMES[state.phase]}{where}")
        if state.drawn and viewer in (None, state.actor):
            lines.append("    drawn: " + " | ".join(contract_text(state, c) for c in state.drawn))
    return "\n".join(lines)
