"""What every Otys position the rules can reach satisfies: one checker for loads and tests.

:func:`check_invariants` raises :class:`~otrio.envs.core.errors.StateError` naming the first
field that breaks a rule. ``Game.state_from_dict`` runs it on every load (after the
schema has checked the shape and types), so a saved state is checked for meaning and
not only for shape, and the random-game tests run it after every decision, so that
these rules have one copy. No step of the engine calls it, and the rules do not import
it: it reads the state and the rules' public functions.

What it checks:

* types and ranges: every table as large as the config makes it, counters integers,
  credits, batteries, PP and resources never negative, a level's resources within its
  capacity, improvements, store rows, seats, keys, levels, phases and sources known;
* components: every contract exactly once across the deck, the public cards, the
  discard pile, the cards drawn and the hands; every reward token exactly once across
  the bag, its discard pile, the Colony display, the boards and the token in play;
  every own key of every seat once (home, Hacker track, or the key in play); the
  neutral X keys add up to the supply's; each diver column holds each diver once; the
  sponsors are a rotation of their set-up (and of the configured order, sides);
* the turn: the round within the cap, the seat to act the turn's player (or, in the
  designer's Spy variant, the owner of a copied diver), the fields of the pending
  decision set as the rules set them (the key and its level, the sponsor, the diver
  uses, the token in play, the contract being completed and its colours, the Spy's
  copy, the drawn cards) and nothing pending left over; some action is legal unless
  the game is over, and what the decision may spend is there (a battery for oxygen,
  two credits for Sponsor #4, room for a resource or a kept card, the credits a
  declined copy hands back);
* the end: a finished game ended on the PP target or the round cap, on the last seat.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left
from itertools import chain, compress
from operator import gt

from otrio.envs.core.fields import FieldChecks

from . import actions as A
from . import data as D
from .effects import SPONSOR_DOUBLE_TILE, free_space, neighbour_seats
from .phases import MAIN_PHASES, NUM_PHASES, Phase
from .records import NUM_YIELDS, PP_SOURCES
from .rules import State

_CHECKS = FieldChecks("Otys")
_bad, _int, _list, _ints = _CHECKS.bad, _CHECKS.int, _CHECKS.list, _CHECKS.ints

NC = D.NUM_COLOURS
_LIST = {list}
_DIVERS = frozenset(range(D.NUM_DIVERS))
_EVERY_DIVER = {_DIVERS}
_OWN_KEYS = list(range(D.NUM_OWN_KEYS))
_SPONSOR_TILES = list(range(D.NUM_SPONSORS))
_LEVEL_BASES = range(0, D.NUM_LEVELS * NC, NC)
_BIG = D.LOADED_COUNT_MAX  # a loaded count the rules leave open stays below this
_SPONSOR_PHASES = (Phase.SPONSOR_TOKEN, Phase.SPONSOR_FLIP, Phase.SPONSOR5)  # resume at step 1
_TOKEN_KIND = {Phase.TOKEN_RESOURCE: D.RESOURCE, Phase.TOKEN_FLIP: D.UPGRADE, Phase.KEEP: D.DRAW}
_MAX_COPY_DEPTH = D.MAX_COPY_DEPTH


def _rows_ok(rows, n: int, lo: int, hi: int, length: int | None = None,
             most: int | None = None) -> bool:
    """Whether ``rows`` are ``n`` lists of integers in ``lo..hi``, each ``length`` long
    (``n`` when None) or at most ``most`` long: one pass, for the common valid case."""
    if type(rows) not in (list, tuple) or len(rows) != n or set(map(type, rows)) != _LIST:
        return False
    sizes = set(map(len, rows))
    if most is not None:
        if max(sizes) > most:
            return False
    elif sizes != {n if length is None else length}:
        return False
    flat = list(chain.from_iterable(rows))
    return not flat or (set(map(type, flat)) == {int} and lo <= min(flat) and max(flat) <= hi)


def _rows(value, field: str, n: int, length: int | None, lo: int, hi: int, most=None):
    """A list of ``n`` lists of integers in ``lo..hi`` (each ``length`` long, or at most
    ``most``): checked in one pass, then row by row only to name a culprit."""
    if not _rows_ok(value, n, lo, hi, length, most) or type(value) is not list:
        for p, row in enumerate(_list(value, field, n)):
            _ints(row, f"{field}[{p}]", length, lo, hi, most)
    return value


def check_invariants(s: State, loaded: bool = False) -> None:
    """Raise StateError naming the field if ``s`` breaks a rule of reachable positions.

    ``loaded`` (a state being loaded) also bounds the counts the rules leave open
    (credits, batteries, PP and the record counters can grow turn after turn) by
    ``_BIG``: play may pass any such bound, so it is no invariant of play."""
    n = s.n  # the config's
    _check_seats(s, n, _BIG if loaded else math.inf)
    _check_components(s, n)
    _check_keys(s, n)
    _check_turn(s, n)


def _check_seats(s, n: int, big: float) -> None:
    tables = s.tables
    counters = (s.credits, s.batteries, s.pp)
    if not _rows_ok(counters, n, 0, big):  # (one pass; by name to find which)
        for name in ("credits", "batteries", "pp"):
            _ints(getattr(s, name), name, n, 0, big)
    _ints(s.neutral_held, "neutral_held", n, 0, tables.neutral_x_keys)
    _ints(s.mechanic, "mechanic", n, 0, len(tables.moves) - 1)
    _ints(s.hacker, "hacker", n, 0, len(tables.hacker_capacity) - 1)
    _rows(s.upgraded, "upgraded", n, D.NUM_DIVERS, 0, 1)
    _rows(s.divers, "divers", n, D.NUM_SLOTS, 0, D.NUM_DIVERS - 1)
    if set(map(frozenset, s.divers)) != _EVERY_DIVER:
        for p in range(n):
            if frozenset(s.divers[p]) != _DIVERS:
                _bad(f"divers[{p}]", "does not hold each of the 8 divers once")
    _rows(s.resources, "resources", n, D.NUM_LEVELS * NC, 0, max(tables.capacity))
    capacity = tables.capacity
    for p, r in enumerate(s.resources):
        held = [r[b] + r[b + 1] + r[b + 2] + r[b + 3] for b in _LEVEL_BASES]
        if any(map(gt, held, capacity)):
            level = next(level for level in range(D.NUM_LEVELS) if held[level] > capacity[level])
            _bad(f"resources[{p}]", f"holds {held[level]} resources on level {level + 1}, "
                 f"whose capacity is {capacity[level]}")
    _rows(s.sponsor_uses, "sponsor_uses", n, D.NUM_SPONSORS, 0, big)
    _rows(s.sponsor_yield, "sponsor_yield", n, D.NUM_SPONSORS * NUM_YIELDS, -big, big)
    _rows(s.pp_by_source, "pp_by_source", n, len(PP_SOURCES), 0, big)
    _ints(s.yield_base, "yield_base", NUM_YIELDS, 0, big)
    _int(s.yield_tile, "yield_tile", -1, D.NUM_SPONSORS - 1)


def _check_components(s, n: int) -> None:
    """Contracts, reward tokens, sponsors and the store."""
    tables = s.tables
    hands = _rows(s.hands, "hands", n, None, 0, tables.num_contracts - 1, most=tables.hand_limit)
    places = [("deck", _ints(s.deck, "deck", None, 0, tables.num_contracts - 1)),
              ("public", _ints(s.public, "public", tables.public, -1, tables.num_contracts - 1)),
              ("discard", _ints(s.discard, "discard", None, 0, tables.num_contracts - 1)),
              ("drawn", _ints(s.drawn, "drawn", None, 0, tables.num_contracts - 1,
                              most=D.DRAW_COUNT))]
    places += [(f"hands[{p}]", hand) for p, hand in enumerate(hands)]
    _once(places, tables.num_contracts, "contract",
          "no deck, public card, discard pile, drawn cards or hand")
    _ints(s.deck_seen, "deck_seen", len(s.deck), 0, (1 << n) - 1)

    token = _int(s.token, "token", -1, tables.num_tokens - 1)
    board_tokens = _rows(s.board_tokens, "board_tokens", n, D.NUM_LEVELS, -1, tables.num_tokens - 1)
    places = [("bag", _ints(s.bag, "bag", None, 0, tables.num_tokens - 1)),
              ("token", [token]),
              ("token_discard",
               _ints(s.token_discard, "token_discard", None, 0, tables.num_tokens - 1)),
              ("display", _ints(s.display, "display", D.NUM_LEVELS * D.DISPLAY_TOKENS, -1,
                                tables.num_tokens - 1))]
    places += [(f"board_tokens[{p}]", row) for p, row in enumerate(board_tokens)]
    _once(places, tables.num_tokens, "reward token",
          "no bag, discard pile, display space, board or play")

    setup = _ints(s.sponsor_setup, "sponsor_setup", D.NUM_SPONSORS, 0, D.NUM_SPONSORS - 1)
    if sorted(setup) != _SPONSOR_TILES:
        _bad("sponsor_setup", "does not hold each sponsor tile once")
    sponsors = _ints(s.sponsors, "sponsors", D.NUM_SPONSORS, 0, D.NUM_SPONSORS - 1)
    if sponsors not in _rotations(tuple(setup)):
        _bad("sponsors", f"= {sponsors} is no rotation of the set-up {setup}")
    sp = s.config.sponsors
    if sp.order and sponsors not in _rotations(tuple(k - 1 for k in sp.order)):
        _bad("sponsors", f"= {sponsors} is no rotation of the configured order")
    adv = _ints(s.advanced, "advanced", D.NUM_SPONSORS, 0, 1)
    if sp.sides != "random":
        sides = [sp.sides] * D.NUM_SPONSORS if isinstance(sp.sides, str) else list(sp.sides)
        if adv != [int(side == "advanced") for side in sides]:
            _bad("advanced", f"= {adv} disagrees with the configured sponsor sides")
    _ints(s.store, "store", NC, 0, D.STORE_ROWS)


def _once(places: list[tuple[str, list[int]]], count: int, what: str, nowhere: str) -> None:
    """Every id 0..count-1 exactly once across ``places`` (-1 marks an empty space)."""
    held = sorted(chain.from_iterable(cards for _, cards in places))
    first = bisect_left(held, 0)
    if held[first:] == list(range(count)):
        return
    where: list[str | None] = [None] * count
    for field, cards in places:
        for c in cards:
            if c >= 0:
                if where[c] is not None:
                    _bad(field, f"holds {what} {c}, which {where[c]} holds too")
                where[c] = field
    _bad(places[0][0], f"lacks {what} {where.index(None)}: it is in {nowhere}")


@functools.cache
def _rotations(tiles: tuple[int, ...]) -> list[list[int]]:
    return [list(tiles[-k:] + tiles[:-k]) for k in range(len(tiles))]


def _check_keys(s, n: int) -> None:
    tables = s.tables
    key = _int(s.key, "key", -1, D.NEUTRAL_X)
    seat = _int(s.seat, "seat", 0, n - 1)
    home = _rows(s.keys_home, "keys_home", n, D.NUM_OWN_KEYS, 0, 1)
    track = _rows(s.hacker_track, "hacker_track", n, None, 0, D.NEUTRAL_X,
                  most=max(tables.hacker_capacity))
    for p in range(n):
        own = [k for k in track[p] if k != D.NEUTRAL_X]
        own += compress(_OWN_KEYS, home[p])
        if p == seat and 0 <= key < D.NEUTRAL_X:
            own.append(key)
        if sorted(own) != _OWN_KEYS:
            k = next(k for k in _OWN_KEYS if own.count(k) != 1)
            _bad(f"hacker_track[{p}]", f"and keys_home[{p}] hold own key {D.KEY_NAMES[k]} "
                 f"{own.count(k)} times, not once")
    neutral = _int(s.neutral_supply, "neutral_supply", 0, tables.neutral_x_keys)
    total = neutral + sum(s.neutral_held) + sum(tr.count(D.NEUTRAL_X) for tr in track)
    total += key == D.NEUTRAL_X
    if total != tables.neutral_x_keys:
        _bad("neutral_supply", f"= {neutral}: the neutral X keys add up to {total}, not "
             f"{tables.neutral_x_keys}")


def _check_turn(s, n: int) -> None:
    tables = s.tables
    seat = s.seat
    for name in ("end_triggered", "over", "capped", "sponsor_used", "free_costs", "token_to_board",
                 "copy_marked"):
        _int(getattr(s, name), name, 0, 1)
    rnd = _int(s.round, "round", 1, tables.round_cap)
    phase = _int(s.phase, "phase", Phase.NONE, NUM_PHASES - 1)
    if s.end_triggered and max(s.pp) < tables.end_pp:
        _bad("end_triggered",
             f"is set, but no seat has the {tables.end_pp} PP that trigger the end")
    if s.over or phase == Phase.NONE:
        if not (s.over and phase == Phase.NONE and s.actor == -1 and seat == n - 1):
            _bad("over", f"= {s.over} with phase {phase}, actor {s.actor}, seat {seat}: a "
                 "finished game has no phase, no actor, and ended on the last seat")
        if not (s.end_triggered or rnd == tables.round_cap) or s.capped != (not s.end_triggered):
            _bad("capped", f"= {s.capped}: a game ends on the PP target or, capped, on the "
                 "round cap")
        return
    if s.capped:
        _bad("capped", "is set before the game's end")
    key = s.key
    level = _int(s.level, "level", -1, D.NUM_LEVELS - 1)
    resume = _int(s.resume_phase, "resume_phase", Phase.KEY, Phase.STEP2)
    uses = _int(s.uses_left, "uses_left", 0, D.DOUBLE_USES)
    token = s.token
    token_slot = _int(s.token_slot, "token_slot", -1, D.NUM_LEVELS * D.DISPLAY_TOKENS - 1)
    copy_seat = _int(s.copy_seat, "copy_seat", -1, n - 1)
    copy_depth = _int(s.copy_depth, "copy_depth", 0, _MAX_COPY_DEPTH)
    copy_gift = _int(s.copy_gift, "copy_gift", 0, max(max(c) for c in D.DIVER_COST))
    contract = _int(s.contract, "contract", -1, tables.num_contracts - 1)
    contract_source = _int(s.contract_source, "contract_source", -1,
                           A.HAND_SOURCE0 + D.MAX_HAND - 1)
    contract_level = _int(s.contract_level, "contract_level", -1, D.NUM_LEVELS - 1)
    picks = _ints(s.colour_picks, "colour_picks", None, 0, NC - 1, most=D.MAX_NUMBERS)
    marks = _ints(s.marks, "marks", None, 0, n - 1, most=2)
    neighbours = neighbour_seats(n, seat)
    if len(set(marks)) != len(marks) or not set(marks) <= set(neighbours):
        _bad("marks", f"= {marks} are not distinct neighbours of seat {seat}")
    if marks and not tables.spy_variant:
        _bad("marks", "are set outside the designer's Spy variant")
    if (copy_gift or s.copy_marked) and not tables.spy_variant:
        _bad("copy_gift", "is set outside the designer's Spy variant")
    if copy_seat >= 0 and copy_seat not in neighbours:
        _bad("copy_seat", f"= {copy_seat} is not a neighbour of seat {seat}")
    if (copy_seat >= 0) != (copy_depth > 0):
        _bad("copy_depth", f"= {copy_depth} with copy_seat {copy_seat}")
    expected_actor = marks[0] if phase == Phase.VARIANT and marks else seat
    if _int(s.actor, "actor", 0, n - 1) != expected_actor:
        _bad("actor", f"= {s.actor}, but seat {expected_actor} decides now")

    # the key: none before it is chosen (and again after the turn, in the variant's
    # decisions), else one of the seat's, on its level
    keyless = (phase == Phase.KEY or phase == Phase.VARIANT
               or (phase == Phase.CONTRACT_COLOUR and resume == Phase.KEY))
    if keyless:
        if key != -1:
            _bad("key", f"= {key} before a key is chosen (phase {phase})")
        if (level == -1) == (phase == Phase.VARIANT):
            _bad("level", f"= {level} in phase {phase}")
    else:
        if key < 0 or level < 0:
            _bad("key" if key < 0 else "level",
                 f"is not set after the key was chosen (phase {phase})")
        if key < D.OWN_X and level != key:
            _bad("level", f"= {level}, but numbered key {D.KEY_NAMES[key]} opens level {key + 1}")
    if phase in MAIN_PHASES:
        if resume != phase:
            _bad("resume_phase", f"= {resume} at main decision {phase}")
        if s.yield_tile != -1:
            _bad("yield_tile", "measures a sponsor's yield back at a main decision")
    elif phase in _SPONSOR_PHASES:
        if resume != Phase.STEP1 or not s.sponsor_used:
            _bad("resume_phase", f"= {resume}: a sponsor's decision returns to step 1")
    elif phase != Phase.CONTRACT_COLOUR and resume == Phase.KEY:
        _bad("resume_phase", f"= {resume}: phase {phase} comes after the key")
    if phase == Phase.KEY:
        if s.sponsor_used or uses or s.free_costs or copy_seat >= 0 or marks:
            _bad("sponsor_used" if s.sponsor_used else "uses_left" if uses
                 else "free_costs" if s.free_costs
                 else "copy_seat" if copy_seat >= 0 else "marks",
                 "is set before the turn's key is chosen")
    if phase == Phase.STEP1 and (not uses or copy_seat >= 0 or marks):
        _bad("uses_left" if not uses else "copy_seat" if copy_seat >= 0 else "marks",
             "is not as step 1 leaves it (the diver unused, nothing copied)")
    if uses == D.DOUBLE_USES:
        tile = s.sponsors[level] if level >= 0 else -1
        if not s.sponsor_used or tile != SPONSOR_DOUBLE_TILE or s.advanced[tile]:
            _bad("uses_left", f"= {uses} without Sponsor #2 basic")
    if s.free_costs and not s.sponsor_used:
        _bad("free_costs", "is set, but no sponsor was used")

    # the token in play
    if token >= 0:
        if _TOKEN_KIND.get(phase) != tables.token_kind[token]:
            _bad("token", f"= {token}, a {D.TOKEN_KINDS[tables.token_kind[token]]} token, "
                 f"in play in phase {phase}")
        emptied = token_slot // D.DISPLAY_TOKENS == level and s.display[token_slot] == -1
        if not s.token_to_board and not emptied:
            _bad("token_slot",
                 f"= {token_slot} is not the emptied display space of level {level + 1}")
    elif phase in (Phase.TOKEN_RESOURCE, Phase.TOKEN_FLIP):
        _bad("token", f"= -1, but phase {phase} resolves a reward token")

    # the contract being completed
    if phase == Phase.CONTRACT_COLOUR:
        if (contract < 0 or contract_level < 0 or contract_source < 0
                or not tables.contract_number[contract]):
            _bad("contract", f"= {contract} is not a specific-number contract being completed")
        if contract_source < A.HAND_SOURCE0:
            held = s.public[contract_source] if contract_source < tables.public else -1
        else:
            hand = s.hands[seat]
            slot = contract_source - A.HAND_SOURCE0
            held = hand[slot] if slot < len(hand) else -1
        if held != contract:
            _bad("contract_source", f"= {contract_source} does not hold contract {contract}")
        needs = tables.contract_needs[contract]
        counts = s.resources[seat][contract_level * NC : contract_level * NC + NC]
        if len(picks) >= len(needs) or len(set(picks)) != len(picks):
            _bad("colour_picks",
                 f"= {picks} are not distinct colours for the first of {list(needs)}")
        for need, c in zip(needs, picks):
            if counts[c] < need:
                _bad("colour_picks", f"= {picks}: level {contract_level + 1} lacks {need} "
                     f"{D.COLOUR_NAMES[c]}")
    elif contract != -1 or contract_source != -1 or contract_level != -1 or picks:
        _bad("contract" if contract != -1 else "contract_source" if contract_source != -1
             else "contract_level" if contract_level != -1 else "colour_picks",
             "is set with no contract being completed")

    # the other sub-decisions: what they need is there
    p = seat
    if (phase == Phase.KEEP) != bool(s.drawn):
        _bad("drawn", f"holds {len(s.drawn)} cards in phase {phase}")
    if phase == Phase.KEEP and len(s.hands[p]) >= tables.hand_limit:
        _bad(f"hands[{p}]", f"is full ({tables.hand_limit}), yet a drawn card must be kept")
    if phase == Phase.COPY:
        if copy_seat < 0:
            _bad("copy_seat", "= -1, but a Spy's copy is pending")
        if resume != Phase.STEP2:
            _bad("resume_phase", f"= {resume}: a Spy's copy returns to step 2")
        if tables.spy_variant and s.credits[copy_seat] < copy_gift:
            _bad("copy_gift", f"= {copy_gift}, more than seat {copy_seat}'s credits to hand back")
        if s.copy_marked and copy_seat not in marks:
            _bad("copy_marked", f"is set, but seat {copy_seat} is not marked")
    if phase == Phase.VARIANT:
        if not marks or not s.batteries[marks[0]]:
            _bad("marks", f"= {marks}: the variant's choice needs a marked seat with a battery")
    if phase == Phase.SPONSOR_FLIP and s.credits[p] < D.SPONSOR_UPGRADE_COST:
        _bad(f"credits[{p}]", f"= {s.credits[p]}: Sponsor #4 costs {D.SPONSOR_UPGRADE_COST}")
    if phase == Phase.TOKEN_RESOURCE and free_space(
            s.tables.capacity[level], s.resources[p][level * D.NUM_COLOURS : (level + 1) * D.NUM_COLOURS]) <= 0:
        _bad(f"resources[{p}]", f"has no room on level {level + 1} for the token's resource")
    legal = s.legal_actions()
    if not legal:
        _bad("phase", f"= {phase} has no legal action for seat {s.actor}")
    if legal != sorted(set(legal)) or legal[0] < 0 or legal[-1] >= A.NUM_ACTIONS:
        _bad("phase", f"has legal actions {legal}, not sorted distinct ids below {A.NUM_ACTIONS}")
