"""Oceanos turn rules, one position and one expectation each (hand-computed)."""

import pytest

from otrio.envs.core.errors import ConfigError, IllegalActionError
from otrio.envs.oceanos.actions import TABLE
from otrio.envs.oceanos.data import AQUARIUM, COCKPIT, MOTOR, PROPELLER
from otrio.envs.oceanos.env import raw_env
from otrio.envs.oceanos.rules import Decision

from .helpers import DECK, cid, fresh

PASSIVE = {
    Decision.KEEP: "keep:slot0",
    Decision.KEEP_MORE: "stop",
    Decision.DIVER: "diver:skip",
    Decision.UPGRADE: "upgrade:skip",
    Decision.AID_UPGRADE: "upgrade:skip",
    Decision.DISCARD: "discard:none",
}


def act(state, name):
    """Apply the named action, checking first that it is legal."""
    action = TABLE.id(name)
    assert action in state.legal_actions(), (name, [TABLE.name(a) for a in state.legal_actions()])
    state.apply_action(action)


def names(state):
    return [TABLE.name(a) for a in state.legal_actions()]


def auto(state, until):
    """Take the passive choice of every decision until ``until(state)`` holds."""
    for _ in range(5000):
        if until(state):
            return
        act(state, PASSIVE[state.decision])
    raise AssertionError("condition never reached")


# ---------------------------------------------------------------- dealing
def test_first_turn_deal_captain_is_seat0():
    s = fresh(3)
    assert s.captain == 0
    assert [len(h) for h in s.hands] == [0, 2, 2]  # periscopes (1) + 1 for non-captains
    assert (s.decision, s.actor) == (Decision.KEEP, 1)
    assert names(s) == ["keep:slot0", "keep:slot1"]


def test_cockpit_level_sets_cards_dealt():
    s = fresh(3)
    s.levels[2][COCKPIT] = 3
    auto(s, lambda s: s.turn == 1)
    assert s.captain == 1
    assert len(s.hands[2]) == 4  # three periscopes + one card
    assert len(s.hands[0]) == 2


def test_captain_gets_remainders_and_discards_rest_face_up():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("turtle")]
    s.hands[2] = [cid("coral"), cid("eye")]
    act(s, "keep:slot0")  # crab
    act(s, "stop")
    act(s, "keep:slot1")  # eye
    act(s, "stop")
    # both placed (no chest, no base): the Captain holds the two remainders
    assert (s.decision, s.actor) == (Decision.KEEP, 0)
    assert s.hands[0] == [cid("turtle"), cid("coral")]
    assert s.rows[1][0] == [cid("crab")] and s.rows[2][0] == [cid("eye")]
    act(s, "keep:slot1")  # coral
    act(s, "stop")
    assert s.discards[0] == [cid("turtle")]
    assert s.rows[0][0] == [cid("coral")]


def test_captain_tops_up_from_deck():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("turtle")]
    s.hands[2] = [cid("coral"), cid("eye")]
    act(s, "keep:slot0")
    act(s, "keep:slot0")  # second card with fuel: nothing left to pass
    act(s, "keep:slot0")
    act(s, "stop")
    deck_before = len(s.decks[0])
    assert s.actor == 0 and len(s.hands[0]) == 2  # 1 received + 1 drawn
    assert len(s.decks[0]) == deck_before  # drawn before this decision was reached
    assert cid("eye") in s.hands[0]


def test_kept_cards_are_placed_in_the_order_kept():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("turtle")]
    act(s, "keep:slot1")  # turtle first
    act(s, "keep:slot0")  # then crab, with fuel
    assert s.rows[1][0] == []  # face down until everyone chose
    auto(s, lambda s: s.actor == 0)
    assert s.rows[1][0] == [cid("turtle"), cid("crab")]


# ------------------------------------------------------------------- fuel
def test_fuel_allows_one_extra_card_per_round_at_motor_level_one():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("turtle")]
    act(s, "keep:slot0")
    assert "stop" in names(s) and "keep:slot0" in names(s)
    act(s, "keep:slot0")
    assert (s.fuel_ready[1], s.fuel_used[1]) == (0, 1)
    # next turn (seat 1 is Captain) and the one after: no fuel left this round
    auto(s, lambda s: s.turn == 2 and s.decision == Decision.KEEP and s.actor == 1)
    act(s, "keep:slot0")
    assert s.decision != Decision.KEEP_MORE or s.actor != 1


def test_fuel_returns_at_end_of_round():
    s = fresh(3)
    s.levels[1][MOTOR] = 2
    s.fuel_ready[1] = 0
    s.fuel_used[1] = 2
    auto(s, lambda s: s.round == 1)
    assert (s.fuel_ready[1], s.fuel_used[1]) == (2, 0)


def test_new_fuel_token_usable_from_next_turn():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("base")]
    s.green[1] = 1
    act(s, "keep:slot1")  # the base
    act(s, "stop")
    auto(s, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    act(s, "upgrade:motor")
    assert s.levels[1][MOTOR] == 2
    assert (s.fuel_ready[1], s.fuel_fresh[1]) == (1, 1)
    auto(s, lambda s: s.turn == 1)
    assert (s.fuel_ready[1], s.fuel_fresh[1]) == (2, 0)


# ----------------------------------------------------------------- divers
def test_diver_on_a_chest_card():
    s = fresh(3)
    s.hands[1] = [cid("crab"), cid("chest")]
    act(s, "keep:slot1")  # chest
    act(s, "stop")
    auto(s, lambda s: s.decision == Decision.DIVER)
    assert s.actor == 1 and names(s) == ["diver:place", "diver:skip"]
    act(s, "diver:place")
    assert s.divers[1] == [(0, 0)] and s.divers_ready[1] == 0


def test_no_diver_decision_without_an_available_diver():
    s = fresh(3)
    s.divers_ready[1] = 0
    s.hands[1] = [cid("crab"), cid("chest")]
    act(s, "keep:slot1")
    act(s, "stop")
    auto(s, lambda s: s.actor == 0 or s.decision == Decision.DIVER)
    assert not (s.decision == Decision.DIVER and s.actor == 1)
    assert s.rows[1][0] == [cid("chest")]


def test_new_diver_from_airlock_not_usable_in_same_turn():
    s2 = fresh(3)
    s2.divers_ready[1] = 0
    s2.green[1] = 1
    s2.hands[1] = [cid("base"), cid("chest")]
    s2.hands[1].sort()
    act(s2, "keep:slot1")  # base first
    act(s2, "keep:slot0")  # then the chest
    auto(s2, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    act(s2, "upgrade:airlock")
    # the chest is placed next: no diver decision, the new diver waits for next turn
    assert not (s2.decision == Decision.DIVER and s2.actor == 1)
    assert s2.rows[1][0] == [cid("base"), cid("chest")]
    auto(s2, lambda s: s.turn == 1)
    assert s2.divers_ready[1] == 1


# --------------------------------------------------------------- upgrades
@pytest.mark.parametrize(
    "green, yellow, levels, options",
    [
        (1, 0, [1, 1, 1, 1, 1], [0, 1, 2, 3, 4]),  # one colour: any level-1 part
        (3, 0, [2, 1, 3, 1, 2], [1, 3]),  # one colour, however many crystals: 1 -> 2 only
        (1, 1, [2, 1, 1, 2, 1], [0, 3]),  # both colours: a level-2 part to 3
        (1, 2, [1, 1, 3, 1, 1], [0, 1, 3, 4]),  # both, no level-2 part: 1 -> 2
        (0, 2, [2, 2, 3, 2, 2], []),  # one colour, no level-1 part: nothing
        (0, 0, [1, 1, 1, 1, 1], []),  # no crystals: nothing
        (1, 1, [3, 3, 3, 3, 3], []),  # everything at 3
    ],
)
def test_upgrade_options(green, yellow, levels, options):
    s = fresh(3)
    s.green[1], s.yellow[1], s.levels[1] = green, yellow, levels
    assert s.upgrade_options(1) == options


def _keep_and_place(s, cards, keep_order):
    """Seat 1 keeps hand slots in ``keep_order`` (extra ones with fuel)."""
    s.hands[1] = sorted(cards)
    s.fuel_ready[1] = 3
    for slot in keep_order:
        act(s, f"keep:slot{slot}")
    if s.actor == 1 and s.decision == Decision.KEEP_MORE:
        act(s, "stop")


def test_upgrade_by_one_colour_spends_all_crystals():
    s = fresh(3)
    _keep_and_place(s, [cid("green"), cid("green", copy=1), cid("base")], [1, 1, 0])
    auto(s, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    assert names(s) == [f"upgrade:{p}" for p in ("propeller", "motor", "cockpit", "aquarium", "airlock")] + ["upgrade:skip"]
    act(s, "upgrade:propeller")
    assert s.levels[1][PROPELLER] == 2
    assert (s.green[1], s.yellow[1]) == (0, 0)


def test_upgrade_by_two_colours_to_level_three():
    s = fresh(3)
    s.levels[1][AQUARIUM] = 2
    _keep_and_place(s, [cid("green"), cid("yellow"), cid("base")], [0, 0, 0])
    auto(s, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    assert names(s) == ["upgrade:aquarium", "upgrade:skip"]
    act(s, "upgrade:aquarium")
    assert s.levels[1][AQUARIUM] == 3


def test_base_before_crystal_gives_no_upgrade():
    s = fresh(3)
    # slots sorted: green (13), base (15): keep the base first, then the green
    _keep_and_place(s, [cid("green"), cid("base")], [1, 0])
    auto(s, lambda s: s.actor == 0)
    assert s.rows[1][0] == [cid("base"), cid("green")]
    assert s.levels[1] == [1, 1, 1, 1, 1] and s.green[1] == 1


def test_base_with_no_crystals_asks_nothing():
    s = fresh(3)
    _keep_and_place(s, [cid("base"), cid("crab")], [1])
    auto(s, lambda s: s.actor == 0)
    assert s.rows[1][0] == [cid("base")]


def test_declining_keeps_crystals_for_a_later_base():
    s = fresh(3)
    _keep_and_place(s, [cid("green"), cid("base"), cid("base", copy=1)], [0, 0, 0])
    auto(s, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    act(s, "upgrade:skip")
    assert s.green[1] == 1
    assert s.decision == Decision.UPGRADE  # the second base asks again
    act(s, "upgrade:cockpit")
    assert s.levels[1][COCKPIT] == 2 and s.green[1] == 0


def test_used_crystals_do_not_serve_the_next_base():
    s = fresh(3)
    _keep_and_place(s, [cid("green"), cid("base"), cid("base", copy=1)], [0, 0, 0])
    auto(s, lambda s: s.decision == Decision.UPGRADE and s.actor == 1)
    act(s, "upgrade:motor")
    auto(s, lambda s: s.actor == 0)
    assert s.rows[1][0] == [cid("green"), cid("base"), cid("base", copy=1)]
    assert sum(s.levels[1]) == 6


def test_crystals_carry_over_rounds_and_player_aid_is_a_base():
    s = fresh(3)
    s.yellow[2] = 1
    auto(s, lambda s: s.decision == Decision.AID_UPGRADE)
    # the Player Aid at the end of the row is a base: seat 2 may upgrade with its crystal
    assert (s.round, s.turn, s.actor) == (0, 5, 2)
    assert names(s) == [f"upgrade:{p}" for p in ("propeller", "motor", "cockpit", "aquarium", "airlock")] + ["upgrade:skip"]
    # declining keeps the crystals into round 2
    held = (s.green[2], s.yellow[2])
    assert held[1] >= 1
    auto(s, lambda s: s.round == 1)
    assert (s.green[2], s.yellow[2]) == held


# ---------------------------------------------------------------- rounds
def test_captain_passes_left_across_rounds():
    s = fresh(3)
    seen = []
    auto(s, lambda s: (seen.append((s.round, s.turn, s.captain)) and False) or s.round == 1 and s.turn == 1)
    captains = {(r, t): c for r, t, c in seen}
    assert [captains[(0, t)] for t in range(5)] == [0, 1, 2, 0, 1]
    assert captains[(1, 0)] == 2  # the sixth turn's Captain: 5 mod 3


def test_round_scoring_with_kraken_tie():
    s = fresh(3)
    s.kraken = [-2, -3, -4]
    s.rows[0][0] = [cid("crab"), cid("turtle"), cid("eye2")]
    s.rows[1][0] = [cid("crab", copy=1), cid("eye"), cid("eye", copy=1)]
    s.rows[2][0] = [cid("shark"), cid("eye", copy=2)]
    s.levels[2][PROPELLER] = 3
    s.score = [0, 0, 0]
    s._score_round()
    # seat 0: 2 animals = 4, eyes 2 (tied most) -> -2; seat 1: 1 animal = 2, eyes 2 -> -2
    # seat 2: 1 animal = 2, propeller 5, eyes 1
    assert s.score == [2, 0, 7]
    assert s.points[0][2] == -2 and s.points[2][2] == 0


def test_end_game_coral_and_treasure():
    s = fresh(3)
    s.rows[0] = [[cid("coralchest")], [cid("chest")], [cid("coral"), cid("chest", copy=1)]]
    s.divers[0] = [(1, 0)]  # collects (1,0) and (0,0)
    s.rows[1] = [[cid("coral2")], [cid("coral2", copy=1)], []]
    s.rows[2] = [[], [], []]
    s.bag = [3] * 5
    s.score = [0, 0, 0]
    s._end_game()
    # seat 0: reef (0,0)=1 alone, (2,0)=1 alone -> 1; chests 2 x 3 = 6
    # seat 1: reef 2 + 2 = 4
    assert s.score == [7, 4, 0]
    assert s.treasure_values[0] == [3, 3] and len(s.bag) == 3
    assert s.winners() == [0] and s.over


@pytest.mark.parametrize(
    "scores, levels, winners",
    [
        ([10, 12, 12], [[1] * 5, [2, 1, 1, 1, 1], [1] * 5], [1]),  # tie broken by crystals
        ([12, 12, 3], [[2, 1, 1, 1, 1], [1, 1, 2, 1, 1], [3] * 5], [0, 1]),  # shared
        ([20, 12, 3], [[1] * 5, [3] * 5, [3] * 5], [0]),
    ],
)
def test_winners_and_tie_break(scores, levels, winners):
    s = fresh(3)
    s.score, s.levels = scores, levels
    assert s.winners() == winners


def test_deck_refills_from_the_rounds_discards():
    s = fresh(3)
    s.decks[0] = []
    s.discards[0] = [cid("crab"), cid("whale")]
    card = s._draw()
    assert card in (cid("crab"), cid("whale"))
    assert s.discards[0] == [] and len(s.decks[0]) == 1


# --------------------------------------------------------------- variants
def test_two_player_turn_discard_under_deck_and_swap():
    s = fresh(2)
    assert not s.captain_mode
    assert [len(h) for h in s.hands] == [2, 2]
    s.hands[0] = [cid("crab"), cid("turtle")]
    s.hands[1] = [cid("shark"), cid("whale")]
    s.fuel_ready = [0, 0]
    act(s, "keep:slot0")  # seat 0 keeps the crab
    assert s.actor == 1 and s.hands[1] == [cid("shark"), cid("whale")]
    act(s, "keep:slot1")  # seat 1 keeps the whale
    assert (s.decision, s.actor) == (Decision.DISCARD, 0)
    act(s, "discard:slot0")  # turtle goes under the deck
    assert s.decks[0][0] == cid("turtle")
    act(s, "discard:none")
    # seat 1's remaining shark is now seat 0's; seat 0 had nothing left
    assert s.passed[1] == [cid("shark")]
    assert s.turn == 1 and cid("shark") in s.hands[0] and len(s.hands[0]) == 2
    assert len(s.hands[1]) == 2


def test_two_player_captain_turn_by_flag():
    s = fresh(2, two_player_variant=False)
    assert s.captain_mode and [len(h) for h in s.hands] == [0, 2]


def test_troubled_waters_captain_takes_one_random_card_each():
    s = fresh(3, troubled_waters=True)
    s.hands[1] = [cid("crab"), cid("turtle")]
    s.hands[2] = [cid("shark"), cid("whale")]
    s.levels[1][COCKPIT] = 2
    s.hands[1].append(cid("seahorse"))
    act(s, "keep:slot0")
    act(s, "stop")
    act(s, "keep:slot0")
    act(s, "stop")
    # remainders: seat 1 [turtle, seahorse], seat 2 [whale]; Captain takes one of each
    cap = s.hands[0]
    assert cid("whale") in cap and len(cap) == 2
    taken = (set(cap) & {cid("turtle"), cid("seahorse")}).pop()
    untaken = ({cid("turtle"), cid("seahorse")} - {taken}).pop()
    assert s.decks[0][0] == untaken  # the rest go under the deck


# ---------------------------------------------------------------- configs
def test_fixed_kraken_setup_is_used():
    s = fresh(3, kraken={"mode": "fixed", "values": [-2, -1, -4]})
    assert s.kraken == [-2, -1, -4]


@pytest.mark.parametrize(
    "config, key",
    [
        ({"num_players": 6}, "num_players"),
        ({"colour": "red"}, "colour"),
        ({"kraken": {"mode": "fixed", "values": [-3, -1, -2]}}, "small"),
        ({"kraken": {"mode": "fixed"}}, "kraken"),
        ({"kraken": {"mode": "sometimes"}}, "kraken.mode"),
        ({"num_players": 2, "troubled_waters": True}, "troubled_waters"),
        ({"treasure_tokens": [2, -1]}, "treasure_tokens"),
    ],
)
def test_bad_configs_are_rejected_naming_the_key(config, key):
    with pytest.raises(ConfigError, match=key):
        raw_env(**config)


def test_illegal_action_names_the_legal_ones():
    env = raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 12 for player_1; legal actions: 0=keep:slot0, 1=keep:slot1"):
        env.step(12)
    env.step(0)  # nothing was lost: the game goes on
    assert env.agent_selection == "player_1"


def test_test_deck_is_valid():
    assert len(DECK) == 51


def test_random_kraken_tokens_are_drawn_as_rng_choice_would():
    """Each size's token is one uniform draw from its pool, made right after the three
    decks are shuffled: exactly what ``rng.choice(pool)`` gives for the same seed."""
    import numpy as np

    from otrio.envs.core.rng import make_rng
    from otrio.envs.oceanos.cards_table import card_table
    from otrio.envs.oceanos.config import Config
    from otrio.envs.oceanos.data import KRAKEN_SIZES
    from otrio.envs.oceanos.rules import State

    config = Config(num_players=3)
    for seed in range(200):
        reference = make_rng(seed)
        for deck in card_table(config.cards).round_ids:
            reference.shuffle(list(deck))
        expected = [int(reference.choice(getattr(config.kraken_tokens, size)))
                    for size in KRAKEN_SIZES]
        kraken = State(config, make_rng(seed)).kraken
        assert kraken == expected
        assert all(isinstance(v, int) and not isinstance(v, np.integer) for v in kraken)
