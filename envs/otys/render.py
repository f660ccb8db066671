"""Readable text picture of an Otys table (the whole table: a referee's view)."""

from __future__ import annotations

from . import data as D
from .effects import PHASE_NAMES
from .rules import State

SIDE = ("basic", "adv")


def contract_text(state: State, card: int) -> str:
    """A contract as text, e.g. ``MMP 3pp+c`` or ``#2,1 2pp``."""
    if card < 0:
        return "--"
    t = state.t
    needs = t.contract_needs[card]
    if t.contract_number[card]:
        body = "#" + ",".join(str(x) for x in needs)
    else:
        body = "".join(D.COLOUR_LETTERS[c] * k for c, k in enumerate(needs))
    bonus = "+c" * t.contract_credits[card] + "+b" * t.contract_batteries[card]
    return f"{body} {t.contract_pp[card]}pp{bonus}"


def token_text(state: State, tid: int) -> str:
    """A reward token as text, e.g. ``res(MP)/2c`` (front / back)."""
    if tid < 0:
        return "--"
    t = state.t
    kind = D.TOKEN_KINDS[t.token_kind[tid]]
    colours = "".join(D.COLOUR_LETTERS[c] for c in t.token_colours[tid])
    front = f"{kind}({colours})" if colours else kind
    back = f"{D.PERMANENT_CREDITS}c" if t.token_back[tid] == D.BACK_CREDITS else f"{D.PERMANENT_PP}pp"
    return f"{front}/{back}"


def _resources(state: State, p: int, li: int) -> str:
    r = state.res[p][li * D.NUM_COLOURS : (li + 1) * D.NUM_COLOURS]
    text = "".join(D.COLOUR_LETTERS[c] * k for c, k in enumerate(r))
    return f"[{text:<{state.t.capacity[li]}}]"


def _seat(state: State, p: int) -> list[str]:
    t = state.t
    keys = "".join(D.KEY_NAMES[k] if state.home[p][k] else "." for k in range(D.NUM_OWN_KEYS))
    track = ",".join(D.KEY_NAMES[k] for k in state.track[p])
    cap = t.hacker_capacity[state.hack[p]]
    lines = [
        f"player_{p}{' (first)' if p == 0 else ''}: {state.pp[p]} PP, {state.credits[p]} credits, "
        f"{state.batteries[p]} batteries, keys {keys} +{state.nx[p]} neutral X, "
        f"Hacker track [{track}] holds {cap}, Mechanic reach {t.moves[state.mech[p]]}, "
        f"{len(state.hands[p])} private contracts",
    ]
    for slot, dtype in enumerate(state.col[p]):
        name = D.DIVER_NAMES[dtype] + ("*" if state.up[p][dtype] else "")
        if slot < D.SURFACE_SLOTS:
            lines.append(f"    surface {slot}: {name}")
        else:
            li = slot - D.SURFACE_SLOTS
            tok = state.rtok[p][li]
            extra = f" reward {token_text(state, tok)}" if tok >= 0 else ""
            lines.append(f"    level {li + 1}: {name:<13} {_resources(state, p, li)}{extra}")
    return lines


def render_text(state: State, viewer: int | None = None) -> str:
    """The table as text: colony, store, contracts, every board, the pending decision.

    With ``viewer`` only that seat's private contracts (and drawn cards) are shown.
    """
    t = state.t
    lines = [f"Otys, {state.n} players, round {state.round}"]
    for li in range(D.NUM_LEVELS):
        tile = state.sponsors[li]
        toks = ", ".join(
            token_text(state, state.display[li * D.DISPLAY_TOKENS + i])
            for i in range(D.DISPLAY_TOKENS)
        )
        lines.append(f"  level {li + 1}: sponsor #{tile + 1} {SIDE[state.adv[tile]]:<5} | {toks}")
    store = " ".join(f"{D.COLOUR_LETTERS[c]}:{state.store[c]}/{D.STORE_ROWS}" for c in range(4))
    lines.append(f"  store {store}")
    pub = " | ".join(contract_text(state, c) for c in state.public)
    lines.append(f"  public contracts: {pub}; deck {len(state.deck)}, discard {len(state.discard)}")
    lines.append(
        f"  bag {len(state.bag)} tokens, token discard {len(state.tdiscard)}, "
        f"neutral X keys {state.neutral}"
    )
    for p in range(state.n):
        lines.extend(_seat(state, p))
        if state.hands[p] and viewer in (None, p):
            lines.append("    hand: " + " | ".join(contract_text(state, c) for c in state.hands[p]))
    if state.over:
        how = "round cap" if state.capped else f"{t.end_pp} PP"
        winners = ", ".join(f"player_{s}" for s in state.winners())
        lines.append(f"game over ({how}); winners: {winners}")
    else:
        key = D.KEY_NAMES[state.key] if state.key >= 0 else "-"
        where = f", key {key} at level {state.lvl + 1}" if state.lvl >= 0 else ""
        lines.append(f"player_{state.actor} to decide: {PHASE_NAMES[state.phase]}{where}")
        if state.drawn and viewer in (None, state.actor):
            lines.append("    drawn: " + " | ".join(contract_text(state, c) for c in state.drawn))
    return "\n".join(lines)
