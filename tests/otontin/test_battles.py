"""The one battle resolver on plain inputs (``otrio.envs.otontin.war.resolve_battles``), the
code the engine's War and greedy's lookahead share: hand-computed positions."""

from __future__ import annotations

from otrio.envs.otontin.data import HAND, SHIELD, SPEAR
from otrio.envs.otontin.orders import LEFT, RIGHT
from otrio.envs.otontin.war import battle_ranks, deployment, resolve_battles

NEAR = [0, 1, 2]


def test_shield_helper_shares_the_losses():
    """p0's 5 attackers (10) hit p1's Shield of 2 plus p2's 2 joined defenders (16): the
    attack is wiped, the defenders lose ceil(10/4) = 3, shared 2/1 (the leader first)."""
    atk, dfn, beans = [5, 0, 0], [0, 2, 2], [1, 2, 3]
    log: list[str] = []
    rank = battle_ranks(atk, dfn, beans, NEAR)
    spears, shields = [(0, 1, LEFT)], [(1, RIGHT)]
    out = resolve_battles(spears, shields, [], atk, dfn, beans, rank, False, [(2, (1, RIGHT))], log)
    assert [list(x) for x in out] == [[0, 0, 0], [0, 0, 1], [1, 2, 3]]
    assert out[2] is beans  # no theft: the beans list comes back as it was
    assert (atk, dfn) == ([5, 0, 0], [0, 2, 2])  # inputs untouched
    assert log == ["p0 attack 5 vs p1 shield 4: -5/-3"]


def test_split_spoils_with_a_helper():
    """p0 (1 warrior) and its helper p2 (3) enter p1's empty city: 7 beans split 4/3."""
    atk, dfn, beans = [1, 0, 3], [0, 0, 0], [0, 7, 0]
    log: list[str] = []
    rank = battle_ranks(atk, dfn, beans, NEAR)
    out = resolve_battles([(0, 1, LEFT)], [], [(2, 0)], atk, dfn, beans, rank, True, log=log)
    assert [list(x) for x in out] == [[1, 0, 3], [0, 0, 0], [4, 0, 3]]
    assert log == ["p0 steals 7 beans from p1"]


def test_no_spear_no_battle():
    """Without a Spear every list comes back unchanged (the same objects)."""
    atk, dfn, beans = [1, 2, 3], [3, 2, 1], [5, 5, 5]
    out = resolve_battles([], [(1, LEFT)], [], atk, dfn, beans, [0, 1, 2], False)
    assert out[0] is atk and out[1] is dfn and out[2] is beans


def test_deployment_of_a_pair():
    """A Spear on the left faces seat+1, a Shield on the right guards that side; no
    cards (None) deploy nothing."""
    assert deployment(0, (SPEAR, SHIELD), 3) == (((0, 1, LEFT),), ((0, RIGHT),))
    assert deployment(0, (HAND, SPEAR), 3) == (((0, 2, RIGHT),), ())
    assert deployment(1, None, 3) == ((), ())
