"""What every Otontin position the rules can reach satisfies: one checker for loads and tests.

:func:`check_invariants` raises :class:`~otrio.envs.core.errors.StateError` naming the first
field that breaks a rule. ``Game.state_from_dict`` runs it on every load (after the
schema has checked the shape and types), so a saved state is checked for meaning and
not only for shape, and the random-game tests run it after every decision, so that
these rules have one copy. No step of the engine calls it, and the rules do not import
it: it reads the state and the rules' public functions.

What it checks:

* types and ranges: every list as long as the player count (or the dice kinds, or the
  faces), flags true/false, counts integers, nothing negative, seats 0..n-1, orders
  and declarations known ids, the round within the cap, phase and decision known;
* tokens: warriors on the cards plus the pool are the game's warriors, beans held plus
  the pool its beans; no colour has more dice in the bag and aside than it has;
  the faces rolled this turn account for the dice that left the bag;
* the round's course: the Starting Leader is the round's, the leaders who had their
  campaign turn are exactly the ones before the turn in play, only they may be busted;
  the strategy phase's leaders are the non-busted ones in turn order, those before the
  cursor have spoken (or laid their order) and no one after; the last war was the
  previous round's; a finished game ended on its final round or the round cap;
* the pending decision: it belongs to the phase, the seat to act is a valid one (the
  campaign leader, a neighbour taking warriors, the leader at the cursor), a theft is
  for the saboteurs of the last roll, and some action is legal unless the game is over.
"""

from __future__ import annotations

import math

from otrio.envs.core.fields import FieldChecks
from otrio.envs.core.fields import show as _show

from .actions import NUM_ACTIONS
from .campaign import (
    CHOOSE_PRIORITY,
    CHOOSE_STEAL,
    COMMIT_ORDER,
    DECISION_NAMES,
    DECLARE_ORDER,
    NO_DECISION,
    ROLL_OR_STOP,
)
from .data import (
    BUST_SABOTEURS,
    DICE_PER_ROLL,
    LOADED_COUNT_MAX,
    NUM_FACES,
    POOL_BY_PLAYERS,
    PRIEST,
    SABOTEUR,
)
from .orders import LEFT, NO_ORDER, NUM_ORDERS, RIGHT, SIDE_STEP
from .rules import CAMPAIGN, COMMIT_PHASE, GAME_OVER, PHASE_NAMES, TALK, UNSAID, State

_CHECKS = FieldChecks("Otontin")
_bad, _int, _list, _ints, _flag = _CHECKS.bad, _CHECKS.int, _CHECKS.list, _CHECKS.ints, _CHECKS.flag

_BIG = LOADED_COUNT_MAX  # a loaded count the rules leave open stays below this
_PHASE_DECISIONS = {
    CAMPAIGN: (ROLL_OR_STOP, CHOOSE_PRIORITY, CHOOSE_STEAL),
    TALK: (DECLARE_ORDER,),
    COMMIT_PHASE: (COMMIT_ORDER,),
    GAME_OVER: (NO_DECISION,),
}


def _dice(value, field: str, kinds: list, most: int) -> list:
    """A roll: up to ``most`` ``[kind, face]`` pairs, each face one of its die's."""
    for i, die in enumerate(_list(value, field, most=most)):
        where = f"{field}[{i}]"
        if not isinstance(die, list) or len(die) != 2:
            _bad(where, f"= {_show(die)} is not [kind, face]")
        kind = _int(die[0], f"{where}[0]", 0, len(kinds) - 1)
        if _int(die[1], f"{where}[1]", 0, NUM_FACES - 1) not in kinds[kind]:
            _bad(where, f"shows face {die[1]}, which a die of kind {kind} does not have")
    return value


def check_invariants(st: State, loaded: bool = False) -> None:
    """Raise StateError naming the field if ``st`` breaks a rule of reachable positions.

    ``loaded`` (a state being loaded) also bounds the one count the rules leave open,
    the priests rolled in a turn (a turn may roll priests for ever, however unlikely),
    by ``_BIG``: play may pass any such bound, so it is no invariant of play."""
    n, config = st.n, st.config
    rnd = _int(st.round, "round", 1, config.round_cap)
    if _int(st.start, "start", 0, n - 1) != (rnd - 1) % n:
        _bad("start", f"= {st.start}, but round {rnd}'s Starting Leader is {(rnd - 1) % n}")
    phase = _int(st.phase, "phase", 0, len(PHASE_NAMES) - 1)
    decision = _int(st.decision, "decision", 0, len(DECISION_NAMES) - 1)
    if decision not in _PHASE_DECISIONS[phase]:
        _bad("decision", f"= {DECISION_NAMES[decision]} is no decision of the "
             f"{PHASE_NAMES[phase]} phase")
    final_round, run_out = _flag(st.final_round, "final_round"), _flag(st.run_out, "run_out")
    capped = _flag(st.capped, "capped")
    if run_out and not final_round:
        _bad("run_out", "is true, but final_round is not (a pool run-out makes the round final)")
    if phase == GAME_OVER:
        if not (final_round or rnd == config.round_cap):
            _bad("phase", f"is over in round {rnd}, neither the final round nor the cap")
        if capped != (not final_round):
            _bad("capped", f"= {capped}: a game that ends on the cap, not a final round, is capped")
    elif capped:
        _bad("capped", "is true before the game is over")
    _check_tokens(st, n, config, phase, run_out)
    _check_round(st, n, rnd, phase)
    _check_dice(st, phase, decision, _BIG if loaded else math.inf)
    if phase != GAME_OVER:
        _check_pending(st, n, decision)


def _check_tokens(st, n: int, config, phase: int, run_out: bool) -> None:
    warriors = config.pool_warriors or POOL_BY_PLAYERS[n]
    beans = config.pool_beans or POOL_BY_PLAYERS[n]
    _ints(st.attack, "attack", n, 0, warriors)
    _ints(st.defence, "defence", n, 0, warriors)
    _ints(st.beans, "beans", n, 0, beans)
    pool_warriors = _int(st.pool_warriors, "pool_warriors", 0, warriors)
    pool_beans = _int(st.pool_beans, "pool_beans", 0, beans)
    if sum(st.attack) + sum(st.defence) + pool_warriors != warriors:
        _bad("pool_warriors", f"= {pool_warriors}: warriors on the cards plus the pool must be {warriors}")
    if sum(st.beans) + pool_beans != beans:
        _bad("pool_beans", f"= {pool_beans}: beans held plus the pool must be {beans}")
    if phase == CAMPAIGN and run_out:
        _bad("run_out", "says the pool ran out, but the campaign goes on")
    if (not pool_warriors or not pool_beans) and not run_out:  # only a collection empties the pool
        _bad("pool_warriors" if not pool_warriors else "pool_beans", "is empty, but run_out is not set")


def _check_round(st, n: int, rnd: int, phase: int) -> None:
    busted = _list(st.busted, "busted", n)
    done = _list(st.done, "done", n)
    for s in range(n):
        _flag(busted[s], f"busted[{s}]")
        _flag(done[s], f"done[{s}]")
    turn = _int(st.turn, "turn", 0 if phase == CAMPAIGN else 1, n - 1 if phase == CAMPAIGN else n)
    if phase != CAMPAIGN and turn < n and not st.run_out:
        _bad("turn", f"= {turn}: the campaign ended before every leader's turn without a run-out")
    order = [(st.start + i) % n for i in range(n)]
    for i, s in enumerate(order):
        if done[s] != (i < turn):
            _bad(f"done[{s}]", f"= {done[s]}, but the campaign is at turn {turn} from seat "
                 f"{st.start}")
        if busted[s] and not done[s]:
            _bad(f"busted[{s}]", "is true for a leader who has not had its campaign turn")
    _int(st.active, "active", 0, n - 1)
    if phase == CAMPAIGN and st.active != order[turn]:
        _bad("active", f"= {st.active}, but turn {turn} is seat {order[turn]}'s")
    actives = _ints(st.actives, "actives", None, 0, n - 1, most=n)
    cursor = _int(st.cursor, "cursor", 0, max(len(actives) - 1, 0))
    expected = [] if phase == CAMPAIGN else [s for s in order if not busted[s]]
    if actives != expected:
        _bad("actives", f"= {actives}, not the non-busted leaders in turn order {expected}")
    if phase in (CAMPAIGN, GAME_OVER) and cursor:
        _bad("cursor", f"= {cursor} outside the strategy phase")
    declared = _ints(st.declared, "declared", n, UNSAID, NUM_ORDERS - 1)
    committed = _ints(st.committed, "committed", n, NO_ORDER, NUM_ORDERS - 1)
    spoke = set(actives[:cursor] if phase == TALK else () if phase == CAMPAIGN else actives)
    laid = set(actives[:cursor] if phase == COMMIT_PHASE else ())
    for s in range(n):
        if (declared[s] != UNSAID) != (s in spoke):
            _bad(f"declared[{s}]", f"= {declared[s]}: seat {s} has {'' if s in spoke else 'not '}"
                 f"spoken in the {PHASE_NAMES[phase]} phase")
        if (committed[s] != NO_ORDER) != (s in laid):
            _bad(f"committed[{s}]", f"= {committed[s]}: seat {s} has {'' if s in laid else 'not '}"
                 f"laid its order in the {PHASE_NAMES[phase]} phase")
    last_war = rnd if phase == GAME_OVER else rnd - 1
    if _int(st.revealed_round, "revealed_round", 0, rnd) != last_war:
        _bad("revealed_round", f"= {st.revealed_round}, but the last war was round {last_war}'s")
    revealed = _ints(st.revealed, "revealed", n, NO_ORDER, NUM_ORDERS - 1)
    if not last_war and any(r != NO_ORDER for r in revealed):
        _bad("revealed", "shows orders before the first war")
    for i, line in enumerate(_list(st.war_log, "war_log")):
        if not isinstance(line, str):
            _bad(f"war_log[{i}]", f"= {_show(line)} is not text")


def _check_dice(st, phase: int, decision: int, big: float) -> None:
    kinds, counts = st.kinds, st.kind_counts
    bag = _ints(st.bag, "bag", len(kinds), 0, max(counts))
    aside = _ints(st.aside, "aside", len(kinds), 0, max(counts))
    for k, count in enumerate(counts):
        if bag[k] + aside[k] > count:
            _bad(f"bag[{k}]", f"= {bag[k]} with {aside[k]} aside: kind {k} has {count} dice")
    rolled = _ints(st.rolled, "rolled", NUM_FACES, 0, big)  # the other faces: see below
    last_roll = _dice(st.last_roll, "last_roll", kinds, DICE_PER_ROLL)
    takers = _ints(st.takers, "takers", None, 0, st.n - 1, most=2)
    theft = _int(st.theft, "theft", 0, DICE_PER_ROLL)
    taker = _int(st.taker, "taker", 0, max(len(takers) - 1, 0))
    stealing = phase == CAMPAIGN and decision in (CHOOSE_PRIORITY, CHOOSE_STEAL)
    if not stealing and (takers or theft or taker):
        _bad("takers" if takers else "theft" if theft else "taker", "is set with no theft pending")
    if phase != CAMPAIGN:
        return
    used = sum(counts) - sum(bag) - sum(aside)  # dice that left the bag for good this turn
    if sum(rolled) - rolled[PRIEST] != used or rolled[PRIEST] < sum(aside):
        _bad("rolled", f"= {rolled} does not account for the {used} dice used and "
             f"{sum(aside)} priests aside this turn")
    if not last_roll:
        _bad("last_roll", "is empty during a campaign turn (its first roll is compulsory)")
    if rolled[SABOTEUR] >= BUST_SABOTEURS and not stealing:
        _bad("rolled", f"shows {rolled[SABOTEUR]} saboteurs: the turn is bust, yet it goes on")
    if stealing:
        saboteurs = sum(face == SABOTEUR for _, face in last_roll)
        if theft != saboteurs or not theft:
            _bad("theft", f"= {theft}, but the last roll shows {saboteurs} saboteurs")


def _check_pending(st, n: int, decision: int) -> None:
    """The seat to act is the right one, and some action is legal."""
    if decision in (CHOOSE_PRIORITY, CHOOSE_STEAL):
        a = st.active
        sides = [(a + SIDE_STEP[side]) % n for side in (LEFT, RIGHT)]
        takers = st.takers
        if decision == CHOOSE_PRIORITY and takers != sides:
            _bad("takers", f"= {takers}: the payer orders takers only when both neighbours "
                 f"{sides} take")
        if not takers or len(set(takers)) != len(takers) or not set(takers) <= set(sides):
            _bad("takers", f"= {takers} are not distinct neighbours of seat {a}")
        if st.army(a) == 0:
            _bad("takers", f"take warriors from seat {a}, which has none")
    legal = st.legal_actions()
    if not legal:
        _bad("decision", f"= {DECISION_NAMES[decision]} has no legal action")
    if legal != sorted(set(legal)) or legal[0] < 0 or legal[-1] >= NUM_ACTIONS:
        _bad("decision", f"has legal actions {legal}, not sorted distinct ids below {NUM_ACTIONS}")
