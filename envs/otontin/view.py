"""What one seat may know of an Otontin game: :class:`SeatView`, built by :func:`view`.

A seat knows the whole public table (every leader's warriors, beans and standing, the
pool, the dice of the campaign turn under way, every declaration, who has laid an order,
the last war's orders), the pending decision, the config's public facts, and one secret:
its own order of the round once laid. It never knows another leader's laid order before
the war, nor the dice to come (``hidden.py`` re-draws exactly these).

Rows over leaders are relative, as in the observation: row 0 is the viewer, row ``i``
the leader ``i`` seats to its left (turn order), ``n`` rows in all; a seat's row is
``(seat - viewer) % n``. The observation (``observe.py``) is written from a view
(:func:`~otrio.envs.otontin.observe.write_view`) and :func:`~otrio.envs.otontin.observe.decode` is
its exact inverse: ``decode(observation, config) == view(state, seat)``. Agents read
views (``agents/greedy/otontin.py``), never float offsets.
"""

from __future__ import annotations

from dataclasses import dataclass

from .campaign import payable
from .data import NUM_FACES
from .rules import CAMPAIGN, COMMIT_PHASE, State


@dataclass(frozen=True, slots=True)
class SeatView:
    """Exactly what one seat may know (module docstring); rows relative to the viewer."""

    # the table: one entry per leader (row 0 = the viewer)
    attack: tuple[int, ...]  # warriors on each leader's Attack card
    defence: tuple[int, ...]  # warriors on each leader's Defence card
    beans: tuple[int, ...]  # cocoa beans held
    busted: tuple[bool, ...]  # busted this round (sits out, city impassable)
    campaign_done: tuple[bool, ...]  # has had its campaign turn this round
    starting_leader: int  # the row of this round's Starting Leader
    pool_warriors: int  # warriors left in the pool
    pool_beans: int  # beans left in the pool
    # the round and the pending decision
    round: int
    final_round: bool
    phase: int  # rules.CAMPAIGN, TALK, COMMIT_PHASE or GAME_OVER
    decision: int  # campaign.ROLL_OR_STOP ... COMMIT_ORDER; NO_DECISION once over
    acting: int | None  # the row that takes the pending decision (None once over)
    # the campaign turn under way (None and zeros outside the campaign)
    campaign_leader: int | None  # the row whose campaign turn it is
    bag: tuple[int, ...]  # dice of each colour in the bag
    priests_aside: tuple[int, ...]  # priest dice of each colour set aside
    rolled: tuple[int, ...]  # faces rolled this turn (warrior, bean, priest, saboteur)
    last_roll: tuple[tuple[int, ...], ...]  # the last roll: dice by colour, then face
    theft: int  # saboteurs of the roll being paid for (0: no theft pending)
    takers: tuple[int, ...]  # the rows of the neighbours taking warriors, ascending
    # talk and orders
    declared: tuple[int, ...]  # rules.UNSAID, NO_ORDER (said nothing) or the order
    committed: tuple[bool, ...]  # has laid its secret order this round (commit phase)
    own_order: int  # the viewer's own secret order this round (NO_ORDER: not laid)
    revealed: tuple[int, ...]  # the last war's orders (NO_ORDER: none)
    revealed_age: int | None  # 0: the war of this round, 1: of the previous, else None
    # the config's public facts
    round_cap: int
    bean_target: int
    split_spoils: bool
    dice_counts: tuple[int, ...]  # dice of each colour in the game
    dice_faces: tuple[tuple[int, ...], ...]  # the faces of one die of each colour

    @property
    def num_players(self) -> int:
        """The leaders in the game."""
        return len(self.attack)

    @property
    def payable(self) -> tuple[int, int]:
        """Warriors and beans the pool would pay if the campaign turn stopped now."""
        return payable(self.rolled, self.pool_warriors, self.pool_beans)

    def army(self, row: int) -> int:
        """A leader's army: the warriors on both its cards."""
        return self.attack[row] + self.defence[row]


def _turned(values: list, seat: int) -> tuple:
    """``values`` over seats as rows relative to ``seat``."""
    return tuple(values[seat:] + values[:seat])


def view(state: State, seat: int) -> SeatView:
    """What ``seat`` may know of ``state`` (module docstring)."""
    n = state.n
    config = state.config
    campaign = state.phase == CAMPAIGN
    kinds = len(state.kinds)
    actor = state.current_player()
    if campaign:
        last_roll = [[0] * NUM_FACES for _ in range(kinds)]
        for kind, face in state.last_roll:
            last_roll[kind][face] += 1
        dice = (
            (state.active - seat) % n, tuple(state.bag), tuple(state.aside),
            tuple(state.rolled), tuple(map(tuple, last_roll)),
            state.theft if state.takers else 0,
            tuple(sorted((s - seat) % n for s in state.takers)),
        )  # fmt: skip
    else:
        no_dice = (0,) * kinds
        dice = (None, no_dice, no_dice, (0,) * NUM_FACES, ((0,) * NUM_FACES,) * kinds, 0, ())
    committed = [False] * n
    if state.phase == COMMIT_PHASE:  # who has laid an order, not which
        for s in state.actives[: state.cursor]:
            committed[s] = True
    age = state.round - state.revealed_round
    return SeatView(
        _turned(state.attack, seat), _turned(state.defence, seat), _turned(state.beans, seat),
        _turned(state.busted, seat), _turned(state.done, seat), (state.start - seat) % n,
        state.pool_warriors, state.pool_beans,
        state.round, state.final_round, state.phase, state.decision,
        (actor - seat) % n if actor >= 0 else None,
        *dice,
        _turned(state.declared, seat), _turned(committed, seat), state.committed[seat],
        _turned(state.revealed, seat), age if state.revealed_round and age < 2 else None,
        config.round_cap, config.bean_target, config.split_spoils,
        tuple(state.kind_counts), tuple(state.kinds),
    )  # fmt: skip


__all__ = ["SeatView", "view"]
