"""The agent contract (agents/base.py): an honest agent chooses from what its seat may
know. Every honest agent kind the suite ships plays the same move, from the same seed, in
the true state and in a twin that differs only in what the acting seat cannot see
(``Game.resample_hidden``), the env holding one or the other while the agent decides: a
kind that reads the env's state reads it only through ``resample_hidden`` and the seat's
view. A cheat that reads the state directly is caught by the same check."""

from __future__ import annotations

import numpy as np
import pytest

from otrio import agents, envs
from otrio.agents.base import Agent
from otrio.envs.core.rng import make_rng
from otrio.envs.core.testing import play_random

P = "agents/pretrained/"
HONEST = {
    ("oceanos_v0", 2): ["random", "greedy", f"net:{P}oceanos_net.json", f"ppo:{P}oceanos_ppo.json",
                        f"value:{P}oceanos_value_2p.json,net={P}oceanos_net.json,worlds=2,depth=2",
                        "mcts:iterations=8"],
    ("otys_v0", 3): ["greedy", f"ppo:{P}otys_ppo.json", f"value:{P}otys_value_mlp.json,depth=4",
                     "mcts:iterations=8", f"mcts:iterations=8,leaf=value,value={P}otys_value.json"],
    ("otontin_v0", 3): ["greedy", f"net:{P}otontin_net.json", f"ppo:{P}otontin_ppo.json",
                        "mcts:iterations=8"],
}
CASES = [(env_id, n, spec) for (env_id, n), specs in HONEST.items() for spec in specs]


def twin_choices(env, agent, seed: int = 3, every: int = 7, max_step: int = 120):
    """(decisions compared, twins that differed from the true state, moves that differed)
    over a seeded random game: at every ``every``-th decision with a choice, the agent
    decides with the env holding the true state, then holding a twin re-drawn by
    ``resample_hidden`` for the acting seat, reset to the same seed each time."""
    env.reset(seed=seed)
    base, game = env.unwrapped, env.unwrapped.game
    compared = differed = moved = 0
    for step, (_, obs) in enumerate(play_random(env, make_rng(seed))):
        if step > max_step:
            break
        if step % every or obs["action_mask"].sum() < 2:
            continue
        true = base.state_
        twin = game.resample_hidden(true, true.current_player(), make_rng(10_000 + step))
        differed += twin.to_dict() != true.to_dict()
        picks = []
        for world in (true, twin):
            base.state_ = world
            agent.reset(step)
            picks.append(int(agent.act(obs)))
        base.state_ = true
        compared += 1
        moved += picks[0] != picks[1]
    return compared, differed, moved


@pytest.mark.parametrize(("env_id", "n", "spec"), CASES,
                         ids=[f"{e.split('_')[0]}{n}-{s.split(',')[0]}" for e, n, s in CASES])
def test_an_honest_agent_chooses_from_what_its_seat_may_know(env_id, n, spec):
    env = envs.make(env_id, num_players=n)
    compared, differed, moved = twin_choices(env, agents.make(spec, env))
    assert compared >= 5 and differed >= 3, (compared, differed)  # the check had something to see
    assert moved == 0, f"{spec}: {moved} of {compared} moves changed with what the seat cannot see"


class _PeekingAgent(Agent):
    """A cheat: picks among the legal moves by the true state's hidden part."""

    def __init__(self, env) -> None:
        super().__init__()
        self.env = env

    def act(self, observation) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        hidden = repr(self.env.unwrapped.state_.to_dict())
        return int(legal[sum(map(ord, hidden)) % len(legal)])


def test_the_check_catches_an_agent_that_reads_the_true_state():
    env = envs.make("oceanos_v0", num_players=2)
    compared, differed, moved = twin_choices(env, _PeekingAgent(env))
    assert compared >= 5 and moved > 0
