"""The per-game record summary (``OtysGame.game_summary``): sponsor setup, sponsor use
and yield per seat, PP by source, the round cap. The counters behind it must never
change a game (the golden playthroughs pin that too).

Positions come from ``otys_helpers.position``: sponsors #1-#5 on levels 1-5, column
'Mx Px Fx Tx Tr Sp En Ex' (level 1 Tech Expert, 2 Trader, 3 Spy, 4 Engineer,
5 Explorer), 3 credits, 1 battery, empty store.
"""

from __future__ import annotations

import json

import pytest
from otys_helpers import PP_PP, contract_id, play, position, set_res, token_id, with_diver_at

from otrio import envs
from otrio.envs.core import make_rng, validate
from otrio.envs.otys import data as D
from otrio.envs.otys.config import Config
from otrio.envs.otys.env import GAME
from otrio.envs.otys.records import PP_SOURCES, YIELD_KINDS
from otrio.envs.otys.rules import State

TILE = {number: number - 1 for number in range(1, D.NUM_SPONSORS + 1)}  # tile #k -> index


def summary(s: State) -> dict:
    out = GAME.game_summary(s)
    assert json.loads(json.dumps(out)) == out
    return out


def tile_yield(out: dict, seat: int, number: int) -> dict:
    """What tile #``number`` gave seat ``seat``, per yield kind (zeros left out)."""
    got = {kind: out["sponsor_yield"][kind][seat][TILE[number]] for kind in YIELD_KINDS}
    return {kind: v for kind, v in got.items() if v}


def random_game(n: int, seed: int, **config) -> tuple[State, dict]:
    """A seeded random game; counts the sponsor actions and PP gained per seat."""
    s = State(validate(Config, {"num_players": n, **config}), make_rng(seed))
    rng = make_rng(1000 + seed)
    uses = [0] * n
    while not s.over:
        legal = s.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        uses[s.seat] += action == GAME.actions.id("sponsor")
        s.apply_action(action)
    return s, {"uses_left": uses}


# ------------------------------------------------------------------ whole games
@pytest.mark.parametrize("n", [2, 3, 4])
def test_summary_shape_and_invariants_over_random_games(n):
    for seed in range(3):
        s, seen = random_game(n, seed, components={"end_pp": 8})
        out = summary(s)
        assert sorted(out["sponsor_order"]) == [1, 2, 3, 4, 5]
        assert len(out["sponsor_sides"]) == D.NUM_SPONSORS
        assert set(out["sponsor_sides"]) <= {"basic", "advanced"}
        assert [sum(row) for row in out["sponsor_uses"]] == seen["uses_left"]
        assert set(out["sponsor_yield"]) == set(YIELD_KINDS)
        assert all(len(table) == n and all(len(row) == 5 for row in table)
                   for table in out["sponsor_yield"].values())
        assert set(out["pp_by_source"]) == set(PP_SOURCES)
        by_source = [sum(out["pp_by_source"][src][p] for src in PP_SOURCES) for p in range(n)]
        assert by_source == s.pp == out["pp"]  # every PP has exactly one source
        sponsor_pp = [sum(row) for row in out["sponsor_yield"]["pp"]]
        assert all(y <= src for y, src in zip(sponsor_pp, out["pp_by_source"]["sponsors"]))
        assert out["rounds"] == s.round and out["capped"] is bool(s.capped)


def test_sponsor_setup_is_the_setup_even_after_x_keys_rotate_it():
    s = position(order=(3, 1, 5, 2, 4), sides=("basic", "advanced", "basic", "advanced", "basic"))
    play(s, "xown:L1", "resurface")
    assert s.sponsors != [2, 0, 4, 1, 3]  # rotated on the table
    out = summary(s)
    assert out["sponsor_order"] == [3, 1, 5, 2, 4]
    assert out["sponsor_sides"] == ["basic", "advanced", "basic", "advanced", "basic"]


def test_capped_flag():
    capped, _ = random_game(2, 1, round_cap=3)
    assert summary(capped)["capped"] is True and summary(capped)["rounds"] == 3
    ended, _ = random_game(2, 1, components={"end_pp": 2})
    assert summary(ended)["capped"] is False


def test_env_records_carry_the_summary():
    e = envs.make("otys_v0", num_players=2, round_cap=2)
    e.reset(seed=5)
    rng = make_rng(5)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(obs["action_mask"].nonzero()[0])))
    out = e.unwrapped.game.game_summary(e.unwrapped.state_)
    assert out["capped"] is True and len(out["sponsor_uses"]) == 2


# ------------------------------------------------------------------ each tile's yield
def test_sponsor_1_basic_yields_a_credit():
    out = summary(play(position(), "key:L1", "sponsor", "resurface"))
    assert out["sponsor_uses"][0] == [1, 0, 0, 0, 0]
    assert tile_yield(out, 0, 1) == {"credits": 1}


def test_sponsor_1_advanced_yields_the_credits_it_saved():
    s = with_diver_at("Ex", 1, sides="advanced")
    s.display[0] = PP_PP
    play(s, "key:L1", "sponsor", "explore:0")  # the Explorer's 2 credits are waived
    out = summary(s)
    assert tile_yield(out, 0, 1) == {"credits": 2}
    assert s.credits[0] == 3 and out["pp_by_source"]["reward_tokens"] == [1, 0]


def test_sponsor_2_basic_yields_its_second_use_only():
    s = with_diver_at("Mx", 2)
    play(s, "key:L2", "sponsor", "expert:resource")
    assert tile_yield(summary(s), 0, 2) == {}
    play(s, "expert:resource")
    out = summary(s)
    assert out["sponsor_uses"][0] == [0, 1, 0, 0, 0]
    assert tile_yield(out, 0, 2) == {"resources": 1}


def test_sponsor_2_advanced_yields_the_token_effect():
    s = position(sides="advanced")
    s.display[2] = PP_PP
    play(s, "key:L2", "sponsor", "token:0")
    out = summary(s)
    assert tile_yield(out, 0, 2) == {"pp": 1}
    assert out["pp_by_source"]["sponsors"] == [1, 0]
    s = position(sides="advanced")
    s.display[2] = token_id("resource", "credits", "MP")
    play(s, "key:L2", "sponsor", "token:0", "colour:P")
    assert tile_yield(summary(s), 0, 2) == {"resources": 1}


def test_sponsor_3_basic_yields_a_key():
    s = position()
    play(s, "key:L1", "resurface", "key:L1", "resurface")  # seat 1 plays too
    play(s, "key:L3", "sponsor", "return_key:1")
    out = summary(s)
    assert out["sponsor_uses"][0] == [0, 0, 1, 0, 0] and tile_yield(out, 0, 3) == {"keys": 1}


def test_sponsor_4_basic_yields_pp_and_an_upgrade_for_two_credits():
    s = position()
    play(s, "key:L4", "sponsor")
    out = summary(s)
    assert tile_yield(out, 0, 4) == {"pp": 1, "credits": -2, "upgrades": 1}
    assert out["pp_by_source"]["sponsors"] == [1, 0]


def test_sponsor_5_yields_a_battery_or_a_move():
    out = summary(play(position(), "key:L5", "sponsor"))
    assert tile_yield(out, 0, 5) == {"batteries": 1}
    s = position(sides="advanced")
    set_res(s, 0, 2, "M")
    play(s, "key:L5", "sponsor", "move:M:in:L2")
    assert tile_yield(summary(s), 0, 5) == {"batteries": -1}


def test_yields_are_per_seat():
    s = position(n=2)
    play(s, "key:L5", "resurface", "key:L5", "sponsor", "resurface")
    out = summary(s)
    assert out["sponsor_uses"] == [[0] * 5, [0, 0, 0, 0, 1]]
    assert out["sponsor_yield"]["batteries"] == [[0] * 5, [0, 0, 0, 0, 1]]


def test_a_save_inside_a_sponsor_resolution_keeps_measuring():
    s = position()
    play(s, "key:L1", "resurface", "key:L1", "resurface", "key:L3", "sponsor")
    again = State.from_dict(json.loads(json.dumps(s.to_dict())))
    play(again, "return_key:1")
    assert tile_yield(summary(again), 0, 3) == {"keys": 1}


# ------------------------------------------------------------------ PP by source
def test_pp_by_source_splits_contracts_backs_and_store():
    s = with_diver_at("Tr", 3)
    s.hands[0] = [contract_id((2, 1))]
    s.board_tokens[0][2] = PP_PP  # a PP back on level 3
    set_res(s, 0, 3, "MMPF")
    play(s, "key:L3", "complete:hand0:L3", "colour:M", "colour:P", "sell:F:pp")
    out = summary(s)
    assert s.pp[0] == 2 + 1 + 1
    assert {k: v[0] for k, v in out["pp_by_source"].items()} == {
        "contracts": 2, "reward_backs": 1, "store": 1, "sponsors": 0, "reward_tokens": 0,
    }


# ------------------------------------------------------------------ no effect on play
def test_counters_do_not_change_play():
    """A state whose record counters are zeroed plays on exactly like the full one."""
    s = State(validate(Config, {"num_players": 3}), make_rng(7))
    rng = make_rng(70)
    for _ in range(120):
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
    a, b = s.clone(), s.clone()
    b.yield_tile, b.yield_base = -1, [0] * len(YIELD_KINDS)
    b.sponsor_uses = [[0] * D.NUM_SPONSORS for _ in range(3)]
    b.sponsor_yield = [[0] * (D.NUM_SPONSORS * len(YIELD_KINDS)) for _ in range(3)]
    b.pp_by_source = [[0] * len(PP_SOURCES) for _ in range(3)]
    assert a.sponsor_uses != b.sponsor_uses
    rng_a, rng_b = make_rng(71), make_rng(71)
    while not a.over:
        legal = a.legal_actions()
        assert b.legal_actions() == legal
        action = legal[int(rng_a.integers(len(legal)))]
        assert action == legal[int(rng_b.integers(len(legal)))]
        a.apply_action(action)
        b.apply_action(action)
    assert (a.pp, a.round, a.winners()) == (b.pp, b.round, b.winners())
    for name in ("divers", "resources", "credits", "batteries", "hands", "deck", "display"):
        assert getattr(a, name) == getattr(b, name)
