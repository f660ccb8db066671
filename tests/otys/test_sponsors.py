"""Sponsor tiles #1-#5, basic and advanced sides.

Default position (``otys_helpers.position``): column 'Mx Px Fx Tx Tr Sp En Ex'
(level 1 Tech Expert, 2 Trader, 3 Spy, 4 Engineer, 5 Explorer), sponsors #1-#5 on
levels 1-5, 3 credits, 1 battery, empty store. Expectations are computed by hand.
"""

from __future__ import annotations

from otys_helpers import (
    BATTERY_C,
    PP_PP,
    RES_MP_C,
    F,
    M,
    column,
    contract_id,
    divers,
    legal,
    names,
    play,
    position,
    res,
    set_res,
    with_diver_at,
)

from otrio.envs.otys import data as D
from otrio.envs.otys.phases import Phase


# ------------------------------------------------------------------ sponsors
def test_sponsor_1_basic_gains_a_credit():
    s = play(position(), "key:L1", "sponsor")
    assert s.credits[0] == 4 and s.sponsor_used and not legal(s, "sponsor")


def test_sponsor_1_advanced_frees_engineer_spy_explorer_and_purchases():
    s = with_diver_at("En", 1, sides="advanced")
    play(s, "key:L1", "sponsor", "engineer:mechanic")
    assert s.credits[0] == 3 and s.mechanic[0] == 1
    s = with_diver_at("Tr", 1, sides="advanced")
    s.store[M] = 1  # buying the last one costs 3
    play(s, "key:L1", "sponsor", "buy:M")
    assert s.credits[0] == 3 and res(s, 0, 1) == "M" and s.store[M] == 0
    s = with_diver_at("Ex", 1, sides="advanced")
    s.credits[0] = 0
    s.display[0] = PP_PP
    play(s, "key:L1", "sponsor", "explore:0")
    assert s.credits[0] == 0 and s.pp[0] == 1
    s = with_diver_at("Sp", 1, sides="advanced")
    s.credits[0] = 0
    play(s, "key:L1", "sponsor", "spy:draw")
    assert s.credits[0] == 0 and s.phase == Phase.KEEP


def test_sponsor_1_advanced_does_not_pay_a_copied_diver():
    s = with_diver_at("Sp", 1, n=2, sides="advanced")
    s.divers[1] = column("Mx Px Fx En Tx Tr Sp Ex")  # opponent's Engineer on level 1
    s.credits[0] = 1
    play(s, "key:L1", "sponsor", "spy:left")  # own Spy free
    assert s.credits[0] == 1
    play(s, "engineer:hacker")  # the copied Engineer still costs 1
    assert s.credits[0] == 0 and s.hacker[0] == 1


def test_sponsor_2_basic_uses_the_diver_twice_with_a_contract_between():
    s = with_diver_at("Mx", 2)
    s.hands[0] = [contract_id("MM")]
    set_res(s, 0, 2, "M")
    play(s, "key:L2", "sponsor", "expert:resource", "complete:hand0:L2")
    assert s.pp[0] == 1 and s.credits[0] == 4 and res(s, 0, 2) == "" and s.phase == Phase.STEP2
    play(s, "expert:resource")
    assert res(s, 0, 2) == "M" and not legal(s, "expert:resource")


def test_without_sponsor_2_the_diver_is_used_once():
    s = play(with_diver_at("Mx", 1), "key:L1", "expert:resource")
    assert s.uses_left == 0 and not legal(s, "expert:resource") and legal(s, "resurface")


def test_sponsor_2_advanced_uses_a_display_token_then_discards_and_refills():
    s = position(sides="advanced")
    s.display[2:4] = [PP_PP, BATTERY_C]  # level 2
    s.bag = [7, 9]
    s.token_discard = []
    play(s, "key:L2", "sponsor")
    assert s.phase == Phase.SPONSOR_TOKEN and names(s) == {"token:0", "token:1"}
    play(s, "token:0")
    assert s.pp[0] == 1 and s.token_discard == [PP_PP] and s.display[2:4] == [9, BATTERY_C]
    assert s.bag == [7] and s.phase == Phase.STEP1


def test_sponsor_2_advanced_resource_goes_to_the_key_level():
    s = position(sides="advanced")
    s.display[2] = RES_MP_C
    play(s, "key:L2", "sponsor", "token:0")
    assert s.phase == Phase.TOKEN_RESOURCE and names(s) == {"colour:M", "colour:P", "decline"}
    play(s, "colour:P")
    assert res(s, 0, 2) == "P" and s.phase == Phase.STEP1


def test_sponsor_2_advanced_with_empty_bag_refills_with_the_discarded_token():
    s = position(sides="advanced")
    s.display[2] = PP_PP
    s.bag, s.token_discard = [], []
    play(s, "key:L2", "sponsor", "token:0")
    assert s.display[2] == PP_PP and s.token_discard == [] and s.bag == []


def test_sponsor_3_basic_returns_an_own_key_from_the_track():
    s = position()
    s.hacker_track[0] = [0, D.NEUTRAL_X, D.OWN_X]
    s.keys_home[0] = [0, 1, 1, 1, 1, 0]
    play(s, "key:L3", "sponsor")
    assert s.phase == Phase.RETURN_KEY and names(s) == {"return_key:1", "return_key:X"}
    play(s, "return_key:1")
    assert s.hacker_track[0] == [D.NEUTRAL_X, D.OWN_X] and s.keys_home[0][0] == 1 and s.phase == Phase.STEP1


def test_sponsor_3_basic_needs_an_own_key_on_the_track():
    s = position()
    s.hacker_track[0] = [D.NEUTRAL_X]
    play(s, "key:L3")
    assert not legal(s, "sponsor")


def test_sponsor_3_advanced_resurfaces_level_5_and_changes_the_activated_diver():
    s = play(position(sides="advanced"), "key:L3", "sponsor")
    assert divers(s, 0) == "Ex Mx Px Fx Tx Tr Sp En"
    assert legal(s, "buy:M") is False and any(a.startswith("sell:") for a in names(s)) is False
    assert not any(a.startswith("spy:") for a in names(s))  # the Trader is on level 3 now
    s.store[F] = 1
    play(s, "buy:F", "resurface")
    assert res(s, 0, 3) == "F" and divers(s, 0) == "Tr Ex Mx Px Fx Tx Sp En"


def test_sponsor_4_basic_flips_the_activated_diver_for_2_credits_and_1_pp():
    s = play(position(), "key:L4", "sponsor")
    assert s.credits[0] == 1 and s.pp[0] == 1 and s.upgraded[0][D.ENGINEER] == 1
    play(s, "engineer:mechanic")  # upgraded Engineer is free
    assert s.credits[0] == 1 and s.mechanic[0] == 1


def test_sponsor_4_needs_2_credits_and_a_basic_diver():
    s = position()
    s.credits[0] = 1
    play(s, "key:L4")
    assert not legal(s, "sponsor")
    s = position()
    s.upgraded[0][D.ENGINEER] = 1
    play(s, "key:L4")
    assert not legal(s, "sponsor")


def test_sponsor_4_advanced_flips_a_surface_diver():
    s = position(sides="advanced")
    s.upgraded[0][D.METAL_EXPERT] = 1
    play(s, "key:L4", "sponsor")
    assert s.phase == Phase.SPONSOR_FLIP and names(s) == {"flip:slot1", "flip:slot2"}
    play(s, "flip:slot2")
    assert s.upgraded[0][D.FUEL_EXPERT] == 1 and s.credits[0] == 1 and s.pp[0] == 1


def test_sponsor_5_basic_gains_a_battery():
    s = play(position(), "key:L5", "sponsor")
    assert s.batteries[0] == 2


def test_sponsor_5_advanced_battery_or_move():
    s = play(position(sides="advanced"), "key:L5", "sponsor")
    assert s.phase == Phase.SPONSOR5
    play(s, "battery")
    assert s.batteries[0] == 2 and s.phase == Phase.STEP1
    s = position(sides="advanced")
    set_res(s, 0, 5, "MT")
    set_res(s, 0, 1, "PPP")  # level 1 full
    set_res(s, 0, 2, "F")
    play(s, "key:L5", "sponsor")
    assert not legal(s, "move:M:out:L1") and legal(s, "move:M:out:L2")
    assert legal(s, "move:P:in:L1") and legal(s, "move:F:in:L2")
    play(s, "move:T:out:L2")
    assert s.batteries[0] == 0 and res(s, 0, 5) == "M" and res(s, 0, 2) == "FT"


def test_sponsor_5_advanced_move_into_the_key_level():
    s = position(sides="advanced")
    set_res(s, 0, 1, "PPP")
    play(s, "key:L5", "sponsor", "move:P:in:L1")
    assert res(s, 0, 1) == "PP" and res(s, 0, 5) == "P" and s.batteries[0] == 0


def test_sponsor_5_advanced_without_battery_only_gains():
    s = position(sides="advanced")
    s.batteries[0] = 0
    set_res(s, 0, 5, "M")
    play(s, "key:L5", "sponsor")
    assert names(s) == {"battery"}




def test_sponsor_2_advanced_needs_a_token_on_its_level():
    s = position(sides="advanced")
    s.display[2:4] = [-1, -1]
    play(s, "key:L2")
    assert not legal(s, "sponsor")
