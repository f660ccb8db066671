"""Divers, basic and upgraded: Experts, Trader and the store, Spy, Engineer, Explorer
and the reward tokens it takes.

Default position (``otys_helpers.position``): column 'Mx Px Fx Tx Tr Sp En Ex'
(level 1 Tech Expert, 2 Trader, 3 Spy, 4 Engineer, 5 Explorer), sponsors #1-#5 on
levels 1-5, 3 credits, 1 battery, empty store. Expectations are computed by hand.
"""

from __future__ import annotations

import pytest
from otys_helpers import (
    BATTERY_C,
    DRAW_PP,
    PP_PP,
    RES_MP_C,
    UPGRADE_C,
    F,
    M,
    P,
    T,
    column,
    legal,
    names,
    play,
    position,
    res,
    set_res,
    token_id,
    with_diver_at,
)

from otrio.envs.otys import data as D
from otrio.envs.otys.phases import Phase


# ------------------------------------------------------------------ experts
@pytest.mark.parametrize(
    "expert, upgraded, action, level_res, credits, batteries, nx",
    [
        ("Mx", 0, "expert:resource", "M", 3, 1, 0),
        ("Px", 0, "expert:resource", "P", 3, 1, 0),
        ("Fx", 0, "expert:resource", "F", 3, 1, 0),
        ("Tx", 0, "expert:resource", "T", 3, 1, 0),
        ("Mx", 1, "expert:both", "M", 3, 1, 1),
        ("Mx", 1, "expert:bonus", "", 3, 1, 1),
        ("Px", 1, "expert:both", "P", 4, 1, 0),
        ("Fx", 1, "expert:both", "F", 3, 2, 0),
        ("Fx", 1, "expert:resource", "F", 3, 1, 0),
    ],
)
def test_expert_effects(expert, upgraded, action, level_res, credits, batteries, nx):
    s = with_diver_at(expert, 1)
    s.upgraded[0][D.DIVER_SHORT.index(expert)] = upgraded
    s.neutral_supply = 5
    play(s, "key:L1", action)
    assert res(s, 0, 1) == level_res
    assert (s.credits[0], s.batteries[0], s.neutral_held[0], s.neutral_supply) == (credits, batteries, nx, 5 - nx)


@pytest.mark.parametrize("expert", ["Mx", "Px", "Fx", "Tx"])
def test_basic_expert_has_no_bonus_and_no_room_no_resource(expert):
    s = position()
    s.hacker_track[0] = [1]  # something the Tech Expert's bonus could return
    s.keys_home[0][1] = 0
    s.divers[0] = with_diver_at(expert, 1).divers[0]
    play(s, "key:L1")
    assert legal(s, "expert:resource") and not legal(s, "expert:bonus")
    s = with_diver_at("Mx", 1)
    set_res(s, 0, 1, "PPT")
    play(s, "key:L1")
    assert not any(a.startswith("expert:") for a in names(s))


def test_metal_expert_bonus_needs_a_neutral_key_in_the_supply():
    s = with_diver_at("Mx", 1)
    s.upgraded[0][D.METAL_EXPERT] = 1
    s.neutral_supply = 0
    play(s, "key:L1")
    assert legal(s, "expert:resource") and not legal(s, "expert:bonus")


def test_upgraded_tech_expert_returns_an_own_key():
    s = position()
    s.upgraded[0][D.TECH_EXPERT] = 1
    s.hacker_track[0] = [1, 2]
    s.keys_home[0] = [1, 0, 0, 1, 1, 1]
    play(s, "key:L1", "expert:both")
    assert s.phase == Phase.RETURN_KEY and names(s) == {"return_key:2", "return_key:3"}
    play(s, "return_key:3")
    assert res(s, 0, 1) == "T" and s.hacker_track[0] == [1] and s.keys_home[0][2] == 1
    assert s.phase == Phase.STEP2


# ------------------------------------------------------------------ trader and store
@pytest.mark.parametrize(
    "in_column, upgraded, payout, credits, pp",
    [
        (0, 0, "credits", 6, 0),  # top row: 3 credits
        (0, 0, "pp", 3, 1),  # or 1 PP
        (1, 0, "credits", 5, 0),  # row 1: 2 credits
        (2, 0, "credits", 4, 0),  # row 2: 1 credit
        (0, 1, "credits", 7, 0),  # upgraded: 4 credits
        (0, 1, "pp", 3, 2),  # or 2 PP
        (1, 1, "credits", 6, 0),
        (1, 1, "pp", 3, 1),  # upgraded lower rows pay PP too
        (2, 1, "credits", 5, 0),
        (2, 1, "pp", 3, 1),
    ],
)
def test_trader_sale_payouts(in_column, upgraded, payout, credits, pp):
    s = position()
    s.upgraded[0][D.TRADER] = upgraded
    s.store[F] = in_column
    set_res(s, 0, 2, "FF")
    play(s, "key:L2", f"sell:F:{payout}")
    assert (s.credits[0], s.pp[0]) == (credits, pp)
    assert s.store[F] == in_column + 1 and res(s, 0, 2) == "F"


@pytest.mark.parametrize("in_column", [1, 2])
def test_basic_trader_lower_rows_pay_no_pp(in_column):
    s = position()
    s.store[F] = in_column
    set_res(s, 0, 2, "F")
    play(s, "key:L2")
    assert legal(s, "sell:F:credits") and not legal(s, "sell:F:pp")


def test_sale_into_a_full_column_or_without_the_resource_is_illegal():
    s = position()
    s.store[F] = D.STORE_ROWS
    set_res(s, 0, 2, "FM")
    play(s, "key:L2")
    assert not legal(s, "sell:F:credits") and legal(s, "sell:M:credits")
    assert not legal(s, "sell:P:credits")


@pytest.mark.parametrize(
    "in_column, upgraded, cost",
    [(3, 0, 1), (2, 0, 2), (1, 0, 3), (3, 1, 0), (2, 1, 1), (1, 1, 2)],
)
def test_trader_buys_the_lowest_resource(in_column, upgraded, cost):
    s = position()
    s.upgraded[0][D.TRADER] = upgraded
    s.store[T] = in_column
    play(s, "key:L2", "buy:T")
    assert s.credits[0] == 3 - cost and s.store[T] == in_column - 1 and res(s, 0, 2) == "T"


def test_buying_needs_credits_a_resource_and_room():
    s = position()
    s.credits[0] = 2
    s.store[T] = 1  # costs 3
    s.store[M] = 2  # costs 2
    play(s, "key:L2")
    assert not legal(s, "buy:T") and legal(s, "buy:M") and not legal(s, "buy:P")
    s = position()
    s.store[M] = 3
    set_res(s, 0, 2, "PPP")
    play(s, "key:L2")
    assert not legal(s, "buy:M")


# ------------------------------------------------------------------ spy
def test_spy_draws_four_keeps_one_and_returns_three_to_the_bottom():
    s = position()
    s.deck = [10, 11, 12, 13, 14, 15]  # top is the end
    s.deck_seen = [0] * 6
    play(s, "key:L3", "spy:draw")
    assert s.credits[0] == 2 and s.drawn == [15, 14, 13, 12]
    play(s, "keep:1")
    assert s.hands[0] == [14] and s.deck == [15, 13, 12, 10, 11]
    assert s.deck_seen == [1, 1, 1, 0, 0] and s.phase == Phase.STEP2


def test_spy_draw_with_a_short_deck_and_full_hand():
    s = position()
    s.deck, s.deck_seen = [3, 4], [0, 0]
    play(s, "key:L3", "spy:draw")
    assert s.drawn == [4, 3] and names(s) == {"keep:0", "keep:1"}
    play(s, "keep:1")
    assert s.hands[0] == [3] and s.deck == [4]
    s = position()
    s.hands[0] = list(range(D.MAX_HAND))
    play(s, "key:L3")
    assert not legal(s, "spy:draw")


def test_spy_copies_a_neighbour_trader_and_pays_the_purchase():
    s = position(n=3)
    s.divers[1] = column("Mx Px Fx Tx En Tr Sp Ex")  # left neighbour: Trader on level 3
    s.store[M] = 2
    play(s, "key:L3", "spy:left")
    assert s.credits[0] == 2 and names(s) >= {"buy:M", "decline"}
    play(s, "buy:M")  # row 1: 2 credits
    assert s.credits[0] == 0 and res(s, 0, 3) == "M" and res(s, 1, 3) == ""
    assert s.store[M] == 1 and s.phase == Phase.STEP2


def test_spy_copy_of_an_upgraded_trader_gets_its_bonus():
    s = position(n=3)
    s.divers[2] = column("Mx Px Fx Tx En Tr Sp Ex")  # right neighbour
    s.upgraded[2][D.TRADER] = 1
    set_res(s, 0, 3, "P")
    play(s, "key:L3", "spy:right", "sell:P:pp")
    assert s.credits[0] == 2 and s.pp[0] == 2 and s.store[P] == 1


def test_spy_cannot_copy_when_it_cannot_pay_the_copied_diver():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")  # opponent's Engineer on level 3
    s.credits[0] = 1  # the Spy takes it, nothing left for the Engineer
    play(s, "key:L3")
    assert not legal(s, "spy:left") and not legal(s, "spy:right")


def test_spy_refuses_a_chain_of_spies():
    s = position(n=3)  # everyone's Spy is on level 3
    play(s, "key:L3", "spy:left")
    assert names(s) == {"spy:draw", "decline"}  # the copied Spy may only draw
    play(s, "spy:draw")
    assert s.credits[0] == 1 and s.phase == Phase.KEEP  # each Spy paid by its own side


def test_copied_spy_uses_a_non_spy_diver_of_my_own_neighbour():
    s = position(n=3)
    s.divers[2] = column("Mx Px Fx Tx Tr En Sp Ex")  # right neighbour: Engineer on level 3
    play(s, "key:L3", "spy:left")  # copy the left neighbour's Spy
    assert names(s) == {"spy:draw", "spy:right", "decline"}
    play(s, "spy:right", "engineer:mechanic")
    assert s.credits[0] == 0 and s.mechanic[0] == 1 and s.copy_depth == 2


def test_two_players_have_one_neighbour():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    play(s, "key:L3")
    assert legal(s, "spy:left") and not legal(s, "spy:right")


def test_upgraded_spy_is_free():
    s = position(n=2)
    s.upgraded[0][D.SPY] = 1
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    s.credits[0] = 1
    play(s, "key:L3", "spy:left", "engineer:mechanic")
    assert s.credits[0] == 0


def test_spy_twice_with_sponsor_2_pays_each_time():
    s = position(n=2, order=(1, 3, 2, 4, 5))  # Sponsor #2 on level 3
    s.divers[1] = column("Mx Px Fx Tx Tr Px Sp Ex")  # opponent's Plant Expert on level 3
    play(s, "key:L3", "sponsor", "spy:left", "expert:resource", "spy:left", "expert:resource")
    assert s.credits[0] == 1 and res(s, 0, 3) == "PP"


# ------------------------------------------------------------------ engineer
@pytest.mark.parametrize(
    "upgraded, action, credits, mech, hack",
    [
        (0, "engineer:mechanic", 2, 1, 0),
        (0, "engineer:hacker", 2, 0, 1),
        (1, "engineer:mechanic", 3, 1, 0),
        (1, "engineer:hacker", 3, 0, 1),
    ],
)
def test_engineer(upgraded, action, credits, mech, hack):
    s = position()
    s.upgraded[0][D.ENGINEER] = upgraded
    play(s, "key:L4", action)
    assert (s.credits[0], s.mechanic[0], s.hacker[0]) == (credits, mech, hack)


def test_engineer_improves_each_technician_at_most_three_times():
    s = position()
    s.mechanic[0], s.hacker[0] = 3, 2
    play(s, "key:L4")
    assert not legal(s, "engineer:mechanic") and legal(s, "engineer:hacker")
    s = position()
    s.credits[0] = 0
    play(s, "key:L4")
    assert not any(a.startswith("engineer:") for a in names(s))


# ------------------------------------------------------------------ explorer and tokens
def test_explorer_takes_a_token_uses_it_places_it_and_refills():
    s = position()
    s.display[8:10] = [PP_PP, BATTERY_C]  # level 5
    s.bag = [4, 6]
    play(s, "key:L5", "explore:0")
    assert s.credits[0] == 1 and s.pp[0] == 1
    assert s.board_tokens[0][4] == PP_PP and s.display[8:10] == [6, BATTERY_C] and s.bag == [4]


def test_upgraded_explorer_costs_one_and_basic_needs_two():
    s = position()
    s.upgraded[0][D.EXPLORER] = 1
    s.display[8] = BATTERY_C
    play(s, "key:L5", "explore:0")
    assert s.credits[0] == 2 and s.batteries[0] == 2
    s = position()
    s.credits[0] = 1
    play(s, "key:L5")
    assert not legal(s, "explore:0")


def test_explorer_replaces_a_token_already_on_the_board():
    s = position()
    old = token_id("pp", "credits")
    s.board_tokens[0][4] = old
    s.token_discard = []
    s.display[8] = BATTERY_C
    play(s, "key:L5", "explore:0")
    assert s.board_tokens[0][4] == BATTERY_C and s.token_discard == [old]


def test_explorer_refills_the_bag_from_the_discards():
    s = position()
    s.display[8] = BATTERY_C
    s.bag, s.token_discard = [], [DRAW_PP]
    play(s, "key:L5", "explore:0")
    assert s.display[8] == DRAW_PP and s.bag == [] and s.token_discard == []


def test_explorer_resource_token_choice_or_decline():
    s = position()
    s.display[9] = RES_MP_C
    play(s, "key:L5", "explore:1")
    assert s.phase == Phase.TOKEN_RESOURCE
    play(s, "colour:M")
    assert res(s, 0, 5) == "M" and s.board_tokens[0][4] == RES_MP_C
    s = position()
    s.display[9] = RES_MP_C
    play(s, "key:L5", "explore:1", "decline")
    assert res(s, 0, 5) == "" and s.board_tokens[0][4] == RES_MP_C and s.phase == Phase.STEP2


def test_explorer_draw_and_upgrade_tokens():
    s = position()
    s.display[8] = DRAW_PP
    s.deck, s.deck_seen = [1, 2, 3, 4, 5], [0] * 5
    play(s, "key:L5", "explore:0")
    assert s.phase == Phase.KEEP and s.drawn == [5, 4, 3, 2]
    play(s, "keep:3")
    assert s.hands[0] == [2] and s.board_tokens[0][4] == DRAW_PP
    s = position()
    s.display[8] = UPGRADE_C
    play(s, "key:L5", "explore:0")
    assert s.phase == Phase.TOKEN_FLIP and "flip:slot7" in names(s) and "decline" in names(s)
    play(s, "flip:slot7")  # the Explorer itself; no PP, no credits
    assert s.upgraded[0][D.EXPLORER] == 1 and s.pp[0] == 0 and s.credits[0] == 1




# ------------------------------------------------------------------ readings (README)
def test_spy_copy_decline_keeps_the_spy_cost_paid():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    play(s, "key:L3", "spy:left", "decline")
    assert s.credits[0] == 2 and s.mechanic[0] == 0 and s.phase == Phase.STEP2


def test_copied_tech_expert_returns_the_copiers_own_key():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tr En Tx Sp Ex")  # opponent's Tech Expert on level 3
    s.upgraded[1][D.TECH_EXPERT] = 1
    s.hacker_track[0], s.keys_home[0] = [0], [0, 1, 1, 1, 1, 1]
    s.hacker_track[1], s.keys_home[1] = [4], [1, 1, 1, 1, 0, 1]
    play(s, "key:L3", "spy:left", "expert:both")
    assert names(s) == {"return_key:1"}
    play(s, "return_key:1")
    assert s.keys_home[0][0] == 1 and s.hacker_track[1] == [4] and res(s, 0, 3) == "T"


def test_copied_explorer_puts_the_token_on_the_copiers_board():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tr En Ex Sp Tx")  # opponent's Explorer on level 3
    s.display[4] = PP_PP  # level 3, first token
    play(s, "key:L3", "spy:left", "explore:0")
    assert s.credits[0] == 0 and s.pp[0] == 1
    assert s.board_tokens[0][2] == PP_PP and s.board_tokens[1][2] == -1


def test_designer_variant_upgraded_spy_gives_nothing():
    s = position(n=2, spy_designer_variant=True)
    s.upgraded[0][D.SPY] = 1
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    play(s, "key:L3", "spy:left")
    assert s.credits == [3, 3] and s.marks == [1]


@pytest.mark.parametrize("front", ["draw", "resource", "upgrade"])
def test_token_effect_with_nothing_to_do_asks_nothing(front):
    s = position()
    s.display[8] = token_id(front, "pp", "MP" if front == "resource" else "")
    s.hands[0] = list(range(D.MAX_HAND))  # full hand
    set_res(s, 0, 5, "MMMPPP")  # full level 5
    s.upgraded[0] = [1] * D.NUM_DIVERS  # everything upgraded
    token = s.display[8]
    play(s, "key:L5", "explore:0")
    assert s.phase == Phase.STEP2  # no sub-decision: straight back to the step-2 menu
    assert s.board_tokens[0][4] == token and s.credits[0] == 2  # upgraded Explorer: 1 credit
    assert len(s.hands[0]) == D.MAX_HAND and res(s, 0, 5) == "MMMPPP"
