"""The Campaign phase (``RULES.md``, "Campaign phase").

A mixin of :class:`otrio.envs.otontin.rules.State`: the dice bag, rolls of three, priests
set aside and returned, stop or roll again, saboteur theft, the bust, collecting, and
the pool run-out. Plain ints and lists only.
"""

from __future__ import annotations

from .actions import (
    ATTACK_CARD,
    DEFENCE_CARD,
    PRIORITY,
    ROLL,
    STOP,
    priority_side,
    steal_cards,
    steal_id,
    stop_card,
    stop_id,
)
from .data import BEAN, BUST_SABOTEURS, DICE_PER_ROLL, NUM_FACES, PRIEST, SABOTEUR, WARRIOR
from .orders import LEFT, RIGHT, SIDE_STEP

# Pending decisions (what the acting seat must choose now).
ROLL_OR_STOP, CHOOSE_PRIORITY, CHOOSE_STEAL, DECLARE_ORDER, COMMIT_ORDER, NO_DECISION = range(6)
DECISION_NAMES = ("roll_or_stop", "priority", "steal", "declare", "commit", "none")


def payable(rolled, pool_warriors: int, pool_beans: int) -> tuple[int, int]:
    """Warriors and beans the pool pays for a turn's rolled faces (``rolled``, by face):
    what was rolled, or what the pool still holds when it holds less."""
    return min(rolled[WARRIOR], pool_warriors), min(rolled[BEAN], pool_beans)


def theft_takers(armies, roller: int) -> list[int]:
    """The neighbours of ``roller`` who take warriors for its saboteurs: those whose
    armies (``armies``, by seat) are smaller than the roller's, the left one first."""
    n = len(armies)
    sides = [(roller + SIDE_STEP[side]) % n for side in (LEFT, RIGHT)]
    return [s for s in sides if armies[s] < armies[roller]]


def theft_amount(saboteurs: int, army: int) -> int:
    """Warriors one taker takes: the roll's saboteurs, or the payer's whole army."""
    return min(saboteurs, army)


def taken_from(attack: int, defence: int, source: int, amount: int) -> tuple[int, int]:
    """A payer's ``(attack, defence)`` after ``amount`` warriors are taken from its
    ``source`` card (``ATTACK_CARD`` or ``DEFENCE_CARD``), the shortfall from the other."""
    cards = [attack, defence]
    first = min(amount, cards[source])
    cards[source] -= first
    cards[1 - source] -= amount - first
    return cards[0], cards[1]


class Campaign:
    """Campaign-phase behaviour of the rules state (mixed into ``State``)."""

    # ------------------------------------------------------------------ turns
    def begin_turn(self) -> None:
        """Start the campaign turn of the ``turn``-th leader: full bag, first roll."""
        self.active = (self.start + self.turn) % self.n
        self.bag = list(self.kind_counts)
        self.aside = [0] * len(self.kind_counts)
        self.rolled = [0] * NUM_FACES
        self.last_roll = []
        self._roll()  # the first roll of a turn is compulsory

    def can_roll(self) -> bool:
        """Whether dice remain to draw (in the bag, or priests to return)."""
        return any(self.bag) or any(self.aside)

    def payable(self) -> tuple[int, int]:
        """Warriors and beans the pool would pay for this turn's faces now."""
        return payable(self.rolled, self.pool_warriors, self.pool_beans)

    def _campaign_legal(self) -> list[int]:
        """Legal actions of a campaign decision."""
        if self.decision == ROLL_OR_STOP:
            out = [ROLL] if self.can_roll() else []
            out.append(stop_id(ATTACK_CARD))
            if self.payable()[0] > 0:
                out.append(stop_id(DEFENCE_CARD))
            return out
        if self.decision == CHOOSE_PRIORITY:
            return list(PRIORITY)
        payer = self.active
        cards = (self.attack[payer], self.defence[payer])
        return [
            steal_id(src, dst)
            for src in (ATTACK_CARD, DEFENCE_CARD)
            if cards[src] > 0
            for dst in (ATTACK_CARD, DEFENCE_CARD)
        ]

    def _campaign_apply(self, action: int) -> None:
        """Play a campaign action."""
        if action == ROLL:
            self._roll()
        elif action in STOP:
            self._collect(stop_card(action))
        elif action in PRIORITY:
            if priority_side(action) == RIGHT:
                self.takers.reverse()
            self._next_taker(0)
        else:
            self._steal(*steal_cards(action))

    # ------------------------------------------------------------------ dice
    def _draw(self) -> list[list[int]]:
        """Draw up to three dice from the bag and roll them: ``[[kind, face], ...]``
        (two uniform floats a die from the generator: which die, then its face)."""
        bag = self.bag
        remaining = sum(bag)
        count = min(DICE_PER_ROLL, remaining)
        draws = self.rng.random(2 * count).tolist()
        out = []
        for i in range(count):
            pick = int(draws[2 * i] * remaining)
            kind = 0
            while pick >= bag[kind]:
                pick -= bag[kind]
                kind += 1
            bag[kind] -= 1
            remaining -= 1
            faces = self.kinds[kind]
            out.append([kind, faces[int(draws[2 * i + 1] * len(faces))]])
        return out

    def _roll(self) -> None:
        """Roll (returning the priests first if the bag is empty), then saboteurs."""
        if not any(self.bag):
            self.bag, self.aside = self.aside, [0] * len(self.aside)
        roll = self._draw()
        saboteurs = 0
        for kind, face in roll:
            self.rolled[face] += 1
            if face == PRIEST:
                self.aside[kind] += 1
            elif face == SABOTEUR:
                saboteurs += 1
        self.last_roll = roll
        if saboteurs:
            self._start_theft(saboteurs)
        else:
            self._after_roll()

    # -------------------------------------------------------------- saboteurs
    def army(self, seat: int) -> int:
        """A leader's army: all warriors on its Attack and Defence cards."""
        return self.attack[seat] + self.defence[seat]

    def _start_theft(self, k: int) -> None:
        """Neighbours with smaller armies (counted now) each take ``k`` warriors."""
        self.takers = theft_takers([self.army(s) for s in range(self.n)], self.active)
        self.theft = k
        if len(self.takers) == len(SIDE_STEP):  # both neighbours take
            self.decision = CHOOSE_PRIORITY  # the payer orders them (left, right as listed)
        else:
            self._next_taker(0)

    def _next_taker(self, index: int) -> None:
        """Ask the next taker for its choice, or finish the roll."""
        if index < len(self.takers) and self.army(self.active) > 0:
            self.taker = index
            self.decision = CHOOSE_STEAL
        else:
            self._after_roll()

    def _steal(self, source: int, destination: int) -> None:
        """The taker takes its warriors: from ``source`` (shortfall from the other card)."""
        payer, taker = self.active, self.takers[self.taker]
        amount = theft_amount(self.theft, self.army(payer))
        self.attack[payer], self.defence[payer] = taken_from(
            self.attack[payer], self.defence[payer], source, amount
        )
        if destination == ATTACK_CARD:
            self.attack[taker] += amount
        else:
            self.defence[taker] += amount
        self._next_taker(self.taker + 1)

    def _after_roll(self) -> None:
        """After a roll and its theft: bust, forced end, or the roll-or-stop choice."""
        self.takers, self.theft, self.taker = [], 0, 0
        if self.rolled[SABOTEUR] >= BUST_SABOTEURS:
            self.busted[self.active] = True
            self._end_turn()
        elif not self.can_roll() and self.payable()[0] == 0:
            self._collect(ATTACK_CARD)  # nothing left to choose
        else:
            self.decision = ROLL_OR_STOP

    # ------------------------------------------------------------- collecting
    def _collect(self, card: int) -> None:
        """Take the rolled warriors (all to ``card``) and beans from the pool."""
        warriors, beans = self.payable()
        a = self.active
        if card == ATTACK_CARD:
            self.attack[a] += warriors
        else:
            self.defence[a] += warriors
        self.beans[a] += beans
        self.pool_warriors -= warriors
        self.pool_beans -= beans
        if self.pool_warriors == 0 or self.pool_beans == 0:
            self.final_round = True  # the pool is out: straight to Strategy
            self.run_out = True
        self._end_turn()

    def _end_turn(self) -> None:
        """Pass the dice on, or begin the Strategy phase."""
        self.done[self.active] = True
        self.turn += 1
        if self.run_out or self.turn == self.n:
            self.begin_strategy()
        else:
            self.begin_turn()


__all__ = [
    "Campaign", "DECISION_NAMES", "payable", "taken_from", "theft_amount", "theft_takers",
]
