"""The Otys table as a picture (``Game.picture``): drawn only on request.

At the top: the Colony display (each level's sponsor tile and two reward tokens), the
store's four colour columns, the public contracts, the bag and the deck, and the
pending decision. Below: one player board per seat, its eight diver slots from the
surface down to level 5 with each level's key space, resources and reward token, the
seat's keys and Hacker track, purse and private contracts. With a ``viewer``, other
hands are card backs, and the cards another seat drew to keep one are backs too (the
drawer sees them only while it chooses, as in its observation).
"""

from __future__ import annotations

from otrio.envs.core.picture import Picture

from . import data
from .phases import PHASE_NAMES, Phase
from .rules import State

WIDTH = 1280
TOP_H = 300
SLOT_H = 34
CARD_W, CARD_H = 70, 50
COLOURS = ("#8593a3", "#4caf50", "#ef9a2d", "#8e5cc9")  # metal, plant, fuel, tech
DIVER_COLOURS = ("#8593a3", "#4caf50", "#ef9a2d", "#8e5cc9", "#c0853a", "#37474f", "#1e88e5",
                 "#d84343")
SEAT_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
BACK_COLOURS = {data.BACK_CREDITS: "#f39c12", data.BACK_PP: "#27ae60"}
INK, MUTED, SEA, PAPER = "#1c2833", "#5d6d7e", "#dcecf5", "#fdfefe"
CARD_BACK = "#34495e"
TOKEN_MARK = ("", "B", "D", "U", "PP")  # resource tokens show their colours instead
SPONSOR_TEXT = (
    ("+1 credit", "free Spy, Engineer, Explorer; free buys"),
    ("your diver acts twice", "use one reward token here"),
    ("one own key back home", "level-5 diver to slot 0"),
    ("2c: flip the key's diver, +1 PP", "2c: flip a surface diver, +1 PP"),
    ("+1 battery", "+1 battery, or 1 battery: move a resource"),
)


def draw_picture(state: State, viewer: int | None = None) -> Picture:
    """The table; with ``viewer``, only what that seat's player may know."""
    hand_rows = max(1, max(-(-len(h) // 4) for h in state.hands))
    board_h = 78 + data.NUM_SLOTS * SLOT_H + 26 + hand_rows * (CARD_H + 6) + 10
    height = TOP_H + board_h + 96
    pic = Picture(WIDTH, height, background="#eef5f9")
    _header(pic, state, viewer)
    _colony(pic, state, 10, 64)
    _store(pic, state, 470, 64)
    _contracts(pic, state, viewer, 760, 64)
    width = (WIDTH - 20 - 10 * (state.n - 1)) / state.n
    for p in range(state.n):
        _board(pic, state, p, viewer, 10 + p * (width + 10), TOP_H, width, board_h)
    _legend(pic, TOP_H + board_h + 8)
    return pic


def _header(pic: Picture, state: State, viewer: int | None) -> None:
    tables = state.tables
    pic.text(14, 30, "Otys", size=24, bold=True, fill="#0e4d6e")
    last = " · last round" if state.end_triggered and not state.over else ""
    view = "whole table" if viewer is None else f"as player_{viewer} sees it"
    pic.text(86, 30, f"round {state.round}{last} · game ends at {tables.end_pp} PP · {view}",
             size=14, fill=INK)
    if state.over:
        how = "round cap" if state.capped else f"{tables.end_pp} PP reached"
        text = f"game over ({how}): " + ", ".join(f"player_{s}" for s in state.winners()) + " won"
    else:
        key = data.KEY_NAMES[state.key] if state.key >= 0 else None
        where = f", key {key} on level {state.level + 1}" if key is not None else ""
        text = (f"to act: player_{state.actor} — {PHASE_NAMES[state.phase].split(' (')[0]}"
                f" (player_{state.seat}'s turn{where})")
    pic.text(WIDTH - 14, 30, text, size=13, bold=True, fill="#8a1c1c", anchor="end",
             title=None if state.over else PHASE_NAMES[state.phase])


def _colony(pic: Picture, state: State, x: float, y: float) -> None:
    """The Colony display: per level its sponsor tile and two reward tokens."""
    pic.rounded_rect(x, y, 450, 226, radius=8, fill=PAPER, stroke="#9fb6c6")
    pic.text(x + 10, y + 18, "Colony display", size=13, bold=True, fill=INK)
    active = state.level if not state.over else -1
    for level in range(data.NUM_LEVELS):
        ly = y + 28 + level * 39
        if level == active:
            pic.rect(x + 4, ly - 2, 442, 38, radius=5, fill="#fff3c4")
        pic.text(x + 12, ly + 22, f"L{level + 1}", size=12, bold=True, fill=MUTED)
        tile = state.sponsors[level]
        adv = state.advanced[tile]
        text = SPONSOR_TEXT[tile][adv]
        pic.rounded_rect(x + 40, ly, 300, 34, radius=5, fill="#d6e9f8" if not adv else "#f6dfc9",
                         stroke="#7f9cb2",
                         title=f"sponsor #{tile + 1} ({'advanced' if adv else 'basic'}): {text}")
        pic.text(x + 48, ly + 14, f"#{tile + 1} {'advanced' if adv else 'basic'}", size=10,
                 bold=True, fill=INK)
        pic.text(x + 48, ly + 28, text, size=10, fill=INK)
        for i in range(data.DISPLAY_TOKENS):
            token = state.display[level * data.DISPLAY_TOKENS + i]
            _token(pic, state, token, x + 368 + i * 40, ly + 17, 15)


def _store(pic: Picture, state: State, x: float, y: float) -> None:
    """The store: a column per colour, filled from the top row down."""
    tables = state.tables
    pic.rounded_rect(x, y, 280, 226, radius=8, fill=PAPER, stroke="#9fb6c6")
    pic.text(x + 10, y + 18, "Store", size=13, bold=True, fill=INK)
    for c in range(data.NUM_COLOURS):
        cx = x + 20 + c * 44
        pic.text(cx + 17, y + 40, data.COLOUR_LETTERS[c], size=12, bold=True, fill=COLOURS[c],
                 anchor="middle")
        for row in range(data.STORE_ROWS):
            filled = row < state.store[c]
            pic.rect(cx, y + 48 + row * 40, 34, 34, radius=4,
                     fill=COLOURS[c] if filled else "#ffffff", stroke=COLOURS[c],
                     title=f"{data.COLOUR_NAMES[c]}, row {row}: "
                           + ("a resource to buy" if filled else "room for a sale"))
    for row in range(data.STORE_ROWS):
        sale = f"{tables.store_credits[row]}c" + (f"/{tables.store_pp[row]}pp"
                                                   if tables.store_pp[row] else "")
        pic.text(x + 200, y + 62 + row * 40, f"sell {sale}", size=10, fill=INK)
        pic.text(x + 200, y + 75 + row * 40, f"buy {tables.store_credits[row]}c", size=10,
                 fill=MUTED)
    pic.text(x + 10, y + 184, "basic Trader prices; sales land on the", size=9, fill=MUTED)
    pic.text(x + 10, y + 196, "highest empty row, buys take the lowest", size=9, fill=MUTED)


def _contracts(pic: Picture, state: State, viewer: int | None, x: float, y: float) -> None:
    """Public contracts, deck, bag and discards, and the pending contract or token."""
    pic.rounded_rect(x, y, WIDTH - x - 10, 226, radius=8, fill=PAPER, stroke="#9fb6c6")
    pic.text(x + 10, y + 18, "Public contracts", size=13, bold=True, fill=INK)
    for i, card in enumerate(state.public):
        _contract(pic, state, card, x + 10 + i * (CARD_W + 8), y + 26)
    tables = state.tables
    kinds = {}
    for t in state.bag:
        name = data.TOKEN_KINDS[tables.token_kind[t]]
        kinds[name] = kinds.get(name, 0) + 1
    bag = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "empty"
    lines = (f"contract deck {len(state.deck)} · discard {len(state.discard)}",
             f"token bag {len(state.bag)} · token discard {len(state.token_discard)}",
             f"neutral X keys in the supply: {state.neutral_supply}")
    for i, line in enumerate(lines):
        pic.text(x + 260, y + 40 + i * 16, line, size=10, fill=INK,
                 title=f"bag holds: {bag}" if i == 1 else None)
    if state.over:
        return
    py = y + 96
    pic.text(x + 10, py + 14, "Pending", size=12, bold=True, fill="#8a1c1c")
    if state.token >= 0:
        _token(pic, state, state.token, x + 94, py + 10, 13)
        pic.text(x + 112, py + 14, "reward token being used", size=10, fill=INK)
    colour_phase = state.phase == Phase.CONTRACT_COLOUR
    if state.contract >= 0 and (viewer is None or colour_phase):
        _contract(pic, state, state.contract, x + 10, py + 24)
        picks = "".join(data.COLOUR_LETTERS[c] for c in state.colour_picks) if colour_phase else ""
        pic.text(x + 88, py + 44, f"being completed on level {state.contract_level + 1}",
                 size=10, fill=INK)
        if picks:
            pic.text(x + 88, py + 60, f"colours chosen: {picks}", size=10, fill=INK)
    if state.drawn:
        drawer = state.seat
        shows = viewer is None or (viewer == drawer and state.phase == Phase.KEEP)
        pic.text(x + 250, py + 40, f"player_{drawer} drew {len(state.drawn)} to keep 1:",
                 size=10, fill=INK)
        for i, card in enumerate(state.drawn):
            cx = x + 250 + i * (CARD_W * 0.8 + 6)
            if shows:
                _contract(pic, state, card, cx, py + 48, scale=0.8)
            else:
                _back(pic, cx, py + 48, CARD_W * 0.8, CARD_H * 0.8, "a drawn contract (hidden)")
    if state.marks:
        pic.text(x + 10, y + 214, "copied divers to resurface: " + ", ".join(
            f"player_{q}" for q in state.marks), size=10, fill=INK)


def _board(pic: Picture, state: State, p: int, viewer: int | None, x: float, y: float,
           w: float, h: float) -> None:
    """Seat ``p``'s board: purse, keys, Hacker track, diver column, private contracts."""
    tables = state.tables
    turn = not state.over and state.seat == p
    colour = SEAT_COLOURS[p % len(SEAT_COLOURS)]
    pic.rounded_rect(x, y, w, h, radius=9, fill="#fffbea" if turn else "#ffffff",
                     stroke=colour, stroke_width=3 if turn else 1.5)
    name = f"player_{p}" + (" (you)" if viewer == p else "") + (" · first" if p == 0 else "")
    pic.text(x + 10, y + 20, name, size=13, bold=True, fill=colour)
    pic.text(x + w - 10, y + 21, f"{state.pp[p]} PP", size=16, bold=True, fill="#b8860b",
             anchor="end")
    pic.text(x + 10, y + 40, f"{state.credits[p]} credits · {state.batteries[p]} batteries · "
             f"{state.neutral_held[p]} neutral X", size=11, fill=INK)
    # keys at home, and the Hacker track with its room
    pic.text(x + 10, y + 60, "keys", size=10, fill=MUTED)
    for k in range(data.NUM_OWN_KEYS):
        home = state.keys_home[p][k]
        kx = x + 40 + k * 19
        pic.rect(kx, y + 48, 16, 16, radius=3, fill=colour if home else "#ffffff",
                 stroke=colour, title=f"key {data.KEY_NAMES[k]}: "
                                      + ("home" if home else "on the Hacker track"))
        pic.text(kx + 8, y + 60, data.KEY_NAMES[k], size=9, anchor="middle", bold=True,
                 fill="#ffffff" if home else colour)
    room = tables.hacker_capacity[state.hacker[p]]
    tx = x + 40 + data.NUM_OWN_KEYS * 19 + 8
    pic.text(tx, y + 60, "track", size=10, fill=MUTED,
             title=f"Hacker track: holds {room} keys (Hacker improvements {state.hacker[p]})")
    for i in range(max(room, len(state.hacker_track[p]))):
        key = state.hacker_track[p][i] if i < len(state.hacker_track[p]) else None
        bx = tx + 32 + i * 19
        pic.rect(bx, y + 48, 16, 16, radius=3, fill="#eceff1" if key is None else "#546e7a",
                 stroke="#546e7a")
        if key is not None:
            pic.text(bx + 8, y + 60, data.KEY_NAMES[key], size=8, anchor="middle",
                     fill="#ffffff", bold=True)
    pic.text(x + w - 10, y + 40, f"reach {tables.moves[state.mechanic[p]]}", size=10,
             fill=MUTED, anchor="end",
             title=f"Mechanic: a propeller moves a diver up to {tables.moves[state.mechanic[p]]}"
                   f" slots (improvements {state.mechanic[p]})")
    top = y + 72
    for slot, dtype in enumerate(state.divers[p]):
        _slot(pic, state, p, slot, dtype, x + 6, top + slot * SLOT_H, w - 12, turn)
    # private contracts
    hy = top + data.NUM_SLOTS * SLOT_H + 18
    hand = state.hands[p]
    pic.text(x + 10, hy, f"private contracts: {len(hand)}", size=10, fill=MUTED, bold=True)
    sees = viewer is None or viewer == p
    per = max(1, int((w - 12) // (CARD_W + 4)))
    for i, card in enumerate(hand):
        cx = x + 8 + (i % per) * (CARD_W + 4)
        cy = hy + 6 + (i // per) * (CARD_H + 6)
        if sees:
            _contract(pic, state, card, cx, cy)
        else:
            _back(pic, cx, cy, CARD_W, CARD_H, f"a private contract of player_{p}")


def _slot(pic: Picture, state: State, p: int, slot: int, dtype: int, x: float, y: float,
          w: float, turn: bool) -> None:
    """One diver slot: the diver; on a level, its key space, resources and token."""
    level = slot - data.SURFACE_SLOTS
    surface = level < 0
    active = turn and level == state.level and level >= 0
    pic.rect(x, y, w, SLOT_H - 2, radius=4,
             fill="#fff0b3" if active else ("#f4f8fb" if surface else SEA))
    label = f"S{slot + 1}" if surface else f"L{level + 1}"
    pic.text(x + 6, y + 20, label, size=10, bold=True, fill=MUTED)
    upgraded = state.upgraded[p][dtype]
    name = data.DIVER_NAMES[dtype]
    pic.rounded_rect(x + 28, y + 4, 78, SLOT_H - 10, radius=4, fill=DIVER_COLOURS[dtype],
                     stroke="#ffd54a" if upgraded else "#263238", stroke_width=2.5 if upgraded else 1,
                     title=f"{name} ({'upgraded' if upgraded else 'basic'} side)")
    pic.text(x + 67, y + 20, name.replace("Expert", " Exp"), size=9, anchor="middle",
             fill="#ffffff", bold=True)
    if upgraded:
        pic.text(x + 102, y + 12, "★", size=9, fill="#ffd54a", anchor="end")
    if surface:
        return
    key_home = state.keys_home[p][level]
    pic.rect(x + 112, y + 7, 16, 16, radius=3, fill="#455a64" if key_home else None,
             stroke="#455a64",
             title=f"home space of key {level + 1}: " + ("key home" if key_home else "empty"))
    if key_home:
        pic.text(x + 120, y + 19, str(level + 1), size=9, anchor="middle", fill="#ffffff",
                 bold=True)
    capacity = state.tables.capacity[level]
    counts = state.resources[p][level * data.NUM_COLOURS:(level + 1) * data.NUM_COLOURS]
    cells = [c for c, k in enumerate(counts) for _ in range(k)]
    size = min(16.0, (w - 176) / max(capacity, 1) - 2)
    for i in range(capacity):
        cx = x + 134 + i * (size + 2)
        if i < len(cells):
            c = cells[i]
            pic.rect(cx, y + 15 - size / 2, size, size, radius=2, fill=COLOURS[c],
                     stroke="#37474f", title=data.COLOUR_NAMES[c])
        else:
            pic.rect(cx, y + 15 - size / 2, size, size, radius=2, fill="#ffffff",
                     stroke="#b0bec5")
    token = state.board_tokens[p][level]
    if token >= 0:
        _token(pic, state, token, x + w - 16, y + 15, 12)


def _contract(pic: Picture, state: State, card: int, x: float, y: float,
              scale: float = 1.0) -> None:
    """A contract card: the colours (or numbers) it needs, its PP and bonus."""
    tables = state.tables
    w, h = CARD_W * scale, CARD_H * scale
    needs = tables.contract_needs[card]
    bonus = ("+1 credit " * tables.contract_credits[card]
             + "+1 battery" * tables.contract_batteries[card]).strip()
    if tables.contract_number[card]:
        body = " + ".join(str(k) for k in needs)
        tip = f"number contract: {body} of different colours"
    else:
        body = "".join(data.COLOUR_LETTERS[c] * k for c, k in enumerate(needs))
        tip = f"combination contract: {body}"
    tip += f", {tables.contract_pp[card]} PP" + (f", {bonus}" if bonus else "")
    pic.rounded_rect(x, y, w, h, radius=5, fill="#fffdf5", stroke="#8d6e63", title=tip)
    pic.text(x + w - 4, y + 13 * scale, f"{tables.contract_pp[card]}pp", size=10 * scale,
             bold=True, fill="#b8860b", anchor="end")
    if tables.contract_number[card]:
        shown = body.replace(" ", "")
        pic.text(x + w / 2, y + 34 * scale, shown, size=(12 if len(shown) <= 5 else 10) * scale,
                 bold=True, fill=INK, anchor="middle")
    else:
        colours = [c for c, k in enumerate(needs) for _ in range(k)]
        cell = 9 * scale
        for i, c in enumerate(colours):
            cx = x + 4 * scale + (i % 6) * (cell + 1.5)
            cy = y + 22 * scale + (i // 6) * (cell + 2)
            pic.rect(cx, cy, cell, cell, radius=1.5, fill=COLOURS[c])
    extra = "+c" * tables.contract_credits[card] + "+b" * tables.contract_batteries[card]
    if extra:
        pic.text(x + 4 * scale, y + 13 * scale, extra, size=9 * scale, fill="#6d4c41")


def _back(pic: Picture, x: float, y: float, w: float, h: float, tip: str) -> None:
    pic.rounded_rect(x, y, w, h, radius=5, fill=CARD_BACK, stroke="#17202a", title=tip)
    pic.rounded_rect(x + 5, y + 5, w - 10, h - 10, radius=3, stroke="#7f8c8d")


def _token(pic: Picture, state: State, token: int, cx: float, cy: float, r: float) -> None:
    """A reward token: front (resource colours or a mark) ringed by its back's colour."""
    if token < 0:
        pic.circle(cx, cy, r, stroke="#b0bec5", title="empty token space")
        return
    tables = state.tables
    kind = tables.token_kind[token]
    back = tables.token_back[token]
    colours = tables.token_colours[token]
    front = data.TOKEN_KINDS[kind] + (
        " " + "/".join(data.COLOUR_NAMES[c] for c in colours) if colours else "")
    back_text = (f"{data.PERMANENT_CREDITS} credits" if back == data.BACK_CREDITS
                 else f"{data.PERMANENT_PP} PP")
    tip = f"reward token: front {front}; back {back_text} per contract on its level"
    pic.circle(cx, cy, r, fill="#ffffff", stroke=BACK_COLOURS[back], stroke_width=3.5, title=tip)
    if colours:
        for i, c in enumerate(colours):
            off = (i - (len(colours) - 1) / 2) * r * 0.8
            pic.circle(cx + off, cy, r * 0.38, fill=COLOURS[c])
    else:
        pic.text(cx, cy + r * 0.33, TOKEN_MARK[kind], size=r * 0.85, bold=True, fill=INK,
                 anchor="middle")


def _legend(pic: Picture, y: float) -> None:
    pic.rounded_rect(10, y, WIDTH - 20, 80, radius=8, fill=PAPER, stroke="#9fb6c6")
    pic.text(20, y + 20, "Legend", size=12, bold=True, fill=INK)
    x = 84
    for c in range(data.NUM_COLOURS):
        pic.rect(x, y + 9, 13, 13, radius=2, fill=COLOURS[c])
        pic.text(x + 18, y + 20, f"{data.COLOUR_LETTERS[c]} {data.COLOUR_NAMES[c]}", size=11,
                 fill=INK)
        x += 84
    pic.circle(x + 10, y + 15, 9, fill="#ffffff", stroke=BACK_COLOURS[data.BACK_CREDITS],
               stroke_width=3)
    pic.circle(x + 32, y + 15, 9, fill="#ffffff", stroke=BACK_COLOURS[data.BACK_PP],
               stroke_width=3)
    pic.text(x + 48, y + 20, "reward token, ring = back (orange 2 credits, green 1 PP); front: "
             "colour dots = a resource, B battery, D draw 4 keep 1, U upgrade, PP", size=11,
             fill=INK)
    pic.text(20, y + 44, "Board: S1-S3 surface slots, L1-L5 levels (key space, resource spaces,"
             " reward token); a gold-ringed diver ★ is upgraded; keys filled = home, hollow ="
             " on the Hacker track.", size=11, fill=INK)
    pic.text(20, y + 64, "Contract: colours needed (or numbers of different colours), PP at "
             "top right, +c / +b bonus credit / battery; dark cards are hidden.", size=11,
             fill=MUTED)
