"""Saved states are checked for meaning on load (issue 21, "Hardening").

``load_state`` (and each game's ``State.from_dict``) raises ``StateError`` naming the
field for data no game can reach: a load either fails so, or gives a game that plays
on to its end keeping every invariant. A property test mutates states saved from
seeded random games of every game at its smallest and largest player count (an
integer set to another, including negative and huge ones, a card id dropped or
duplicated, a list made longer or shorter, a number made NaN, a text changed, two
values swapped, a value of another type) and checks exactly that, the invariants after
every step; then one test per corruption that loads without complaint before the
validation (each named in the issue).

Every refusal's message is one line of at most 300 characters naming a field of the
save (issue 29).

``OTRIO_STATE_FUZZ_EXAMPLES=2000`` runs the property test longer, on fresh random
examples (by default it is derandomised: the same examples on every run).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otrio import envs
from otrio.envs.core.errors import StateError

# (env id, config) of the games whose saves are mutated: each game at its fewest and
# most players, with the variants that reach the most kinds of decision
SETUPS = [
    ("oceanos_v0", {"num_players": 2}),
    ("oceanos_v0", {"num_players": 5, "troubled_waters": True}),
    ("otys_v0", {"num_players": 2, "spy_designer_variant": True,
                 "sponsors": {"sides": "advanced"}}),
    ("otys_v0", {"num_players": 4}),
    ("otontin_v0", {"num_players": 3}),
    ("otontin_v0", {"num_players": 8, "bean_target": 10}),
]
SAVE_EVERY = {"oceanos_v0": 23, "otys_v0": 61, "otontin_v0": 7}  # decisions between saves
FUZZ = int(os.environ.get("OTRIO_STATE_FUZZ_EXAMPLES", "0"))
EXAMPLES = FUZZ or 200  # per setup (about 20 s for the file)


def _checker(env_id: str):
    """The game's invariant checker (imported here, so that this module loads, and the
    explicit tests below fail rather than error, on code without the validation)."""
    if env_id == "oceanos_v0":
        from otrio.envs.oceanos.invariants import check_invariants
    elif env_id == "otys_v0":
        from otrio.envs.otys.invariants import check_invariants
    else:
        from otrio.envs.otontin.invariants import check_invariants
    return check_invariants


def _make(setup: int):
    env_id, config = SETUPS[setup]
    return envs.make(env_id, **copy.deepcopy(config))


def _step(env, rng: np.random.Generator) -> None:
    """One step of the AEC loop: a random legal action, or None for a done agent."""
    _, _, term, trunc, _ = env.last()
    if term or trunc:
        env.step(None)
    else:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


@functools.cache
def _saves(setup: int) -> tuple[str, ...]:
    """JSON saves of one seeded random game: at its start, every few decisions, at its
    end, and after an agent has left."""
    env = _make(setup)
    env.reset(seed=setup)
    rng = np.random.default_rng(setup)
    every = SAVE_EVERY[SETUPS[setup][0]]
    out = [json.dumps(env.unwrapped.save_state())]
    steps = 0
    while env.unwrapped._acting is not None:
        _step(env, rng)
        steps += 1
        if steps % every == 0:
            out.append(json.dumps(env.unwrapped.save_state()))
    out.append(json.dumps(env.unwrapped.save_state()))
    _step(env, rng)  # a done agent leaves
    out.append(json.dumps(env.unwrapped.save_state()))
    return tuple(out)


def _env_fields(core) -> dict:
    return {"decisions": core.decisions, "agents": core.agents,
            "agent_selection": core.agent_selection,
            "cumulative_rewards": core._cumulative_rewards, "rewards": core.rewards,
            "terminations": core.terminations, "truncations": core.truncations,
            "last_scores": core._last_scores}


def _play_on(env, check, seed: int) -> None:
    """Play a loaded env to its end (dead steps included) with random legal actions,
    checking the game's and the env's invariants and the observation after every step."""
    core = env.unwrapped
    rng = np.random.default_rng(seed)
    for _ in range(core.game.info.max_decisions + core.num_players + 1):
        check(core.state_)
        core._checked_env_fields(_env_fields(core), core.state_)
        if not env.agents:
            return
        _step(env, rng)
    raise AssertionError("the loaded game did not end within max_decisions")


# ------------------------------------------------------------------ mutations
def _paths(tree, path=()):
    """(path, value) of every node below the root of a JSON tree."""
    if isinstance(tree, dict):
        items = tree.items()
    elif isinstance(tree, list):
        items = enumerate(tree)
    else:
        return
    for key, value in items:
        yield path + (key,), value
        yield from _paths(value, path + (key,))


def _set(tree, path, value) -> None:
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


SPECIAL_INTS = [-(10**6), -5, -3, -1, 0, 1, 2, 3, 4, 5, 7, 9, 12, 99, 999, 10**6, 2**64, 2**130]
TEXTS = st.sampled_from(["", "player_0", "player_1", "player_9", "captain", "duo",
                         "round_end", "PCG64", "MT19937", "otys"]) | st.text(max_size=4)
ODD_VALUES = [None, "1", 1.5, True, False, [], {}, float("nan")]
REGIONS = ["state"] * 8 + ["env"] * 2 + ["rng", "config"]
FIXED = ("format", "env_id", "game", "config")  # mutated, a save is just another game's
OPERATIONS = ["int", "int", "card", "card", "resize", "float", "text", "swap", "swap", "type"]


def _mutate(data, saved: dict) -> None:
    """One random corruption of a saved env (in place)."""
    region = data.draw(st.sampled_from(REGIONS), label="region")
    if region == "env":
        nodes = [(p, v) for p, v in _paths(saved) if p[0] not in FIXED + ("state",)]
    elif region == "rng":
        nodes = [(("state", "rng") + p, v) for p, v in _paths(saved["state"]["rng"])]
    elif region == "config":
        nodes = [(p, v) for p, v in _paths(saved) if "config" in p[:2]]
    else:
        nodes = [(("state",) + p, v) for p, v in _paths(saved["state"])
                 if p[0] not in FIXED + ("rng",)]
    operation = data.draw(st.sampled_from(OPERATIONS), label="operation")
    ints = [(p, v) for p, v in nodes if type(v) is int]
    lists = [(p, v) for p, v in nodes if isinstance(v, list)]
    if operation == "int" and ints:
        path, value = data.draw(st.sampled_from(ints), label="int")
        new = data.draw(st.sampled_from(SPECIAL_INTS) | st.integers(-3, 3).map(lambda d: value + d)
                        | st.integers(), label="value")
        _set(saved, path, new)
    elif operation == "card" and any(v and all(type(x) is int for x in v) for _, v in lists):
        path, cards = data.draw(st.sampled_from(
            [(p, v) for p, v in lists if v and all(type(x) is int for x in v)]), label="cards")
        i = data.draw(st.integers(0, len(cards) - 1), label="index")
        if data.draw(st.booleans(), label="drop"):
            del cards[i]
        else:
            cards.insert(data.draw(st.integers(0, len(cards)), label="at"), cards[i])
    elif operation == "resize" and lists:
        path, items = data.draw(st.sampled_from(lists), label="list")
        size = data.draw(st.integers(0, 3 * len(items) + 3) | st.just(20_000), label="size")
        filler = items or [data.draw(st.sampled_from(SPECIAL_INTS), label="filler")]
        _set(saved, path, (filler * (size // len(filler) + 1))[:size])
    elif operation == "float":
        floats = [(p, v) for p, v in nodes if type(v) is float] or ints
        if floats:
            path, _ = data.draw(st.sampled_from(floats), label="number")
            _set(saved, path, data.draw(st.sampled_from(
                [float("nan"), float("inf"), -float("inf"), 1e308, -0.5]), label="float"))
    elif operation == "text":
        texts = [(p, v) for p, v in nodes if isinstance(v, str)]
        if texts:
            path, _ = data.draw(st.sampled_from(texts), label="text")
            _set(saved, path, data.draw(TEXTS, label="new text"))
    elif operation == "swap" and len(ints) > 1:
        (p1, v1), (p2, v2) = data.draw(st.lists(st.sampled_from(ints), min_size=2, max_size=2,
                                                unique_by=lambda pv: pv[0]), label="pair")
        _set(saved, p1, v2)
        _set(saved, p2, v1)
    elif operation == "type" and nodes:
        path, _ = data.draw(st.sampled_from(nodes), label="node")
        _set(saved, path, data.draw(st.sampled_from(ODD_VALUES), label="odd value"))


@pytest.mark.parametrize("setup", range(len(SETUPS)),
                         ids=[f"{e}-{c['num_players']}p" for e, c in SETUPS])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not FUZZ, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_corrupted_save_is_refused_or_plays_on_keeping_every_invariant(setup, data):
    saves = _saves(setup)
    saved = json.loads(saves[data.draw(st.integers(0, len(saves) - 1), label="save")])
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(data, saved)
    env = _make(setup)
    try:
        env.unwrapped.load_state(saved)
    except StateError as err:
        _check_message(str(err), setup)
        return
    _play_on(env, _checker(SETUPS[setup][0]), seed=setup)


MESSAGE_LIMIT = 300  # characters of a refused save's message (issue 29)


@functools.cache
def _save_keys(setup: int) -> frozenset:
    """Every key of the saves of one setup (top level, env fields, state, generator,
    config, nested)."""
    keys: set = set()

    def walk(tree) -> None:
        if isinstance(tree, dict):
            for key, value in tree.items():
                keys.add(str(key))
                walk(value)
        elif isinstance(tree, list):
            for value in tree:
                walk(value)

    for text in _saves(setup):
        walk(json.loads(text))
    return frozenset(keys)


def _check_message(text: str, setup: int) -> None:
    """A refused save says why in one line of readable length naming a field of the
    save (issue 29: some named none, some were multi-line pydantic dumps of 4,000
    characters)."""
    assert "\n" not in text and len(text) <= MESSAGE_LIMIT, text
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    assert words & _save_keys(setup), f"names no field: {text}"
    assert "Error(" not in text, f"the repr of an exception: {text}"


def test_every_save_of_the_property_test_loads_and_plays_on():
    """The unmutated saves are accepted (the property test is not vacuous)."""
    for setup, (env_id, _) in enumerate(SETUPS):
        saves = _saves(setup)
        assert len(saves) >= 4
        for text in saves[:: max(1, len(saves) // 4)] + saves[-2:]:
            env = _make(setup)
            env.unwrapped.load_state(json.loads(text))
            _play_on(env, _checker(env_id), seed=setup)


# ------------------------------------------------------------------ the examples
def _saved(env_id: str, steps: int = 0, seed: int = 0, **config) -> tuple:
    """An env after ``steps`` random decisions, and its save (through JSON)."""
    env = envs.make(env_id, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        _step(env, rng)
    return env, json.loads(json.dumps(env.unwrapped.save_state()))


def _refused(env_id: str, saved: dict, field: str, **config) -> None:
    """A fresh env refuses the corrupt save with a StateError naming ``field``."""
    env = envs.make(env_id, **config)
    with pytest.raises(StateError, match=field):
        env.unwrapped.load_state(saved)


@pytest.mark.parametrize("env_id, steps, players, field, index, value", [
    ("oceanos_v0", 5, 4, "fuel_ready", 1, -1),
    ("otontin_v0", 30, 4, "beans", 2, -4),
    ("otys_v0", 10, 3, "credits", 0, -2),
    ("otys_v0", 10, 3, "pp", 1, -1),  # a score
])
def test_a_negative_count_is_refused(env_id, steps, players, field, index, value):
    _, saved = _saved(env_id, steps, num_players=players)
    saved["state"][field][index] = value
    _refused(env_id, saved, rf"{field}\[{index}\]", num_players=players)


def test_a_card_id_of_a_million_is_refused():
    env, saved = _saved("oceanos_v0", 0, num_players=4)
    seat = env.unwrapped.state_.actor
    saved["state"]["hands"][seat][0] = 10**6
    _refused("oceanos_v0", saved, rf"hands\[{seat}\]\[0\] = 1000000", num_players=4)


def test_a_deck_of_twenty_thousand_cards_is_refused():
    _, saved = _saved("otys_v0", 10, num_players=3)
    state = saved["state"]
    state["deck"] = (state["deck"] * 20_000)[:20_000]
    state["deck_seen"] = (state["deck_seen"] * 20_000)[:20_000]
    _refused("otys_v0", saved, "deck", num_players=3)
    _, saved = _saved("oceanos_v0", 3, num_players=4)
    saved["state"]["decks"][0] = (saved["state"]["decks"][0] * 20_000)[:20_000]
    _refused("oceanos_v0", saved, r"decks\[0\]", num_players=4)


@pytest.mark.parametrize("key", ["rewards", "cumulative_rewards"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), "0.5", None, 10**400],
                         ids=["nan", "inf", "text", "none", "huge"])
def test_rewards_that_are_not_finite_numbers_are_refused(key, value):
    _, saved = _saved("otontin_v0", 12, num_players=5)
    saved[key]["player_3"] = value
    _refused("otontin_v0", saved, rf"{key}\['player_3'\]", num_players=5)


@pytest.mark.parametrize("decisions", [-5, 10**9, 2.0, "3", None])
def test_decisions_out_of_range_are_refused(decisions):
    _, saved = _saved("otys_v0", 10, num_players=2)
    saved["decisions"] = decisions
    _refused("otys_v0", saved, "decisions", num_players=2)


def test_an_inner_player_count_that_disagrees_with_the_config_is_refused():
    _, saved = _saved("oceanos_v0", 7, num_players=4)
    _, three = _saved("oceanos_v0", 7, num_players=3)
    saved["state"] = three["state"]  # a whole, valid three-player game
    _refused("oceanos_v0", saved, "num_players", num_players=4)
    _, saved = _saved("otys_v0", 7, num_players=3)
    saved["state"]["n"] = 2  # the player count is the config's alone: no field holds it
    _refused("otys_v0", saved, "'n' is no Otys state field", num_players=3)


def test_round_99_is_refused():
    _, saved = _saved("oceanos_v0", 9, num_players=3)
    saved["state"]["round"] = 99
    _refused("oceanos_v0", saved, "round = 99", num_players=3)


def test_captain_7_is_refused():
    _, saved = _saved("oceanos_v0", 9, num_players=4)
    saved["state"]["captain"] = 7
    _refused("oceanos_v0", saved, "captain = 7", num_players=4)


@pytest.mark.parametrize("env_id", ["otys_v0", "otontin_v0"])
def test_phase_999_is_refused(env_id):
    _, saved = _saved(env_id, 9, num_players=4)
    saved["state"]["phase"] = 999
    _refused(env_id, saved, "phase = 999", num_players=4)


@pytest.mark.parametrize("selection", ["player_9", "nobody", 0, None])
def test_a_bogus_agent_selection_is_refused(selection):
    env, saved = _saved("otontin_v0", 9, num_players=3)
    saved["agent_selection"] = selection
    _refused("otontin_v0", saved, "agent_selection", num_players=3)
    others = [a for a in env.possible_agents if a != env.agent_selection]
    saved["agent_selection"] = others[0]  # an agent, but not the one to act
    _refused("otontin_v0", saved, "agent_selection", num_players=3)


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0"])
def test_actor_minus_3_is_refused(env_id):
    """It gave a game that never ends, with an empty action mask."""
    _, saved = _saved(env_id, 4, num_players=3)
    saved["state"]["actor"] = -3
    _refused(env_id, saved, "actor = -3", num_players=3)


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
@pytest.mark.parametrize("garbage", [
    {"state": {"state": 2**130, "inc": 1}},  # numpy: OverflowError
    {"uinteger": -1},  # OverflowError
    {"has_uint32": "yes"},  # TypeError
    {"state": {"state": 5}},  # KeyError
    {"bit_generator": "MT19937"},  # numpy: ValueError
])
def test_a_garbage_generator_state_is_refused_naming_it(env_id, garbage):
    _, saved = _saved(env_id, 3, num_players=4)
    saved["state"]["rng"].update(garbage)
    _refused(env_id, saved, r"rng\[", num_players=4)


def test_a_failed_load_leaves_the_env_as_it_was():
    env, saved = _saved("otys_v0", 25, num_players=3)
    before = env.unwrapped.save_state()
    saved["rewards"]["player_0"] = float("nan")
    with pytest.raises(StateError):
        env.unwrapped.load_state(saved)
    assert env.unwrapped.save_state() == before
