"""The ``mcts`` agent: spec parsing, the agent contract at min and max players, seeded
determinism, honesty (it reads the game only through re-drawn worlds), and equal
tournament records on one worker or two. Strength is measured in benchmarks
(``benchmarks/results/search/``), not asserted here."""

import pytest

from otrio import agents, envs
from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.tournament.tournament import TournamentConfig, run
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.testing import check_search_sees_only_its_seat

TINY = "mcts:iterations=3,depth=4"
COUNTS = [("oceanos_v0", 2), ("oceanos_v0", 5), ("otys_v0", 2), ("otys_v0", 4),
          ("otontin_v0", 3), ("otontin_v0", 8)]


def test_spec_options_parse_over_the_defaults():
    env = envs.make("oceanos_v0", num_players=2)
    agent = agents.make("mcts:iterations=17, c=1.5,rollout=random,depth=8,top=3,gap=2", env)
    o = agent.options
    assert (o.iterations, o.c, o.rollout, o.depth, o.top, o.gap) == (17, 1.5, "random", 8, 3, 2.0)


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_the_plain_spec_takes_the_games_studied_defaults(env_id):
    from otrio.agents.search_options import GAME_DEFAULTS

    env = envs.make(env_id)
    defaults = GAME_DEFAULTS[env.unwrapped.game.info.name]
    options = agents.make("mcts", env).options
    assert {key: getattr(options, key) for key in defaults} == defaults
    assert agents.make("mcts:iterations=7", env).options.crn == defaults["crn"]


@pytest.mark.parametrize(("spec", "named"), [
    ("mcts:iteratons=5", "iteratons"),
    ("mcts:iterations=many", "iterations"),
    ("mcts:iterations=0", "iterations"),
    ("mcts:seconds=-1", "seconds"),
    ("mcts:rollout=smart", "rollout"),
    ("mcts:prior=psychic", "prior"),
    ("mcts:depth=-2", "depth"),
    ("mcts:c=nan", "c"),
    ("mcts:iterations", "iterations"),
])
def test_a_bad_option_is_a_clear_error_naming_it(spec, named):
    env = envs.make("otys_v0", num_players=2)
    with pytest.raises(ConfigError, match=named):
        agents.make(spec, env)


def _play(env_id: str, n: int, spec: str, seed: int) -> list[int]:
    """A game with ``spec`` in seat 0 and random players elsewhere; its actions."""
    env = envs.make(env_id, num_players=n)
    players = [agents.make(spec, env)] + [agents.make("random", env) for _ in range(n - 1)]
    for s, p in enumerate(players):
        p.reset(seed + s)
    env.reset(seed=seed)
    actions = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = players[env.possible_agents.index(name)].act(obs)
        assert obs["action_mask"][action] == 1, f"{name} chose illegal {action}"
        actions.append(action)
        env.step(action)
    assert env.unwrapped.state_.is_terminal()
    return actions


@pytest.mark.parametrize(("env_id", "n"), COUNTS, ids=[f"{e}-{n}p" for e, n in COUNTS])
def test_plays_legal_moves_to_the_end_and_repeats_itself_when_seeded(env_id, n):
    spec = TINY + (",rollout=random,prior=none" if n > 4 else "")
    assert _play(env_id, n, spec, seed=3) == _play(env_id, n, spec, seed=3)


@pytest.mark.parametrize("crn", [0, 1], ids=["tree", "flat"])
@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_the_search_sees_only_what_its_seat_may_know(env_id, crn):
    """Two states that differ only in what the acting seat cannot see (the hidden part
    re-drawn) get the same move from the same seeded agent."""
    n = 3
    env = envs.make(env_id, num_players=n)
    agent = agents.make(f"mcts:iterations=16,depth=8,rollout=random,prior=none,top=0,gap=0,"
                        f"crn={crn}", env)
    assert check_search_sees_only_its_seat(env, agent, every=4) > 3


def test_a_tournament_with_mcts_gives_the_same_records_on_two_workers(tmp_path):
    def config(name: str, workers: int) -> TournamentConfig:
        return TournamentConfig(
            game="oceanos_v0", game_config={"num_players": 2},
            agents={"mcts": TINY, "greedy": "greedy"}, lineup=["mcts", "greedy"],
            games_per_seating=2, seed=5, output=str(tmp_path / name), workers=workers)

    def records(folder):
        return [{k: v for k, v in r.items() if k != "wall_time"}
                for r in read_records(folder / RECORDS_FILE)]

    one = run(config("one", 1), progress=False)
    two = run(config("two", 2), progress=False)
    assert records(one) == records(two)
    assert len(records(one)) == 4


def test_seat_lists_keep_each_specs_options():
    assert agents.split_specs("human,mcts:iterations=64,top=4,greedy, random") == [
        "human", "mcts:iterations=64,top=4", "greedy", "random"]


def test_mcts_plays_from_the_command_line(capsys):
    from otrio.cli import main

    assert main(["play", "otys", "--seats", "mcts:iterations=2,depth=2,rollout=random,greedy",
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "player_0 (mcts:iterations=2,depth=2,rollout=random):" in out


def test_a_search_beyond_the_cost_ceiling_is_refused_with_the_number():
    """Each option in its range, and together minutes a decision: refused, naming the
    product and the ceiling; the time cap (seconds=S) bounds it instead."""
    from otrio.agents.search_options import MAX_COST

    env = envs.make("otys_v0", num_players=2)
    with pytest.raises(ConfigError, match=r"1,000,000 x 30 = 30,000,000 .* ceiling of "
                                          + f"{MAX_COST:,}"):
        agents.make("mcts:iterations=1000000", env)
    assert agents.make("mcts:iterations=1000000,seconds=1", env).options.seconds == 1
    agents.make("mcts:iterations=144,depth=-1", env)  # the strongest shipped searches' size
