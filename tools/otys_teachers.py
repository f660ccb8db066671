"""Is there a teacher stronger than greedy for two-player Otys? Two probes.

The shipped Otys PPO agent clones greedy (with its hints) and plays at greedy's level;
beating greedy in 55% of games would need a teacher that does. This tool measures two
candidates against the stock greedy agent, seats alternating by seed, shared victories
counted as half a win:

``weights``  greedy with its value weights changed (``agents/greedy/otys_values.py``):
             each weight scaled by 0.5 and by 1.6 in turn, or the changes given with
             ``--set NAME=VALUE``. Every variant plays the same seeds (common random
             numbers), next to an unchanged copy (``stock``), which is what a variant
             must beat: the copy's own score shows the noise of the seed set.
``rollout``  greedy whose close calls (actions within ``--margin`` PP of its best, the
             best ``--top``) are settled by Monte Carlo: for each of ``--k`` worlds
             (the seat's hidden information re-drawn, ``Game.resample_hidden``) every
             candidate is played out to the end by greedy for both seats, with the
             same generator per world; the candidate with the best mean outcome (win 1,
             shared 0.5, plus 0.02 per point of score margin) is played. The player is
             ``tools/rollout_probe.py``'s, which measures it against any opponent.

Usage::

    python tools/otys_teachers.py weights --games 600 --seed 100000
    python tools/otys_teachers.py weights --games 2000 --seed 200000 --set PUBLIC_RISK=1.0
    python tools/otys_teachers.py rollout --games 50 --seed 500000 --k 4 --margin 0.5

Each variant's games are split over ``--workers`` processes.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

from rollout_probe import RolloutGreedy  # tools/ is the script's own folder

import agents
import envs

GREEDY_DIR = Path(__file__).resolve().parent.parent / "agents" / "greedy"
GREEDY_FILES = ("otys.py", "otys_values.py", "otys_view.py")
SCALES = (0.5, 1.6)  # each weight's variants in the default sweep
# the default sweep's weights, with the values tried where a plain scale makes no sense
SWEPT = ("CREDIT", "BATTERY", "NEUTRAL_KEY", "OWN_X_USE", "KEY_RETURN", "DEFICIT_DECAY",
         "PUBLIC_RISK", "SECOND_CONTRACT", "COMPLETE_PRIORITY", "DRAW_VALUE", "KEEP_PP_SHARE",
         "PERMANENT_USES", "SECOND_USE", "HACKER_VALUE", "MECHANIC_VALUE", "COLUMN_WEIGHT",
         "FADE_ROUNDS")
SPECIAL = {"DEFICIT_DECAY": (0.55, 0.82), "PUBLIC_RISK": (0.7, 1.0), "FADE_ROUNDS": (2, 7)}
MARGIN_WEIGHT = 0.02  # a rollout's outcome: win (1, shared 0.5) plus this per point of margin
SHARED_WIN = 0.5  # a shared victory, in a rollout's outcome and in the score
NUM_PLAYERS = 2


# ------------------------------------------------------------------ weight variants
def write_variant(root: Path, name: str, weights: dict[str, float]) -> None:
    """A copy of the greedy Otys modules as package ``name`` under ``root``, with
    ``weights`` replacing the module constants of the same names."""
    package = root / name
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    for file in GREEDY_FILES:
        text = (GREEDY_DIR / file).read_text().replace("from ..base import", "from agents.base import")
        if file == "otys_values.py":
            for weight, value in weights.items():
                text, found = re.subn(rf"^{weight} = [^#\n]+", f"{weight} = {value!r}  ", text,
                                      count=1, flags=re.M)
                if not found:
                    raise SystemExit(f"no weight {weight!r} in otys_values.py")
        (package / file).write_text(text)


def stock_weight(name: str) -> float:
    """The stock value of one weight."""
    from agents.greedy import otys_values

    return getattr(otys_values, name)


def sweep_variants() -> dict[str, dict[str, float]]:
    """Every swept weight at each scale (or its special values)."""
    variants = {}
    for weight in SWEPT:
        values = SPECIAL.get(weight) or tuple(round(stock_weight(weight) * s, 4) for s in SCALES)
        for k, value in enumerate(values):
            variants[f"{weight.lower()}_{k}"] = {weight: value}
    return variants


def play_variant(job: tuple[str, str, list[int]]) -> tuple[str, float, int]:
    """The score of variant ``name`` (importable from ``root``) against stock greedy."""
    root, name, seeds = job
    sys.path.insert(0, root)
    variant = importlib.import_module(f"{name}.otys").GreedyOtys
    return name, play_games(lambda env, seat, seed: variant(), seeds), len(seeds)


# ------------------------------------------------------------------ rollout teacher
def play_rollout(job: tuple[list[int], int, float, int]) -> tuple[float, int, int, int]:
    """Score, games, close calls and changed choices of the rollout teacher."""
    seeds, k, margin, top = job
    made: list[RolloutGreedy] = []

    def make(env, seat, seed):
        made.append(RolloutGreedy(env, seat, seed, "greedy", k, margin, top,
                                  margin_weight=MARGIN_WEIGHT, shared_win=SHARED_WIN))
        return made[-1]

    score = play_games(make, seeds)
    return score, len(seeds), sum(a.close_calls for a in made), sum(a.changed for a in made)


# ------------------------------------------------------------------ shared
def play_games(make_candidate, seeds: list[int]) -> float:
    """The candidate's score against stock greedy over ``seeds`` (seat = seed % 2)."""
    env = envs.make("otys_v0", num_players=NUM_PLAYERS)
    score = 0.0
    for seed in seeds:
        mine = seed % NUM_PLAYERS
        env.reset(seed=seed)
        players = [agents.make("greedy", env) for _ in range(NUM_PLAYERS)]
        players[mine] = make_candidate(env, mine, seed)
        for player in players:
            player.reset(seed)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            seat = int(agent.rsplit("_", 1)[1])
            if terminated or truncated:
                if seat == mine:
                    score += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
                env.step(None)
                continue
            env.step(players[seat].act(observation))
    return score


def chunks(seeds: list[int], parts: int) -> list[list[int]]:
    """``seeds`` in ``parts`` interleaved pieces."""
    return [seeds[i::parts] for i in range(parts) if seeds[i::parts]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=("weights", "rollout"))
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=100000, help="first game seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="weights: one variant with these changes (repeatable)")
    parser.add_argument("--k", type=int, default=4, help="rollout: worlds per close call")
    parser.add_argument("--margin", type=float, default=0.5, help="rollout: close-call margin, PP")
    parser.add_argument("--top", type=int, default=3, help="rollout: candidates at most")
    args = parser.parse_args()
    seeds = list(range(args.seed, args.seed + args.games))
    parts = chunks(seeds, 4 * args.workers)
    if args.probe == "rollout":
        with Pool(args.workers) as pool:
            results = pool.map(play_rollout, [(p, args.k, args.margin, args.top) for p in parts])
        score, games, calls, changed = (sum(r[i] for r in results) for i in range(4))
        print(f"rollout k={args.k} margin={args.margin}: {score / games:.3f} against greedy in "
              f"{games} games; {calls / games:.1f} close calls and {changed / games:.1f} "
              "changed choices a game")
        return
    variants = {"stock": {}}
    if args.set:
        variants["set"] = {name: float(value) for name, value in (s.split("=") for s in args.set)}
    else:
        variants.update(sweep_variants())
    with tempfile.TemporaryDirectory() as root:
        for name, weights in variants.items():
            write_variant(Path(root), name, weights)
        jobs = [(root, name, part) for name in variants for part in parts]
        with Pool(args.workers) as pool:
            results = pool.map(play_variant, jobs, chunksize=1)
    totals: dict[str, list[float]] = {}
    for name, score, games in results:
        total = totals.setdefault(name, [0.0, 0])
        total[0] += score
        total[1] += games
    for name, (score, games) in sorted(totals.items(), key=lambda kv: -kv[1][0] / kv[1][1]):
        print(f"{score / games:.3f}  {name:22s} {variants[name]}")


if __name__ == "__main__":
    main()
