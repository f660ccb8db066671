"""The clairvoyant reference (``mcts:clairvoyant=1``): its worlds keep the true present
(``Game.resample_future``: every seat's view is unchanged) and re-draw the future
without reading it, so two states that differ only in a future draw get the same
decision while a different opponent's hand reaches the search; and it is a research
cheat that tournaments, ladders and balance sweeps refuse unless the config says
``reference: true``."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from otrio import agents, envs
from otrio.agents.search_options import GAME_DEFAULTS, parse_options
from otrio.benchmarks.balance import config as balance_config
from otrio.benchmarks.balance import sweep
from otrio.benchmarks.tournament.tournament import TournamentConfig
from otrio.benchmarks.tournament.tournament import run as run_tournament
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.rng import make_rng
from otrio.envs.core.testing import play_random

SETUPS = [("oceanos_v0", 2), ("oceanos_v0", 5), ("otys_v0", 2), ("otys_v0", 4),
          ("otontin_v0", 3), ("otontin_v0", 8)]
IDS = [f"{e}-{n}p" for e, n in SETUPS]
# the present each game keeps by name (beside every seat's unchanged observation)
PRESENT = {"oceanos": ("hands", "kept"), "otys": ("hands", "drawn"),
           "otontin": ("committed",)}
CLAIRVOYANT = "mcts:iterations=12,depth=6,rollout=random,prior=none,top=0,gap=0,clairvoyant=1"
CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _states(env_id: str, n: int, seed: int, every: int):
    """(step, env, state) at every ``every``-th decision of a seeded random game."""
    env = envs.make(env_id, num_players=n)
    env.reset(seed=seed)
    for step, _ in enumerate(play_random(env, make_rng(seed))):
        if step % every == 0:
            yield step, env, env.unwrapped.state_


@pytest.mark.parametrize(("env_id", "n"), SETUPS, ids=IDS)
def test_the_future_is_redrawn_and_every_seats_present_kept(env_id, n):
    changed = 0
    for step, env, state in _states(env_id, n, seed=1, every=7):
        game = env.unwrapped.game
        before = state.to_dict()
        world = game.resample_future(state, state.current_player(), make_rng(step))
        changed += world.to_dict() != before
        assert state.to_dict() == before, "resample_future mutated the true state"
        for name in PRESENT[game.info.name]:
            assert getattr(world, name) == getattr(state, name), f"step {step}: {name}"
        size = game.info.observation_size
        for seat in range(n):
            mine, theirs = np.zeros(size, np.float32), np.zeros(size, np.float32)
            game.observe(state, seat, mine)
            game.observe(world, seat, theirs)
            assert np.array_equal(mine, theirs), f"step {step}: seat {seat}'s view changed"
    assert changed > 3  # the future was re-drawn, not copied


@pytest.mark.parametrize(("env_id", "n"), SETUPS, ids=IDS)
def test_two_states_that_differ_only_in_the_future_give_one_world(env_id, n):
    differed = 0
    for step, env, state in _states(env_id, n, seed=2, every=9):
        game = env.unwrapped.game
        twin = game.resample_future(state, 0, make_rng(50_000 + step))  # another future
        differed += twin.to_dict() != state.to_dict()
        one = game.resample_future(state, 0, make_rng(step))
        two = game.resample_future(twin, 0, make_rng(step))
        assert one.to_dict() == two.to_dict(), f"step {step}: the future was read"
    assert differed > 3


@pytest.mark.parametrize("crn", [0, 1], ids=["tree", "flat"])
@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_a_future_draw_does_not_change_the_clairvoyant_decision(env_id, crn):
    compared = 0
    for step, env, state in _states(env_id, 3, seed=4, every=6):
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if len(legal) < 2 or step > 60:
            continue
        agent = agents.make(f"{CLAIRVOYANT},crn={crn}", env)
        twin = env.unwrapped.game.resample_future(state, 0, make_rng(step))
        picks = []
        for world in (state, twin):
            agent.reset(step)
            picks.append(agent.search(world, legal, obs))
        assert picks[0] == picks[1], f"step {step}: a future draw changed the move"
        compared += 1
    assert compared > 3


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_the_clairvoyant_search_reads_the_true_present(env_id):
    """Its worlds hold the true opponents' hands (secret orders): states that differ in
    them (a twin with the hidden part re-drawn) are searched in different worlds, while
    the honest search's worlds are the same for both."""
    seen = 0
    for step, env, state in _states(env_id, 3, seed=5, every=3):
        game = env.unwrapped.game
        seat = state.current_player()
        twin = game.resample_hidden(state, seat, make_rng(70_000 + step))
        fields = PRESENT[game.info.name]
        if all(getattr(twin, f) == getattr(state, f) for f in fields):
            continue
        agent = agents.make(CLAIRVOYANT, env)
        for true in (state, twin):
            world = agent.redraw(true, seat, make_rng(step))
            assert all(getattr(world, f) == getattr(true, f) for f in fields)
        honest = agents.make(CLAIRVOYANT.replace("clairvoyant=1", "clairvoyant=0"), env)
        worlds = [honest.redraw(true, seat, make_rng(step)).to_dict() for true in (state, twin)]
        assert worlds[0] == worlds[1]
        seen += 1
    assert seen > 3


def test_an_opponents_hand_can_change_the_clairvoyant_decision():
    """Otontin at 3 players: somewhere in a seeded game the laid orders of the others
    (true vs re-drawn) change what the clairvoyant search plays."""
    differ = 0
    for step, env, state in _states("otontin_v0", 3, seed=6, every=2):
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        seat = state.current_player()
        if len(legal) < 2 or not any(c >= 0 for s, c in enumerate(state.committed) if s != seat):
            continue
        agent = agents.make(CLAIRVOYANT.replace("iterations=12", "iterations=24"), env)
        twin = env.unwrapped.game.resample_hidden(state, seat, make_rng(step))
        picks = []
        for world in (state, twin):
            agent.reset(step)
            picks.append(agent.search(world, legal, obs))
        differ += picks[0] != picks[1]
        if differ:
            break
    assert differ


# ---------------------------------------------------------------- refused without reference
def test_the_option_is_never_a_default():
    for game in GAME_DEFAULTS:
        assert parse_options("", game).clairvoyant == 0
    for path in sorted(CONFIGS.rglob("*.yaml")):
        text = path.read_text()
        if "clairvoyant=1" in text:
            assert yaml.safe_load(text).get("reference") is True, path


def test_check_spec_refuses_the_cheat_unless_reference():
    env = envs.make("otontin_v0", num_players=3)
    with pytest.raises(ConfigError, match="reference: true"):
        agents.check_spec(CLAIRVOYANT, env)
    agents.check_spec(CLAIRVOYANT, env, reference=True)
    agents.check_spec(CLAIRVOYANT.replace("clairvoyant=1", "clairvoyant=0"), env)


def test_the_reference_check_reads_the_flag_over_the_games_defaults():
    """Whether a spec is the reference is read from its flag alone: a spec that relies
    on its game's defaults (Otys searches to depth 30, which leaf=value needs) is checked
    against them, not refused as if it named no depth."""
    env = envs.make("otys_v0", num_players=2)
    value = "mcts:leaf=value,value=agents/pretrained/otys_value.json"
    agents.check_spec(value, env)
    assert not agents.is_reference(value)
    assert agents.is_reference(value + ",clairvoyant=1")
    with pytest.raises(ConfigError, match="reference: true"):
        agents.check_spec(value + ",clairvoyant=1", env)
    with pytest.raises(ConfigError, match="clairvoyant"):
        agents.is_reference("mcts:clairvoyant=yes")


def _tournament(tmp_path, **kw) -> TournamentConfig:
    return TournamentConfig(
        game="oceanos_v0", game_config={"num_players": 2},
        agents={"clair": CLAIRVOYANT.replace("iterations=12", "iterations=2"),
                "greedy": "greedy"},
        lineups=[["clair", "greedy"]], games_per_seating=1, seed=1,
        output=str(tmp_path / "t"), **kw)


def test_a_tournament_or_ladder_refuses_it_without_reference(tmp_path):
    with pytest.raises(ConfigError, match="reference: true"):
        run_tournament(_tournament(tmp_path), progress=False)
    assert not (tmp_path / "t").exists()
    folder = run_tournament(_tournament(tmp_path, reference=True), progress=False)
    assert (folder / "games.jsonl").read_text().count("\n") == 2


def _sweep(tmp_path, **kw) -> balance_config.BalanceConfig:
    return balance_config.BalanceConfig(
        game="oceanos_v0", game_config={"num_players": 2},
        agents={"clair": CLAIRVOYANT.replace("iterations=12", "iterations=2")},
        tiers=["greedy", "clair"], matchups="none", games_per_setup=2, seed=1,
        sweeps=[{"name": "s", "setups": [{"label": "rulebook"}]}],
        output=str(tmp_path / "b"), **kw)


def test_a_balance_lineup_refuses_it_without_reference(tmp_path):
    with pytest.raises(ConfigError, match="reference: true"):
        sweep.run(_sweep(tmp_path), progress=False)
    assert not (tmp_path / "b").exists()
    folder = sweep.run(_sweep(tmp_path, reference=True), progress=False)
    assert (folder / "games.jsonl").read_text().count("\n") == 4
