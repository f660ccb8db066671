"""The Oceanos table as a picture (``Game.picture``): drawn only on request.

One band per seat: its stars, submarine part levels, tokens and crystals on the left,
its three rows of cards (the tableau, one row per round, so that coral groups and
diver columns read as on the table) in the middle, and its hand, face-down keeps and
the cards it handed on at the right. With a ``viewer`` the picture keeps to that
seat's observation: other hands and keeps are card backs in their public numbers
(during keep choices every other seat as it stood when the choices began), and a
Kraken token is shown only once its round is scored.
"""

from __future__ import annotations

from otrio.envs.core.picture import Picture

from .cards_table import CardTable
from .data import (
    AIRLOCK_DIVERS,
    ANIMALS,
    AQUARIUM_CAPACITY,
    COCKPIT_PERISCOPES,
    GREEN,
    KRAKEN_SIZES,
    MOTOR_FUEL,
    NUM_ROUNDS,
    PARTS,
    PROPELLER_STARS,
    TURNS_PER_ROUND,
)
from .rules import POINT_KINDS, Decision, State

WIDTH = 1100
CARD_W, CARD_H, GAP = 50, 54, 4
GRID_X = 292
HAND_X = GRID_X + 8 * (CARD_W + GAP) + 18
HAND_PER_LINE = (WIDTH - HAND_X - 54) // (CARD_W + GAP)
HEADER_H = 78
LEGEND_H = 96

ANIMAL_COLOURS = {
    "crab": "#d9483b", "turtle": "#4f9a48", "seahorse": "#d4a017", "goldfish": "#ef8a2a",
    "shark": "#6b6e73", "whale": "#3f6fa8", "dolphin": "#3aa3a0", "octopus": "#9a5fa0",
}
ANIMAL_TINTS = {
    "crab": "#f8dcd8", "turtle": "#dcefd9", "seahorse": "#f6ecc9", "goldfish": "#fbe3cc",
    "shark": "#e3e4e6", "whale": "#d9e4f2", "dolphin": "#d5eeed", "octopus": "#eddcee",
}
SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#e08a00")
SAND, INK, MUTED = "#f3eedf", "#1d2733", "#5b6672"
CORAL, CHEST, GOLD = "#f07890", "#8b5a2b", "#e8c547"
CRYSTAL = {GREEN: "#34b86a", 2: "#f2cf1d"}
BACK, BACK_LINE = "#27476e", "#6d8fb8"
HIGHLIGHT = "#fff3c4"
PART_SHORT = ("prop", "motor", "cockpit", "aqua", "airlock")
PART_VALUES = (
    ("stars/round", PROPELLER_STARS), ("fuel", MOTOR_FUEL), ("periscopes", COCKPIT_PERISCOPES),
    ("animals", AQUARIUM_CAPACITY), ("divers", AIRLOCK_DIVERS),
)
DECISION_WORDS = {
    Decision.KEEP: "keeps a card", Decision.KEEP_MORE: "keeps another card (fuel) or stops",
    Decision.DIVER: "may put a diver on the chest", Decision.UPGRADE: "may upgrade a part",
    Decision.AID_UPGRADE: "may upgrade with the Player Aid",
    Decision.DISCARD: "may put a card under the deck",
}


def draw_picture(state: State, viewer: int | None = None) -> Picture:
    """The table; with ``viewer``, only what that seat's player may know."""
    t = state.table
    n = state.num_players
    if viewer is None:
        hands = [len(h) for h in state.hands]
        kept = [len(k) for k in state.kept]
        ready, used = list(state.fuel_ready), list(state.fuel_used)
    else:
        hands, kept, ready, used = state.public_counts()
        own = viewer
        hands[own], kept[own] = len(state.hands[own]), len(state.kept[own])
        ready[own], used[own] = state.fuel_ready[own], state.fuel_used[own]
    bands = [_band_lines(state, s, viewer, hands, kept) for s in range(n)]
    heights = [26 + max(NUM_ROUNDS, lines) * (CARD_H + GAP) + 8 for lines in bands]
    height = HEADER_H + sum(heights) + 6 * n + LEGEND_H
    pic = Picture(WIDTH, height, background="#eaf3f8")
    _header(pic, state, viewer)
    y = HEADER_H
    for s in range(n):
        _seat(pic, state, t, s, viewer, y, heights[s], hands[s], kept[s], ready[s], used[s])
        y += heights[s] + 6
    _legend(pic, y + 4)
    return pic


def _band_lines(state: State, s: int, viewer: int | None, hands: list[int],
                kept: list[int]) -> int:
    """How many card lines the right-hand area of seat ``s`` needs."""
    per = HAND_PER_LINE
    lines = -(-hands[s] // per) + -(-kept[s] // per)
    if viewer is not None and s == viewer:
        lines += -(-len(state.passed[s]) // per)
    return lines


def _header(pic: Picture, state: State, viewer: int | None) -> None:
    """Title, round, turn, Captain, Kraken tokens, deck and bag, and who acts."""
    turn = min(state.turn + 1, TURNS_PER_ROUND)
    mode = (f"Captain: player_{state.captain}" if state.captain_mode else "two-player turn")
    view = "whole table" if viewer is None else f"as player_{viewer} sees it"
    pic.text(14, 26, "Oceanos", size=22, bold=True, fill="#0b3d5c")
    pic.text(134, 26, f"round {state.round + 1}/{NUM_ROUNDS} · turn {turn}/{TURNS_PER_ROUND}"
             f" · {mode} · {view}", size=15, fill=INK)
    x = 14
    pic.text(x, 56, "Kraken:", size=13, fill=INK, bold=True)
    x += 62
    known_all = state.over or state.config.kraken.mode == "fixed"
    for size, (name, value) in enumerate(zip(KRAKEN_SIZES, state.kraken)):
        known = known_all or size < state.round
        r = 9 + 2 * size
        # face down: "?" for a seat; the whole table shows its value on a grey token
        shown = str(value) if known or viewer is None else "?"
        pic.circle(x + r, 51, r, fill="#7a2e3b" if known else "#8e8e99", stroke=INK,
                   title=f"{name} Kraken token (round {size + 1}): {shown}"
                         + ("" if known else ", face down until its round is scored"))
        pic.text(x + r, 55, shown, size=11, fill="#ffffff", anchor="middle", bold=True)
        pic.text(x + 2 * r + 4, 56, name, size=11, fill=MUTED)
        x += 2 * r + 60
    rnd = state.round
    pic.text(x + 10, 56, f"deck {len(state.decks[rnd])} · discards {len(state.discards[rnd])} "
             f"· treasure bag {len(state.bag)}", size=13, fill=INK)
    pending = _pending_text(state, viewer)
    pic.text(WIDTH - 14, 56, pending, size=13, fill="#8a1c1c", anchor="end", bold=True)
    discards = state.discards[rnd]
    if discards:
        pic.text(WIDTH - 14, 26, f"face-up discards: {len(discards)}", size=11, fill=MUTED,
                 anchor="end", title="; ".join(state.table.label(c) for c in discards))


def _pending_text(state: State, viewer: int | None) -> str:
    if state.over:
        return "game over: " + ", ".join(f"player_{s}" for s in state.winners()) + " won"
    decision = state.decision
    if decision == Decision.KEEP_MORE and viewer is not None and state.actor != viewer:
        decision = Decision.KEEP  # how many cards another player keeps is secret
    return f"to act: player_{state.actor} {DECISION_WORDS[Decision(decision)]}"


def _seat(pic: Picture, state: State, t: CardTable, s: int, viewer: int | None, y: float,
          height: float, hand_count: int, kept_count: int, ready: int, used: int) -> None:
    """One seat's band: facts, submarine, tableau and hand."""
    acting = not state.over and state.actor == s
    colour = SEAT_COLOURS[s % len(SEAT_COLOURS)]
    pic.rounded_rect(6, y, WIDTH - 12, height, radius=8, fill=HIGHLIGHT if acting else "#ffffff",
                     stroke=colour, stroke_width=3 if acting else 1.5)
    name = f"player_{s}" + (" (you)" if viewer == s else "")
    pic.text(16, y + 19, name, size=14, bold=True, fill=colour)
    tags = []
    if state.captain_mode and state.captain == s and not state.over:
        tags.append("Captain")
    if acting:
        tags.append("to act")
    if tags:
        pic.text(24 + 8.6 * len(name), y + 19, " · ".join(tags), size=12, fill="#8a1c1c", bold=True)
    pic.text(GRID_X - 14, y + 19, f"{state.score[s]} ★", size=16, bold=True, fill="#b8860b",
             anchor="end", title=f"player_{s}: {state.score[s]} stars")
    _submarine(pic, state.levels[s], 16, y + 30)
    tokens = (f"fuel {ready} ready" + (f" +{state.fuel_fresh[s]} next turn"
                                       if state.fuel_fresh[s] else "") + f", {used} spent")
    pic.text(16, y + 118, tokens, size=11, fill=INK)
    placed = len(state.divers[s])
    pic.text(16, y + 134, f"divers {state.divers_ready[s]} ready, {placed} placed"
             + (f" +{state.divers_fresh[s]} next turn" if state.divers_fresh[s] else ""),
             size=11, fill=INK)
    _crystal(pic, 22, y + 149, GREEN)
    pic.text(32, y + 153, f"× {state.green[s]}", size=11, fill=INK)
    _crystal(pic, 82, y + 149, 2)
    pic.text(92, y + 153, f"× {state.yellow[s]}", size=11, fill=INK)
    pic.text(140, y + 153, "unspent crystals", size=10, fill=MUTED)
    if not state.over:
        rows = state.rows[s]
        kinds = len({t.animal[c] for row in rows for c in row if t.animal[c] >= 0})
        eyes = sum(t.eyes[c] for c in rows[state.round])
        pic.text(16, y + 174, f"eyes this round {eyes} · animal kinds {kinds}", size=11,
                 fill=INK, title="most eyes in this round's row loses the round's Kraken "
                                 "token; each different animal (up to the aquarium) scores 2")
    if state.over:
        pts = state.points[s]
        pic.text(16, y + 174, "final: " + ", ".join(
            f"{k} {v}" for k, v in list(zip(POINT_KINDS, pts))[:3]), size=11, fill="#8a1c1c")
        pic.text(16, y + 190, ", ".join(f"{k} {v}" for k, v in list(zip(POINT_KINDS, pts))[3:])
                 + f" (tokens {state.treasure_values[s]})", size=11, fill="#8a1c1c")
    # the tableau: one row per round, columns as laid
    top = y + 26
    for r in range(NUM_ROUNDS):
        ry = top + r * (CARD_H + GAP)
        now = r == state.round and not state.over
        pic.text(GRID_X - 6, ry + CARD_H / 2 + 4, f"R{r + 1}", size=10,
                 fill="#8a1c1c" if now else MUTED, bold=now, anchor="end")
        for c in range(8):
            x = GRID_X + c * (CARD_W + GAP)
            if c < len(state.rows[s][r]):
                _card(pic, t, state.rows[s][r][c], x, ry, diver=(r, c) in state.divers[s])
            else:
                pic.rect(x, ry, CARD_W, CARD_H, radius=4, stroke="#c9d3dc", fill="#f7fafc")
    _right_area(pic, state, t, s, viewer, top, hand_count, kept_count)


def _right_area(pic: Picture, state: State, t: CardTable, s: int, viewer: int | None,
                top: float, hand_count: int, kept_count: int) -> None:
    """Hand, face-down keeps and (for the viewer) the cards it handed on this turn."""
    sees = viewer is None or viewer == s
    groups = [("hand", state.hands[s] if sees else [None] * hand_count, False),
              ("kept", state.kept[s] if sees else [None] * kept_count, True)]
    if viewer is not None and viewer == s:
        groups.append(("passed", state.passed[s], False))
    line = 0
    for label, cards, face_down in groups:
        for start in range(0, len(cards), HAND_PER_LINE):
            ly = top + line * (CARD_H + GAP)
            if start == 0:
                pic.text(HAND_X, ly + 20, label, size=11, fill=MUTED, bold=True)
                pic.text(HAND_X, ly + 34, f"{len(cards)}", size=11, fill=MUTED)
            for i, card in enumerate(cards[start:start + HAND_PER_LINE]):
                x = HAND_X + 50 + i * (CARD_W + GAP)
                if card is None:
                    _back(pic, x, ly, f"a hidden card of player_{s}'s {label}")
                else:
                    _card(pic, t, card, x, ly)
                    if face_down:
                        pic.rect(x, ly, CARD_W, CARD_H, radius=4, fill=BACK, opacity=0.25,
                                 title="kept face down this turn")
            line += 1
    placing = state.placing[0] if (state.placing and not state.over and state.decision
                                   in (Decision.DIVER, Decision.UPGRADE)) else None
    if placing is not None and placing[0] == s:
        pic.text(HAND_X, top + line * (CARD_H + GAP) + 14,
                 f"placing: {t.label(placing[1])}", size=11, fill="#8a1c1c")


def _submarine(pic: Picture, levels: list[int], x: float, y: float) -> None:
    """The five parts with their level as 1-3 filled pips and what the level gives."""
    for p, (short, level) in enumerate(zip(PART_SHORT, levels)):
        px = x + p * 52
        what, values = PART_VALUES[p]
        pic.rounded_rect(px, y, 48, 74, radius=5, fill="#e4edf4", stroke="#9bb0c2",
                         title=f"{PARTS[p]} level {level}: {values[level - 1]} {what}")
        pic.text(px + 24, y + 14, short, size=10, anchor="middle", fill=INK, bold=True)
        for lv in range(3):
            pic.rect(px + 8, y + 54 - lv * 14, 32, 10, radius=2,
                     fill="#2f7fb6" if lv < level else "#ffffff", stroke="#2f7fb6")
        pic.text(px + 24, y + 72, f"{values[level - 1]}", size=9, anchor="middle", fill=MUTED)


def _card(pic: Picture, t: CardTable, c: int, x: float, y: float, diver: bool = False) -> None:
    """One face-up card: animal band, then coral, chest, eye, crystal and base symbols."""
    animal = ANIMALS[t.animal[c]] if t.animal[c] >= 0 else None
    tip = t.label(c) or "blank card"
    pic.rect(x, y, CARD_W, CARD_H, radius=4, fill=ANIMAL_TINTS[animal] if animal else SAND,
             stroke="#8795a1", title=tip + (", diver on it" if diver else ""))
    if animal:
        pic.rect(x + 2, y + 2, CARD_W - 4, 13, radius=3, fill=ANIMAL_COLOURS[animal])
        pic.text(x + CARD_W / 2, y + 12, animal, size=8.5, fill="#ffffff", anchor="middle",
                 bold=True)
    sx, sy = x + 8, y + 25
    symbols = (["coral"] * t.corals[c] + ["chest"] * t.chest[c] + ["eye"] * t.eyes[c]
               + (["crystal"] if t.crystal[c] else []))
    for k, sym in enumerate(symbols):
        cx, cy = sx + (k % 3) * 14, sy + (k // 3) * 14  # at most 6 (config bounds)
        if sym == "coral":
            _coral(pic, cx, cy)
        elif sym == "chest":
            _chest(pic, cx, cy)
        elif sym == "eye":
            _eye(pic, cx, cy)
        else:
            _crystal(pic, cx, cy, t.crystal[c])
    if t.base[c]:
        pic.rect(x + 4, y + CARD_H - 9, CARD_W - 8, 6, radius=2, fill="#55606b")
    if diver:
        pic.circle(x + CARD_W - 8, y + CARD_H - 16, 6.5, fill="#1565c0", stroke="#ffffff")
        pic.text(x + CARD_W - 8, y + CARD_H - 12.5, "D", size=8, fill="#ffffff", anchor="middle",
                 bold=True)


def _back(pic: Picture, x: float, y: float, tip: str) -> None:
    pic.rect(x, y, CARD_W, CARD_H, radius=4, fill=BACK, stroke="#0f2238", title=tip)
    pic.rect(x + 5, y + 5, CARD_W - 10, CARD_H - 10, radius=3, stroke=BACK_LINE)
    pic.circle(x + CARD_W / 2, y + CARD_H / 2, 7, stroke=BACK_LINE)


def _coral(pic: Picture, x: float, y: float) -> None:
    pic.polygon([(x - 5, y + 5), (x - 2, y - 5), (x, y), (x + 2, y - 6), (x + 5, y + 5)],
                fill=CORAL, stroke="#b0405a")


def _chest(pic: Picture, x: float, y: float) -> None:
    pic.rect(x - 5, y - 4, 10, 9, radius=1, fill=CHEST, stroke="#4e3216")
    pic.rect(x - 5, y - 1, 10, 2, fill=GOLD)


def _eye(pic: Picture, x: float, y: float) -> None:
    pic.polygon([(x - 6, y), (x - 3, y - 4), (x + 3, y - 4), (x + 6, y), (x + 3, y + 4),
                 (x - 3, y + 4)], fill="#ffffff", stroke="#b01e1e")
    pic.circle(x, y, 2.2, fill="#b01e1e")


def _crystal(pic: Picture, x: float, y: float, colour: int) -> None:
    pic.polygon([(x, y - 6), (x + 5, y), (x, y + 6), (x - 5, y)], fill=CRYSTAL[colour],
                stroke="#4a4a2a")


def _legend(pic: Picture, y: float) -> None:
    """What each symbol means."""
    pic.rounded_rect(6, y, WIDTH - 12, LEGEND_H - 10, radius=8, fill="#ffffff", stroke="#9bb0c2")
    pic.text(16, y + 18, "Legend", size=12, bold=True, fill=INK)
    x, ly = 80, y + 18
    _coral(pic, x, ly - 4)
    pic.text(x + 10, ly, "coral", size=11, fill=INK)
    _chest(pic, x + 70, ly - 4)
    pic.text(x + 80, ly, "treasure chest", size=11, fill=INK)
    _eye(pic, x + 190, ly - 4)
    pic.text(x + 200, ly, "Kraken eye", size=11, fill=INK)
    _crystal(pic, x + 290, ly - 4, GREEN)
    _crystal(pic, x + 304, ly - 4, 2)
    pic.text(x + 314, ly, "crystals (green, yellow)", size=11, fill=INK)
    pic.rect(x + 470, ly - 7, 24, 6, radius=2, fill="#55606b")
    pic.text(x + 500, ly, "base (upgrade)", size=11, fill=INK)
    pic.circle(x + 610, ly - 4, 6, fill="#1565c0")
    pic.text(x + 620, ly, "scuba diver", size=11, fill=INK)
    pic.rect(x + 712, ly - 13, 14, 17, radius=2, fill=BACK, stroke="#0f2238")
    pic.text(x + 732, ly, "hidden card (count only)", size=11, fill=INK)
    ly += 26
    pic.text(16, ly, "Animals", size=12, bold=True, fill=INK)
    ax = 80
    for animal in ANIMALS:
        pic.rect(ax, ly - 11, 14, 14, radius=3, fill=ANIMAL_COLOURS[animal])
        pic.text(ax + 18, ly, animal, size=11, fill=INK)
        ax += 96
    ly += 26
    pic.text(16, ly, "Rows R1-R3: one per round, laid left to right; submarine pips = part "
             "level 1-3, number = what the level gives; ★ stars; Kraken tokens turn face up "
             "when their round is scored.", size=11, fill=MUTED)
