"""A save made before the state fields were renamed still loads and plays on exactly as
the code that wrote it did (``rules.RENAMED_KEYS`` maps the old keys to the new).

``old_save_31bfe1d.json`` was written by the code of commit 31bfe1d: a mid-game env save
(a sponsor's yield being measured, a reward token in play), the decisions played after it
with the scores and legal actions after each, and that code's saved state at the end.
"""

from __future__ import annotations

import json
from pathlib import Path

import envs
from envs.core import validate
from envs.otys.config import Config
from envs.otys.rules import RENAMED_KEYS

FIXTURE = Path(__file__).with_name("old_save_31bfe1d.json")


def _renamed(state: dict) -> dict:
    """A saved state's keys under their current names, but for the config (compared as
    validated: keys added to it since take their defaults)."""
    return {RENAMED_KEYS.get(key, key): value for key, value in state.items() if key != "config"}


def _now(env) -> dict:
    """The env's saved game state, but for the config."""
    state = env.save_state()["state"]
    del state["config"]
    return state


def test_old_save_loads_and_plays_on_as_before():
    record = json.loads(FIXTURE.read_text())
    saved = record["saved"]
    old_keys = set(saved["state"]) & set(RENAMED_KEYS)
    assert old_keys == set(RENAMED_KEYS), "the fixture uses every old key"
    env = envs.make("otys_v0", **saved["config"])
    env.reset(seed=0)
    env.load_state(saved)
    assert env.unwrapped.state_.config == validate(Config, saved["state"]["config"])
    assert _now(env) == _renamed(saved["state"])
    assert record["after"], "the fixture plays on"
    for step in record["after"]:
        env.step(step["action"])
        state = env.unwrapped.state_
        assert state.scores() == step["scores"]
        assert state.legal_actions() == step["legal"]
    assert _now(env) == _renamed(record["final_state"])
