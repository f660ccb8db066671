"""The suite's generic checker, written once and run on every game.

Each ``check_*`` function raises ``AssertionError`` with a readable message on the
first violation. ``env_fn`` is a zero-argument callable that builds a fresh env.
"""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import xml.etree.ElementTree as ET
from collections.abc import Callable

import numpy as np
from pettingzoo.test import api_test, seed_test

from .aec import live_turns
from .rng import make_rng

EnvFn = Callable[[], object]


def play_random(env, rng: np.random.Generator, max_steps: int | None = None):
    """Play uniformly random legal actions until the end; yield before each step.

    Yields ``(agent, observation_dict)`` for every live decision. Dead steps are taken
    automatically.
    """
    steps = 0
    for agent, obs in live_turns(env):
        yield agent, obs
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
        if max_steps is not None and steps >= max_steps:
            return


def digest(*arrays) -> str:
    """A short hash of arrays and plain values, for golden files and comparisons."""
    h = hashlib.sha256()
    for a in arrays:
        if isinstance(a, np.ndarray):
            h.update(a.tobytes())
        else:
            h.update(json.dumps(a, sort_keys=True).encode())
    return h.hexdigest()[:16]


def check_pettingzoo(env_fn: EnvFn, num_cycles: int = 200) -> None:
    """PettingZoo's own ``api_test`` and ``seed_test``."""

    api_test(env_fn(), num_cycles=num_cycles, verbose_progress=False)
    seed_test(env_fn, num_cycles=num_cycles)


def check_masks(env_fn: EnvFn, seeds: range) -> int:
    """Mask of the acting seat == the rules' legal set, never empty; others all zero.

    Returns the number of decisions checked.
    """
    checked = 0
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        core = env.unwrapped
        for agent, obs in play_random(env, make_rng(seed)):
            mask = obs["action_mask"]
            assert mask.dtype == np.int8, f"mask dtype {mask.dtype}"
            legal = core.state_.legal_actions()
            assert legal, f"empty legal set for acting {agent} (seed {seed})"
            assert sorted(legal) == list(np.flatnonzero(mask)), (
                f"mask and rules disagree for {agent} (seed {seed}): "
                f"mask {list(np.flatnonzero(mask))}, rules {sorted(legal)}"
            )
            assert len(set(legal)) == len(legal), f"duplicate legal ids {legal}"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any(), (
                        f"non-acting {other} has a non-zero mask"
                    )
            assert env.observation_space(agent).contains(obs), (
                f"observation outside its space (seed {seed}): {outside_space(env, agent, obs)}")
            checked += 1
    return checked


def outside_space(env, agent: str, obs: dict[str, np.ndarray]) -> str:
    """The values of ``agent``'s observation ``obs`` outside their bounds, by name (at
    most five), or what else keeps it out of its space (dtype, shape, the mask)."""
    space = env.observation_space(agent)
    box, vector = space["observation"], obs["observation"]
    if vector.dtype != box.dtype or vector.shape != box.shape:
        return f"dtype {vector.dtype} / shape {vector.shape}, not {box.dtype} / {box.shape}"
    names = env.unwrapped.observation_names()
    bad = np.flatnonzero(~((vector >= box.low) & (vector <= box.high)))
    if not bad.size:
        return "the action mask is outside its space"
    return ", ".join(f"{names[i]} = {float(vector[i]):g} not in "
                     f"[{float(box.low[i]):g}, {float(box.high[i]):g}]" for i in bad[:5])


def check_hidden_information(env_fn: EnvFn, seeds: range, every: int = 3) -> int:
    """Re-drawing what a seat cannot know never changes that seat's observation.

    At every ``every``-th decision and for every seat, the game's
    ``resample_hidden`` re-draws the hidden part; the seat's observation must be
    identical. Returns how many resamples actually changed the state (a test should
    assert it is positive, so that the check is not vacuous).
    """
    changed = 0
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        core = env.unwrapped
        game = core.game
        rng = make_rng(10_000 + seed)
        size = game.info.observation_size
        for step, _ in enumerate(play_random(env, make_rng(seed))):
            if step % every:
                continue
            state = core.state_
            before = state.to_dict()
            for seat in range(core.num_players):
                mine = np.zeros(size, np.float32)
                game.observe(state, seat, mine)
                other = game.resample_hidden(state, seat, rng)
                theirs = np.zeros(size, np.float32)
                game.observe(other, seat, theirs)
                if other.to_dict() != before:
                    changed += 1
                diff = np.flatnonzero(mine != theirs)
                assert diff.size == 0, (
                    f"seat {seat}'s observation changed when hidden information was "
                    f"re-drawn (seed {seed}, step {step}, indices {diff[:10].tolist()})"
                )
            assert state.to_dict() == before, "resample_hidden mutated the original state"
    return changed


def check_search_sees_only_its_seat(env, agent, every: int, seed: int = 4,
                                    max_step: int | None = None) -> int:
    """A searching agent (``agent.search(state, legal, observation)``, reset with a
    seed) picks the same move in a state and in a twin that differs only in what the
    acting seat cannot see (``resample_hidden``), at every ``every``-th decision of a
    seeded random game (up to ``max_step``). Returns how many decisions were compared
    (a test should assert it is positive)."""
    env.reset(seed=seed)
    game = env.unwrapped.game
    compared = 0
    for step, (_, obs) in enumerate(play_random(env, make_rng(seed))):
        if max_step is not None and step > max_step:
            break
        if step % every:
            continue
        state = env.unwrapped.state_
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if len(legal) < 2:
            continue
        twin = game.resample_hidden(state, state.current_player(), make_rng(step))
        picks = []
        for world in (state, twin):
            agent.reset(step)
            picks.append(agent.search(world, legal, obs))
        assert picks[0] == picks[1], f"step {step}: the hidden part changed the move"
        assert picks[0] in legal, f"step {step}: the search chose illegal {picks[0]}"
        compared += 1
    return compared


def check_resample_canonical(env_fn: EnvFn, seeds: range, every: int = 5) -> int:
    """``resample_hidden`` reads nothing a seat cannot know.

    At every ``every``-th decision, for the acting seat: a second state that differs
    from the true one only in what the seat cannot see is made (by re-drawing the
    hidden part once), and ``resample_hidden`` with two generators in the same state
    must return the same world from both. Returns how many of the pairs of states
    differed (a test asserts it is positive).
    """
    differed = 0
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        core = env.unwrapped
        game = core.game
        for step, _ in enumerate(play_random(env, make_rng(seed))):
            if step % every:
                continue
            state = core.state_
            seat = state.current_player()
            twin = game.resample_hidden(state, seat, make_rng(30_000 + step))
            differed += twin.to_dict() != state.to_dict()
            one = game.resample_hidden(state, seat, make_rng(seed * 7919 + step))
            two = game.resample_hidden(twin, seat, make_rng(seed * 7919 + step))
            assert one.to_dict() == two.to_dict(), (
                f"resample_hidden for seat {seat} gave two worlds from states that differ "
                f"only in what the seat cannot see (seed {seed}, step {step})")
    return differed


def check_simultaneous_choices(env_fn: EnvFn, seeds: range, tries: int = 4) -> int:
    """Choices made in a simultaneous step stay secret until the step is over.

    Random games are played; where a simultaneous step begins (the game's
    ``simultaneous_step`` id changes to a new one), the state is saved and the step is
    played out ``tries`` times from the saved state with other random choices. When a
    seat takes its first decision of the step, the observation of every seat that has
    not yet chosen in it (that seat included) must be the same in every try, whatever
    the seats before it chose. Returns how many of those comparisons followed earlier
    choices that differed (a test asserts it is positive, so the check is not vacuous).
    """
    differed = 0
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        core = env.unwrapped
        game = core.game
        size = game.info.observation_size
        rng = make_rng(20_000 + seed)
        last = None
        for _ in play_random(env, make_rng(seed)):
            step_id = game.simultaneous_step(core.state_)
            if step_id is None or step_id == last:
                last = step_id
                continue
            last = step_id
            saved = core.state_.to_dict()
            first_seen: dict[int, tuple[dict, list[np.ndarray]]] = {}
            for _try in range(tries):
                state = game.state_from_dict(saved)
                acted: set[int] = set()
                while not state.is_terminal() and game.simultaneous_step(state) == step_id:
                    seat = state.current_player()
                    if seat not in acted:
                        acted.add(seat)
                        waiting = [s for s in range(state.num_players) if s not in acted]
                        views = []
                        for s in [seat, *waiting]:
                            out = np.zeros(size, np.float32)
                            game.observe(state, s, out)
                            views.append(out)
                        if seat not in first_seen:
                            first_seen[seat] = (state.to_dict(), views)
                        else:
                            before, expected = first_seen[seat]
                            differed += state.to_dict() != before
                            for s, got, want in zip([seat, *waiting], views, expected):
                                diff = np.flatnonzero(got != want)
                                assert diff.size == 0, (
                                    f"seat {s} sees what was chosen earlier in simultaneous "
                                    f"step {step_id} before {seat}'s choice (seed {seed}, "
                                    f"indices {diff[:10].tolist()})")
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rng.integers(len(legal)))])
    return differed


def _trajectory(env, rng: np.random.Generator, steps: int | None = None) -> list[str]:
    """Digest of every step of a random continuation."""
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        out.append(digest(agent, obs["observation"], obs["action_mask"], reward, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        if steps is not None and len(out) >= steps:
            break
    return out


def check_save_load(env_fn: EnvFn, seeds: range, cut_steps: int = 60) -> None:
    """Save mid-game (through JSON), load into a fresh env: the same future follows."""
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        rng = make_rng(seed)
        for n, _ in enumerate(play_random(env, rng)):
            if n >= cut_steps:
                break
        saved = json.loads(json.dumps(env.unwrapped.save_state()))
        rng_state = rng.bit_generator.state
        original = _trajectory(env, rng)
        clone = env_fn()
        clone.unwrapped.load_state(saved)
        rng.bit_generator.state = rng_state
        resumed = _trajectory(clone, rng)
        assert original == resumed, f"loaded game diverged (seed {seed})"


def check_determinism(env_fn: EnvFn, seeds: range) -> None:
    """The same seed and actions give the same game, byte for byte; another seed differs."""
    runs = {}
    for seed in seeds:
        a, b = env_fn(), env_fn()
        a.reset(seed=seed)
        b.reset(seed=seed)
        ta = _trajectory(a, make_rng(seed))
        tb = _trajectory(b, make_rng(seed))
        assert ta == tb, f"same seed {seed} gave two games"
        runs[seed] = ta
    if len(runs) > 1:
        assert len({tuple(t) for t in runs.values()}) > 1, "different seeds gave identical games"


# ------------------------------------------------------- cached observation writers
# A game whose writer keeps a cache on the state is checked against a plain
# from-scratch ``reference(state, seat) -> float32 vector``; ``write(state, seat, out)``
# is the cached writer and ``seats(state)`` the seat count.
Write = Callable[[object, int, np.ndarray], None]
Reference = Callable[[object, int], np.ndarray]


def random_states(new_state: Callable[[int], object], games: int):
    """Every state of ``games`` seeded random games (one state object, played on)."""
    for seed in range(games):
        state = new_state(seed)
        rng = np.random.default_rng(seed)
        yield state
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            yield state


def written(write: Write, state, seat: int, size: int, fill: float = 0.0) -> np.ndarray:
    """What the cached writer puts in a fresh buffer of ``fill`` values."""
    out = np.full(size, fill, np.float32)
    write(state, seat, out)
    return out


def check_cached_writer(states, write: Write, reference: Reference, seats: Callable[[object], int],
                        size: int, every: int = 3) -> int:
    """At each state: every seat (each ``every``-th step, one seat otherwise) gets the
    reference's bytes, also into a buffer full of junk (the writer writes every value).
    Returns the number of observations compared."""
    compared = 0
    for step, state in enumerate(states):
        n = seats(state)
        for seat in range(n) if step % every == 0 else [step % n]:
            expected = reference(state, seat)
            got = written(write, state, seat, size)
            assert np.array_equal(got, expected), f"step {step}, seat {seat}: cached != reference"
            junk = written(write, state, seat, size, fill=7.0)
            assert np.array_equal(junk, expected), f"step {step}, seat {seat}: a value was not written"
            compared += 1
    return compared


def check_cached_writer_on_copies(states, write: Write, reference: Reference,
                                  seats: Callable[[object], int], size: int,
                                  clone: Callable[[object], object], edit: Callable[[object], None],
                                  every: int = 7):
    """The cache follows a game, and copies, deep copies, pickles and clones of a state
    (which must build their own cache) match the reference; so does a shallow copy
    edited by ``edit`` (it shares the original's lists and cache), and the original
    after it. Returns the last state, for game-specific hand edits."""

    state = None
    for step, state in enumerate(states):
        n = seats(state)
        if step % every:
            written(write, state, 0, size)  # the cache follows the game
            continue
        # pickle here round-trips a state this test just made, in memory: no file is read
        for other in (copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state)),
                      clone(state)):
            for seat in range(n):
                assert np.array_equal(written(write, other, seat, size), reference(other, seat)), (
                    f"step {step}: a copied state's observation differs for seat {seat}")
        shallow = copy.copy(state)
        edit(shallow)
        assert np.array_equal(written(write, shallow, 1, size), reference(shallow, 1)), (
            f"step {step}: an edited shallow copy is observed stale")
        assert np.array_equal(written(write, state, 1, size), reference(state, 1)), (
            f"step {step}: the original is observed as its edited copy")
    return state


def policy_states(env_fn: EnvFn, choose: Callable[[object, dict], int], seeds: range):
    """The state at every decision (and the end) of games played through the AEC API,
    ``choose(env, observation) -> action`` picking each move (e.g. a greedy agent's
    ``act``); the state is the env's own object, played on."""
    for seed in seeds:
        env = env_fn()
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            observation, _, term, trunc, _ = env.last()
            yield env.state_
            env.step(None if term or trunc else choose(env, observation))


def check_against_plain(states, write: Write, plain: Write, seats: Callable[[object], int],
                        size: int) -> int:
    """At every state, every seat: the cached ``write`` gives the bytes of the plain
    writer, also into a buffer full of junk. Returns the observations compared."""
    return check_cached_writer(states, write, lambda state, seat: written(plain, state, seat, size),
                               seats, size, every=1)


SVG_NS = "{http://www.w3.org/2000/svg}"


def picture_titles(picture) -> list[str]:
    """The tooltip texts (``<title>``) of a picture's SVG: what a test can read of it."""

    return [t.text for t in ET.fromstring(picture.to_svg()).iter(SVG_NS + "title")]


def play_until(env, stop: Callable[[object], bool], seed: int = 0, limit: int = 3000):
    """Random legal moves in ``env`` (already reset) until ``stop(state)`` holds; that
    state, or None if the game ends or ``limit`` moves pass first."""
    rng = make_rng(seed)
    for _ in range(limit):
        state = env.unwrapped.state_
        if stop(state):
            return state
        if state.is_terminal():
            return None
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return None


# fragments that a mutation splices into a text: JSON's own punctuation and values that
# a reader must refuse (too big, not a number, not text)
_FRAGMENTS = ('"', "{", "}", "[", "]", ",", ":", "-", "0", "1", "9", " ", "\n", "\\", "null",
              "true", "NaN", "1e999", "-1", "99999999999999999999999", '"x"', "\x00", "é",
              "\ud800", "[[[[[[[[", ',"x":1')
# values that a mutation puts in place of one inside a JSON document
_HOSTILE = (-1, 0, 1, 2, 7, 2**31, 2**64, 10**40, 1.5, -0.0, True, False, None, "", "x",
            "x" * 2_000, [], {}, [0], {"x": 1}, [[[[[[[[[[0]]]]]]]]]])


def mutate_text(text: str, rng: np.random.Generator) -> str:
    """``text`` broken in one to three ways, as a careless or hostile hand would: a
    character changed, a span deleted, duplicated or cut off, a fragment spliced in
    (JSON punctuation, ``NaN``, huge numbers, a lone surrogate), or, where ``text``
    is or ends in a JSON object, one value replaced by a hostile one (a huge or
    negative number, a float, a bool, a long text, a nested list) or one key dropped.
    For attack tests of readers of serialized states."""
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(8))
        n = len(text)
        at = int(rng.integers(n + 1))
        if kind == 0 and n:
            text = text[:at] + _FRAGMENTS[int(rng.integers(len(_FRAGMENTS)))][:1] + text[at + 1:]
        elif kind == 1:
            text = text[:at] + text[at + int(rng.integers(1, 40)):]
        elif kind == 2:
            text = text[:at] + text[at:at + int(rng.integers(1, 400))] + text[at:]
        elif kind == 3:
            text = text[:at]
        elif kind == 4:
            text = text[:at] + _FRAGMENTS[int(rng.integers(len(_FRAGMENTS)))] + text[at:]
        else:
            text = _mutate_json_tail(text, rng, drop=kind == 7)
    return text


def _mutate_json_tail(text: str, rng: np.random.Generator, drop: bool) -> str:
    """The JSON object that ``text`` is or ends with, one value replaced by a hostile
    one (or, with ``drop``, one key removed); ``text`` itself if it holds none."""
    start = text.find("{")
    try:
        data = json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        return text
    if not isinstance(data, dict) or not data:
        return text
    parent = data
    for _ in range(int(rng.integers(7))):  # walk down to a random place
        key = _random_key(parent, rng)
        child = parent[key]
        if not isinstance(child, (dict, list)) or not child:
            break
        parent = child
    key = _random_key(parent, rng)
    if drop and isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = _HOSTILE[int(rng.integers(len(_HOSTILE)))]
    return text[:start] + json.dumps(data)


def _random_key(container: dict | list, rng: np.random.Generator):
    """A key of a non-empty dict, or an index of a non-empty list, drawn at random."""
    if isinstance(container, dict):
        return list(container)[int(rng.integers(len(container)))]
    return int(rng.integers(len(container)))
