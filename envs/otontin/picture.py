"""The Otontin table as a picture (``Game.picture``): drawn only on request.

The leaders sit in a ring (seat 0 at the bottom, each left neighbour ``s+1`` clockwise,
as at a table seen from above), each with its Attack and Defence warriors, beans,
declaration and order; the last war's revealed orders are marked on the borders
(spear, shield or hand facing each neighbour). The middle shows the campaign turn: the
bag, priests set aside, the faces rolled so far and the dice of the last roll. The
right column holds the round, phase, pool, standings, the last war's log and a legend.
With a ``viewer`` another leader's committed order is only a face-down card until the
war reveals it (its observation shows only that the order is laid).
"""

from __future__ import annotations

import math

from otrio.envs.core.picture import Picture

from .campaign import (
    CHOOSE_PRIORITY,
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECLARE_ORDER,
    NO_DECISION,
    ROLL_OR_STOP,
)
from .data import (
    BEAN,
    BUST_SABOTEURS,
    CARD_NAMES,
    HAND,
    OFFER_NAMES,
    PRIEST,
    SABOTEUR,
    SHIELD,
    SPEAR,
    WARRIOR,
)
from .orders import NO_ORDER, ORDERS, order_name
from .rules import CAMPAIGN, COMMIT_PHASE, PHASE_NAMES, TALK, UNSAID, State

WIDTH, HEIGHT = 1250, 880
RING_CX, RING_CY = 468, 440
BOX_W, BOX_H = 204, 140
PANEL_X = 950
SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#e08a00", "#17becf", "#8c564b",
                "#e377c2")
DIE_COLOURS = {"green": "#3a9d4a", "yellow": "#e3b91f", "red": "#cf3b32", "blue": "#2f6db5",
               "black": "#333333", "white": "#f4f4f4", "purple": "#7b4aa0", "orange": "#e07b1a"}
OTHER_DIE_COLOURS = ("#6c7a89", "#a0522d", "#2e8b57", "#8b008b")
INK, MUTED, PAPER = "#26221c", "#6b6257", "#fbf6ea"
WARRIOR_C, BEAN_C, PRIEST_C = "#b5452b", "#6b3b1f", "#6d3fa0"
CARD_COLOURS = {SPEAR: "#c0392b", SHIELD: "#2f6db5", HAND: "#2e8b57"}
CARD_LETTERS = {SPEAR: "Sp", SHIELD: "Sh", HAND: "H"}
OFFER_SHORT = {0: "truce", 1: "join atk", 2: "join def", 3: "pay 1", 4: "pay 2"}
OFFER_MARK = {0: "T", 1: "JA", 2: "JD", 3: "$1", 4: "$2"}
DECISION_WORDS = {
    ROLL_OR_STOP: "rolls again or stops", CHOOSE_PRIORITY: "orders the saboteur takers",
    CHOOSE_STEAL: "takes warriors (saboteurs)", DECLARE_ORDER: "declares (talk)",
    COMMIT_ORDER: "lays a secret order",
}


def draw_picture(state: State, viewer: int | None = None) -> Picture:
    """The table; with ``viewer``, only what that seat's player may know."""
    pic = Picture(WIDTH, HEIGHT, background="#efe6d2")
    pic.rounded_rect(10, 10, PANEL_X - 20, HEIGHT - 20, radius=14, fill="#e4d6b8",
                     stroke="#b9a57e")
    n = state.n
    radii = (338, 322) if n >= 6 else (300, 290)
    centres = [_seat_centre(s, n, *radii) for s in range(n)]
    for s in range(n):  # the ring's borders
        (x1, y1), (x2, y2) = centres[s], centres[(s + 1) % n]
        pic.line(x1, y1, x2, y2, stroke="#a08a62", stroke_width=3)
    acting = state.current_player() if state.decision != NO_DECISION else None
    for s in range(n):
        _leader(pic, state, s, viewer, centres[s], acting)
    if state.revealed_round:
        for s in range(n):
            _border_marks(pic, state, s, centres)
    _middle(pic, state)
    _panel(pic, state, viewer, acting)
    return pic


def _seat_centre(s: int, n: int, rx: float, ry: float) -> tuple[float, float]:
    """Seat 0 at the bottom, the left neighbour clockwise, on an ellipse."""
    a = 2 * math.pi * s / n
    return RING_CX - rx * math.sin(a), RING_CY + ry * math.cos(a)


def _leader(pic: Picture, state: State, s: int, viewer: int | None,
            centre: tuple[float, float], acting: int | None) -> None:
    """One leader's box: name and marks, warriors, beans, declaration and order."""
    cx, cy = centre
    x, y = cx - BOX_W / 2, cy - BOX_H / 2
    colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
    busted = state.busted[s]
    pic.rounded_rect(x, y, BOX_W, BOX_H, radius=9,
                     fill="#fff3c4" if s == acting else ("#ddd6cb" if busted else PAPER),
                     stroke="#8a1c1c" if s == acting else colour,
                     stroke_width=3.5 if s == acting else 2)
    pic.rounded_rect(x, y, BOX_W, 20, radius=9, fill=colour)
    pic.rect(x, y + 10, BOX_W, 10, fill=colour)
    name = f"player_{s}" + (" (you)" if viewer == s else "")
    pic.text(x + 8, y + 15, name, size=12, bold=True, fill="#ffffff")
    if s == state.start:
        _star(pic, x + BOX_W - 12, y + 10, 7, "#ffd54a",
              title=f"Starting Leader of round {state.round}")
    marks = []
    if busted:
        marks.append("BUSTED")
    elif state.phase == CAMPAIGN and s == state.active:
        marks.append("campaigning")
    elif state.done[s] and state.phase == CAMPAIGN:
        marks.append("campaign done")
    if marks:
        pic.text(x + 8, y + 82, " ".join(marks), size=10, bold=True,
                 fill="#8a1c1c" if busted else MUTED)
    # warriors and beans
    _spear(pic, x + 14, y + 36)
    pic.text(x + 26, y + 41, f"attack {state.attack[s]}", size=12, fill=INK, bold=True,
             title=f"warriors on player_{s}'s Attack card")
    _shield(pic, x + 100, y + 36)
    pic.text(x + 112, y + 41, f"def {state.defence[s]}", size=12, fill=INK, bold=True,
             title=f"warriors on player_{s}'s Defence card")
    _bean(pic, x + 14, y + 58)
    target = state.config.bean_target
    pic.text(x + 26, y + 63, _plural(state.beans[s], "bean"), size=12, fill=INK, bold=True)
    bar_w = BOX_W - 104
    pic.rect(x + 96, y + 54, bar_w, 8, radius=3, fill="#ffffff", stroke="#9c8a6a")
    filled = min(1.0, state.beans[s] / target) * bar_w
    if filled > 0:
        pic.rect(x + 96, y + 54, filled, 8, radius=3, fill=BEAN_C,
                 title=f"{state.beans[s]} of the bean target {target}")
    # talk and order
    said = state.declared[s]
    if said == UNSAID:
        talk = "" if busted or state.phase not in (TALK, COMMIT_PHASE) else "has not spoken"
    else:
        talk = "said: nothing" if said == NO_ORDER else "said: " + _short(said)
    if talk:
        pic.text(x + 8, y + 98, talk, size=10, fill=INK,
                 title=None if said in (UNSAID, NO_ORDER) else order_name(said))
    order = state.committed[s]
    if order != NO_ORDER:
        if viewer is None or viewer == s:
            pic.text(x + 8, y + 115, "order: " + _short(order), size=10, fill="#8a1c1c",
                     bold=True, title="secret order (" + order_name(order) + ")")
        else:
            pic.rect(x + 8, y + 104, 14, 16, radius=2, fill="#4a3422", stroke="#21150c",
                     title="a secret order, face down until the war")
            pic.text(x + 28, y + 116, "order laid (secret)", size=10, fill=MUTED)
    if state.revealed_round:
        last = state.revealed[s]
        text = "no order (busted)" if last == NO_ORDER else _short(last)
        pic.text(x + 8, y + 133, f"war {state.revealed_round}: {text}", size=9, fill=MUTED,
                 title=None if last == NO_ORDER else order_name(last))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _short(order: int) -> str:
    """``L spear | R hand pay 1`` style name of an order."""
    left_card, left_offer, right_card, right_offer = ORDERS[order]
    left = CARD_NAMES[left_card] + (f" {OFFER_SHORT[left_offer]}" if left_card == HAND else "")
    right = CARD_NAMES[right_card] + (f" {OFFER_SHORT[right_offer]}" if right_card == HAND else "")
    return f"L {left} | R {right}"


def _border_marks(pic: Picture, state: State, s: int, centres: list) -> None:
    """The last war's cards of leader ``s`` facing each neighbour, on the borders."""
    order = state.revealed[s]
    if order == NO_ORDER:
        return
    left_card, left_offer, right_card, right_offer = ORDERS[order]
    n = state.n
    for card, offer, neighbour in ((left_card, left_offer, (s + 1) % n),
                                   (right_card, right_offer, (s - 1) % n)):
        (x1, y1), (x2, y2) = centres[s], centres[neighbour]
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        # leave the box: the distance along the ray to the box edge, then a little more
        t = min(BOX_W / 2 / abs(ux) if ux else 1e9, BOX_H / 2 / abs(uy) if uy else 1e9)
        mx, my = x1 + ux * (t + 3), y1 + uy * (t + 3)
        side = "left" if neighbour == (s + 1) % n else "right"
        tip = (f"war {state.revealed_round}: player_{s}'s {side} card toward player_{neighbour}:"
               f" {CARD_NAMES[card]}" + (f" ({OFFER_NAMES[offer]})" if card == HAND else ""))
        if card == SPEAR:
            head = [(mx + ux * 12, my + uy * 12), (mx - uy * 8, my + ux * 8),
                    (mx + uy * 8, my - ux * 8)]
            pic.polygon(head, fill=CARD_COLOURS[SPEAR], stroke="#5a120c", title=tip)
        else:
            pic.circle(mx, my, 10, fill=CARD_COLOURS[card], stroke="#ffffff", stroke_width=1.5,
                       title=tip)
            label = "Sh" if card == SHIELD else OFFER_MARK[offer]
            pic.text(mx, my + 3.5, label, size=9, fill="#ffffff",
                     anchor="middle", bold=True, title=tip)


def _middle(pic: Picture, state: State) -> None:
    """The campaign in the ring's middle: bag, priests aside, faces rolled, last roll."""
    w, h = 300, 200
    x, y = RING_CX - w / 2, RING_CY - h / 2
    pic.rounded_rect(x, y, w, h, radius=10, fill=PAPER, stroke="#9c8a6a", stroke_width=1.5)
    if state.phase != CAMPAIGN:
        head = {TALK: "Strategy: talk (declarations)", COMMIT_PHASE: "Strategy: secret orders"}
        pic.text(RING_CX, y + 26, head.get(state.phase, "Game over"), size=15, bold=True,
                 fill=INK, anchor="middle")
        if state.phase == 3:
            capped = " (round cap)" if state.capped else ""
            pic.text(RING_CX, y + 56, f"game over{capped}", size=13, fill=INK, anchor="middle")
            pic.text(RING_CX, y + 80, "won: " + ", ".join(f"player_{s}" for s in
                                                          state.winners()),
                     size=13, bold=True, fill="#8a1c1c", anchor="middle")
        else:
            laid = sum(order != NO_ORDER for order in state.committed)
            pic.text(RING_CX, y + 56, f"leaders in the strategy: {len(state.actives)}",
                     size=12, fill=INK, anchor="middle")
            pic.text(RING_CX, y + 76, f"orders laid: {laid}", size=12, fill=INK,
                     anchor="middle")
        return
    pic.text(RING_CX, y + 22, f"Campaign of player_{state.active}", size=15, bold=True,
             fill=INK, anchor="middle")
    pic.text(x + 12, y + 46, "bag:", size=11, fill=MUTED)
    bx = x + 46
    for k, colour in enumerate(state.colours):
        _die(pic, bx, y + 33, 16, _die_colour(k, colour), None,
             f"{colour} dice: {state.bag[k]} in the bag, {state.aside[k]} priests aside")
        pic.text(bx + 20, y + 46, f"{state.bag[k]}", size=11, fill=INK, bold=True)
        pic.text(bx + 34, y + 46, f"+{state.aside[k]}P" if state.aside[k] else "", size=10,
                 fill=PRIEST_C)
        bx += 72
    pic.text(x + 12, y + 70, "rolled this turn:", size=11, fill=MUTED)
    fx = x + 110
    for face, count in enumerate(state.rolled):
        _face(pic, fx, y + 66, face, 6)
        pic.text(fx + 9, y + 70, str(count), size=11, fill=INK, bold=True)
        fx += 44
    sab = state.rolled[SABOTEUR]
    pic.text(x + 12, y + 90, f"saboteurs {sab} of {BUST_SABOTEURS} (bust)", size=10,
             fill="#8a1c1c" if sab >= BUST_SABOTEURS - 1 else MUTED)
    warriors, beans = state.payable()
    pic.text(x + w - 12, y + 90, f"stop now: +{warriors} w, +{beans} beans", size=10,
             fill=INK, anchor="end", title="what stopping now would collect from the pool")
    pic.text(x + 12, y + 116, "last roll:", size=11, fill=MUTED)
    dx = x + 80
    for kind, face in state.last_roll:
        colour = state.colours[kind]
        _die(pic, dx, y + 100, 34, _die_colour(kind, colour), face,
             f"{colour} die: {('warrior', 'bean', 'priest', 'saboteur')[face]}")
        dx += 44
    if state.takers:
        takers = ", ".join(f"player_{t}" for t in state.takers)
        pic.text(RING_CX, y + 160, f"saboteurs: {_plural(state.theft, 'warrior')} each to {takers}",
                 size=11, fill="#8a1c1c", anchor="middle", bold=True)
    if state.busted[state.active]:
        pic.text(RING_CX, y + 182, "busted!", size=12, fill="#8a1c1c", anchor="middle",
                 bold=True)


def _panel(pic: Picture, state: State, viewer: int | None, acting: int | None) -> None:
    """Right column: round, phase, pool, pending decision, standings, war log, legend."""
    x = PANEL_X
    pic.text(x, 40, "Otontin", size=24, bold=True, fill="#5a2d0c")
    final = " (final round)" if state.final_round else ""
    pic.text(x, 64, f"round {state.round}{final} · {PHASE_NAMES[state.phase]}", size=13,
             fill=INK)
    pic.text(x, 82, f"Starting Leader: player_{state.start}", size=12, fill=INK)
    pic.text(x, 100, f"pool: {state.pool_warriors} warriors, {state.pool_beans} beans", size=12, fill=INK)
    pic.text(x, 118, f"bean target {state.config.bean_target} · round cap "
             f"{state.config.round_cap}", size=11, fill=MUTED)
    pic.text(x, 136, "whole table" if viewer is None else f"as player_{viewer} sees it",
             size=11, fill=MUTED)
    if acting is not None:
        pic.text(x, 160, f"to act: player_{acting}", size=13, bold=True, fill="#8a1c1c")
        pic.text(x, 177, DECISION_WORDS.get(state.decision, ""), size=12, fill="#8a1c1c")
    y = 206
    pic.text(x, y, "Standings (beans, then warriors)", size=12, bold=True, fill=INK)
    ranked = sorted(range(state.n), key=lambda s: (-state.beans[s], -state.army(s), s))
    for i, s in enumerate(ranked):
        ly = y + 18 + i * 16
        pic.rect(x, ly - 10, 10, 10, fill=SEAT_COLOURS[s % len(SEAT_COLOURS)])
        pic.text(x + 16, ly, f"player_{s}", size=11, fill=INK)
        pic.text(x + 150, ly, f"{state.beans[s]}", size=11, fill=INK, anchor="end", bold=True)
        pic.text(x + 200, ly, f"{state.army(s)} w", size=11, fill=MUTED, anchor="end")
    y += 30 + 16 * state.n
    if state.revealed_round:
        pic.text(x, y, f"War of round {state.revealed_round}", size=12, bold=True, fill=INK)
        lines = [_named(entry) for entry in state.war_log] or ["no battle"]
        shown = lines[:14]
        for i, line in enumerate(shown):
            pic.text(x, y + 16 + i * 14, line[:44], size=10, fill=INK, title=line)
        if len(lines) > len(shown):
            pic.text(x, y + 16 + len(shown) * 14, f"... {len(lines) - len(shown)} more",
                     size=10, fill=MUTED, title="\n".join(lines[len(shown):]))
        y += 30 + 14 * min(len(lines), 15)
    _legend(pic, x, max(y, HEIGHT - 224))


def _named(entry: str) -> str:
    """A war-log entry with ``pK`` written as ``player_K``."""
    words = [("player_" + w[1:]) if w[:1] == "p" and w[1:].isdigit() else w
             for w in entry.split(" ")]
    return " ".join(words)


def _legend(pic: Picture, x: float, y: float) -> None:
    pic.rounded_rect(x - 8, y, WIDTH - x - 4, 212, radius=8, fill=PAPER, stroke="#b9a57e")
    pic.text(x, y + 18, "Legend", size=12, bold=True, fill=INK)
    rows = [
        (lambda cx, cy: _spear(pic, cx, cy), "attack warriors"),
        (lambda cx, cy: _shield(pic, cx, cy), "defence warriors"),
        (lambda cx, cy: _bean(pic, cx, cy), "beans (bar: target)"),
        (lambda cx, cy: _star(pic, cx, cy, 7, "#ffd54a"), "Starting Leader"),
        (lambda cx, cy: _face(pic, cx, cy, WARRIOR, 6), "die: warrior"),
        (lambda cx, cy: _face(pic, cx, cy, BEAN, 6), "die: bean"),
        (lambda cx, cy: _face(pic, cx, cy, PRIEST, 6), "die: priest (aside)"),
        (lambda cx, cy: _face(pic, cx, cy, SABOTEUR, 5), f"saboteur ({BUST_SABOTEURS}: bust)"),
    ]
    for i, (icon, label) in enumerate(rows):
        lx, ly = x + (i // 4) * 148, y + 40 + (i % 4) * 20
        icon(lx + 8, ly - 4)
        pic.text(lx + 20, ly, label, size=10, fill=INK)
    ly = y + 130
    pic.polygon([(x + 16, ly - 4), (x + 4, ly - 10), (x + 4, ly + 2)], fill=CARD_COLOURS[SPEAR])
    pic.text(x + 20, ly, "spear: attacks that neighbour", size=10, fill=INK)
    pic.circle(x + 9, ly + 16, 7, fill=CARD_COLOURS[SHIELD])
    pic.text(x + 20, ly + 20, "shield faces that neighbour", size=10, fill=INK)
    pic.circle(x + 9, ly + 36, 7, fill=CARD_COLOURS[HAND])
    pic.text(x + 20, ly + 40, "hand: T truce, JA/JD join attack/defence,", size=10,
             fill=INK)
    pic.text(x + 20, ly + 54, "$1/$2 pay 1/2 beans", size=10, fill=INK)
    pic.text(x, ly + 72, "marks on the borders: the last war's orders", size=9, fill=MUTED)


def _die_colour(kind: int, name: str) -> str:
    return DIE_COLOURS.get(name.lower(), OTHER_DIE_COLOURS[kind % len(OTHER_DIE_COLOURS)])


def _die(pic: Picture, x: float, y: float, size: float, colour: str, face: int | None,
         title: str) -> None:
    """A die of ``colour``; with ``face``, that face drawn on it."""
    pic.rounded_rect(x, y, size, size, radius=size / 6, fill=colour, stroke="#2b2b2b",
                     title=title)
    if face is not None:
        pic.circle(x + size / 2, y + size / 2, size * 0.36, fill="#fffaf0")
        _face(pic, x + size / 2, y + size / 2, face, size * 0.22)


def _face(pic: Picture, cx: float, cy: float, face: int, r: float) -> None:
    """A die face symbol of radius about ``r`` centred on (cx, cy)."""
    if face == WARRIOR:
        pic.circle(cx, cy - r * 0.55, r * 0.45, fill=WARRIOR_C)
        pic.polygon([(cx - r * 0.8, cy + r), (cx, cy - r * 0.1), (cx + r * 0.8, cy + r)],
                    fill=WARRIOR_C)
    elif face == BEAN:
        _bean(pic, cx, cy, r)
    elif face == PRIEST:
        pic.polygon([(cx, cy - r), (cx + r * 0.8, cy + r), (cx - r * 0.8, cy + r)],
                    fill=PRIEST_C)
        pic.circle(cx, cy - r * 0.2, r * 0.3, fill="#f2d7a6")
    else:
        pic.line(cx - r, cy - r, cx + r, cy + r, stroke="#1a1a1a", stroke_width=max(2, r / 2))
        pic.line(cx - r, cy + r, cx + r, cy - r, stroke="#1a1a1a", stroke_width=max(2, r / 2))


def _bean(pic: Picture, cx: float, cy: float, r: float = 6) -> None:
    pic.polygon([(cx - r, cy), (cx - r * 0.6, cy - r * 0.75), (cx + r * 0.6, cy - r * 0.75),
                 (cx + r, cy), (cx + r * 0.6, cy + r * 0.75), (cx - r * 0.6, cy + r * 0.75)],
                fill=BEAN_C)
    pic.line(cx - r * 0.5, cy, cx + r * 0.5, cy, stroke="#c89b6d", stroke_width=1)


def _spear(pic: Picture, cx: float, cy: float) -> None:
    pic.line(cx - 7, cy + 7, cx + 5, cy - 5, stroke="#5a3a1a", stroke_width=2)
    pic.polygon([(cx + 8, cy - 8), (cx + 1, cy - 6), (cx + 6, cy - 1)], fill=CARD_COLOURS[SPEAR])


def _shield(pic: Picture, cx: float, cy: float) -> None:
    pic.polygon([(cx - 7, cy - 7), (cx + 7, cy - 7), (cx + 7, cy + 1), (cx, cy + 8),
                 (cx - 7, cy + 1)], fill=CARD_COLOURS[SHIELD], stroke="#1b3f6b")


def _star(pic: Picture, cx: float, cy: float, r: float, fill: str,
          title: str | None = None) -> None:
    points = []
    for i in range(10):
        a = math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        points.append((cx + rr * math.cos(a), cy - rr * math.sin(a)))
    pic.polygon(points, fill=fill, stroke="#7a5b00", title=title)
