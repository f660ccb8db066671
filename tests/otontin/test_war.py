"""Table-driven War-phase tests with hand-computed outcomes (rulings "War phase").

Each row is a position (orders, cards, beans) and the exact cards, beans and dead
after the war. Orders are written ``"left,right"`` with a Hand's offer after a colon,
e.g. ``"spear,hand:pay2"``; ``None`` is a busted leader. Seat ``s``'s left neighbour is
``s+1``, its right ``s-1``.
"""

from __future__ import annotations

import pytest

from otrio.envs.otontin.orders import NO_ORDER, ORDERS
from otrio.envs.otontin.war import fight, resolve_war, share_losses

CARD = {"spear": 0, "shield": 1, "hand": 2}
OFFER = {"truce": 0, "join_attack": 1, "join_defence": 2, "pay1": 3, "pay2": 4}


def _side(text: str) -> tuple[int, int]:
    card, _, offer = text.partition(":")
    return CARD[card], (OFFER[offer] if card == "hand" else -1)


def order(text: str | None) -> int:
    """Order id of ``"left,right"`` (``None``: busted)."""
    if text is None:
        return NO_ORDER
    left, right = text.split(",")
    return ORDERS.index((*_side(left), *_side(right)))


T = "hand:truce"
JA = "hand:join_attack"
JD = "hand:join_defence"

# id, orders, atk, dfn, beans, expected atk, expected dfn, expected beans, dead
CASES = [
    # p0 attacks p1 (8 def value behind a Shield) with 5 (10): p0 loses 4, the shield
    # dies, 1 attacker enters the empty city and steals p1's 4 beans.
    ("shield_win", ["spear,shield", f"{T},shield", f"{T},{T}"],
     [5, 0, 0], [0, 2, 0], [0, 4, 1], [1, 0, 0], [0, 0, 0], [4, 0, 1], 6),
    # 3 attackers (6) against 3 shield (12): attackers wiped, defenders lose ceil(6/4)=2.
    ("shield_loss", ["spear,shield", f"{T},shield", f"{T},{T}"],
     [3, 0, 0], [0, 3, 0], [0, 4, 1], [0, 0, 0], [0, 1, 0], [0, 4, 1], 5),
    # 4 attackers (8) against 2 shield (8): equal totals wipe out both; the city is
    # empty but no attacker is left to steal.
    ("shield_tie", ["spear,shield", f"{T},shield", f"{T},{T}"],
     [4, 0, 0], [0, 2, 0], [0, 4, 1], [0, 0, 0], [0, 0, 0], [0, 4, 1], 6),
    # Spear against spear on the p0-p1 border: 5 (10) against 3 (6); p1's group is
    # wiped, p0 loses 3; 2 go on into p1's city (defence is out on p1's left Shield)
    # and steal p1's 3 beans. p1's defenders are never attacked.
    ("spear_vs_spear", ["spear,shield", "shield,spear", f"{T},{T}"],
     [5, 3, 0], [0, 2, 0], [1, 3, 2], [2, 0, 0], [0, 2, 0], [4, 0, 2], 6),
    # Spear against spear with equal value: both wiped; nothing reaches a city.
    ("spear_vs_spear_tie", ["spear,shield", "shield,spear", f"{T},{T}"],
     [3, 3, 0], [0, 2, 0], [1, 3, 2], [0, 0, 0], [0, 2, 0], [1, 3, 2], 6),
    # City fight: 4 attackers (8) against 3 resting attack warriors of p1 (3): p0 loses
    # ceil(3/2)=2, the resting die, 2 survivors steal p1's 5 beans.
    ("city_win_steal", ["spear,shield", f"shield,{T}", f"{T},{T}"],
     [4, 3, 0], [0, 2, 0], [0, 5, 0], [2, 0, 0], [0, 2, 0], [5, 0, 0], 5),
    # The rulings' example: 3 attackers (6) against 5 resting (5): the resting are
    # wiped, the attackers lose ceil(5/2)=3, all of them: no steal.
    ("city_win_all_die", ["spear,shield", f"{T},{T}", f"{T},{T}"],
     [3, 2, 0], [0, 3, 0], [0, 5, 0], [0, 0, 0], [0, 0, 0], [0, 5, 0], 8),
    # 2 attackers (4) against 6 resting (2 atk, 4 def): attackers wiped, resting lose 4
    # in proportion: 4*2/6=1.33, 4*4/6=2.67 -> floors 1, 2, the remainder to Defence.
    ("city_loss_shared", ["spear,shield", f"{T},{T}", f"{T},{T}"],
     [2, 2, 0], [0, 4, 0], [0, 5, 0], [0, 1, 0], [0, 1, 0], [0, 5, 0], 6),
    # 1 attacker (2) against resting 1 atk + 3 def: 2 losses, 0.5 / 1.5 -> equal
    # remainders, the tie costs the Attack card: atk 0, def 2.
    ("city_loss_tie_attack", ["spear,shield", f"{T},{T}", f"{T},{T}"],
     [1, 1, 0], [0, 3, 0], [0, 5, 0], [0, 0, 0], [0, 2, 0], [0, 5, 0], 3),
    # Steal from an empty city with no defenders at all.
    ("steal_empty_city", ["spear,shield", f"{T},{T}", f"{T},{T}"],
     [1, 0, 0], [0, 0, 0], [2, 7, 0], [1, 0, 0], [0, 0, 0], [9, 0, 0], 0),
    # A Shield nobody attacks: its defenders come home unharmed.
    ("shield_not_attacked", ["shield,spear", f"{T},{T}", f"{T},{T}"],
     [0, 0, 0], [3, 0, 0], [0, 0, 0], [0, 0, 0], [3, 0, 0], [0, 0, 0], 0),
    # Two attacks on p1, both with army 4 vs 3: p0 (army 4) first: 2 (4) against 4
    # resting (4) -> both wiped; then p2's 3 walk into the empty city and steal 5.
    ("two_attacks_order_army", ["spear,shield", f"{T},{T}", "shield,spear"],
     [2, 2, 3], [2, 2, 0], [0, 5, 0], [0, 0, 3], [2, 0, 0], [0, 0, 5], 6),
    # Equal armies (3): p2 has more beans so it goes first: 3 (6) vs 3 resting (3):
    # loses 2, steals 4; p0's 3 then find the empty city and steal nothing.
    ("two_attacks_order_beans", ["spear,shield", f"{T},{T}", "shield,spear"],
     [3, 0, 3], [0, 3, 0], [1, 4, 2], [3, 0, 1], [0, 0, 0], [1, 0, 6], 5),
    # A Hand facing a Spear: no pact, p0's pay2 offer does nothing; p1 attacks
    # p0's city: 3 (6) against 2 resting (2): p1 loses 1 and steals p0's 3 beans.
    ("hand_facing_spear", ["hand:pay2,shield", f"{T},spear", f"{T},{T}"],
     [2, 3, 0], [1, 0, 0], [3, 0, 0], [0, 2, 0], [1, 0, 0], [0, 3, 0], 3),
    # A leader with its own Spear does not join: p1 (Spear left on p2, join-attack
    # right with a pact to p0, whose far side is a Spear on p2) attacks on its own,
    # first (army 4): 4 (8) vs 5 resting: loses 3, steals 3; p0's 1 finds nothing.
    # (Had p1 joined p0, p0 would have led 5 and taken the beans.)
    ("join_with_own_spear", [f"{T},spear", f"spear,{JA}", f"{T},{T}"],
     [1, 4, 0], [0, 0, 5], [0, 0, 3], [1, 1, 0], [0, 0, 0], [0, 3, 0], 8),
    # The join chain ends at a Spear facing the sender's own city: p0's attack stays
    # home and rests: p2's 1 attacker (2) against 3 resting: p2 wiped, p0 loses 2.
    ("join_spear_faces_sender", [f"{JA},shield", f"{T},{T}", f"spear,{T}"],
     [3, 0, 1], [0, 0, 0], [4, 0, 0], [1, 0, 0], [0, 0, 0], [4, 0, 0], 3),
    # Bean payments on formed pacts: p0 (3 beans) pays 2 left then only 1 right;
    # p1 pays 1 to p0 (received beans cannot fund a payment).
    ("payments_capped", ["hand:pay2,hand:pay2", f"{T},hand:pay1", f"{T},{T}"],
     [0, 0, 0], [0, 0, 0], [3, 1, 0], [0, 0, 0], [0, 0, 0], [1, 2, 1], 0),
    # A payer with no beans pays nothing even though it receives 2 at the same time.
    ("payment_not_funded_by_receipt", ["hand:pay2,shield", f"{T},hand:pay2", "shield,spear"],
     [0, 0, 0], [0, 0, 0], [0, 5, 0], [0, 0, 0], [0, 0, 0], [2, 3, 0], 0),
    # A pay offer facing a Shield forms no pact and pays nothing.
    ("pay_into_shield", ["hand:pay2,shield", f"{T},shield", f"{T},{T}"],
     [0, 0, 0], [0, 0, 0], [4, 0, 0], [0, 0, 0], [0, 0, 0], [4, 0, 0], 0),
]  # fmt: skip


@pytest.mark.parametrize(
    "orders,atk,dfn,beans,want_atk,want_dfn,want_beans,dead",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_war_three_players(orders, atk, dfn, beans, want_atk, want_dfn, want_beans, dead):
    """Three-player wars from the table above (start = seat 0, no spoils split)."""
    atk, dfn, beans = list(atk), list(dfn), list(beans)
    result = resolve_war(3, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, dfn, beans, result.dead) == (want_atk, want_dfn, want_beans, dead)


@pytest.mark.parametrize("start,winner", [(0, 0), (1, 2), (2, 2)])
def test_battle_order_nearest_to_start(start, winner):
    """Equal armies and beans: the leader nearest (leftwards) to the Starting Leader
    attacks p1 first and takes its 4 beans; the other finds the city empty."""
    atk, dfn, beans = [3, 0, 3], [0, 3, 0], [1, 4, 1]
    orders = [order("spear,shield"), order(f"{T},{T}"), order("shield,spear")]
    resolve_war(3, start, orders, atk, dfn, beans)
    assert beans[winner] == 5 and beans[1] == 0 and sum(beans) == 6


def _chain_position(split: bool):
    # p0 join-attack left -> pact p0/p1 -> p1 hand left -> pact p1/p2 -> p2's Spear
    # on p3. p3: 2 defence behind a Shield facing p2, 1 attack resting, 5 beans.
    orders = [f"{JA},shield", f"{T},{T}", f"spear,{T}", f"{T},shield", f"{T},{T}"]
    atk, dfn, beans = [4, 0, 2, 1, 0], [0, 0, 0, 2, 0], [0, 0, 0, 5, 0]
    result = resolve_war(5, 0, [order(o) for o in orders], atk, dfn, beans, split)
    return atk, dfn, beans, result.dead


def test_join_attack_through_two_pacts():
    """Group [p2:2, p0:4] (12) beats the shield (8) losing 4 split 1/3 (largest
    remainder: 1.33/2.67); [p2:1, p0:1] (4) beats 1 resting (1) losing 1, a tie that
    costs the leader p2; p0's survivor lets p2 steal all 5 beans."""
    assert _chain_position(split=False) == ([1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 5, 0, 0], 8)


def test_join_attack_spoils_split():
    """With split_spoils the helper p0 gets 5 // 2 = 2 and the leader the odd bean."""
    assert _chain_position(split=True)[2] == [2, 0, 3, 0, 0]


def test_join_defence():
    """p2's Defence passes its pact to p1 and stands behind p1's Shield facing p0:
    [p1:1, p2:2] (12) against 4 attackers (8) lose 2, split 0.67/1.33 -> 1 each."""
    orders = ["spear,shield", f"{T},shield", f"{T},{JD}", f"{T},{T}"]
    atk, dfn, beans = [4, 0, 0, 0], [0, 1, 2, 0], [0, 3, 0, 0]
    result = resolve_war(4, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, dfn, beans, result.dead) == ([0, 0, 0, 0], [0, 0, 1, 0], [0, 3, 0, 0], 6)


def test_without_join_defence_the_shield_falls():
    """Same position, p2 offers a truce instead: 1 defender (4) falls to 4 attackers
    (8, lose 2), the 2 survivors take p1's empty city and its 3 beans."""
    orders = ["spear,shield", f"{T},shield", f"{T},{T}", f"{T},{T}"]
    atk, dfn, beans = [4, 0, 0, 0], [0, 1, 2, 0], [0, 3, 0, 0]
    resolve_war(4, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, dfn, beans) == ([2, 0, 0, 0], [0, 0, 2, 0], [3, 0, 0, 0])


def test_busted_city_attacked():
    """p2 is busted: p3 attacks its city (all 3 warriors rest, value 1): 3 (6) vs 3,
    p3 loses 2 and steals 4. p1's join-attack Hand faces busted p2 and does nothing."""
    orders = [f"{T},{T}", f"{JA},{T}", None, "shield,spear"]
    atk, dfn, beans = [0, 2, 1, 3], [0, 0, 2, 0], [0, 0, 4, 0]
    result = resolve_war(4, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, dfn, beans, result.dead) == ([0, 2, 0, 1], [0, 0, 0, 0], [0, 0, 0, 4], 5)


def test_busted_city_impassable():
    """p1's join-attack faces busted p2, beyond which p3's Spear marches on p0: no pact
    with a busted leader, so p1's 2 stay home. p3's 1 (2) ties p0's 2 resting (2)."""
    orders = [f"{T},{T}", f"{JA},{T}", None, f"spear,{T}"]
    atk, dfn, beans = [2, 2, 0, 1], [0, 0, 0, 0], [3, 0, 0, 0]
    result = resolve_war(4, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, beans, result.dead) == ([0, 2, 0, 0], [3, 0, 0, 0], 3)


def test_join_attack_left_path_first():
    """Join-attack offers on both Hands: the left path is tried first. p1's left path
    ends at p2's Spear on p3 (p3's 2 beans); the right one (p0's Spear on p4) is unused."""
    orders = [f"{T},spear", f"{JA},{JA}", f"spear,{T}", f"{T},shield", f"{T},{T}"]
    atk, dfn, beans = [0, 3, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 2, 1]
    resolve_war(5, 0, [order(o) for o in orders], atk, dfn, beans)
    assert (atk, beans) == ([0, 3, 0, 0, 0], [0, 0, 2, 0, 1])


FIGHTS = [
    # a units, a value, b units, b value, a lost, b lost
    (5, 2, 2, 4, 4, 2),
    (3, 2, 3, 4, 3, 2),
    (4, 2, 2, 4, 4, 2),
    (3, 2, 5, 1, 3, 5),
    (1, 2, 3, 1, 1, 2),
    (0, 2, 0, 1, 0, 0),
]


@pytest.mark.parametrize("a,av,b,bv,al,bl", FIGHTS)
def test_fight_arithmetic(a, av, b, bv, al, bl):
    """Lower total wiped; the higher loses the fewest whose value reaches it; ties both."""
    assert fight(a, av, b, bv) == (al, bl)


SHARES = [
    ([2, 4], 4, [1, 3]),
    ([1, 3], 2, [1, 1]),
    ([1, 1], 1, [1, 0]),
    ([3, 3], 3, [2, 1]),
    ([5, 0, 5], 10, [5, 0, 5]),
    ([4, 2, 2], 3, [1, 1, 1]),
]


@pytest.mark.parametrize("counts,losses,want", SHARES)
def test_share_losses(counts, losses, want):
    """Largest remainder; ties cost the earlier (the leader, or the Attack card)."""
    assert share_losses(counts, losses) == want
