"""The Otys env through the core adapter: PettingZoo API, generic checks, config,
observation, hidden information, save/load, rewards, rendering."""

from __future__ import annotations

import json

import numpy as np
import pytest
from otys_helpers import contract_id, play, position, set_res

from otrio import envs
from otrio.envs.core import ConfigError, IllegalActionError, StateError, make_rng, testing, validate
from otrio.envs.otys import data as D
from otrio.envs.otys.config import Config
from otrio.envs.otys.env import GAME, MAX_DECISIONS, env, raw_env
from otrio.envs.otys.hidden import resample_hidden
from otrio.envs.otys.observe import LAYOUT, OBS_SIZE
from otrio.envs.otys.observe_cache import write_observation
from otrio.envs.otys.rules import State

SETUPS = [(n, sides) for n in (2, 4) for sides in ("basic", "advanced")]


def _fn(n, sides="random", **kw):
    return lambda: envs.make("otys_v0", num_players=n, sponsors={"sides": sides}, **kw)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # raised inside PettingZoo's tests
@pytest.mark.parametrize("n, sides", SETUPS)
def test_pettingzoo_api_and_seed(n, sides):
    testing.check_pettingzoo(_fn(n, sides), num_cycles=150)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_masks(n):
    assert testing.check_masks(_fn(n), range(2)) > 0


@pytest.mark.parametrize("n, sides", SETUPS)
def test_hidden_information(n, sides):
    changed = testing.check_hidden_information(_fn(n, sides), range(1), every=7)
    assert changed > 0


def test_hidden_information_with_the_designer_variant():
    fn = _fn(3, "advanced", spy_designer_variant=True)
    assert testing.check_hidden_information(fn, range(1), every=7) > 0


@pytest.mark.parametrize("n", [2, 4])
def test_save_load_and_determinism(n):
    testing.check_save_load(_fn(n), range(2), cut_steps=80)
    testing.check_determinism(_fn(n), range(2))


def test_resample_changes_what_is_hidden_and_keeps_what_is_known():
    s = State(validate(Config, {"num_players": 3}), make_rng(4))
    s.hands = [[0, 1], [2, 3, 4], [5]]
    s.public = [20, 21, 22]
    s.deck = list(range(6, 20)) + list(range(23, 32))
    s.deck_seen = [0] * len(s.deck)
    s.deck_seen[0] = 1  # seat 0 knows the bottom card
    bottom = s.deck[0]
    moved = 0
    for k in range(20):
        r = resample_hidden(s, 0, make_rng(k))
        assert r.hands[0] == [0, 1] and r.deck[0] == bottom
        assert [len(h) for h in r.hands] == [2, 3, 1] and r.public == s.public
        everything = sorted(r.deck + r.hands[1] + r.hands[2])
        assert everything == sorted(s.deck + s.hands[1] + s.hands[2])
        moved += r.hands[1] != s.hands[1] or r.deck != s.deck
    assert moved >= 18


def test_default_config_and_rejections():
    e = env()
    assert e.num_players == 3 and len(e.possible_agents) == 3
    with pytest.raises(ConfigError, match="colour"):
        env(colour="red")
    with pytest.raises(ConfigError, match="order"):
        env(sponsors={"order": [1, 1, 2, 3, 4]})
    with pytest.raises(ConfigError, match="shuffle"):
        env(sponsors={"shuffle": True})
    with pytest.raises(ConfigError):
        env(num_players=5)
    with pytest.raises(ConfigError, match="numbers"):
        env(components={"contracts": [{"kind": "number", "needs": [1, 1, 1, 1, 1], "pp": 3}]})


def test_sponsor_setup_explicit_and_reproducible():
    e = env(num_players=2, sponsors={"order": [3, 1, 5, 2, 4], "sides": ["basic", "advanced", "basic", "advanced", "basic"]})
    e.reset(seed=1)
    s = e.unwrapped.state_
    assert s.sponsors == [2, 0, 4, 1, 3] and s.advanced == [0, 1, 0, 1, 0]
    setups = set()
    for seed in range(6):
        a, b = env(num_players=2), env(num_players=2)
        a.reset(seed=seed)
        b.reset(seed=seed)
        sa, sb = a.unwrapped.state_, b.unwrapped.state_
        assert (sa.sponsors, sa.advanced, sa.display) == (sb.sponsors, sb.advanced, sb.display)
        setups.add((tuple(sa.sponsors), tuple(sa.advanced)))
    assert len(setups) > 1


def test_setup_follows_the_rulebook():
    for n in (2, 3, 4):
        s = State(validate(Config, {"num_players": n}), make_rng(n))
        assert len(s.public) == (2 if n == 2 else 3)
        assert sorted(s.store) == [0, 1, 1, 2]
        assert len(s.deck) == len(D.CONTRACTS) - len(s.public)
        assert len(s.bag) == len(D.REWARD_TOKENS) - 10 and min(s.display) >= 0
        for p in range(n):
            assert sorted(s.divers[p]) == list(range(8)) and not any(s.upgraded[p])
            assert sum(s.resources[p][:4]) == 0
            assert [sum(s.resources[p][4 * li : 4 * li + 4]) for li in range(1, 5)] == [1, 1, 1, 1]
            assert sorted(c for c in range(4) for li in range(5) if s.resources[p][4 * li + c]) == [0, 1, 2, 3]
            assert (s.credits[p], s.batteries[p], s.pp[p]) == (3, 1, 0)


def test_components_override():
    cards = [{"kind": "combination", "needs": "M", "pp": 9}] * 4
    e = env(num_players=2, components={"contracts": cards, "end_pp": 9})
    e.reset(seed=0)
    s = e.unwrapped.state_
    assert s.tables.num_contracts == 4 and s.tables.contract_pp == [9] * 4 and s.tables.end_pp == 9
    assert e.observation_space("player_0")["observation"].shape == (OBS_SIZE,)


def test_observation_is_relative_and_hides_other_hands():
    s = position(n=3)
    s.credits = [5, 7, 9]
    s.hands[0] = [contract_id("MM")]
    s.hands[1] = [contract_id("PP"), contract_id("FF")]
    views = {}
    for seat in range(3):
        out = np.zeros(OBS_SIZE, np.float32)
        write_observation(s, seat, out)
        views[seat] = LAYOUT.views(out)
    assert views[0]["credits"].tolist() == [5, 7, 9, 0]
    assert views[1]["credits"].tolist() == [7, 9, 5, 0]
    assert views[2]["credits"].tolist() == [9, 5, 7, 0]
    assert views[1]["hand_size"].tolist() == [2, 0, 1, 0]
    assert views[0]["hand"][0, 0] == 1 and views[0]["hand"][1, 0] == 0
    assert views[1]["hand"][:2, 0].tolist() == [1, 1]
    assert views[2]["hand"].sum() == 0
    assert views[0]["actor"].tolist() == [1, 0, 0, 0] and views[1]["actor"].tolist() == [0, 0, 1, 0]


def test_drawn_cards_are_seen_by_the_drawer_only():
    s = play(position(n=2), "key:L3", "spy:draw")
    mine, theirs = np.zeros(OBS_SIZE, np.float32), np.zeros(OBS_SIZE, np.float32)
    write_observation(s, 0, mine)
    write_observation(s, 1, theirs)
    assert LAYOUT.views(mine)["drawn"][:, 0].tolist() == [1, 1, 1, 1]
    assert LAYOUT.views(theirs)["drawn"].sum() == 0
    assert LAYOUT.views(theirs)["drawn_count"][0] == 4


def test_illegal_action_raises_and_names_the_legal_ones():
    e = env(num_players=2)
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="key:L1"):
        e.step(GAME.actions.id("oxygen"))


def test_rewards_winner_and_shared_victory():
    for pp, expected in (((18, 3), {"player_0": 1.0, "player_1": -1.0}), ((18, 18), None)):
        cfg = {"num_players": 2, "sponsors": {"order": [1, 2, 3, 4, 5], "sides": "basic"}}
        e = env(**cfg)
        e.reset(seed=0)
        s = position(n=2)
        s.pp = list(pp)
        s.seat = s.actor = 1
        saved = e.unwrapped.save_state()
        saved["state"] = json.loads(json.dumps(s.to_dict()))
        saved["agent_selection"] = "player_1"
        e.unwrapped.load_state(saved)
        e.step(GAME.actions.id("key:L1"))
        e.step(GAME.actions.id("resurface"))
        assert all(e.terminations.values())
        rewards = {a: e._cumulative_rewards[a] for a in e.agents}
        assert rewards == (expected or {"player_0": 0.0, "player_1": 0.0})


def test_dense_reward_is_pp_over_18():
    e = env(num_players=2, dense_reward=True, sponsors={"order": [1, 2, 3, 4, 5], "sides": "basic"})
    e.reset(seed=0)
    s = position(n=2)
    card = contract_id("MMPP")  # taken from where it lies, so the save stays valid
    if card in s.public:
        s.public[s.public.index(card)] = s._draw_card()
    else:
        del s.deck_seen[s.deck.index(card)]
        s.deck.remove(card)
    s.hands[0] = [card]
    set_res(s, 0, 3, "MMPP")
    saved = e.unwrapped.save_state()
    saved["state"] = s.to_dict()
    e.unwrapped.load_state(saved)
    e.step(GAME.actions.id("complete:hand0:L3"))
    assert e.rewards["player_0"] == pytest.approx(3 / 18)


def test_bad_saved_state_is_rejected():
    s = position()
    data = s.to_dict()
    with pytest.raises(StateError):
        GAME.state_from_dict({"game": "oceanos"})
    broken = dict(data)
    broken["resources"] = [[0] * 3, [0] * 20]
    with pytest.raises(StateError):
        GAME.state_from_dict(broken)
    del broken["resources"]
    with pytest.raises(StateError):
        GAME.state_from_dict(broken)
    assert State.from_dict(json.loads(json.dumps(data))).to_dict() == data


def test_render_and_names():
    e = raw_env(num_players=4, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert "Otys, 4 players" in text and "player_3" in text and "choose a key" in text
    assert len(set(GAME.actions.names)) == GAME.info.num_actions
    assert GAME.info.observation_size == LAYOUT.size
    assert MAX_DECISIONS >= D.MAX_ROUND_CAP * D.MAX_PLAYERS * 20


def test_colour_choice_before_a_key_shows_the_contract():
    """A number card completed at the key choice asks for colours before any key is
    set; the observation must still show the card, its level and the picks so far."""
    import numpy as np

    from otrio.envs.otys.observe import LAYOUT
    from otrio.envs.otys.phases import Phase

    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        state = env.unwrapped.state_
        if state.phase == Phase.CONTRACT_COLOUR and state.level < 0:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    else:
        raise AssertionError("seed 2 no longer reaches a colour choice before a key")
    vec = obs["observation"]
    assert vec[LAYOUT.slice("contract")].any()
    assert vec[LAYOUT.slice("contract_level")].sum() == 1


def test_human_view_hides_other_hands():
    import numpy as np

    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        state = env.unwrapped.state_
        if state.hands[0] and state.hands[1]:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    else:
        raise AssertionError("no position where both players hold contracts")
    full = env.unwrapped.game.render(state)
    mine = env.unwrapped.game.render_for(state, 0)
    assert full.count("hand:") == 2 and mine.count("hand:") == 1
