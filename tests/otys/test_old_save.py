"""A save made by an older otrio is refused in one clear line, not translated.

``old_save_31bfe1d.json`` was written by the code of commit 31bfe1d (a mid-game env
save with the state's old field names). The state schema (``otrio.envs.core.schema``) has no
rename shims: an env save of another format, or a game state of another format, is
refused with one line saying so, and the env is left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from otrio import envs
from otrio.envs.core.errors import StateError
from otrio.envs.otys.env import GAME

FIXTURE = Path(__file__).with_name("old_save_31bfe1d.json")


def _refusal(call) -> str:
    with pytest.raises(StateError) as err:
        call()
    text = str(err.value)
    assert "\n" not in text and len(text) <= 300, text
    return text


def test_an_old_env_save_is_refused_in_one_line():
    saved = json.loads(FIXTURE.read_text())["saved"]
    env = envs.make("otys_v0", **saved["config"])
    env.reset(seed=0)
    before = env.unwrapped.save_state()
    text = _refusal(lambda: env.unwrapped.load_state(saved))
    assert "format 1, not 2" in text and "another version of otrio" in text, text
    assert env.unwrapped.save_state() == before


def test_an_old_game_state_is_refused_in_one_line():
    state = json.loads(FIXTURE.read_text())["saved"]["state"]
    text = _refusal(lambda: GAME.state_from_dict(state))
    assert "Otys state in format None, not 1" in text, text
