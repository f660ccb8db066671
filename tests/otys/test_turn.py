"""Turn structure: keys, propellers, resurfacing, the Hacker track, X keys, the end.

Positions are built directly (``otys_helpers.position``: columns
'Mx Px Fx Tx Tr Sp En Ex', i.e. level 1 = Tech Expert ... level 5 = Explorer,
sponsors #1-#5 on levels 1-5, basic) and every expectation is computed by hand.
"""

from __future__ import annotations

import pytest
from otys_helpers import column, divers, legal, names, play, position, set_res

from otrio.envs.otys import data as D
from otrio.envs.otys.phases import Phase


# ------------------------------------------------------------------ resurfacing
@pytest.mark.parametrize(
    "key, after",
    [
        ("key:L1", "Tx Mx Px Fx Tr Sp En Ex"),
        ("key:L3", "Sp Mx Px Fx Tx Tr En Ex"),
        ("key:L5", "Ex Mx Px Fx Tx Tr Sp En"),
        ("xown:L2", "Tr Mx Px Fx Tx Sp En Ex"),
    ],
)
def test_resurface_moves_the_activated_diver_to_slot_0_and_shifts(key, after):
    s = play(position(), key, "resurface")
    assert divers(s, 0) == after
    assert s.batteries[0] == 1
    assert (s.seat, s.phase) == (1, Phase.KEY)


def test_oxygen_spends_a_battery_and_keeps_the_column():
    s = play(position(), "key:L3", "oxygen")
    assert divers(s, 0) == "Mx Px Fx Tx Tr Sp En Ex"
    assert s.batteries[0] == 0
    assert s.hacker_track[0] == [2]


def test_oxygen_needs_a_battery():
    s = position()
    s.batteries[0] = 0
    play(s, "key:L3")
    assert not legal(s, "oxygen") and legal(s, "resurface")


# ------------------------------------------------------------------ propellers
@pytest.mark.parametrize(
    "mech, moves, after",
    [
        (0, ["prop:3>2"], "Mx Px Tx Fx Tr Sp En Ex"),  # level 1 up to the surface
        (0, ["prop:2>3"], "Mx Px Tx Fx Tr Sp En Ex"),  # surface down to level 1
        (1, ["prop:2>4"], "Mx Px Tx Tr Fx Sp En Ex"),  # reach 2 across the boundary
        (3, ["prop:7>3"], "Mx Px Fx Ex Tx Tr Sp En"),  # reach 4
        (0, ["prop:0>1", "prop:6>7"], "Px Mx Fx Tx Tr Sp Ex En"),
    ],
)
def test_propeller_moves_one_diver_and_shifts_the_others(mech, moves, after):
    s = position()
    s.mechanic[0] = mech
    s.batteries[0] = len(moves)
    play(s, "key:L1", *moves)
    assert divers(s, 0) == after
    assert s.batteries[0] == 0


def test_propeller_reach_is_the_mechanic_value():
    s = play(position(), "key:L1")
    props = {a for a in names(s) if a.startswith("prop:")}
    # reach 1: each slot to its neighbours only; nothing past slot 0 or slot 7
    assert props == {f"prop:{a}>{b}" for a in range(8) for b in range(8) if abs(a - b) == 1}
    s = position()
    s.mechanic[0] = 1
    play(s, "key:L1")
    assert legal(s, "prop:2>4") and not legal(s, "prop:2>5")


def test_propeller_changes_which_diver_is_activated():
    s = play(position(), "key:L1", "prop:3>2")  # Fuel Expert now touches the key
    play(s, "expert:resource", "resurface")
    assert s.resources[0][D.FUEL] == 1  # level 1, fuel
    assert divers(s, 0) == "Fx Mx Px Tx Tr Sp En Ex"


def test_no_propeller_without_battery_or_with_an_x_key():
    s = position()
    s.batteries[0] = 0
    play(s, "key:L1")
    assert not any(a.startswith("prop:") for a in names(s))
    s = play(position(), "xown:L1")
    assert not any(a.startswith("prop:") for a in names(s))


# ------------------------------------------------------------------ keys and the Hacker track
def _turn(s, key):
    play(s, key, "resurface")


def _opponent_turn(s):
    play(s, sorted(a for a in names(s) if a.startswith(("key:", "xown:")))[0], "resurface")


def test_full_return_at_the_start_after_six_tokens():
    s = position()
    keys = ["key:L1", "key:L2", "key:L3", "key:L4", "key:L5", "xown:L1"]
    for i, key in enumerate(keys[:5]):
        _turn(s, key)
        assert s.hacker_track[0] == list(range(i + 1))
        _opponent_turn(s)
    assert s.keys_home[0] == [0, 0, 0, 0, 0, 1]
    assert legal(s, "xown:L4") and not legal(s, "key:L1")
    _turn(s, keys[5])  # the sixth token finds 5 on the track: all come back
    assert s.hacker_track[0] == []
    assert s.keys_home[0] == [1] * 6


def test_full_return_after_one_hacker_improvement_takes_five_tokens():
    s = position()
    s.hacker[0] = 1  # capacity 4
    for i, key in enumerate(["key:L1", "key:L2", "key:L3", "key:L4"]):
        _turn(s, key)
        assert len(s.hacker_track[0]) == i + 1
        _opponent_turn(s)
    _turn(s, "key:L5")
    assert s.hacker_track[0] == [] and s.keys_home[0] == [1] * 6


def test_engineer_improvement_overfilling_the_track_returns_at_end_of_turn():
    s = position()
    s.hacker_track[0] = [0, 1, 2, 4]
    s.keys_home[0] = [0, 0, 0, 1, 0, 1]
    play(s, "key:L4", "engineer:hacker")  # Engineer on level 4: capacity 5 -> 4
    assert s.hacker[0] == 1 and s.credits[0] == 2
    play(s, "resurface")
    assert s.hacker_track[0] == [] and s.keys_home[0] == [1] * 6


def test_without_the_improvement_the_same_key_goes_on_the_track():
    s = position()
    s.hacker_track[0] = [0, 1, 2, 4]
    s.keys_home[0] = [0, 0, 0, 1, 0, 1]
    play(s, "key:L4", "resurface")
    assert s.hacker_track[0] == [0, 1, 2, 4, 3]
    assert s.keys_home[0] == [0, 0, 0, 0, 0, 1]


def test_two_engineer_improvements_with_sponsor_2():
    s = position(order=(1, 3, 4, 2, 5))  # Sponsor #2 on level 4
    s.hacker_track[0] = [0, 1, 2]
    s.keys_home[0] = [0, 0, 0, 1, 1, 1]
    play(s, "key:L4", "sponsor", "engineer:hacker", "engineer:hacker")  # 5 -> 3
    assert s.credits[0] == 1 and s.hacker[0] == 2
    play(s, "resurface")  # 3 on the track >= capacity 3: full return
    assert s.hacker_track[0] == [] and s.keys_home[0] == [1] * 6


def test_neutral_x_keys_go_back_to_the_supply_on_a_full_return():
    s = position()
    s.neutral_supply = 10
    s.hacker_track[0] = [0, D.NEUTRAL_X, 1, 2, D.NEUTRAL_X]
    s.keys_home[0] = [0, 0, 0, 1, 1, 1]
    s.neutral_held[0] = 1
    play(s, "xneutral:L2", "resurface")
    assert s.neutral_held[0] == 0
    assert s.neutral_supply == 13  # two from the track and the one just played
    assert s.hacker_track[0] == [] and s.keys_home[0] == [1] * 6


def test_numbered_key_on_the_track_is_not_available_but_an_x_key_is():
    s = position()
    s.hacker_track[0] = [2]
    s.keys_home[0] = [1, 1, 0, 1, 1, 1]
    assert not legal(s, "key:L3") and legal(s, "xown:L3") and not legal(s, "xneutral:L3")
    play(s, "xown:L3", "resurface")
    assert s.hacker_track[0] == [2, D.OWN_X] and s.keys_home[0][D.OWN_X] == 0


# ------------------------------------------------------------------ X keys and sponsors
def test_x_key_rotates_the_sponsors_before_the_sponsor_effect():
    s = play(position(), "xown:L1")
    assert s.sponsors == [4, 0, 1, 2, 3]  # #5 from level 5 to level 1, others down
    play(s, "sponsor")  # now #5 basic: a battery (not #1's credit)
    assert s.batteries[0] == 2 and s.credits[0] == 3


def test_x_key_on_level_3_uses_the_sponsor_that_moved_there():
    s = position()
    s.divers[0] = column("Px Fx Tx Tr Sp Mx En Ex")  # Metal Expert on level 3
    play(s, "xown:L3", "sponsor")  # #2 basic moved from level 2 to 3: use twice
    play(s, "expert:resource", "expert:resource", "resurface")
    assert s.resources[0][2 * D.NUM_COLOURS + D.METAL] == 2
    assert s.sponsors == [4, 0, 1, 2, 3]


def test_numbered_key_does_not_rotate():
    s = play(position(), "key:L1", "sponsor")
    assert s.sponsors == [0, 1, 2, 3, 4] and s.credits[0] == 4


# ------------------------------------------------------------------ end of game
def test_18_pp_finishes_the_round():
    s = position(n=3)
    s.pp[0] = 18
    _turn(s, "key:L1")
    assert s.end_triggered and not s.is_terminal() and s.seat == 1
    _turn(s, "key:L1")
    assert not s.is_terminal() and s.seat == 2
    _turn(s, "key:L1")
    assert s.is_terminal() and s.winners() == [0] and s.legal_actions() == []


def test_last_seat_reaching_18_ends_at_once():
    s = position(n=3)
    _turn(s, "key:L1")
    _turn(s, "key:L1")
    s.pp[2] = 19
    _turn(s, "key:L1")
    assert s.is_terminal() and s.winners() == [2]


def test_reaching_18_by_a_contract_mid_turn_lets_the_turn_go_on():
    s = position(n=2)
    s.pp[1] = 17
    _turn(s, "key:L1")
    s.hands[1] = [0]  # MM, 1 PP + 1 credit
    set_res(s, 1, 2, "MM")
    play(s, "key:L2", "complete:hand0:L2")
    assert s.pp[1] == 18 and s.phase == Phase.STEP1 and not s.is_terminal()
    play(s, "resurface")
    assert s.is_terminal() and s.winners() == [1]


@pytest.mark.parametrize(
    "pp, resources, winners",
    [
        ((18, 17, 5), ("M", "MMPP", ""), [0]),  # most PP
        ((18, 18, 5), ("M", "MM", "MMMM"), [1]),  # tie on PP: most resources
        ((18, 18, 18), ("MF", "PP", "T"), [0, 1]),  # still tied: shared
        ((20, 20, 20), ("", "", ""), [0, 1, 2]),
    ],
)
def test_tie_breaks(pp, resources, winners):
    s = position(n=3)
    for p in range(3):
        s.pp[p] = pp[p]
        set_res(s, p, 5, resources[p])
    assert s.winners() == winners


def test_round_cap_ends_the_game():
    s = position(n=2, round_cap=2)
    for _ in range(3):
        _turn(s, "key:L1") if legal(s, "key:L1") else _opponent_turn(s)
    assert not s.is_terminal() and s.round == 2
    _opponent_turn(s)
    assert s.is_terminal() and s.capped and s.round == 2


def test_designer_variant_copied_diver_resurfaces_unless_its_owner_pays():
    s = position(n=2, spy_designer_variant=True)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")  # opponent's Engineer on level 3
    play(s, "key:L3", "spy:left")
    assert s.credits == [2, 4]  # the Spy's credit goes to the opponent
    play(s, "engineer:mechanic", "resurface")
    assert s.credits[0] == 1 and s.mechanic[0] == 1
    assert s.phase == Phase.VARIANT and s.current_player() == 1
    assert names(s) == {"resurface", "oxygen"}
    play(s, "oxygen")
    assert s.batteries[1] == 0 and divers(s, 1) == "Mx Px Fx Tx Tr En Sp Ex"
    assert (s.seat, s.phase, s.current_player()) == (1, Phase.KEY, 1)


def test_designer_variant_without_battery_resurfaces_automatically():
    s = position(n=2, spy_designer_variant=True)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    s.batteries[1] = 0
    play(s, "key:L3", "spy:left", "engineer:mechanic", "resurface")
    assert divers(s, 1) == "En Mx Px Fx Tx Tr Sp Ex"
    assert (s.seat, s.phase) == (1, Phase.KEY)


def test_designer_variant_spy_oxygen_keeps_the_copied_diver_down():
    s = position(n=2, spy_designer_variant=True)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    play(s, "key:L3", "spy:left", "engineer:mechanic", "oxygen")
    assert divers(s, 1) == "Mx Px Fx Tx Tr En Sp Ex" and s.seat == 1


def test_default_spy_copy_does_not_move_the_opponents_diver():
    s = position(n=2)
    s.divers[1] = column("Mx Px Fx Tx Tr En Sp Ex")
    play(s, "key:L3", "spy:left")
    assert s.credits == [2, 3]
    play(s, "engineer:mechanic", "resurface")
    assert s.credits[0] == 1 and divers(s, 1) == "Mx Px Fx Tx Tr En Sp Ex"
    assert divers(s, 0) == "Sp Mx Px Fx Tx Tr En Ex"
