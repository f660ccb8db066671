"""Hardening of the shared adapter and configs (issue 21): strict action types, calls
out of order, strict booleans, nested unknown keys, decks too small to deal."""

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.errors import ConfigError, IllegalActionError, OrderError, OtrioError

GAMES = ["oceanos_v0", "otys_v0", "otontin_v0"]


def _play_out(env) -> None:
    """Play the (reset) env to its end with the first legal action, dead steps included."""
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.unwrapped.legal_actions()[0])


@pytest.mark.parametrize("game", GAMES)
def test_integer_actions_of_python_and_numpy_are_taken(game):
    for kind in (int, np.int64, np.int32, np.uint8):
        env = envs.make(game)
        env.reset(seed=0)
        first = env.agent_selection
        env.step(kind(env.unwrapped.legal_actions()[0]))
        assert env.unwrapped.decisions == 1, kind
        assert first in env.agents


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [True, False, 0.0, 0.9, 1.0, "0", "1", None, np.bool_(True),
                                 np.float64(0.0), np.float32(1.0), np.array(0), [0], b"0"],
                         ids=repr)
def test_anything_but_an_integer_is_an_illegal_action_naming_value_and_agent(game, bad):
    env = envs.make(game)
    env.reset(seed=0)
    agent = env.agent_selection
    saved = env.unwrapped.save_state()
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    assert repr(bad) in str(err.value) and agent in str(err.value)
    assert err.value.agent == agent and err.value.action is bad
    assert env.unwrapped.save_state() == saved  # nothing was played


def test_an_integer_not_in_the_legal_set_names_the_legal_ones():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    legal = env.unwrapped.legal_actions()
    wrong = next(a for a in range(env.unwrapped.game.info.num_actions) if a not in legal)
    with pytest.raises(IllegalActionError, match=f"illegal action {wrong} for player_"):
        env.step(np.int64(wrong))


@pytest.mark.parametrize("game", GAMES)
def test_calls_before_reset_are_order_errors(game):
    env = envs.make(game)
    for call, name in [(lambda: env.step(0), "step"), (lambda: env.last(), "last"),
                       (lambda: env.observe("player_0"), "observe"),
                       (lambda: next(iter(env.agent_iter())), "agent_iter"),
                       (lambda: env.render_for_seat("player_0"), "render_for_seat")]:
        with pytest.raises(OrderError, match=rf"call reset\(\) before {name}"):
            call()
    assert issubclass(OrderError, OtrioError)


@pytest.mark.parametrize("game", GAMES)
def test_calls_after_every_agent_is_done_are_order_errors(game):
    env = envs.make(game)
    env.reset(seed=1)
    _play_out(env)
    assert env.agents == []
    for call in (lambda: env.step(0), lambda: env.step(None), lambda: env.last()):
        with pytest.raises(OrderError, match="the game is over"):
            call()
    env.observe("player_0")  # the final observation stays readable
    with pytest.raises(OrderError, match="unknown agent 'player_99'"):
        env.observe("player_99")
    env.reset(seed=1)  # and a new game starts as usual
    assert env.agents == env.possible_agents


def test_a_done_agent_may_only_pass_none():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=2)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(IllegalActionError, match=f"{agent} is done"):
                env.step(0)
            env.step(None)
            break
        env.step(env.unwrapped.legal_actions()[0])
    assert env.agents and agent not in env.agents


# ------------------------------------------------------------------- configs
@pytest.mark.parametrize("game,key", [("oceanos_v0", "dense_reward"),
                                      ("oceanos_v0", "troubled_waters"),
                                      ("oceanos_v0", "two_player_variant"),
                                      ("otys_v0", "spy_designer_variant"),
                                      ("otys_v0", "dense_reward"),
                                      ("otontin_v0", "split_spoils"),
                                      ("otontin_v0", "dense_reward")])
@pytest.mark.parametrize("value", ["yes", "true", 1, 0, 1.0, None])
def test_flags_must_be_booleans(game, key, value):
    with pytest.raises(ConfigError, match=rf"'{key}'.*true or false"):
        envs.make(game, **{key: value})
    envs.make(game, **{key: True})


def test_a_nested_unknown_key_names_the_nested_allowed_keys():
    with pytest.raises(ConfigError) as err:
        envs.make("oceanos_v0", kraken={"mod": "fixed"})
    assert "unknown key 'kraken.mod' (allowed: mode, values)" in str(err.value)
    with pytest.raises(ConfigError) as err:
        envs.make("otys_v0", components={"contracts": [
            {"kind": "combination", "needs": "M", "pp": 1, "ppp": 2}]})
    assert ("unknown key 'components.contracts.0.ppp' "
            "(allowed: batteries, credits, kind, needs, pp)") in str(err.value)
    with pytest.raises(ConfigError, match=r"unknown key 'sponsor' \(allowed: .*sponsors"):
        envs.make("otys_v0", sponsor={})


def _deck(size: int) -> list:
    return [("-", 0, 0, 0, "-", 0)] * size


@pytest.mark.parametrize("players", [2, 3, 5])
def test_oceanos_round_decks_must_deal_one_turn_to_every_seat(players):
    # every seat's hand is periscopes + 1 = 2 cards at the start
    need = 2 * players
    for decks in ([_deck(need - 1), _deck(40), _deck(40)], [_deck(40), _deck(40), _deck(0)]):
        with pytest.raises(ConfigError, match=rf"'cards'.*round {1 if decks[0] != _deck(40) else 3}"
                                              rf".*at least {need}"):
            envs.make("oceanos_v0", num_players=players, cards=decks)
    env = envs.make("oceanos_v0", num_players=players, cards=[_deck(need)] * 3)
    env.reset(seed=0)
    _play_out(env)


def test_otys_decks_must_deal_the_setup():
    card = {"kind": "combination", "needs": "M", "pp": 1}
    token = {"immediate": "pp", "back": "pp"}
    with pytest.raises(ConfigError, match=r"'components'.*3 public contracts.*2 contracts"):
        envs.make("otys_v0", num_players=3, components={"contracts": [card] * 2})
    envs.make("otys_v0", num_players=2, components={"contracts": [card] * 2})
    with pytest.raises(ConfigError, match=r"'components'.*10 reward tokens.*9"):
        envs.make("otys_v0", components={"reward_tokens": [token] * 9})
    envs.make("otys_v0", components={"reward_tokens": [token] * 10})
    for empty in ({"contracts": []}, {"reward_tokens": []}):
        with pytest.raises(ConfigError, match="components"):
            envs.make("otys_v0", components=empty)


def test_otontin_empty_dice_are_refused():
    with pytest.raises(ConfigError, match="'dice'"):
        envs.make("otontin_v0", dice=[])
    with pytest.raises(ConfigError, match="faces"):
        envs.make("otontin_v0", dice=[{"colour": "green", "count": 2, "faces": []}])
    with pytest.raises(ConfigError, match="count"):
        envs.make("otontin_v0", dice=[{"colour": "green", "count": 0, "faces": ["bean"]}])


# ------------------------------------------------------------------ seat names
@pytest.mark.parametrize("game", GAMES)
def test_every_text_names_seats_player_n(game):
    import re

    env = envs.make(game, render_mode="ansi")
    env.reset(seed=4)
    texts = [env.render()]
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.unwrapped.legal_actions()[-1])
        texts.append(env.render())
    for text in texts:
        assert not re.search(r"\bp\d+\b", text), text
        assert not re.search(r"[Ww]inners?[^\n]*\[", text), text
    final = texts[-1]
    winners = env.unwrapped.state_.winners()
    line = next(ln for ln in final.splitlines() if "inner" in ln)
    assert all(f"player_{s}" in line for s in winners), line


def test_the_readme_says_how_pettingzoo_finds_the_ids():
    """PettingZoo 1.27's registry has no plugin discovery: ``import otrio`` registers the
    ids, and the README says so right before ``pettingzoo.make``."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import pettingzoo\ntry:\n    pettingzoo.make('aec', 'otrio/oceanos_v0')\n"
            "except Exception as err:\n    print(type(err).__name__)\n"
            "import otrio\nprint(type(pettingzoo.make('aec', 'otrio/oceanos_v0')).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["NamespaceNotFound", "raw_env"]
    start = (root / "README.md").read_text().split("## Quick start", 1)[1]
    said = start.index("`import otrio` registers every game with PettingZoo")
    assert said < start.index('pettingzoo.make("aec", "otrio/oceanos_v0"') < said + 300
