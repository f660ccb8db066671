"""The game record of Otys: counters that only feed ``OtysGame.game_summary``.

Nothing here changes a game. ``State.apply_action`` plays the rules and calls
:func:`before` and :func:`after` around them; the counters are plain fields of the state
(saved with it):

* ``sponsor_uses[seat][tile]``: the times each sponsor tile was used.
* ``sponsor_yield[seat][tile * NUM_YIELDS + kind]``: what a tile yielded to the seat that
  used it, measured as the change of the ``YIELD_KINDS`` amounts from the use until the
  step menu is back (so sub-decisions count); Sponsor #2 basic: the second diver use;
  Sponsor #1 advanced: the credits it saved. ``yield_tile`` / ``yield_base``: the tile
  being measured (-1: none) and the amounts when its use began.
* ``pp_by_source[seat][source]``: where PP came from (``PP_SOURCES``): contracts, the
  reward token backs paid on completing them, store sales, sponsors (#4's flip, a PP
  token through #2 advanced), reward tokens' immediate PP through the Explorer.
"""

from __future__ import annotations

from . import actions, data
from .effects import SPONSOR_CREDIT_TILE, SPONSOR_DOUBLE_TILE, buy_price, diver_cost
from .phases import CONTRACT_COLOUR, STEP1, STEP2

YIELD_KINDS = ("pp", "credits", "batteries", "resources", "contracts", "upgrades", "keys")
NUM_YIELDS = len(YIELD_KINDS)
YIELD_CREDITS = YIELD_KINDS.index("credits")
PP_SOURCES = ("contracts", "reward_backs", "store", "sponsors", "reward_tokens")
PP_CONTRACTS, PP_BACKS, PP_STORE, PP_SPONSORS, PP_TOKENS = range(len(PP_SOURCES))
# the step menus' diver effect actions (the rest: propellers, the sponsor, completions,
# resurface and oxygen); module constants, as this runs on every decision
_DIVER_EFFECTS = frozenset(
    (*actions.EXPERT, *actions.SELL, *actions.BUY, *actions.SPY, *actions.ENGINEER,
     *actions.EXPLORE)
)  # fmt: skip
_SPONSOR = actions.SPONSOR


def start(state) -> None:
    """Set every counter of a new game (its sponsor setup as dealt)."""
    n = state.n
    state.sponsor_setup = list(state.sponsors)
    state.yield_tile = -1
    state.yield_base = [0] * NUM_YIELDS
    state.sponsor_uses = [[0] * data.NUM_SPONSORS for _ in range(n)]
    state.sponsor_yield = [[0] * (data.NUM_SPONSORS * NUM_YIELDS) for _ in range(n)]
    state.pp_by_source = [[0] * len(PP_SOURCES) for _ in range(n)]


def before(state, action: int) -> tuple[int, int, int, int]:
    """Note what ``action`` starts, before the rules play it: a sponsor's use (its yield
    is measured from now), Sponsor #2 basic's second diver use, the credits Sponsor #1
    advanced saves. Returns what :func:`after` needs."""
    phase, p = state.phase, state.seat
    if phase == STEP1 or phase == STEP2:
        if action == _SPONSOR:
            tile = state.sponsors[state.level]
            state.sponsor_uses[p][tile] += 1
            _open(state, p, tile)
        elif action in _DIVER_EFFECTS:
            tile = state.sponsors[state.level]
            if (state.uses_left == 1 and state.sponsor_used and tile == SPONSOR_DOUBLE_TILE
                    and not state.advanced[tile]):
                _open(state, p, tile)
            if state.free_costs:
                _count_saving(state, p, action)
    return phase, p, state.contract_level, state.pp[p]


def after(state, action: int, noted: tuple[int, int, int, int]) -> None:
    """Credit the PP ``action`` gained to its source, and close a sponsor's measure once
    the step menu is back (``noted``: what :func:`before` returned)."""
    phase, p, contract_level, pp = noted
    if state.pp[p] != pp:
        _count_pp(state, action, phase, contract_level, p, state.pp[p] - pp)
    if state.yield_tile >= 0 and (state.phase == STEP1 or state.phase == STEP2):
        _close(state, p)


def _amounts(state, p: int) -> list[int]:
    """Seat ``p``'s amounts in ``YIELD_KINDS`` order."""
    return [
        state.pp[p], state.credits[p], state.batteries[p], sum(state.resources[p]),
        len(state.hands[p]), sum(state.upgraded[p]), sum(state.keys_home[p]),
    ]  # fmt: skip


def _open(state, p: int, tile: int) -> None:
    """Start measuring what ``tile`` yields to the turn's player."""
    state.yield_tile = tile
    state.yield_base = _amounts(state, p)


def _close(state, p: int) -> None:
    """The step menu is back: add what the sponsor yielded since it was used."""
    row, at = state.sponsor_yield[p], state.yield_tile * NUM_YIELDS
    for k, (now, then) in enumerate(zip(_amounts(state, p), state.yield_base)):
        row[at + k] += now - then
    state.yield_tile = -1


def _count_saving(state, p: int, action: int) -> None:
    """Sponsor #1 advanced: the credits the own diver's effect would have cost."""
    diver = state.divers[p][data.level_slot(state.level)]
    upgraded = state.upgraded[p][diver]
    if diver == data.TRADER:
        if action not in actions.BUY:
            return
        filled = state.store[action - actions.BUY.start]
        saved = buy_price(state.tables.store_credits, filled, upgraded, 0, free_costs=0)
    elif diver in data.SPONSOR1_FREE:
        saved = diver_cost(diver, upgraded, 0, free_costs=0)
    else:
        return
    state.sponsor_yield[p][SPONSOR_CREDIT_TILE * NUM_YIELDS + YIELD_CREDITS] += saved


def _count_pp(state, action: int, phase: int, contract_level: int, p: int, gained: int) -> None:
    """Credit the PP one action gained to its source (``contract_level``: the level of
    the number card whose colours were being chosen)."""
    row = state.pp_by_source[p]
    if phase == CONTRACT_COLOUR or action in actions.COMPLETE:
        level = contract_level if phase == CONTRACT_COLOUR else actions.complete_of(action)[1]
        token = state.board_tokens[p][level]
        pays_pp = token >= 0 and state.tables.token_back[token] == data.BACK_PP
        back = data.PERMANENT_PP if pays_pp else 0
        row[PP_BACKS] += back
        row[PP_CONTRACTS] += gained - back
    elif action in actions.SELL:
        row[PP_STORE] += gained
    elif action in actions.EXPLORE:
        row[PP_TOKENS] += gained  # a PP token's immediate effect
    else:  # Sponsor #4's flip, or a PP token through Sponsor #2 advanced
        row[PP_SPONSORS] += gained
