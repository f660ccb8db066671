"""What one Oceanos seat may know: :class:`SeatView`, built from the state by :func:`view`.

A seat knows its own hand, its face-down kept cards and the cards it handed on this
turn; everything on the table (every row of cards and diver, every part level, the
counts of fuel, divers, crystals, points and cards of every seat, the decks' and the
bag's sizes, the face-up discards summed); the Kraken tokens turned over; the round,
the turn and the pending decision. Keeps are simultaneous: while they are chosen, the
others' counts are as they were when the choices began (``rules.counts_before_keeps``)
and another's extra keep shows as a plain keep. The config is public too.

Seats are relative, as in the observation: ``players[0]`` is the viewer, then the
others in turn order (to its left). Cards are :class:`~.cards_table.Card`\\ s (what they
show): cards that show the same are alike to every rule, and the observation cannot
tell them apart either.

The observation is this view written as floats (``observe.encode``, which defines
it), and ``observe.decode`` reads a view back from an observation exactly:
``decode(observation(state, seat), config) == view(state, seat)``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

from . import scoring
from .cards_table import Card, CardTable, Pile, pile_of
from .config import Config
from .data import MAX_PLAYERS, MIN_PLAYERS, TURNS_PER_ROUND
from .rules import Decision, State, turn_orders


class TableView(NamedTuple):
    """What lies on the table, the same for every viewer."""

    round: int
    turn: int  # in the round; during the round's end, its last turn's
    num_players: int
    two_player_turn: bool  # the rulebook's two-player turn (no Captain)
    troubled_waters: bool
    kraken: tuple[int | None, ...]  # each size's token (KRAKEN_SIZES); None while face down
    deck: int  # cards left in this round's deck
    discards: Pile  # this round's face-up discard pile
    bag: int  # treasure tokens left in the bag


class PlayerView(NamedTuple):
    """One seat as the viewer sees it (its own seat as it is: its keeps included)."""

    captain: bool
    fuel_ready: int
    fuel_fresh: int  # from a Motor upgrade, usable next turn
    fuel_used: int  # spent this round
    divers_ready: int
    divers_placed: int
    green: int  # unspent crystals
    yellow: int
    score: int
    hand_size: int
    kept_face_down: int
    eyes_this_round: int  # Kraken eyes in this round's row
    animal_kinds: int  # different animals among its cards
    levels: tuple[int, ...]  # each part's level, in PARTS order
    rows: tuple[tuple[Card, ...], ...]  # each round's row of cards, left to right
    divers: tuple[tuple[int, int], ...]  # (round, slot) of each diver placed, sorted


# the PlayerView numbers, the per-seat columns of the observation after ``present``
PLAYER_NUMBERS = PlayerView._fields[: PlayerView._fields.index("levels")]
# the numbers a seat sees truly for itself while keeps are secret (the others see them
# as before its keeps)
OWN_COUNTS = ("hand_size", "kept_face_down", "fuel_ready", "fuel_used")


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know (see the module docstring); plain values only."""

    decision: int | None  # the pending Decision as this seat sees it; None: the game is over
    actor: int | None  # the deciding seat, relative to this one
    hand: tuple[Card, ...]  # slot k = action keep:slotK / discard:slotK
    kept: tuple[Card, ...]  # face down this turn, in the order kept
    passed: tuple[Card, ...]  # handed on this turn
    placing: Card | None  # the card a diver or upgrade decision is about
    table: TableView
    players: tuple[PlayerView, ...]  # relative seats: 0 is this one
    config: Config | None = field(hash=False)  # public; None in a view decoded without it


def view(state: State, seat: int) -> SeatView:
    """What ``seat`` may know of ``state``."""
    n, card = state.num_players, state.table.cards.__getitem__
    decision = actor = placing = None
    if not state.over:
        decision, actor = seen_decision(state, seat), (state.actor - seat) % n
        placed = placing_card(state)
        if placed is not None:
            placing = card(placed)
    seats = list(zip(*player_columns(state, *eyes_and_kinds(state))))  # "present" first
    if state.choosing():
        seats[seat] = (1, *own_numbers(seats[seat][1:], own_counts(state, seat)))
    players = tuple([
        PlayerView._make((*seats[s][1:], tuple(state.levels[s]),
                          tuple([tuple(map(card, row)) for row in state.rows[s]]),
                          tuple(sorted(state.divers[s]))))
        for s in turn_orders(n)[seat]
    ])
    return SeatView(decision, actor, tuple(map(card, state.hands[seat])),
                    tuple(map(card, state.kept[seat])), tuple(map(card, state.passed[seat])),
                    placing, table_view(state), players, state.config)


def seen_decision(state: State, seat: int) -> int:
    """The pending decision as ``seat`` sees it: how many cards another player keeps is
    secret, so another's extra keep shows as a plain keep."""
    if state.decision == Decision.KEEP_MORE and state.actor != seat:
        return Decision.KEEP
    return state.decision


_PLACED = (Decision.DIVER, Decision.UPGRADE)  # decisions about the card being placed


def placing_card(state: State) -> int | None:
    """The card the pending diver or upgrade decision is about (None: no such decision)."""
    if state.placing and state.decision in _PLACED:
        return state.placing[0][1]
    return None


def table_view(state: State) -> TableView:
    """The :class:`TableView` of ``state``: a Kraken token is turned over when its round
    is scored (all of them once the game is over, or from the start when fixed)."""
    rnd = state.round
    known = state.over or state.config.kraken.mode == "fixed"
    kraken = tuple(value if known or size < rnd else None
                   for size, value in enumerate(state.kraken))
    return TableView(rnd, min(state.turn, TURNS_PER_ROUND - 1), state.num_players,
                     not state.captain_mode, state.config.troubled_waters, kraken,
                     len(state.decks[rnd]), _pile(state.table, tuple(state.discards[rnd])),
                     len(state.bag))


@functools.lru_cache(maxsize=1024)
def _pile(table: CardTable, ids: tuple[int, ...]) -> Pile:
    """The :class:`Pile` of these cards of ``table`` (a pile changes once a turn at most,
    and a view is built at every decision)."""
    return pile_of(map(table.cards.__getitem__, ids))


def table_key(state: State) -> tuple:
    """Every state value :func:`table_view` reads that can change in play."""
    rnd = state.round
    return (rnd, state.turn, state.over, len(state.decks[rnd]), tuple(state.discards[rnd]),
            len(state.bag), *state.kraken)


def eyes_and_kinds(state: State) -> tuple[list[int], list[int]]:
    """Each seat's Kraken eyes in this round's row and animal kinds collected."""
    table, rnd = state.table, state.round
    return ([scoring.row_eyes(rows[rnd], table) for rows in state.rows],
            [len(scoring.animals_collected(rows, table)) for rows in state.rows])


def player_columns(state: State, eyes: list[int], kinds: list[int]) -> list[list]:
    """``present`` and each of :data:`PLAYER_NUMBERS` as a list over the seats in
    absolute order, as the other players see them; ``eyes`` and ``kinds`` are each
    seat's eyes in this round's row and animal kinds collected (:func:`eyes_and_kinds`;
    the cached writer keeps its own count of them)."""
    n = state.num_players
    hands, kept, ready, used = state.public_counts()
    return [
        _PRESENT[n], _CAPTAINS[n][state.captain if state.captain_mode else -1], ready,
        state.fuel_fresh, used,
        state.divers_ready, list(map(len, state.divers)), state.green, state.yellow,
        state.score, hands, kept, eyes, kinds,
    ]  # fmt: skip


def own_counts(state: State, seat: int) -> tuple[int, int, int, int]:
    """``seat``'s true :data:`OWN_COUNTS`, which only it knows while keeps are secret."""
    return (len(state.hands[seat]), len(state.kept[seat]), state.fuel_ready[seat],
            state.fuel_used[seat])


_OWN_AT = [PLAYER_NUMBERS.index(name) for name in OWN_COUNTS]


def own_numbers(numbers, counts) -> tuple:
    """A seat's :data:`PLAYER_NUMBERS` with its own true ``counts`` (:func:`own_counts`)
    put over the ones the others see."""
    numbers = list(numbers)
    for at, value in zip(_OWN_AT, counts):
        numbers[at] = value
    return tuple(numbers)


# the ``present`` column, and the ``captain`` column by Captain seat (index -1: none,
# a two-player-turn game), by player count; shared, read-only
_PRESENT = {n: [1] * n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
_CAPTAINS = {n: [[p == c for p in range(n)] for c in range(n)] + [[False] * n]
             for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
