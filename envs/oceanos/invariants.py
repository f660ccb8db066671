"""What every Oceanos position the rules can reach satisfies: one checker for loads and tests.

:func:`check_invariants` raises :class:`~otrio.envs.core.errors.StateError` naming the first
field that breaks a rule. ``Game.state_from_dict`` runs it on every load (after the
schema has checked the shape and types), so a saved state is checked for meaning and
not only for shape, and the random-game tests run it after every decision, so that
these rules have one copy. No step of the engine calls it, and the rules do not import
it: it reads the state and the rules' public functions.

What it checks:

* types and ranges: every counter an integer in its range (fuel, divers and crystals
  never negative, part levels 1-3, seats 0..n-1, the round, turn, step and decision
  known ones);
* cards: every card id exactly once across the decks, discard piles, hands, face-down
  kept cards, rows and the cards waiting to be placed, each in its own round's places;
  hands, kept cards and rows no longer than the rules let them grow;
* tokens: the treasure bag plus the treasures drawn are the configured tokens; each
  Kraken token is one of its size's; placed divers sit on chests; fuel and divers add
  up to what the motor and airlock give; unspent crystals come from placed cards;
* score: every seat's score is the sum of its point categories, each within what the
  rounds scored so far can give;
* the pending decision: the Captain is the one the turn number names, the step in
  progress is one that waits for a decision, that decision and its seat are the ones
  the engine would ask for there, and it has legal actions (unless the game is over).
"""

from __future__ import annotations

import functools
import math
from collections import Counter

from otrio.envs.core.fields import FieldChecks
from otrio.envs.core.fields import show as _show

from . import scoring
from .actions import NUM_ACTIONS
from .data import (
    AIRLOCK,
    AIRLOCK_DIVERS,
    AQUARIUM_CAPACITY,
    GREEN,
    KRAKEN_SIZES,
    MAX_DEALT,
    MAX_HAND,
    MAX_KEPT,
    MAX_LEVEL,
    MAX_PASSED,
    MAX_ROW,
    MIN_LEVEL,
    MOTOR,
    MOTOR_FUEL,
    NUM_ROUNDS,
    PARTS,
    PROPELLER_STARS,
    STARS_PER_ANIMAL,
    TURNS_PER_ROUND,
    YELLOW,
)
from .rules import (
    ANIMALS_PTS,
    CAPTAIN_TURN,
    CORAL_PTS,
    DECISION_STEPS,
    DUO_TURN,
    KRAKEN_PTS,
    PLACE_DIVER,
    PLACE_ROW,
    PLACE_UPGRADE,
    POINT_KINDS,
    PROPELLER_PTS,
    ROUND_END,
    TREASURE_PTS,
    Decision,
    State,
    counts_before_keeps,
    find_decision,
    turn_orders,
)

_CHECKS = FieldChecks("Oceanos")
_bad, _int, _list, _ints = _CHECKS.bad, _CHECKS.int, _CHECKS.list, _CHECKS.ints

_ANY = math.inf  # no range of its own: a rule below bounds the value


@functools.cache
def _round_of(table) -> tuple[int, ...]:
    """The round of each card id of a (shared, read-only) card table."""
    out = [0] * len(table)
    for r, ids in enumerate(table.round_ids):
        for c in ids:
            out[c] = r
    return tuple(out)


def check_invariants(s: State, loaded: bool = False) -> None:
    """Raise StateError naming the field if ``s`` breaks a rule of reachable positions.

    ``loaded`` changes nothing here: Otys and Otontin bound, on a load only, counts
    their rules leave open (they can grow turn after turn). Oceanos has none: a game is
    3 rounds of 5 turns, and every count is bounded by a rule checked here (fuel and
    divers by the parts, crystals by the placed cards, each point kind by the rounds
    scored), so a loaded state and a played one are held to the same checks.
    """
    n = s.num_players
    if type(s.over) is not bool:
        _bad("over", f"= {_show(s.over)} is not true/false")
    over = s.over
    rnd = _int(s.round, "round", 0, NUM_ROUNDS - 1)
    turn = _int(s.turn, "turn", 0, TURNS_PER_ROUND)
    _check_program(s, n, rnd, turn, over)
    _check_players(s, n)
    _check_cards(s, n, rnd)
    _check_tokens_and_points(s, n, rnd, over)
    _check_turn_shape(s, n, rnd, turn, over)
    if not over:
        _check_pending(s)


def _check_program(s, n: int, rnd: int, turn: int, over: bool) -> None:
    program = s.program
    turn_program = CAPTAIN_TURN if s.captain_mode else DUO_TURN
    if program is not turn_program and program is not ROUND_END:
        _bad("program", f"is not {'captain' if s.captain_mode else 'duo'} or round_end "
             "(the player count and variant fix the kind of turn)")
    if (program is ROUND_END) != (turn == TURNS_PER_ROUND):
        _bad("turn", f"= {turn} does not match the {'round end' if program is ROUND_END else 'turn'}"
             f" step (turn {TURNS_PER_ROUND} is the round end)")
    if over:
        if program is not ROUND_END or s.pc != len(ROUND_END) or rnd != NUM_ROUNDS - 1:
            _bad("over", "is true before the last round's end")
    else:
        pc = _int(s.pc, "pc", 0, len(program) - 1)
        if program[pc] not in DECISION_STEPS:
            _bad("pc", f"= {pc} is step {program[pc]!r}, which waits for no decision")
    captain = _int(s.captain, "captain", 0, n - 1)
    expected = (TURNS_PER_ROUND * rnd + min(turn, TURNS_PER_ROUND - 1)) % n
    if captain != expected:
        _bad("captain", f"= {captain}, but round {rnd + 1} turn {turn + 1} has Captain {expected}")
    _int(s.decision, "decision", 0, len(Decision) - 1)
    _int(s.actor, "actor", 0, n - 1)


def _check_players(s, n: int) -> None:
    levels = _list(s.levels, "levels", n)
    for p in range(n):
        _ints(levels[p], f"levels[{p}]", len(PARTS), MIN_LEVEL, MAX_LEVEL)
    for name in ("fuel_ready", "fuel_fresh", "fuel_used", "divers_ready", "divers_fresh",
                 "green", "yellow"):
        _ints(getattr(s, name), name, n, 0, _ANY)  # bounded by the motor, airlock, crystals
    for p in range(n):
        fuel = MOTOR_FUEL[levels[p][MOTOR] - 1]
        if s.fuel_ready[p] + s.fuel_fresh[p] + s.fuel_used[p] != fuel:
            _bad(f"fuel_ready[{p}]", f"= {s.fuel_ready[p]}: ready + fresh + used fuel must be "
                 f"{fuel} (the motor's level {levels[p][MOTOR]})")


def _check_cards(s, n: int, rnd: int) -> None:
    """Every card exactly once, each in its round's places; sizes within the rules."""
    table = s.table
    round_of = _round_of(table)
    ncards = len(table)
    where: list[str | None] = [None] * ncards

    def place(cards, field: str, card_round: int | None) -> None:
        _ints(cards, field, None, 0, ncards - 1)
        for c in cards:
            if where[c] is not None:
                _bad(field, f"holds card {c}, which {where[c]} holds too")
            if card_round is not None and round_of[c] != card_round:
                _bad(field, f"holds card {c} of round {round_of[c] + 1} in round "
                     f"{card_round + 1}'s place")
            where[c] = field

    decks = _list(s.decks, "decks", NUM_ROUNDS)
    discards = _list(s.discards, "discards", NUM_ROUNDS)
    for r in range(NUM_ROUNDS):
        place(_list(decks[r], f"decks[{r}]"), f"decks[{r}]", r)
        place(_list(discards[r], f"discards[{r}]"), f"discards[{r}]", r)
        if r > rnd and discards[r]:
            _bad(f"discards[{r}]", f"is not empty before round {r + 1}")
    hands = _list(s.hands, "hands", n)
    kept = _list(s.kept, "kept", n)
    rows = _list(s.rows, "rows", n)
    for p in range(n):
        place(_list(hands[p], f"hands[{p}]", most=MAX_HAND), f"hands[{p}]", rnd)
        place(_list(kept[p], f"kept[{p}]", most=MAX_KEPT), f"kept[{p}]", rnd)
        for r, row in enumerate(_list(rows[p], f"rows[{p}]", NUM_ROUNDS)):
            place(_list(row, f"rows[{p}][{r}]", most=MAX_ROW), f"rows[{p}][{r}]", r)
            if r > rnd and row:
                _bad(f"rows[{p}][{r}]", f"is not empty before round {r + 1}")
    placing = _list(s.placing, "placing")
    for i, item in enumerate(placing):
        field = f"placing[{i}]"
        if not isinstance(item, list) or len(item) != 3:
            _bad(field, f"= {_show(item)} is not [seat, card, sub-step]")
        _int(item[0], f"{field}[0]", 0, n - 1)
        # the first card is in its row, waiting for a decision; the others are not yet
        low, high = (PLACE_DIVER, PLACE_UPGRADE) if i == 0 else (PLACE_ROW, PLACE_ROW)
        _int(item[2], f"{field}[2]", low, high)
        if i:
            place(item[1:2], f"{field}[1]", rnd)
        else:  # already put at the end of its seat's row: the decision about it waits
            card = _int(item[1], f"{field}[1]", 0, ncards - 1)
            row = rows[item[0]][rnd]
            if not row or row[-1] != card:
                _bad(field, f"places card {card}, which is not the last of seat {item[0]}'s row")
    missing = [c for c in range(ncards) if where[c] is None]
    if missing:
        _bad("decks", f"lack card {missing[0]}: it is in no deck, discard pile, hand, kept "
             "cards, row or placing")
    passed = _list(s.passed, "passed", n)
    for p in range(n):
        _ints(passed[p], f"passed[{p}]", None, 0, ncards - 1, most=MAX_HAND)
        if len(set(passed[p])) != len(passed[p]):
            _bad(f"passed[{p}]", "names a card twice")


def _check_tokens_and_points(s, n: int, rnd: int, over: bool) -> None:
    table = s.table
    config = s.config
    kraken = _list(s.kraken, "kraken", len(KRAKEN_SIZES))
    for i, size in enumerate(KRAKEN_SIZES):
        pool = getattr(config.kraken_tokens, size)
        if config.kraken.mode == "fixed":
            pool = (config.kraken.values[i],)
        if not isinstance(kraken[i], int) or isinstance(kraken[i], bool) or kraken[i] not in pool:
            _bad(f"kraken[{i}]", f"= {_show(kraken[i])} is not a {size} Kraken token {pool}")
    most = max(config.treasure_tokens)
    bag = _ints(s.bag, "bag", None, 1, most)
    treasures = _list(s.treasure_values, "treasure_values", n)
    drawn = Counter(bag)
    for p in range(n):
        _ints(treasures[p], f"treasure_values[{p}]", None, 1, most)
        if treasures[p] and not over:
            _bad(f"treasure_values[{p}]", "is not empty before the game's end")
        drawn.update(treasures[p])
    if drawn != Counter(config.treasure_tokens):
        _bad("bag", "and the treasures drawn are not the configured treasure tokens")
    divers = _list(s.divers, "divers", n)
    for p in range(n):
        spots = set()
        for i, d in enumerate(_list(divers[p], f"divers[{p}]")):
            field = f"divers[{p}][{i}]"
            if not isinstance(d, (list, tuple)) or len(d) != 2:
                _bad(field, f"= {_show(d)} is not [round, slot]")
            r = _int(d[0], f"{field}[0]", 0, rnd)
            row = s.rows[p][r]
            slot = _int(d[1], f"{field}[1]", 0, max(len(row) - 1, 0))
            if not row or not table.chest[row[slot]]:
                _bad(field, f"sits on round {r + 1} slot {slot}, which holds no chest")
            if (r, slot) in spots:
                _bad(field, f"is a second diver on round {r + 1} slot {slot}")
            spots.add((r, slot))
        held = AIRLOCK_DIVERS[s.levels[p][AIRLOCK] - 1]
        if len(divers[p]) + s.divers_ready[p] + s.divers_fresh[p] != held:
            _bad(f"divers_ready[{p}]", f"= {s.divers_ready[p]}: placed + ready + fresh divers "
                 f"must be {held} (the airlock's level {s.levels[p][AIRLOCK]})")
    scored = NUM_ROUNDS if over else rnd  # rounds scored so far
    kraken_floor = sum(kraken[:scored])
    most_animals = STARS_PER_ANIMAL * AQUARIUM_CAPACITY[-1] * scored
    points = _list(s.points, "points", n)
    score = _ints(s.score, "score", n, -_ANY, _ANY)
    green, yellow = s.green, s.yellow
    for p in range(n):
        pts = _ints(points[p], f"points[{p}]", len(POINT_KINDS), -_ANY, _ANY)
        field = f"points[{p}]"
        if not 0 <= pts[ANIMALS_PTS] <= most_animals:
            _bad(field, f"has {pts[ANIMALS_PTS]} animal points after {scored} scored rounds")
        if not 0 <= pts[PROPELLER_PTS] <= PROPELLER_STARS[-1] * scored:
            _bad(field, f"has {pts[PROPELLER_PTS]} propeller points after {scored} scored rounds")
        if not kraken_floor <= pts[KRAKEN_PTS] <= 0:
            _bad(field, f"has {pts[KRAKEN_PTS]} Kraken points; the rounds scored give "
                 f"{kraken_floor}..0")
        if pts[TREASURE_PTS] != sum(treasures[p]):
            _bad(field, f"has {pts[TREASURE_PTS]} treasure points, not the treasures' sum")
        coral = scoring.biggest_reef(s.rows[p], table) if over else 0
        if pts[CORAL_PTS] != coral:
            _bad(field, f"has {pts[CORAL_PTS]} coral points, not {coral}")
        if score[p] != sum(pts):
            _bad(f"score[{p}]", f"= {score[p]} is not the sum of its points {sum(pts)}")
        cards = [c for row in s.rows[p] for c in row]
        if green[p] > sum(table.crystal[c] == GREEN for c in cards):
            _bad(f"green[{p}]", f"= {green[p]} is more than the green crystals placed")
        if yellow[p] > sum(table.crystal[c] == YELLOW for c in cards):
            _bad(f"yellow[{p}]", f"= {yellow[p]} is more than the yellow crystals placed")
        if over and len(treasures[p]) > scoring.chests_collected(s.rows[p], s.divers[p], table):
            _bad(f"treasure_values[{p}]", "holds more treasures than chests collected")


def _turn_order(s, first: int) -> tuple[int, ...]:
    """Every seat once, in turn order from ``first``."""
    return turn_orders(s.num_players)[first % s.num_players]


def _check_turn_shape(s, n: int, rnd: int, turn: int, over: bool) -> None:
    """What each step of a turn leaves where: hands, kept cards, the queue, placing."""
    hands, kept, rows, placing = s.hands, s.kept, s.rows, s.placing
    queue = _ints(s.queue, "queue", None, 0, n - 1, most=n)
    if len(set(queue)) != len(queue):
        _bad("queue", "names a seat twice")
    placers = [item[0] for item in placing]
    for p in range(n):
        unplaced = len(kept[p]) + sum(1 for q in placers[1:] if q == p)
        before = counts_before_keeps(len(hands[p]), len(kept[p]), s.fuel_ready[p], s.fuel_used[p])
        if before[3] < 0:  # counted back to the keeps' start, less than no Fuel spent
            _bad(f"kept[{p}]", f"holds {len(kept[p])} cards; beyond the first each costs a "
                 f"Fuel token, and {s.fuel_used[p]} were spent")
        # a seat keeps once a turn, plus a card per Fuel token spent: its cards of this
        # round are at most its keeps so far (this turn's once it has kept) plus its Fuel
        keeps = turn + (0 if s.program is ROUND_END or _keeps_later(s, p) else 1)
        if not over and len(rows[p][rnd]) + unplaced > keeps + s.fuel_used[p]:
            _bad(f"rows[{p}][{rnd}]", f"holds {len(rows[p][rnd])} cards (+{unplaced} to place) "
                 f"after {keeps} keeps this round, with {s.fuel_used[p]} Fuel spent")
    if over:
        if queue or placing:
            _bad("queue" if queue else "placing", "is not empty after the game's end")
    if over or s.program is ROUND_END:
        for p in range(n):
            if hands[p] or kept[p]:
                _bad(f"hands[{p}]" if hands[p] else f"kept[{p}]",
                     "is not empty at the round's end")
        if placing:
            _bad("placing", "is not empty at the round's end")
        _subsequence(queue, _turn_order(s, s.captain), "queue")
        return
    step = s.program[s.pc]
    if step != "place" and placing:
        _bad("placing", f"is not empty at step {step!r}")
    if step == "place" and queue:
        _bad("queue", "is not empty while cards are placed")
    cap = s.captain
    if not s.captain_mode:
        for p in range(n):
            if len(hands[p]) + len(kept[p]) > MAX_DEALT:
                _bad(f"hands[{p}]", f"holds {len(hands[p])} cards (+{len(kept[p])} kept); "
                     f"a two-player turn deals at most {MAX_DEALT}")
            if step != "choose" and kept[p]:
                _bad(f"kept[{p}]", f"is not empty at step {step!r}")
        _subsequence(queue, _turn_order(s, cap), "queue")
        return
    others = _turn_order(s, cap + 1)[:-1]
    received = (n - 1) if s.config.troubled_waters else MAX_PASSED * (n - 1)
    collected = s.pc > CAPTAIN_TURN.index("collect")  # the non-Captains' cards went on
    captains = s.pc > CAPTAIN_TURN.index("captain_draw")  # the Captain chooses or places
    for p in others:
        if collected and (hands[p] or kept[p]):
            _bad(f"hands[{p}]" if hands[p] else f"kept[{p}]",
                 "is not empty once the non-Captains' cards are collected")
        if len(hands[p]) + len(kept[p]) > s.periscopes(p) + 1:
            _bad(f"hands[{p}]", f"holds {len(hands[p])} cards (+{len(kept[p])} kept); seat {p} "
                 f"is dealt {s.periscopes(p) + 1}")
    if not captains:  # the non-Captains choose (before the collection) or place
        if not collected and (hands[cap] or kept[cap]):
            _bad(f"hands[{cap}]", "is not empty before the Captain receives its cards")
        if collected and (kept[cap] or len(hands[cap]) > received):
            _bad(f"hands[{cap}]", f"holds more than the {received} cards passed to the Captain")
        expected = others
    else:
        most = max(s.periscopes(cap) + 1, received)
        if len(hands[cap]) + len(kept[cap]) > most:
            _bad(f"hands[{cap}]", f"holds {len(hands[cap])} cards (+{len(kept[cap])} kept); "
                 f"the Captain holds at most {most}")
        if step == "place" and (hands[cap] or kept[cap]):
            _bad(f"hands[{cap}]", "is not empty while the Captain places")
        expected = (cap,)
    _subsequence(queue, expected, "queue")
    for i, p in enumerate(placers):
        if p not in expected:
            _bad(f"placing[{i}][0]", f"= {p} does not place at this step")


def _keeps_later(s, p: int) -> bool:
    """Whether seat ``p`` still keeps cards in this turn (at the pending decision)."""
    step = s.program[s.pc]
    if step == "choose" and p in s.queue and not s.kept[p]:
        return True  # asked now (nothing kept yet) or later in this step
    # the Captain keeps after the others have placed
    return s.captain_mode and p == s.captain and s.pc < CAPTAIN_TURN.index("captain_draw")


def _subsequence(seats: list[int], order, field: str) -> None:
    """``seats`` must follow ``order`` (a turn order), skipping some."""
    it = iter(order)
    if not all(seat in it for seat in seats):
        _bad(field, f"= {seats} is not in turn order {list(order)}")


def _check_pending(s) -> None:
    """The decision and seat are what the engine asks at this step, and some action is legal."""
    step = s.program[s.pc]
    twin = s.clone()
    found = find_decision(twin)
    name = Decision(s.decision).name
    if (not found or twin.decision != s.decision or twin.actor != s.actor
            or twin.queue != s.queue or twin.placing != s.placing):
        _bad("decision", f"= {name} for seat {s.actor} is not the decision step {step!r} "
             "waits for")
    legal = s.legal_actions()
    if not legal:
        _bad("decision", f"= {name} for seat {s.actor} has no legal action")
    if legal != sorted(set(legal)) or legal[0] < 0 or legal[-1] >= NUM_ACTIONS:
        _bad("decision", f"has legal actions {legal}, not sorted distinct ids below {NUM_ACTIONS}")
