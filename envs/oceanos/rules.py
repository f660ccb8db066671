"""Oceanos rules: state, legal actions, apply, scoring. No gym, no spaces.

Read beside ``RULES.md`` (the rules as implemented).

A turn is cut into single decisions (``Decision``):

* Captain turn (3-5 players, or 2 with ``two_player_variant=False``): every
  non-Captain, in order from the Captain's left, keeps cards (``KEEP``, then
  ``KEEP_MORE`` while it has unspent fuel); the kept cards stay face down until all
  have chosen. The remainders go to the Captain (Troubled Waters: one random card of
  each, the rest under the deck). The non-Captains then place their cards in the
  order kept (``DIVER`` on a chest, ``UPGRADE`` on a base). The Captain tops up to
  periscopes + 1, keeps, discards the rest face up and places.
* Two-player turn: both draw up to periscopes + 1, keep (hidden), place, may put one
  card under the deck (``DISCARD``) and hand the rest to the opponent.
* End of round: each player may upgrade with the Player Aid (``AID_UPGRADE``), then
  the round is scored and spent fuel returns.

The engine drives itself through the automatic steps in :meth:`State._run`, which
stops at the next decision. Everything is plain ints and lists.
"""

from __future__ import annotations

import functools
from enum import IntEnum
from itertools import compress

import numpy as np

from otrio.envs.core.game import TERMINAL
from otrio.envs.core.schema import (
    BOOL,
    INT,
    EnumOf,
    ListOf,
    OneOf,
    SavedState,
    StateSchema,
    TupleOf,
)

from . import scoring
from .actions import (
    DISCARD,
    DISCARD_NONE,
    DIVER_PLACE,
    DIVER_SKIP,
    KEEP,
    STOP,
    UPGRADE_SKIP,
    discard_slot,
    keep_slot,
    upgrade_id,
    upgrade_part,
)
from .cards_table import card_table
from .config import Config
from .data import (
    AIRLOCK,
    AIRLOCK_DIVERS,
    AQUARIUM,
    COCKPIT,
    COCKPIT_PERISCOPES,
    GREEN,
    KRAKEN_SIZES,
    MOTOR,
    MOTOR_FUEL,
    NUM_ROUNDS,
    PARTS,
    PROPELLER,
    TURNS_PER_ROUND,
    YELLOW,
)


class Decision(IntEnum):
    """The kinds of pending decision (the observation one-hots this)."""

    KEEP = 0  # keep the first card of the turn
    KEEP_MORE = 1  # keep another card with a Fuel token, or stop
    DIVER = 2  # put a Scuba Diver on the chest just placed, or not
    UPGRADE = 3  # upgrade a part with the base just placed, or not
    AID_UPGRADE = 4  # upgrade with the Player Aid at the end of a round, or not
    DISCARD = 5  # two-player turn: put one card under the deck, or not


# members as module globals: random Oceanos games use 8-17% less engine CPU than Decision.X
_KEEP, _KEEP_MORE, _DIVER = Decision.KEEP, Decision.KEEP_MORE, Decision.DIVER
_UPGRADE, _AID_UPGRADE, _DISCARD = Decision.UPGRADE, Decision.AID_UPGRADE, Decision.DISCARD


# legal ids by hand size, built once: random games use 3-8% less engine CPU than range slices
_KEEP_IDS = [list(KEEP[:k]) for k in range(len(KEEP) + 1)]
_KEEP_MORE_IDS = [ids + [STOP] for ids in _KEEP_IDS]
_DISCARD_IDS = [list(DISCARD[:k]) + [DISCARD_NONE] for k in range(len(DISCARD) + 1)]

# The steps of one turn; the engine walks them in order (see State._run).
CAPTAIN_TURN = ("deal", "choose", "collect", "place", "captain_draw", "choose", "captain_discard",
                "place", "end_turn")
DUO_TURN = ("draw_both", "choose", "place", "discard", "swap", "end_turn")
ROUND_END = ("aid", "score_round")

# point categories tracked per player, for reports and balance analysis
POINT_KINDS = ("animals", "propeller", "kraken", "coral", "treasure")
ANIMALS_PTS, PROPELLER_PTS, KRAKEN_PTS, CORAL_PTS, TREASURE_PTS = range(len(POINT_KINDS))

# The sub-steps of placing one kept card; ``placing`` holds ``[seat, card, sub-step]``
# for each card still to place, in order. The card goes to the end of this round's row
# (PLACE_ROW), then waits for its diver decision (PLACE_DIVER: a chest and a diver ready),
# then for its upgrade decision (PLACE_UPGRADE: a base and an upgrade to buy); once both
# are taken it is done (PLACE_DONE) and leaves the list.
PLACE_ROW, PLACE_DIVER, PLACE_UPGRADE, PLACE_DONE = range(4)

_CARDS = ListOf(INT)  # card ids in order
_PER_SEAT = ListOf(INT)  # one count a seat
_CARDS_PER_SEAT = ListOf(_CARDS)
# What a State holds, saved and cloned from this one declaration (otrio.envs.core.schema).
SCHEMA = StateSchema(
    "Oceanos", Config,
    shared=("config", "table", "num_players", "captain_mode"),  # from the config
    fields={
        "round": INT, "turn": INT, "captain": INT,
        "decks": ListOf(_CARDS), "discards": ListOf(_CARDS),  # by round
        "kraken": ListOf(INT), "bag": ListOf(INT),
        "hands": _CARDS_PER_SEAT, "kept": _CARDS_PER_SEAT, "passed": _CARDS_PER_SEAT,
        "rows": ListOf(ListOf(_CARDS)),  # [seat][round]
        "divers": ListOf(ListOf(TupleOf(INT, 2))),  # [seat]: (round, slot) of each diver
        "levels": ListOf(ListOf(INT)),  # [seat][part]
        "fuel_ready": _PER_SEAT, "fuel_fresh": _PER_SEAT, "fuel_used": _PER_SEAT,
        "divers_ready": _PER_SEAT, "divers_fresh": _PER_SEAT,
        "green": _PER_SEAT, "yellow": _PER_SEAT, "score": _PER_SEAT,
        "points": ListOf(ListOf(INT)),  # [seat][POINT_KINDS]
        "treasure_values": ListOf(ListOf(INT)),
        "program": OneOf({"captain": CAPTAIN_TURN, "duo": DUO_TURN, "round_end": ROUND_END}),
        "pc": INT,
        "queue": ListOf(INT),
        "placing": ListOf(ListOf(INT)),  # [seat, card, sub-step (PLACE_*)] left to place
        "decision": EnumOf(Decision), "actor": INT, "over": BOOL,
    },
)


class State(SavedState):
    """One game of Oceanos. Seats are 0..n-1; seat i+1 sits to the left of seat i."""

    schema = SCHEMA  # to_dict, from_dict and clone

    def __init__(self, config: Config, rng: np.random.Generator, *, setup: bool = True):
        """A game after setup; with ``setup=False`` only what the config gives (the
        schema's shared part), for ``from_dict`` to fill in."""
        self.config = config
        self.table = card_table(config.cards)
        self.num_players = n = config.num_players
        self.captain_mode = config.captain_mode
        self.rng = rng
        if not setup:
            return
        self.round = 0
        self.turn = 0
        self.captain = 0  # seat 0 is the first Captain and it passes left each turn
        self.decks = [list(ids) for ids in self.table.round_ids]
        for deck in self.decks:
            rng.shuffle(deck)
        self.discards: list[list[int]] = [[] for _ in range(NUM_ROUNDS)]
        self.kraken = self._draw_kraken()
        self.bag = list(config.treasure_tokens)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.kept: list[list[int]] = [[] for _ in range(n)]  # face down, this turn
        self.passed: list[list[int]] = [[] for _ in range(n)]  # handed on this turn
        self.rows: list[list[list[int]]] = [[[] for _ in range(NUM_ROUNDS)] for _ in range(n)]
        self.divers: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.levels = [[1] * len(PARTS) for _ in range(n)]
        self.fuel_ready = [MOTOR_FUEL[0]] * n  # usable now
        self.fuel_fresh = [0] * n  # from a Motor upgrade, usable next turn
        self.fuel_used = [0] * n  # spent this round
        self.divers_ready = [AIRLOCK_DIVERS[0]] * n
        self.divers_fresh = [0] * n
        self.green = [0] * n  # unspent crystals
        self.yellow = [0] * n
        self.score = [0] * n
        self.points = [[0] * len(POINT_KINDS) for _ in range(n)]
        self.treasure_values: list[list[int]] = [[] for _ in range(n)]
        self.program: tuple[str, ...] = ()
        self.pc = -1  # index into program of the step in progress
        self.queue: list[int] = []  # seats still to decide in the current step
        self.placing: list[list[int]] = []  # [seat, card, sub-step (PLACE_*)] left to place
        self.decision: int = _KEEP
        self.actor: int = 0
        self.over = False
        self._begin_turn()
        self._run()

    # ------------------------------------------------------------- set-up
    def _draw_kraken(self) -> list[int]:
        setup = self.config.kraken
        if setup.mode == "fixed":
            return list(setup.values)
        pools = self.config.kraken_tokens
        return [int(self.rng.choice(getattr(pools, size))) for size in KRAKEN_SIZES]

    # ------------------------------------------------------------ queries
    def current_player(self) -> int:
        """The seat to decide, or TERMINAL."""
        return TERMINAL if self.over else self.actor

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        return list(self.score)

    def choosing(self) -> bool:
        """True while keep choices are being made: they stay face down, and how many
        cards each player kept is secret, until all have chosen."""
        return not self.over and (self.decision == _KEEP or self.decision == _KEEP_MORE)

    def public_counts(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """Every seat's hand size, face-down kept cards, ready fuel and spent fuel as the
        other players see them: while keeps are secret (:meth:`choosing`), as they were
        when the choices began (:func:`counts_before_keeps`)."""
        hands, kept = list(map(len, self.hands)), list(map(len, self.kept))
        ready, used = list(self.fuel_ready), list(self.fuel_used)
        if self.choosing():
            for s in compress(range(self.num_players), kept):  # the seats that kept
                hands[s], kept[s], ready[s], used[s] = counts_before_keeps(
                    hands[s], kept[s], ready[s], used[s])
        return hands, kept, ready, used

    def periscopes(self, seat: int) -> int:
        return COCKPIT_PERISCOPES[self.levels[seat][COCKPIT] - 1]

    def upgrade_options(self, seat: int) -> list[int]:
        """Parts that ``seat`` may upgrade now (:func:`upgrade_options`)."""
        return upgrade_options(self.levels[seat], self.green[seat], self.yellow[seat])

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        d, seat = self.decision, self.actor
        if d == _KEEP:
            return _KEEP_IDS[len(self.hands[seat])][:]
        if d == _KEEP_MORE:
            return _KEEP_MORE_IDS[len(self.hands[seat])][:]
        if d == _DIVER:
            return [DIVER_PLACE, DIVER_SKIP]
        if d == _DISCARD:
            return _DISCARD_IDS[len(self.hands[seat])][:]
        return [upgrade_id(p) for p in self.upgrade_options(seat)] + [UPGRADE_SKIP]

    def winners(self) -> list[int]:
        """Most stars; tie: most crystals in submarine upgrades; else shared."""
        best = max(self.score)
        tied = [s for s in range(self.num_players) if self.score[s] == best]
        crystals = {s: sum(self.levels[s]) for s in tied}
        most = max(crystals.values())
        return [s for s in tied if crystals[s] == most]

    def row_eyes(self, seat: int) -> int:
        return scoring.row_eyes(self.rows[seat][self.round], self.table)

    # ------------------------------------------------------------- acting
    def apply_action(self, action: int) -> None:
        """Play one legal action of the pending decision, then run to the next one."""
        d, seat = self.decision, self.actor
        if d == _KEEP or d == _KEEP_MORE:
            if action == STOP:
                self.queue.pop(0)
            else:
                if d == _KEEP_MORE:
                    self.fuel_ready[seat] -= 1
                    self.fuel_used[seat] += 1
                self.kept[seat].append(self.hands[seat].pop(keep_slot(action)))
        elif d == _DIVER:
            if action == DIVER_PLACE:
                self.divers_ready[seat] -= 1
                row = self.rows[seat][self.round]
                self.divers[seat].append((self.round, len(row) - 1))
            self.placing[0][2] = PLACE_UPGRADE
        elif d == _DISCARD:
            if action != DISCARD_NONE:
                card = self.hands[seat].pop(discard_slot(action))
                self.decks[self.round].insert(0, card)  # under the deck
            self.queue.pop(0)
        else:  # UPGRADE or AID_UPGRADE
            if action != UPGRADE_SKIP:
                self._upgrade(seat, upgrade_part(action))
            if d == _UPGRADE:
                self.placing[0][2] = PLACE_DONE
            else:
                self.queue.pop(0)
        self._run()

    def _upgrade(self, seat: int, part: int) -> None:
        self.levels[seat][part] += 1
        self.green[seat] = self.yellow[seat] = 0
        if part == MOTOR:
            self.fuel_fresh[seat] += 1
        elif part == AIRLOCK:
            self.divers_fresh[seat] += 1

    # ------------------------------------------------------------ engine
    def _run(self) -> None:
        """Advance through automatic steps until a decision is pending or the game ends."""
        while not self.over:
            pending = _PENDING.get(self.program[self.pc])
            if pending is not None and pending(self):
                return
            self.pc += 1
            if self.pc == len(self.program):
                self._end_of_program()
            else:
                _ENTER[self.program[self.pc]](self)

    def _end_of_program(self) -> None:
        if self.program is ROUND_END:
            if self.round == NUM_ROUNDS - 1:
                self._end_game()
                return
            self.round += 1
            self.turn = 0
        self._begin_turn()

    def _begin_turn(self) -> None:
        self.program = CAPTAIN_TURN if self.captain_mode else DUO_TURN
        self.pc = 0
        _ENTER[self.program[0]](self)

    def _turn_order(self, first: int) -> tuple[int, ...]:
        """Every seat once, in turn order from ``first`` (shared, read-only)."""
        return turn_orders(self.num_players)[first % self.num_players]

    # The automatic part of each step of a turn (see CAPTAIN_TURN, DUO_TURN, ROUND_END);
    # each sets up the queue of the decisions that follow.
    def _step_deal(self) -> None:
        self.passed = [[] for _ in range(self.num_players)]
        others = self._turn_order(self.captain + 1)[:-1]
        for seat in others:
            self._draw_to(seat, self.periscopes(seat) + 1)
        self.queue = [s for s in others if self.hands[s]]

    def _step_draw_both(self) -> None:
        order = self._turn_order(self.captain)
        for seat in order:
            self._draw_to(seat, self.periscopes(seat) + 1)
        self.queue = [s for s in order if self.hands[s]]

    def _step_choose(self) -> None:
        pass  # the queue was set by the step before

    def _step_place(self) -> None:
        cap = self.captain
        if self.program[self.pc - 1] == "captain_discard":
            seats = [cap]
        elif self.captain_mode:
            seats = self._turn_order(cap + 1)[:-1]
        else:
            seats = self._turn_order(cap)
        self.placing = [[s, c, PLACE_ROW] for s in seats for c in self.kept[s]]
        for s in seats:
            self.kept[s] = []

    def _step_captain_draw(self) -> None:
        cap = self.captain
        self._draw_to(cap, self.periscopes(cap) + 1)
        self.queue = [cap] if self.hands[cap] else []

    def _step_captain_discard(self) -> None:
        self.discards[self.round].extend(self.hands[self.captain])
        self.hands[self.captain] = []

    def _step_discard(self) -> None:
        self.queue = [s for s in self._turn_order(self.captain) if self.hands[s]]

    def _step_swap(self) -> None:
        self.hands = [self.hands[1], self.hands[0]]
        self.passed = [list(self.hands[1]), list(self.hands[0])]

    def _step_aid(self) -> None:
        self.queue = list(self._turn_order(self.captain))

    def _draw(self) -> int | None:
        """Top card of this round's deck, reshuffling the discards if it ran out."""
        deck = self.decks[self.round]
        if not deck:
            discards = self.discards[self.round]
            if not discards:
                return None
            deck.extend(discards)
            discards.clear()
            self.rng.shuffle(deck)
        return deck.pop()

    def _draw_to(self, seat: int, size: int) -> None:
        hand = self.hands[seat]
        while len(hand) < size:
            card = self._draw()
            if card is None:
                break
            hand.append(card)
        hand.sort()

    def _collect_for_captain(self) -> None:
        cap = self.captain
        received = []
        for seat in self._turn_order(cap + 1)[:-1]:
            rest = self.hands[seat]
            self.passed[seat] = list(rest)
            self.hands[seat] = []
            if not rest:
                continue
            if self.config.troubled_waters:
                taken = rest.pop(int(self.rng.integers(len(rest))))
                received.append(taken)
                self.decks[self.round][:0] = rest  # the rest go under the deck
            else:
                received.extend(rest)
        self.hands[cap] = sorted(received)

    def _pending_choice(self) -> bool:
        while self.queue:
            seat = self.queue[0]
            if not self.kept[seat]:
                if self.hands[seat]:
                    self.decision, self.actor = _KEEP, seat
                    return True
            elif self.hands[seat] and self.fuel_ready[seat] > 0:
                self.decision, self.actor = _KEEP_MORE, seat
                return True
            self.queue.pop(0)
        return False

    def _pending_placement(self) -> bool:
        table = self.table
        while self.placing:
            item = self.placing[0]
            seat, card, sub = item
            if sub == PLACE_ROW:  # put the card at the end of this round's row
                self.rows[seat][self.round].append(card)
                if table.crystal[card] == GREEN:
                    self.green[seat] += 1
                elif table.crystal[card] == YELLOW:
                    self.yellow[seat] += 1
                item[2] = sub = PLACE_DIVER
            if sub == PLACE_DIVER:
                if table.chest[card] and self.divers_ready[seat] > 0:
                    self.decision, self.actor = _DIVER, seat
                    return True
                item[2] = sub = PLACE_UPGRADE
            if sub == PLACE_UPGRADE:
                if table.base[card] and self.upgrade_options(seat):
                    self.decision, self.actor = _UPGRADE, seat
                    return True
            self.placing.pop(0)
        return False

    def _pending_discard(self) -> bool:
        while self.queue:
            seat = self.queue[0]
            if self.hands[seat]:
                self.decision, self.actor = _DISCARD, seat
                return True
            self.queue.pop(0)
        return False

    def _pending_aid(self) -> bool:
        while self.queue:
            seat = self.queue[0]
            if self.upgrade_options(seat):
                self.decision, self.actor = _AID_UPGRADE, seat
                return True
            self.queue.pop(0)
        return False

    def _end_turn(self) -> None:
        for s in range(self.num_players):
            self.fuel_ready[s] += self.fuel_fresh[s]
            self.fuel_fresh[s] = 0
            self.divers_ready[s] += self.divers_fresh[s]
            self.divers_fresh[s] = 0
        self.turn += 1
        if self.turn == TURNS_PER_ROUND:
            # the Captain of the last turn stays the reference for the aid order
            for s in range(self.num_players):
                self.discards[self.round].extend(self.hands[s])
                self.hands[s] = []
            self.program = ROUND_END
            self.pc = 0
            _ENTER[ROUND_END[0]](self)
            return
        self.captain = (self.captain + 1) % self.num_players

    def _score_round(self) -> None:
        table, r = self.table, self.round
        eyes = []
        for s in range(self.num_players):
            levels = self.levels[s]
            animals = scoring.animal_stars(self.rows[s], levels[AQUARIUM], table)
            propeller = scoring.propeller_stars(levels[PROPELLER])
            self.points[s][ANIMALS_PTS] += animals
            self.points[s][PROPELLER_PTS] += propeller
            self.score[s] += animals + propeller
            eyes.append(scoring.row_eyes(self.rows[s][r], table))
        for s in scoring.kraken_losers(eyes):
            self.points[s][KRAKEN_PTS] += self.kraken[r]
            self.score[s] += self.kraken[r]
        for s in range(self.num_players):  # spent fuel returns
            self.fuel_ready[s] = MOTOR_FUEL[self.levels[s][MOTOR] - 1]
            self.fuel_fresh[s] = 0
            self.fuel_used[s] = 0
            self.divers_ready[s] += self.divers_fresh[s]
            self.divers_fresh[s] = 0
        if r < NUM_ROUNDS - 1:
            self.captain = (self.captain + 1) % self.num_players

    def _end_game(self) -> None:
        table = self.table
        for s in range(self.num_players):
            reef = scoring.biggest_reef(self.rows[s], table)
            self.points[s][CORAL_PTS] += reef
            self.score[s] += reef
        # treasures drawn in turn order from the Captain of the last turn
        for s in self._turn_order(self.captain):
            for _ in range(scoring.chests_collected(self.rows[s], self.divers[s], table)):
                if not self.bag:
                    break
                value = self.bag.pop(int(self.rng.integers(len(self.bag))))
                self.treasure_values[s].append(value)
                self.points[s][TREASURE_PTS] += value
                self.score[s] += value
        self.over = True
        self.queue = []


# step name -> its automatic part, and -> the check for a pending decision
_ENTER = {
    "deal": State._step_deal,
    "draw_both": State._step_draw_both,
    "choose": State._step_choose,
    "collect": State._collect_for_captain,
    "place": State._step_place,
    "captain_draw": State._step_captain_draw,
    "captain_discard": State._step_captain_discard,
    "discard": State._step_discard,
    "swap": State._step_swap,
    "end_turn": State._end_turn,
    "aid": State._step_aid,
    "score_round": State._score_round,
}
_PENDING = {
    "choose": State._pending_choice,
    "place": State._pending_placement,
    "discard": State._pending_discard,
    "aid": State._pending_aid,
}
assert set(CAPTAIN_TURN + DUO_TURN + ROUND_END) == set(_ENTER)
DECISION_STEPS = frozenset(_PENDING)  # the steps of a turn that wait for decisions


def find_decision(state: State) -> bool:
    """Whether the step in progress (one of ``DECISION_STEPS``) waits for a decision,
    found as the engine finds it: it sets ``state.decision`` and ``state.actor`` (and
    drops the seats and cards it has done with). The checker runs it on a clone."""
    return _PENDING[state.program[state.pc]](state)


def counts_before_keeps(hand: int, kept: int, ready: int, used: int) -> tuple[int, int, int, int]:
    """A seat's hand size, face-down kept cards, ready fuel and spent fuel as they were
    when this step's keep choices began, from what they are now: what the other players
    see of it while the keeps are secret. Its keeps go back to its hand, and every card
    kept after the first gives back the Fuel token it spent."""
    if not kept:
        return hand, kept, ready, used
    extra = kept - 1
    return hand + kept, 0, ready + extra, used - extra


def upgrade_options(levels: list[int], green: int, yellow: int) -> list[int]:
    """Parts a seat with these part ``levels`` and unspent crystals may upgrade.

    One colour: a level-1 part to 2. Both colours: a level-2 part to 3; only when no
    part is at level 2, a level-1 part to 2. Never 1 -> 3.
    """
    if not green and not yellow:
        return []
    if green and yellow:
        twos = [p for p, lv in enumerate(levels) if lv == 2]
        if twos:
            return twos
    return [p for p, lv in enumerate(levels) if lv == 1]


@functools.cache
def turn_orders(n: int) -> list[tuple[int, ...]]:
    """Each seat's turn order of ``n`` players: every seat once from it, to the left."""
    return [tuple((first + k) % n for k in range(n)) for first in range(n)]
