"""Table-driven Campaign-phase tests with scripted dice and hand-computed outcomes.

A position is built directly (``State(..., begin=False)`` plus fields), the rolls
are scripted as ``(colour, face)`` dice, the actions are given by name, and the cards,
beans, pool and who acted are checked exactly.
"""

from __future__ import annotations

import pytest
from otontin_dice import script_rolls

from otrio.envs.core import make_rng
from otrio.envs.otontin.actions import ROLL, STOP, TABLE
from otrio.envs.otontin.campaign import CHOOSE_PRIORITY, CHOOSE_STEAL, DECLARE_ORDER, ROLL_OR_STOP
from otrio.envs.otontin.data import BEAN, POOL_BY_PLAYERS, PRIEST, SABOTEUR, WARRIOR
from otrio.envs.otontin.rules import CAMPAIGN, TALK, Config, State

G, Y, R = 0, 1, 2  # green, yellow, red dice
W, B, P, S = WARRIOR, BEAN, PRIEST, SABOTEUR
QUIET = [(G, P), (G, P), (G, P)]  # a roll with no effect (for the next leader's turn)


def position(n=3, atk=None, dfn=None, beans=None, active=0, rolls=(), busted=(), **cfg):
    """A state at the start of ``active``'s campaign turn in round 1 (start = p0).

    The pool holds what the leaders do not, so warriors and beans are conserved.
    """
    st = State(Config(num_players=n, **cfg), make_rng(0), begin=False)
    st.attack = list(atk or [0] * n)
    st.defence = list(dfn or [0] * n)
    st.beans = list(beans or [0] * n)
    st.pool_warriors = (cfg.get("pool_warriors") or POOL_BY_PLAYERS[n]) - sum(st.attack) - sum(st.defence)
    st.pool_beans = (cfg.get("pool_beans") or POOL_BY_PLAYERS[n]) - sum(st.beans)
    for s in busted:
        st.busted[s] = st.done[s] = True
    for s in range(active):
        st.done[s] = True
    st.turn = active
    script_rolls(st, [list(r) for r in rolls] + [QUIET] * n)
    st.begin_turn()
    return st


def play(st: State, names: list[str]) -> list[int]:
    """Apply actions by name (each must be legal); return who took each."""
    actors = []
    for name in names:
        action = TABLE.id(name)
        assert action in st.legal_actions(), (name, [TABLE.name(a) for a in st.legal_actions()])
        actors.append(st.current_player())
        st.apply_action(action)
    return actors


# id, setup, rolls, actions, actors, expected atk, dfn, beans, busted
CASES = [
    # 2 warriors and a bean, all warriors to the Attack card.
    ("collect_to_attack", dict(), [[(G, W), (G, W), (Y, B)]],
     ["stop:attack"], [0], [2, 0, 0], [0, 0, 0], [1, 0, 0], []),
    ("collect_to_defence", dict(), [[(G, W), (G, W), (Y, B)]],
     ["stop:defence"], [0], [0, 0, 0], [2, 0, 0], [1, 0, 0], []),
    # Faces of two rolls add up; all 3 new warriors go to one card.
    ("roll_again_adds_up", dict(), [[(G, W), (Y, B), (G, P)], [(R, W), (G, W), (Y, B)]],
     ["roll", "stop:defence"], [0, 0], [0, 0, 0], [3, 0, 0], [2, 0, 0], []),
    # 2 saboteurs; only p1 (army 2 < 5) is smaller: it takes 2 from p0's Attack to its
    # Defence; p2 (7) takes nothing. Then p0 stops with its 1 warrior.
    ("theft_one_smaller", dict(atk=[3, 2, 0], dfn=[2, 0, 7]), [[(G, S), (Y, S), (G, W)]],
     ["steal:attack>defence", "stop:attack"], [1, 0], [2, 2, 0], [2, 2, 7], [0, 0, 0], []),
    # 1 saboteur, both neighbours smaller: p0 orders them (left first); p1 takes from
    # Attack, p2 from Defence, each 1.
    ("theft_two_smaller", dict(atk=[4, 1, 0], dfn=[2, 0, 0]), [[(G, S), (G, W), (G, B)]],
     ["priority:left_first", "steal:attack>attack", "steal:defence>defence", "stop:attack"],
     [0, 1, 2, 0], [4, 2, 0], [1, 0, 1], [1, 0, 0], []),
    # 2 saboteurs, army 3 cannot pay both: left first takes 2 (Attack), right gets
    # the last 1 (only Defence is left to choose from).
    ("theft_short_left_first", dict(atk=[2, 0, 0], dfn=[1, 0, 0]), [[(G, S), (Y, S), (G, B)]],
     ["priority:left_first", "steal:attack>attack", "steal:defence>attack", "stop:attack"],
     [0, 1, 2, 0], [0, 2, 1], [0, 0, 0], [1, 0, 0], []),
    # The same with right first: p2 gets 2, p1 the last 1.
    ("theft_short_right_first", dict(atk=[2, 0, 0], dfn=[1, 0, 0]), [[(G, S), (Y, S), (G, B)]],
     ["priority:right_first", "steal:attack>defence", "steal:defence>defence", "stop:attack"],
     [0, 2, 1, 0], [0, 0, 0], [0, 1, 2], [1, 0, 0], []),
    # The first taker empties p0: the second is not asked.
    ("theft_second_skipped", dict(atk=[2, 1, 0]), [[(G, S), (Y, S), (G, B)]],
     ["priority:left_first", "steal:attack>attack", "stop:attack"],
     [0, 1, 0], [0, 3, 0], [0, 0, 0], [1, 0, 0], []),
    # Source Attack holds 1 of the 2 taken: the Defence card covers the shortfall.
    ("theft_shortfall_other_card", dict(atk=[1, 0, 0], dfn=[3, 0, 10]),
     [[(G, S), (Y, S), (G, B)]],
     ["steal:attack>attack", "stop:attack"], [1, 0], [0, 2, 0], [2, 0, 10], [1, 0, 0], []),
    # An equal army takes nothing.
    ("theft_equal_army_no", dict(atk=[2, 2, 0], dfn=[0, 0, 5]), [[(G, S), (G, W), (G, B)]],
     ["stop:attack"], [0], [3, 2, 0], [0, 0, 5], [1, 0, 0], []),
    # 4 saboteurs bust the turn: nothing rolled is collected.
    ("bust", dict(atk=[1, 0, 0], dfn=[0, 5, 5]), [[(G, S), (Y, S), (G, W)], [(R, S), (R, S), (G, B)]],
     ["roll"], [0], [1, 0, 0], [0, 5, 5], [0, 0, 0], [0]),
    # Saboteurs of the busting roll still take (counted again: p1 2 < p0 4).
    ("bust_roll_still_takes", dict(atk=[6, 0, 0], dfn=[0, 0, 10]),
     [[(G, S), (Y, S), (G, W)], [(R, S), (R, S), (G, B)]],
     ["steal:attack>attack", "roll", "steal:attack>defence"],
     [1, 0, 1], [2, 2, 0], [0, 2, 10], [0, 0, 0], [0]),
    # After taking 3, p1 (3) is no longer smaller than p0 (1): the next saboteur is free.
    ("taker_no_longer_smaller", dict(atk=[4, 0, 0], dfn=[0, 0, 10]),
     [[(G, S), (Y, S), (R, S)], [(R, S), (G, W), (G, B)]],
     ["steal:attack>attack", "roll"], [1, 0], [1, 3, 0], [0, 0, 10], [0, 0, 0], [0]),
    # p0 busted earlier this campaign still takes from p1 (its right neighbour).
    ("busted_neighbour_takes", dict(atk=[0, 3, 0], dfn=[0, 0, 10], active=1, busted=[0]),
     [[(G, S), (G, W), (G, B)]],
     ["steal:attack>defence", "stop:attack"], [0, 1], [0, 3, 0], [1, 0, 10], [0, 1, 0], [0]),
]  # fmt: skip


@pytest.mark.parametrize(
    "setup,rolls,actions,actors,want_atk,want_dfn,want_beans,want_busted",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_campaign(setup, rolls, actions, actors, want_atk, want_dfn, want_beans, want_busted):
    """Exact cards, beans, pool and actors after the scripted turn."""
    st = position(rolls=rolls, **setup)
    warriors, beans = sum(st.attack) + sum(st.defence) + st.pool_warriors, sum(st.beans) + st.pool_beans
    assert play(st, actions) == actors
    assert (st.attack, st.defence, st.beans) == (want_atk, want_dfn, want_beans)
    assert [s for s in range(3) if st.busted[s]] == want_busted
    assert sum(st.attack) + sum(st.defence) + st.pool_warriors == warriors
    assert sum(st.beans) + st.pool_beans == beans
    assert st.active == (setup.get("active", 0) + 1) % 3  # the dice passed left


def test_theft_decisions_and_actors():
    """The payer chooses the priority, each taker its own cards; sources with no
    warriors are not offered."""
    st = position(atk=[2, 0, 0], dfn=[1, 0, 0], rolls=[[(G, S), (Y, S), (G, B)]])
    assert st.decision == CHOOSE_PRIORITY and st.current_player() == 0
    play(st, ["priority:right_first"])
    assert st.decision == CHOOSE_STEAL and st.current_player() == 2
    assert len(st.legal_actions()) == 4
    play(st, ["steal:attack>attack"])  # p0 left: atk 0, dfn 1
    assert st.current_player() == 1
    assert [TABLE.name(a) for a in st.legal_actions()] == [
        "steal:defence>attack",
        "steal:defence>defence",
    ]


def test_priest_return_cycle():
    """15 dice: after five rolls the bag is empty and the 2 priests go back; 2 are
    drawn; then 1; then nothing is left and the leader must stop (card choice only)."""
    rolls = [
        [(G, P), (Y, P), (G, B)],
        [(G, B), (G, B), (G, B)],
        [(Y, B), (Y, B), (Y, B)],
        [(R, B), (R, B), (R, B)],
        [(G, B), (Y, B), (R, B)],
        [(G, P), (Y, W)],
        [(G, W)],
    ]
    st = position(rolls=rolls)
    assert st.aside == [1, 1, 0] and st.bag == [4, 4, 4]
    play(st, ["roll"] * 4)
    assert st.bag == [0, 0, 0] and st.aside == [1, 1, 0] and ROLL in st.legal_actions()
    play(st, ["roll"])
    assert st.bag == [0, 0, 0] and st.aside == [1, 0, 0] and st.last_roll == [[G, P], [Y, W]]
    play(st, ["roll"])
    assert st.bag == [0, 0, 0] and st.aside == [0, 0, 0]
    assert st.legal_actions() == list(STOP)
    play(st, ["stop:defence"])
    assert (st.defence[0], st.beans[0], st.pool_warriors, st.pool_beans) == (2, 13, 43, 32)


def test_priests_stay_aside_while_bag_has_dice():
    """Priests are set aside, not returned, while dice remain in the bag."""
    st = position(rolls=[[(G, P), (G, P), (Y, P)], [(R, P), (R, P), (R, P)]])
    play(st, ["roll"])
    assert st.bag == [4, 4, 1] and st.aside == [2, 1, 3] and st.rolled[PRIEST] == 6


def test_auto_collect_when_nothing_to_choose():
    """All 15 dice show beans: after the fifth roll nothing can be rolled and no warrior
    needs a card, so the beans are collected and p1's turn begins."""
    beans = [[(G, B)] * 3, [(G, B)] * 3, [(Y, B)] * 3, [(Y, B), (Y, B), (R, B)], [(R, B)] * 3]
    st = position(rolls=beans)
    assert st.legal_actions() == [ROLL, STOP.start]  # no warriors: no card choice
    play(st, ["roll"] * 4)
    assert st.beans == [15, 0, 0] and st.active == 1 and st.current_player() == 1


@pytest.mark.parametrize(
    "pool,roll,want",
    [
        (dict(pool_warriors=2), [(G, W), (G, W), (G, W)], (2, 0, 0, 50)),
        (dict(pool_beans=1), [(G, B), (G, B), (G, W)], (1, 1, 49, 0)),
    ],
    ids=["warriors_out_short", "beans_out_exact_or_short"],
)
def test_pool_run_out(pool, roll, want):
    """The pool pays what it has; at 0 the game goes straight to Strategy (final
    round) and p1..p3, who have not campaigned, take part."""
    st = position(n=4, rolls=[roll], **pool)
    play(st, ["stop:attack"])
    assert (st.attack[0], st.beans[0], st.pool_warriors, st.pool_beans) == want
    assert st.phase == TALK and st.final_round and st.decision == DECLARE_ORDER
    assert st.actives == [0, 1, 2, 3] and st.done == [True, False, False, False]


def test_pool_exactly_empty_runs_out():
    """Taking the last warrior exactly also runs the pool out."""
    st = position(n=3, rolls=[[(G, W), (G, W), (G, B)]], pool_warriors=2)
    play(st, ["stop:defence"])
    assert st.pool_warriors == 0 and st.final_round and st.phase == TALK


def test_campaign_turn_order_and_strategy():
    """Turns go left from the Starting Leader; a busted leader skips Strategy."""
    st = position(n=4, rolls=[[(G, W), (G, B), (G, P)]])
    for seat in range(4):
        assert st.phase == CAMPAIGN and st.active == seat and st.decision == ROLL_OR_STOP
        if seat == 2:
            st.busted[2] = True  # as if p2 had busted
        play(st, ["stop:attack"])
    assert st.phase == TALK and st.actives == [0, 1, 3]
