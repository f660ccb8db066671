"""The OpenSpiel games (integrations/openspiel.py): OpenSpiel's own random-simulation
checks at every game's fewest and most players, the same game as the env, clones,
serialization (JSON, never a pickle: crafted and mutated strings), re-drawn worlds,
seeds, actions that are not integers, and the ISMCTS example with a tiny budget."""

import base64
import copy
import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed: pip install -e '.[openspiel]'")

from otrio import envs  # noqa: E402
from otrio.envs.core.errors import ConfigError, IllegalActionError, StateError  # noqa: E402
from otrio.envs.core.testing import mutate_text  # noqa: E402
from otrio.integrations import openspiel  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INFO = {env_id: spec.game.info for env_id, spec in openspiel.SPECS.items()}
ENDS = [(env_id, n) for env_id, info in INFO.items()
        for n in (info.min_players, info.max_players)]
ENDS_IDS = [f"{env_id}-{n}p" for env_id, n in ENDS]


def _play(state, rng, steps=None):
    """Random legal actions until the end (or ``steps`` of them)."""
    taken = 0
    while not state.is_terminal() and (steps is None or taken < steps):
        state.apply_action(int(rng.choice(state.legal_actions())))
        taken += 1
    return state


def test_the_games_are_registered():
    names = set(pyspiel.registered_names())
    for env_id, name in openspiel.GAMES.items():
        assert name in names
        game_type = pyspiel.load_game(name).get_type()
        info = INFO[env_id]
        assert (game_type.min_num_players, game_type.max_num_players) == (
            info.min_players, info.max_players)
        assert game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        params = game_type.parameter_specification
        assert params["players"] == info.default_players and params["seed"] == -1
    defaults = openspiel.load("otontin_v0").get_parameters()
    config = envs.make("otontin_v0").config
    assert (defaults["bean_target"], defaults["round_cap"], defaults["split_spoils"]) == (
        config.bean_target, config.round_cap, config.split_spoils)


@pytest.mark.parametrize(("env_id", "players"), ENDS, ids=ENDS_IDS)
def test_openspiel_random_simulations(env_id, players):
    """OpenSpiel's own consistency checks: legal actions sorted and masked, clones,
    returns within the utility range (summing to 0 at two players), tensors of the
    declared size for every player at every state, strings."""
    game = openspiel.load(env_id, players=players, seed=11)
    assert game.num_players() == players
    zero_sum = players == 2
    assert (game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM) == zero_sum
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize(("env_id", "params"), [
    ("oceanos_v0", {"players": 4, "troubled_waters": True}),
    ("oceanos_v0", {"players": 2, "two_player_variant": False}),
    ("otys_v0", {"players": 3, "sponsor_sides": "advanced", "spy_designer_variant": True,
                 "round_cap": 12}),
    ("otontin_v0", {"players": 4, "split_spoils": True, "bean_target": 10}),
])
def test_setup_parameters(env_id, params):
    game = openspiel.load(env_id, seed=3, **params)
    env_config = game.env_config()
    assert envs.make(env_id, **env_config).config == game.config
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("env_id", sorted(openspiel.GAMES))
def test_the_game_is_the_env(env_id):
    """A seeded OpenSpiel state plays exactly the env's game of the same seed: the same
    legal actions, every seat's observation, and returns equal to the env's rewards."""
    players = INFO[env_id].min_players + 1
    game = openspiel.load(env_id, players=players)
    env = envs.make(env_id, **game.env_config())
    env.reset(seed=21)
    state = game.new_initial_state_from_seed(21)
    observation = openspiel.OtrioObserver(game.env_game)
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        agent = env.agent_selection
        assert state.current_player() == env.possible_agents.index(agent)
        legal = state.legal_actions()
        assert legal == list(np.flatnonzero(env.observe(agent)["action_mask"]))
        for seat, other in enumerate(env.possible_agents):
            observation.set_from(state, seat)
            np.testing.assert_array_equal(observation.tensor, env.observe(other)["observation"])
        assert state.observation_tensor(state.current_player()) == list(
            env.observe(agent)["observation"])
        action = int(rng.choice(legal))
        state.apply_action(action)
        env.step(action)
    # over by the rules, or stopped by a configured round cap (the env truncates)
    assert all(env.terminations[a] or env.truncations[a] for a in env.possible_agents)
    assert state.returns() == [env.rewards[a] for a in env.possible_agents]
    assert sorted(set(state.returns())) in ([-1.0, 1.0], [0.0])


def test_clones_serialization_and_pickles_continue_the_same_game():
    game = openspiel.load("oceanos_v0", players=3, seed=5)
    state = _play(game.new_initial_state(), np.random.default_rng(1), steps=30)
    twins = [state.clone(), game.deserialize_state(state.serialize()),
             pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]
    for twin in twins:
        assert isinstance(twin, openspiel.OtrioState)
        assert str(twin) == str(state) and twin.history() == state.history()
    before = str(state)
    ends = [str(_play(twin, np.random.default_rng(9))) for twin in twins]
    assert len(set(ends)) == 1 and ends[0] != before  # the same future, chance included
    assert str(state) == before  # the original was left alone
    assert str(_play(state, np.random.default_rng(9))) == ends[0]
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.env_config() == game.env_config()


def test_resample_from_infostate_keeps_what_the_seat_knows():
    game = openspiel.load("oceanos_v0", players=4, seed=2)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    changed = checked = 0
    for _ in range(12):
        _play(state, rng, steps=7)
        if state.is_terminal():
            break
        for seat in range(4):
            sampler = np.random.default_rng(seat).random
            world = state.resample_from_infostate(seat, sampler)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)
            assert world.current_player() == state.current_player()
            if seat == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            assert world.history() == []
            again = state.resample_from_infostate(seat, np.random.default_rng(seat).random)
            assert str(again) == str(world)  # a seeded sampler: the same world
            changed += str(world) != str(state)
            checked += 1
    assert checked > 20 and changed > checked // 2
    mine = state.information_state_string(state.current_player())
    assert mine.startswith(f"view of player_{state.current_player()}\n")
    assert mine.rsplit("\n", 1)[1].startswith("observation ")


def test_seeds_fix_the_worlds():
    def first_worlds(game, cpp_calls: bool):
        worlds = []
        for _ in range(3):
            state = game.new_initial_state()
            if cpp_calls:  # what OpenSpiel does from C++: size a tensor, clone
                pyspiel.Game.observation_tensor_shape(game)
                pyspiel.Game.information_state_tensor_size(game)
                state.clone()
            worlds.append(str(state))
        return worlds

    seeded = first_worlds(openspiel.load("otys_v0", players=2, seed=8), cpp_calls=False)
    assert len(set(seeded)) == 3
    assert first_worlds(openspiel.load("otys_v0", players=2, seed=8), cpp_calls=True) == seeded
    assert first_worlds(openspiel.load("otys_v0", players=2, seed=9), cpp_calls=False) != seeded
    fresh = openspiel.load("otys_v0", players=2)
    assert str(fresh.new_initial_state()) != str(fresh.new_initial_state())
    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=4)
    assert str(fresh.new_initial_state_from_seed(4)) == env.unwrapped.game.render(
        env.unwrapped.state_)


def test_illegal_actions_are_refused_and_change_nothing():
    game = openspiel.load("otontin_v0", players=3, seed=1)
    state = game.new_initial_state()
    before, legal = str(state), state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply_action(illegal)
    assert str(state) == before and state.legal_actions() == legal and state.history() == []


@pytest.mark.parametrize(("env_id", "players"), ENDS, ids=ENDS_IDS)
def test_max_game_length_is_the_engines_decision_cap(env_id, players):
    """One number: where the env truncates, ``Game.decision_cap`` of the game's config
    (how near it is to played games: ``tests/core/test_decision_cap.py``)."""
    game = openspiel.load(env_id, players=players)
    env = envs.make(env_id, **game.env_config())
    assert game.max_game_length() == env.unwrapped._max_decisions
    assert game.max_game_length() <= INFO[env_id].max_decisions


def test_the_decision_cap_ends_the_game_with_nothing_paid():
    game = openspiel.load("otys_v0", players=2, seed=1)
    state = _play(game.new_initial_state(), np.random.default_rng(0), steps=3)
    state._w.decisions = game.max_game_length() - 1  # as if it had played that long
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == [0.0, 0.0] and state.legal_actions() == []


def test_observers():
    from open_spiel.python.observation import make_observation

    game = openspiel.load("otys_v0", players=3, seed=4)
    state = _play(game.new_initial_state(), np.random.default_rng(2), steps=10)
    for kind in (None, pyspiel.IIGObservationType(perfect_recall=True)):
        observation = make_observation(game, kind)
        observation.set_from(state, 1)
        assert list(observation.tensor) == state.observation_tensor(1)
        assert list(observation.dict) == ["observation"]
        assert set(observation.pieces) == {name for name, _, _ in game.env_game.layout.pieces}
        assert observation.string_from(state, 1) == state.information_state_string(1)
    assert state.information_state_tensor(2) == state.observation_tensor(2)
    assert game.observation_tensor_shape() == [game.env_game.info.observation_size]
    assert pyspiel.Game.observation_tensor_shape(game) == game.observation_tensor_shape()
    everything = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True,
        private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    with pytest.raises(ValueError, match="own view"):
        make_observation(game, everything)
    with pytest.raises(ValueError, match="parameters"):
        make_observation(game, None, {"x": 1})


def test_bad_parameters_name_the_key():
    with pytest.raises(ConfigError, match="num_players"):
        openspiel.load("otys_v0", players=5)
    with pytest.raises(ConfigError, match="round_cap"):
        openspiel.load("otontin_v0", round_cap=0)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'kraken'"):
        openspiel.load("oceanos_v0", kraken="fixed")
    with pytest.raises(ValueError, match="unknown env id"):
        openspiel.load("chess_v0")


def _example():
    spec = importlib.util.spec_from_file_location(
        "example_openspiel_ismcts", ROOT / "examples" / "openspiel_ismcts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ismcts_example_plays_and_repeats():
    """OpenSpiel's ISMCTSBot plays a game against random bots with a tiny budget; with
    every generator seeded, the same run gives the same games."""
    args = ["--env", "oceanos_v0", "--players", "2", "--games", "1", "--simulations", "3"]
    first = _example().main(args)
    assert first["games"] == 1 and first["ismcts_seats"] == [0]
    assert first["returns"][0] in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    again = _example().main(args)
    assert {k: v for k, v in again.items() if k != "seconds"} == {
        k: v for k, v in first.items() if k != "seconds"}


# ------------------------------------------------------------ serialization
def _future(state, seed: int) -> tuple:
    """Where ``state`` ends under seeded random play: the table, history and returns."""
    _play(state, np.random.default_rng(seed))
    return str(state), state.history(), state.returns()


@pytest.mark.parametrize(("env_id", "players"), ENDS, ids=ENDS_IDS)
def test_serialized_states_continue_the_same_game(env_id, players):
    """serialize -> deserialize_state gives the same state (table, history, move number,
    player to act, every seat's tensor and string, the same text again) and the same
    future, chance included, at a fresh deal, mid-game and at the end."""
    game = openspiel.load(env_id, players=players, seed=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(players)
    for steps in (0, 1, 25, 10_000):
        _play(state, rng, steps=steps)
        text = state.serialize()
        twin = game.deserialize_state(text)
        assert isinstance(twin, openspiel.OtrioState)
        assert twin.serialize() == text
        assert (str(twin), twin.history(), twin.move_number(), twin.current_player()) == (
            str(state), state.history(), state.move_number(), state.current_player())
        for seat in range(players):
            assert twin.observation_tensor(seat) == state.observation_tensor(seat)
            assert twin.information_state_string(seat) == state.information_state_string(seat)
        assert _future(twin, 7) == _future(state.clone(), 7)
    assert state.is_terminal()


@pytest.mark.parametrize(("env_id", "players"), ENDS, ids=ENDS_IDS)
def test_game_and_state_serialization_as_random_sim_test_checks_it(env_id, players):
    """OpenSpiel's random_sim_test(serialize=True) check, through pyspiel's own names
    (routed to the otrio functions): at the first ten states and every power of two,
    serialize_game_and_state -> deserialize_game_and_state gives the same game and
    state; the copy deals the original's next game. random_sim_test itself cannot run
    it: OpenSpiel's C++ serializer asks a sampled-stochastic game for GetRNGState,
    which a Python game cannot implement."""
    game = openspiel.load(env_id, players=players, seed=6)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    length = 0
    while True:
        if length < 10 or length & (length - 1) == 0:
            text = pyspiel.serialize_game_and_state(game, state)
            copied, twin = pyspiel.deserialize_game_and_state(text)
            assert str(copied) == str(game) and str(twin) == str(state)
            assert twin.history() == state.history()
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
        length += 1
    assert str(copied.new_initial_state()) == str(game.new_initial_state())
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_other_games_keep_openspiels_serialization():
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state()
    state.apply_action(0)
    text = pyspiel.serialize_game_and_state(game, state)
    assert "python_otrio_" not in text
    copied, twin = pyspiel.deserialize_game_and_state(text)
    assert str(copied) == str(game) and str(twin) == str(state)


class _Planter:
    """Unpickled, it creates a file: the payload of a crafted serialization string."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return Path.touch, (Path(self.path),)


def test_a_pickle_payload_runs_nothing(tmp_path):
    """A string crafted in OpenSpiel's pickle layout for a Python state, handed to
    every reader of the otrio games' strings: one StateStringError (a SpielError and
    a StateError) each, and the file its pickle would create is never made."""
    live = tmp_path / "live"
    pickle.loads(pickle.dumps(_Planter(live)))
    assert live.exists()  # the payload is real: unpickled, it writes its file
    target = tmp_path / "planted"
    payload = base64.b64encode(pickle.dumps({"_w": _Planter(target)})).decode()
    crafted = f"history=\nmove_number=0\n__dict__={payload}"
    game = openspiel.load("oceanos_v0", players=2)
    whole = (f"{openspiel._SERIAL_HEAD}[Game]\n{game}\n[State]\n{crafted}\n")
    readers = [lambda: game.deserialize_state(crafted),
               lambda: game.deserialize_state(pickle.dumps(_Planter(target))),
               lambda: pyspiel.deserialize_game_and_state(whole),
               lambda: openspiel.deserialize_game_and_state(whole),
               lambda: pyspiel.deserialize_game_and_state(whole.replace("[Game]\n", "[Game]\n#\n")),
               lambda: pickle.loads(pickle.dumps(game.new_initial_state()).replace(
                   b'"format":1', b'"format":2'))]
    for read in readers:
        with pytest.raises(openspiel.StateStringError) as caught:
            read()
        assert isinstance(caught.value, pyspiel.SpielError)
        assert isinstance(caught.value, StateError)
        assert "\n" not in str(caught.value) and len(str(caught.value)) <= 300
    assert not target.exists()


@pytest.mark.parametrize("env_id", sorted(openspiel.GAMES))
def test_mutated_strings_raise_the_one_error_or_are_states(env_id):
    """A few hundred seeded mutations of real serializations (a character changed, a
    span cut or doubled, a hostile value or fragment spliced in, a key dropped): each
    raises StateStringError, one line, or reads as a state that plays to its end."""
    info = INFO[env_id]
    rng = np.random.default_rng(38)
    texts = []
    for players in (info.min_players, info.max_players):
        game = openspiel.load(env_id, players=players, seed=2)
        state = game.new_initial_state()
        for _ in range(6):
            texts.append((game, state.serialize()))
            _play(state, rng, steps=int(rng.integers(1, 60)))
    errors = valid = 0
    for i in range(150):
        game, text = texts[i % len(texts)]
        broken = mutate_text(text, rng)
        try:
            state = game.deserialize_state(broken)
        except openspiel.StateStringError as err:
            assert "\n" not in str(err) and len(str(err)) <= 300, str(err)
            errors += 1
            continue
        _play(state, np.random.default_rng(i))
        assert state.is_terminal()
        valid += 1
    assert errors + valid == 150 and errors > 100


def test_deserialize_refuses_states_of_other_games_and_configs():
    three = openspiel.load("otys_v0", players=3, seed=1)
    text = _play(three.new_initial_state(), np.random.default_rng(0), steps=5).serialize()
    for game, match in ((openspiel.load("otys_v0", players=2), "another config"),
                        (openspiel.load("otys_v0", players=3, round_cap=12), "another config"),
                        (openspiel.load("oceanos_v0", players=3), "a state of")):
        with pytest.raises(openspiel.StateStringError, match=match):
            game.deserialize_state(text)
    with pytest.raises(openspiel.StateStringError, match="over the limit"):
        three.deserialize_state(" " * (openspiel.MAX_STATE_STRING + 1))
    with pytest.raises(openspiel.StateStringError, match="history"):
        three.deserialize_state(text.replace('"decisions":5', '"decisions":4'))


# ------------------------------------------------------- actions and seeds
@pytest.mark.parametrize("action", [True, False, np.True_, 1.0, 0.9, "1", None, [1]])
def test_actions_must_be_integers(action):
    """OpenSpiel would read True as action 1 and 1.9 as 1: the otrio states refuse
    anything but an integer id, in apply_action, apply_action_with_legality_check and
    child, and change nothing."""
    game = openspiel.load("otontin_v0", players=3, seed=1)
    state = game.new_initial_state()
    before = str(state)
    for apply in (state.apply_action, state.apply_action_with_legality_check, state.child):
        with pytest.raises(IllegalActionError, match="an action is an integer id"):
            apply(action)
    assert str(state) == before and state.history() == []
    legal = state.legal_actions()[0]
    assert state.child(np.int64(legal)).history() == [legal]
    state.apply_action(np.int32(legal))
    assert state.history() == [legal]


@pytest.mark.parametrize("seed", [-5, -2, True, 1.5, 2**31, 2**62, "7"])
def test_seeds_out_of_range_are_refused(seed):
    with pytest.raises(ConfigError, match="seed"):
        openspiel.load("oceanos_v0", seed=seed)
    with pytest.raises(ConfigError, match="seed"):
        openspiel.GAME_CLASSES["oceanos_v0"]({"seed": seed})


def test_seeds_in_range_are_taken():
    for seed in (-1, 0, 2**31 - 1):
        assert openspiel.load("otys_v0", seed=seed).get_parameters()["seed"] == seed
    with pytest.raises(ConfigError, match="-5"):  # through OpenSpiel's own loader too
        pyspiel.load_game("python_otrio_otys", {"seed": -5})
    with pytest.raises(ConfigError, match="players = 4294967296"):
        openspiel.load("otys_v0", players=2**32)
