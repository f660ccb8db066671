"""How close a student network is to its search teacher, next to the teacher's own noise.

    python tools/teacher_agreement.py oceanos_v0 --players 2 --games 12 \
        --teacher mcts:net=agents/pretrained/oceanos_net.json,prior=net,iterations=144 \
        --student net:agents/pretrained/oceanos_net.json [--student net:OTHER.json]

The first student plays one seat (the seat rotates game by game) against ``--opponent``
players, so the positions are those it meets in play. At each of its decisions with a
choice, the teacher is asked twice, by two instances seeded apart, and every student
once. It prints how often the two teacher runs agree (the teacher's self-agreement: no
student imitating it can expect to agree with one run more often), and how often each
student agrees with the first run and with either. Distillation rounds that leave a
student's agreement short of the teacher's own show the student's limit, not the
data's; a student level with it has nothing left to learn from that teacher's moves.

A student need not be a network: with the teacher itself and a variant of it as the
students (``--student S --student S,clairvoyant=1``), it measures how often a change to
the search moves its choices beyond the search's own noise.
"""

from __future__ import annotations

import argparse
import time

from otrio import agents, envs
from otrio.envs.core.aec import live_turns
from otrio.envs.core.rng import derive_seed


def measure(env_id: str, players: int, games: int, teacher: str, students: list[str],
            opponent: str = "greedy", seed: int = 0) -> dict:
    """Decisions compared, the teacher's self-agreement and each student's agreement."""
    env = envs.make(env_id, num_players=players)
    runs = [agents.make(teacher, env), agents.make(teacher, env)]
    pupils = [agents.make(spec, env) for spec in students]
    other = agents.make(opponent, env)
    n = same = 0
    with_first, with_either = [0] * len(pupils), [0] * len(pupils)
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=derive_seed(seed, "game", g))
        seat = env.agents[g % players]
        for k, agent in enumerate([*runs, *pupils, other]):
            agent.reset(seed=derive_seed(seed, "agent", g, k))
        for name, obs in live_turns(env):
            if name != seat:
                env.step(other.act(obs))
                continue
            picks = [p.act(obs) for p in pupils]
            if obs["action_mask"].sum() > 1:
                first, second = (t.act(obs) for t in runs)
                n += 1
                same += first == second
                for i, pick in enumerate(picks):
                    with_first[i] += pick == first
                    with_either[i] += pick in (first, second)
            env.step(picks[0])
    return {"decisions": n, "teacher_self_agreement": same / max(n, 1),
            "students": {s: {"with_first": a / max(n, 1), "with_either": b / max(n, 1)}
                         for s, a, b in zip(students, with_first, with_either)},
            "seconds": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--teacher", required=True, help="the search's agent spec")
    parser.add_argument("--student", action="append", required=True,
                        help="a student's agent spec (repeat for several; the first plays)")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = measure(args.env_id, args.players, args.games, args.teacher, args.student,
                  args.opponent, args.seed)
    print(f"{args.env_id}, {args.players} players, {args.games} games: {out['decisions']} "
          f"decisions with a choice, {out['seconds']:.0f} s")
    print(f"teacher against itself (two seeds): {out['teacher_self_agreement']:.3f}")
    for spec, agree in out["students"].items():
        print(f"{spec}: with the teacher's first run {agree['with_first']:.3f}, "
              f"with either run {agree['with_either']:.3f}")


if __name__ == "__main__":
    main()
