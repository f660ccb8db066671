"""What may be declined: a draw-4 (Spy or reward token) always keeps a card, and in
the designer's Spy variant a declined copy gives the copied diver's owner nothing and
marks nothing.

Default position (``otys_helpers.position``): column 'Mx Px Fx Tx Tr Sp En Ex'
(level 1 Tech Expert, 2 Trader, 3 Spy, 4 Engineer, 5 Explorer), sponsors #1-#5 on
levels 1-5, 3 credits, 1 battery each. Expectations are computed by hand.
"""

from __future__ import annotations

import pytest
from otys_helpers import DRAW_PP, column, legal, names, play, position, with_diver_at

from otrio.envs.otys import data as D
from otrio.envs.otys.phases import Phase
from otrio.envs.otys.rules import State

FOUR_KEEPS = {"keep:0", "keep:1", "keep:2", "keep:3"}


# ------------------------------------------------------------------ draw 4, keep 1
def test_spy_draw_offers_only_the_drawn_cards():
    s = position()
    s.deck, s.deck_seen = [10, 11, 12, 13, 14, 15], [0] * 6
    play(s, "key:L3", "spy:draw")
    assert s.phase == Phase.KEEP and names(s) == FOUR_KEEPS


def test_copied_spy_draw_offers_only_the_drawn_cards():
    s = position(n=3)  # everyone's Spy on level 3: the copied Spy may only draw
    s.deck, s.deck_seen = [10, 11, 12, 13, 14], [0] * 5
    play(s, "key:L3", "spy:left", "spy:draw")
    assert s.phase == Phase.KEEP and names(s) == FOUR_KEEPS


@pytest.mark.parametrize("via", ["explorer", "sponsor 2 advanced"])
def test_draw_token_offers_only_the_drawn_cards(via):
    s = position(sides="advanced" if via != "explorer" else "basic")
    s.deck, s.deck_seen = [1, 2, 3, 4, 5], [0] * 5
    if via == "explorer":
        s.display[8] = DRAW_PP  # level 5
        play(s, "key:L5", "explore:0")
    else:
        s.display[2] = DRAW_PP  # level 2
        play(s, "key:L2", "sponsor", "token:0")
    assert s.phase == Phase.KEEP and s.drawn == [5, 4, 3, 2] and names(s) == FOUR_KEEPS


def test_short_deck_keeps_one_of_what_was_drawn():
    s = position()
    s.deck, s.deck_seen = [3], [0]
    play(s, "key:L3", "spy:draw")
    assert names(s) == {"keep:0"}
    play(s, "keep:0")
    assert s.hands[0] == [3] and s.deck == [] and s.phase == Phase.STEP2


def test_a_draw_with_room_for_one_card_fills_the_hand_and_no_further_draw_is_offered():
    s = position(n=2, order=(1, 3, 2, 4, 5), components={"hand_limit": 2})  # Sponsor #2 on level 3
    s.hands[0] = [20]
    s.deck, s.deck_seen = [1, 2, 3, 4, 5, 6], [0] * 6
    play(s, "key:L3", "sponsor", "spy:draw")  # two Spy uses this turn
    assert names(s) == FOUR_KEEPS
    play(s, "keep:0")
    assert s.hands[0] == [20, 6] and s.phase == Phase.STEP2
    assert not legal(s, "spy:draw")  # the hand is full: the second use cannot draw


# ------------------------------------------------------------------ designer's variant
def variant(n: int = 2, **config) -> State:
    """A variant position; the opponents' Plant Expert sits on level 3 (a free copy)."""
    s = position(n=n, spy_designer_variant=True, **config)
    for q in range(1, n):
        s.divers[q] = column("Mx Fx Tx Tr En Px Sp Ex")
    return s


def test_variant_declined_copy_gives_nothing_and_marks_nothing():
    s = variant()
    play(s, "key:L3", "spy:left")
    assert s.credits == [2, 4] and s.marks == [1]  # the credit is handed over
    play(s, "decline")
    assert s.credits == [3, 3] and s.marks == [] and s.phase == Phase.STEP2
    play(s, "resurface")  # nothing of the opponent's resurfaces, no question
    assert s.phase != Phase.VARIANT and s.seat == 1 and s.divers[1] == column("Mx Fx Tx Tr En Px Sp Ex")


def test_variant_declined_then_taken_copy_pays_the_opponent_once():
    s = variant(order=(1, 3, 2, 4, 5))  # Sponsor #2 basic on level 3: two diver uses
    play(s, "key:L3", "sponsor", "spy:left", "decline")
    assert s.credits == [3, 3] and s.marks == []
    play(s, "spy:left", "expert:resource")  # a taken copy still pays its owner
    assert s.credits == [2, 4] and s.marks == [1]


def test_variant_declined_copy_keeps_a_mark_made_before_it():
    s = variant(order=(1, 3, 2, 4, 5))
    play(s, "key:L3", "sponsor", "spy:left", "expert:resource")
    assert s.credits == [2, 4] and s.marks == [1]
    play(s, "spy:left", "decline")
    assert s.credits == [2, 4] and s.marks == [1]  # only the second copy is undone
    play(s, "resurface")
    assert s.phase == Phase.VARIANT and s.current_player() == 1  # the first copy still marks


def test_variant_declined_copy_by_an_upgraded_spy_unmarks():
    s = variant()
    s.upgraded[0][D.SPY] = 1  # free: nothing to give
    play(s, "key:L3", "spy:left")
    assert s.credits == [3, 3] and s.marks == [1]
    play(s, "decline")
    assert s.credits == [3, 3] and s.marks == []


def test_variant_declined_copy_under_sponsor_1_advanced():
    s = with_diver_at("Sp", 1, n=2, sides="advanced", spy_designer_variant=True)
    s.divers[1] = column("Mx Fx Tx Px Tr En Sp Ex")  # opponent's Plant Expert on level 1
    play(s, "key:L1", "sponsor", "spy:left")  # own Spy free: nothing given
    assert s.credits == [3, 3] and s.marks == [1]
    play(s, "decline")
    assert s.credits == [3, 3] and s.marks == [] and s.phase == Phase.STEP2


@pytest.mark.parametrize("copied_spy_upgraded", [0, 1])
def test_variant_nested_decline_undoes_only_the_inner_copy(copied_spy_upgraded):
    s = position(n=3, spy_designer_variant=True)  # everyone's Spy on level 3
    s.divers[2] = column("Mx Px Fx Tx Tr En Sp Ex")  # right neighbour: Engineer on level 3
    s.upgraded[1][D.SPY] = copied_spy_upgraded
    play(s, "key:L3", "spy:left")  # own Spy (1 credit to seat 1) copies seat 1's Spy
    assert s.credits == [2, 4, 3] and s.marks == [1]
    play(s, "spy:right")  # seat 1's Spy (paid to seat 2 unless upgraded) copies seat 2
    inner = 1 - copied_spy_upgraded
    assert s.credits == [2 - inner, 4, 3 + inner] and s.marks == [1, 2] and s.copy_depth == 2
    play(s, "decline")
    assert s.credits == [2, 4, 3] and s.marks == [1] and s.phase == Phase.STEP2


def test_variant_decline_of_a_copied_spy_undoes_the_outer_copy():
    s = position(n=3, spy_designer_variant=True)
    play(s, "key:L3", "spy:left", "decline")
    assert s.credits == [3, 3, 3] and s.marks == []


# ------------------------------------------------------------------ saving
def test_variant_pending_copy_survives_a_save():
    s = variant()
    play(s, "key:L3", "spy:left")
    s = State.from_dict(s.to_dict())
    play(s, "decline")
    assert s.credits == [3, 3] and s.marks == []
