"""Names for every observation index, finite bounds, and ``describe``
(``ObservationLayout.names`` / ``bounds``, ``env.observation_names()``,
``otrio.envs.core.describe``)."""

from pathlib import Path

import numpy as np
import pytest

from otrio import agents, envs
from otrio.envs.core import ObservationLayout, Values, describe
from otrio.envs.core.testing import outside_space
from otrio.integrations import FlattenObservation

GAMES = ("oceanos_v0", "otys_v0", "otontin_v0")
ROOT = Path(__file__).parents[2]


def _counts(env_id):
    info = envs.make(env_id).unwrapped.game.info
    return info.min_players, info.max_players


# every game at its fewest and most players
SETUPS = [(env_id, n) for env_id in GAMES for n in _counts(env_id)]


def _outside(space, vector, names) -> str:
    """The first values of ``vector`` outside the Box ``space``, by name ('' if none)."""
    bad = np.flatnonzero((vector < space.low) | (vector > space.high) | np.isnan(vector))
    return ", ".join(f"{names[i]} = {float(vector[i]):g} not in "
                     f"[{float(space.low[i]):g}, {float(space.high[i]):g}]" for i in bad[:5])


@pytest.mark.parametrize("env_id", GAMES)
def test_names_cover_every_index_once(env_id):
    """One name per index, all different, the same list at every player count."""
    lo, hi = _counts(env_id)
    lists = []
    for n in range(lo, hi + 1):
        env = envs.make(env_id, num_players=n)
        names = env.unwrapped.observation_names()
        size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
        assert len(names) == size == env.unwrapped.game.info.observation_size
        assert len(set(names)) == len(names)
        assert all(isinstance(name, str) and name and " " not in name for name in names)
        lists.append(names)
    assert all(names == lists[0] for names in lists)
    layout = envs.make(env_id).unwrapped.game.layout
    for i in (0, 1, layout.size // 2, layout.size - 1):
        assert layout.index(layout.name(i)) == i
    # each piece's names start with the piece's name and fill its slice
    for name, (a, b, _) in layout.offsets.items():
        assert all(n == name or n.startswith((name + "[", name + ".")) for n in lists[0][a:b])


def test_names_of_declared_features():
    """Feature columns are named from where they are declared."""
    from otrio.envs.oceanos.cards_table import CARD_FEATURE_NAMES
    from otrio.envs.oceanos.observe import LAYOUT as OCEANOS
    from otrio.envs.oceanos.observe import PLAYER_FEATURES
    from otrio.envs.otontin.observe import LAYOUT as OTONTIN
    from otrio.envs.otontin.observe import ORDER_FEATURE_NAMES
    from otrio.envs.otys.observe import CONTRACT_FEATURE_NAMES, TOKEN_FEATURE_NAMES
    from otrio.envs.otys.observe import LAYOUT as OTYS

    assert OCEANOS.name(OCEANOS.slice("hand").start + 5 * len(CARD_FEATURE_NAMES) +
                        CARD_FEATURE_NAMES.index("present")) == "hand[5].present"
    a = OCEANOS.slice("player").start
    assert OCEANOS.names()[a : a + len(PLAYER_FEATURES)] == tuple(
        f"player[0].{f}" for f in PLAYER_FEATURES)
    assert OTYS.index("hand[2].pp") == (OTYS.slice("hand").start + 2 * len(CONTRACT_FEATURE_NAMES)
                                        + CONTRACT_FEATURE_NAMES.index("pp"))
    assert OTYS.index("token.back_pp") == OTYS.slice("token").start + TOKEN_FEATURE_NAMES.index(
        "back_pp")
    assert OTONTIN.index("own_order.laid") == OTONTIN.slice("own_order").start
    assert OTONTIN.name(OTONTIN.slice("own_order").start + 1) == f"own_order.{ORDER_FEATURE_NAMES[0]}"


def test_oceanos_names_read_the_cards_in_hand():
    """Each card in the observer's hand reads, by name, as the card table says it is."""
    from otrio.envs.oceanos.data import ANIMALS

    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=4)
    state, seat = env.unwrapped.state_, env.unwrapped.state_.actor
    obs = env.observe(env.possible_agents[seat])["observation"]
    layout, table = env.unwrapped.game.layout, state.table
    value = {name: obs[i] for i, name in enumerate(layout.names())}
    assert state.hands[seat]
    for slot, card in enumerate(state.hands[seat]):
        assert value[f"hand[{slot}].present"] == 1
        for k, animal in enumerate(ANIMALS):
            assert value[f"hand[{slot}].{animal}"] == (table.animal[card] == k)
        assert value[f"hand[{slot}].corals"] == table.corals[card] / 2
        assert value[f"hand[{slot}].eyes"] == table.eyes[card] / 2
        assert value[f"hand[{slot}].chest"] == table.chest[card]
    assert value[f"hand[{len(state.hands[seat])}].present"] == 0


def test_otys_names_read_the_contracts():
    """Each public contract reads, by name, as the config's tables say it is."""
    from otrio.envs.otys.config import tables_for

    env = envs.make("otys_v0", num_players=2)
    env.reset(seed=3)
    state = env.unwrapped.state_
    obs = env.observe(env.agent_selection)["observation"]
    value = dict(zip(env.unwrapped.observation_names(), obs.tolist()))
    t = tables_for(state.config)
    for i, card in enumerate(state.public):
        assert value[f"public[{i}].present"] == 1
        assert value[f"public[{i}].pp"] == t.contract_pp[card]
        assert value[f"public[{i}].credits"] == t.contract_credits[card]
        assert value[f"public[{i}].number_card"] == t.contract_number[card]
    assert value["credits[0]"] == state.credits[state.actor]


@pytest.mark.parametrize("env_id", GAMES)
def test_bounds_are_finite_and_build_the_spaces(env_id):
    for n in _counts(env_id):
        env = envs.make(env_id, num_players=n)
        game, config = env.unwrapped.game, env.unwrapped.config
        space = env.observation_space(env.possible_agents[0])["observation"]
        low, high = game.layout.bounds(config)
        assert low.dtype == high.dtype == np.float32
        # finite, and never an empty range (normalisers divide by high - low)
        assert np.isfinite(low).all() and np.isfinite(high).all() and (low < high).all()
        assert (env.state_space.low < env.state_space.high).all()
        # the full state names its values too: each seat's row by the observation's names
        state_names = game.full_state.layout.names()
        assert len(state_names) == env.state_space.shape[0] == len(set(state_names))
        assert state_names[2 * game.info.max_players + game.info.observation_size] == \
            f"observations[1].{game.layout.name(0)}"
        np.testing.assert_array_equal(space.low, low)
        np.testing.assert_array_equal(space.high, high)
        assert space.is_bounded("both")
        assert env.state_space.is_bounded("both")
        flat = FlattenObservation(envs.make(env_id, num_players=n))
        assert flat.observation_space(flat.possible_agents[0]).is_bounded("both")
        # the bounds are built once per config: a second env shares them
        assert game.observation_bounds(envs.make(env_id, num_players=n).unwrapped.config)[0] \
            is game.observation_bounds(config)[0]


def _play(env, seed: int, policy: str, every_seat: bool, check):
    """One game of ``policy`` on every seat; ``check(agent, obs)`` at every decision
    (for every seat's observation if ``every_seat``)."""
    env.reset(seed=seed)
    seats = {agent: agents.make(policy, env) for agent in env.possible_agents}
    for k, agent in enumerate(env.possible_agents):
        seats[agent].reset(seed * 100 + k)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        check(agent, obs)
        if every_seat:
            for other in env.agents:
                if other != agent:
                    check(other, env.observe(other))
        env.step(seats[agent].act(obs))
    for agent in env.possible_agents:  # the final position too
        check(agent, env.observe(agent))


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("env_id,n", SETUPS)
def test_every_observation_lies_in_its_box(env_id, n, policy):
    """Every seat's observation at every decision of random and greedy games, and the
    full state at some, lie inside their (finite) spaces."""
    env = envs.make(env_id, num_players=n)
    state_names = env.unwrapped.game.full_state.layout.names()
    checked = {"observations": 0, "states": 0}
    games = 2 if policy == "random" else 1

    def check(agent, obs):
        space = env.observation_space(agent)
        assert space.contains(obs), outside_space(env, agent, obs)
        checked["observations"] += 1
        if checked["observations"] % 97 == 0:
            state = env.state()
            assert env.state_space.contains(state), _outside(env.state_space, state, state_names)
            checked["states"] += 1

    for seed in range(games):
        _play(env, seed, policy, every_seat=True, check=check)
    assert checked["observations"] > 50 and checked["states"] > 0


def test_a_value_outside_its_bounds_is_named():
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert env.observation_space("player_0").contains(obs)
    obs["observation"][env.unwrapped.game.layout.index("player[1].score")] = 99.0
    assert not env.observation_space("player_0").contains(obs)
    assert outside_space(env, "player_0", obs) == "player[1].score = 99 not in [-0.18, 3.7]"


@pytest.mark.parametrize("env_id", GAMES)
def test_describe_lists_the_non_zero_values(env_id):
    env = envs.make(env_id, num_players=_counts(env_id)[0])
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    vector = obs["observation"]
    names = env.unwrapped.observation_names()
    text = describe(vector, env.unwrapped.game.layout)
    lines = text.splitlines()
    assert len(lines) == np.count_nonzero(vector)
    for line, i in zip(lines, np.flatnonzero(vector)):
        name, value = line.split()
        assert name == names[i] and float(value) == pytest.approx(float(vector[i]), rel=1e-5)
    # the dict of last() adds the legal actions, by name through the env
    full = env.unwrapped.describe()
    assert full.splitlines()[:-1] == lines
    legal = env.unwrapped.legal_actions()
    assert full.splitlines()[-1] == "legal actions: " + ", ".join(
        f"{a} {env.unwrapped.action_name(a)}" for a in legal)
    # the flat vector of FlattenObservation reads the same
    flat = FlattenObservation(envs.make(env_id, num_players=_counts(env_id)[0]))
    flat.reset(seed=0)
    assert describe(flat.observe(flat.agent_selection), flat) == full
    assert len(describe(vector, env, zeros=True).splitlines()) == vector.size
    with pytest.raises(ValueError, match="values"):
        describe(vector[:-1], env)


def test_values_are_checked_when_a_layout_is_built():
    with pytest.raises(ValueError, match="labels for 1 axes"):
        ObservationLayout([("a", (2, 3), "", Values(("x", "y")))])
    with pytest.raises(ValueError, match="3 rows but 2 labels"):
        ObservationLayout([("a", (2, 3), "", Values(None, ("x", "y")))])
    with pytest.raises(ValueError, match="low 2.0 > high 1.0"):
        ObservationLayout([("a", (2,), "", Values(low=2.0))]).bounds()
    with pytest.raises(ValueError, match="does not fit"):
        ObservationLayout([("a", (2,), "", Values(high=(1, 2, 3)))]).bounds()
    layout = ObservationLayout([
        ("flag", (1,), ""),
        ("grid", (2, 2), "", Values(None, ("p", "q"), high=lambda config: [config, 2 * config])),
    ], default_config=lambda: 3)
    assert layout.names() == ("flag", "grid[0].p", "grid[0].q", "grid[1].p", "grid[1].q")
    assert layout.bounds()[1].tolist() == [1, 3, 6, 3, 6]
    assert layout.bounds(5)[1].tolist() == [1, 5, 10, 5, 10]
    assert layout.bounds(0)[1].tolist() == [1, 1, 1, 1, 1]  # constant 0: [0, 1]
    assert "[0, 3..6]" in layout.markdown()


@pytest.mark.parametrize("env_id", GAMES)
def test_readmes_name_the_helpers(env_id):
    name = env_id.removesuffix("_v0")
    text = (ROOT / "envs" / name / "README.md").read_text(encoding="utf-8")
    assert "observation_names()" in text and "describe" in text
