"""Contracts: both kinds at level capacity, colour choice, bonuses, reward-token
permanent effects, public refills.

Default position (``otys_helpers.position``): column 'Mx Px Fx Tx Tr Sp En Ex'
(level 1 Tech Expert, 2 Trader, 3 Spy, 4 Engineer, 5 Explorer), sponsors #1-#5 on
levels 1-5, 3 credits, 1 battery, empty store. Expectations are computed by hand.
"""

from __future__ import annotations

import pytest
from otys_helpers import (
    contract_id,
    legal,
    names,
    play,
    position,
    res,
    set_res,
    token_id,
)

from otrio.envs.otys import data as D
from otrio.envs.otys.phases import Phase


# ------------------------------------------------------------------ contracts
@pytest.mark.parametrize(
    "needs, level, resources, completable",
    [
        ("MMPP", 1, "MMP", False),  # level 1 holds 3: a 4-resource card cannot fit
        ("MMPP", 3, "MMPP", True),
        ("MMPP", 3, "MMPT", False),
        ("MMPPFF", 4, "MMPPF", False),  # level 4 holds 5
        ("MMPPFF", 5, "MMPPFF", True),
        ((3, 2, 1), 5, "MMMPPF", True),
        ((3, 2, 1), 5, "MMPPFF", False),  # needs three of one colour
        ((1, 1, 1, 1), 3, "MPFT", True),
        ((1, 1, 1, 1), 3, "MMPF", False),
        ((3, 3), 5, "MMMTTT", True),
    ],
)
def test_contract_fits_at_level_capacity(needs, level, resources, completable):
    s = position()
    s.hands[0] = [contract_id(needs)]
    set_res(s, 0, level, resources)
    assert legal(s, f"complete:hand0:L{level}") is completable


def test_combination_contract_pays_pp_removes_resources_and_keeps_the_rest():
    s = position()
    s.hands[0] = [contract_id("MMPP")]
    set_res(s, 0, 3, "MMPPF")
    play(s, "complete:hand0:L3")
    assert s.pp[0] == 3 and res(s, 0, 3) == "F" and s.hands[0] == []
    assert s.discard[-1] == contract_id("MMPP")


def test_number_contract_asks_for_the_colours():
    s = position()
    s.hands[0] = [contract_id((2, 1))]
    set_res(s, 0, 3, "MMPP")
    play(s, "complete:hand0:L3")
    assert names(s) == {"colour:M", "colour:P"}  # the 2
    play(s, "colour:P")
    assert names(s) == {"colour:M"}  # the 1: another colour
    play(s, "colour:M")
    assert res(s, 0, 3) == "M" and s.pp[0] == 2 and s.phase == Phase.KEY


def test_number_contract_equal_numbers_are_one_choice_per_colour_set():
    s = position()
    s.hands[0] = [contract_id((2, 2))]
    set_res(s, 0, 4, "MMPPF")
    play(s, "key:L1", "complete:hand0:L4")
    assert names(s) == {"colour:M"}  # {M, P} is the only set; asked in colour order
    play(s, "colour:M", "colour:P")
    assert res(s, 0, 4) == "F" and s.pp[0] == 3 and s.phase == Phase.STEP1


def test_number_contract_greedy_would_fail_but_a_choice_exists():
    s = position()
    s.hands[0] = [contract_id((3, 2, 1))]
    set_res(s, 0, 5, "MMMPPF")
    play(s, "complete:hand0:L5")
    assert names(s) == {"colour:M"}
    play(s, "colour:M")
    assert names(s) == {"colour:P"}  # F has one only
    play(s, "colour:P", "colour:F")
    assert res(s, 0, 5) == "" and s.pp[0] == 5 and s.credits[0] == 4 and s.batteries[0] == 2


@pytest.mark.parametrize(
    "needs, credits, batteries",
    [("MM", 4, 1), ("PP", 3, 2), ("MMFT", 4, 1), ("PPTM", 3, 2), ("MPF", 3, 1)],
)
def test_contract_bonuses(needs, credits, batteries):
    s = position()
    s.hands[0] = [contract_id(needs)]
    set_res(s, 0, 5, needs)
    play(s, "complete:hand0:L5")
    assert (s.credits[0], s.batteries[0]) == (credits, batteries)


@pytest.mark.parametrize(
    "back, credits, pp",
    [("credits", 3 + D.PERMANENT_CREDITS, 2), ("pp", 3, 2 + D.PERMANENT_PP)],
)
def test_reward_token_permanent_effect_on_completion(back, credits, pp):
    s = position()
    s.board_tokens[0][2] = token_id("battery", back)
    s.hands[0] = [contract_id("MPF"), contract_id("PFT")]
    set_res(s, 0, 3, "MPF")
    set_res(s, 0, 4, "PFT")
    play(s, "complete:hand0:L3")
    assert (s.credits[0], s.pp[0]) == (credits, pp)
    play(s, "complete:hand0:L4")  # no token on level 4: only the card
    assert (s.credits[0], s.pp[0]) == (credits, pp + 2)


def test_public_contract_is_replaced_from_the_deck():
    s = position()
    s.public = [contract_id("TT"), 25]
    s.deck, s.deck_seen = [7, 9], [0, 0]
    set_res(s, 0, 1, "TT")
    play(s, "key:L2", "complete:pub0:L1")
    assert s.public == [9, 25] and s.deck == [7] and s.pp[0] == 1 and s.batteries[0] == 2
    s.deck, s.deck_seen = [], []
    s.public[1] = contract_id("MM")
    set_res(s, 0, 3, "MM")
    play(s, "complete:pub1:L3")
    assert s.public == [9, -1]
    assert not any(a.startswith("complete:pub1") for a in names(s))


def test_hand_slots_shift_after_a_completion():
    s = position()
    s.hands[0] = [contract_id("MM"), contract_id("PP")]
    set_res(s, 0, 1, "MM")
    set_res(s, 0, 2, "PP")
    play(s, "complete:hand0:L1")
    assert s.hands[0] == [contract_id("PP")]
    play(s, "complete:hand0:L2")
    assert s.hands[0] == [] and s.pp[0] == 2


def test_contracts_only_on_own_turn_and_not_inside_a_sub_decision():
    s = position()
    s.hands[1] = [contract_id("MM")]
    set_res(s, 1, 1, "MM")
    assert not any(a.startswith("complete:") for a in names(s))  # seat 0's turn
    s = position(sides="advanced")
    s.hands[0] = [contract_id("MM")]
    set_res(s, 0, 1, "MM")
    play(s, "key:L5", "sponsor")
    assert s.phase == Phase.SPONSOR5 and not any(a.startswith("complete:") for a in names(s))
    play(s, "battery")
    assert legal(s, "complete:hand0:L1")
