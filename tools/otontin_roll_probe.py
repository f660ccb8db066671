"""Where the Otontin search's edge over greedy lies, and whether a fast rule takes it.

    python tools/otontin_roll_probe.py hybrid --kinds roll --games 240 --seed 700000
    python tools/otontin_roll_probe.py hybrid --kinds priority,steal,declare,commit \
        --games 240 --seed 700000
    python tools/otontin_roll_probe.py labels --games 400 --seed 800000 --out A.npz
    python tools/otontin_roll_probe.py labels --games 400 --seed 801000 --out B.npz
    python tools/otontin_roll_probe.py fit A.npz B.npz --out rule.npz
    python tools/otontin_roll_probe.py imitate rule.npz --games 300 --seed 900000

One seat of a 3-player game (rotating game by game) plays against two greedy players:

- ``hybrid``: the default search (``mcts``) at the decision kinds named, greedy at the
  others; prints the hybrid's win share, its time a decision by kind, and at roll
  decisions how its choice differs from greedy's (``--compare``: stop -> roll, roll ->
  stop, the stop card);
- ``labels``: the same hybrid at roll decisions, saving at each one greedy's own
  quantities (its roll gain, haul, the war sat out when busting, the next roll's bust
  chance, expected warriors/beans/saboteurs, dice left, ...) and the search's choice;
- ``fit``: a logistic rule "roll" on those quantities, fitted on the first file and
  judged on the second (and the other way round): how often it agrees with the search,
  next to greedy's agreement; then fitted on both and saved;
- ``imitate``: greedy whose roll-or-stop choice is the fitted rule (the stop card stays
  greedy's): its win share and time a decision.

Conclusions: ``benchmarks/results/values/README.md``, "Otontin: the gate fails".
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from otrio import agents, envs
from otrio.agents.greedy.otontin import GreedyOtontin, face_chances, roll_outcomes
from otrio.agents.greedy.otontin_war import NO_PLAN
from otrio.arena.play import play_seated
from otrio.envs.core.rng import derive_seed
from otrio.envs.otontin.actions import ROLL
from otrio.envs.otontin.data import BUST_SABOTEURS, SABOTEUR
from otrio.envs.otontin.observe import decode

KINDS = {"roll": range(0, 3), "priority": range(3, 5), "steal": range(5, 9),
         "declare": range(9, 57), "commit": range(57, 104)}  # envs/otontin/actions.py ids
FEATURES = ("roll_gain", "haul", "sit_out", "bust_chance", "warriors", "beans_next",
            "saboteurs_next", "saboteurs", "bag", "aside", "paid_warriors", "paid_beans",
            "final_round", "own_beans", "rival_beans", "warrior_value", "roll_minus_stop")


def kind_of(legal: list[int]) -> str:
    """The decision kind of a legal-action list (the kinds' ids do not mix)."""
    return next(k for k, ids in KINDS.items() if legal[0] in ids)


class Featured(GreedyOtontin):
    """Greedy that keeps the quantities of its last roll valuation (``last``)."""

    def _roll_gain(self, view, model, paid_warriors, paid_beans, haul):
        gain = super()._roll_gain(view, model, paid_warriors, paid_beans, haul)
        bag = view.bag if any(view.bag) else view.priests_aside
        outcomes = roll_outcomes(bag, face_chances(view.dice_faces)).items()
        so_far = view.rolled[SABOTEUR]
        active = model.best(view.attack, view.defence, view.beans)
        busted = model.values(view.attack, view.defence, view.beans, busted_self=True)[NO_PLAN]
        self.last = [gain, haul, active - busted,
                     sum(p for (_, _, s), p in outcomes if so_far + s >= BUST_SABOTEURS),
                     sum(p * w for (w, _, _), p in outcomes),
                     sum(p * b for (_, b, _), p in outcomes),
                     sum(p * s for (_, _, s), p in outcomes), so_far, sum(view.bag),
                     sum(view.priests_aside), paid_warriors, paid_beans,
                     float(view.final_round), view.beans[0],
                     max(view.beans[1:view.num_players]), self.weights.warrior(view.final_round)]
        return gain

    def roll_features(self, observation) -> tuple[list[float], dict[int, float]]:
        """At a roll decision: the features (FEATURES) and greedy's action values."""
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        values = self.values_of_view(decode(observation["observation"], self.config), legal)
        best_stop = max(v for a, v in values.items() if a != ROLL)
        return self.last + [values[ROLL] - best_stop], values


class Imitator(Featured):
    """Greedy whose roll-or-stop choice is a fitted logistic rule."""

    def __init__(self, config, rule: str) -> None:
        super().__init__(config=config)
        with np.load(rule) as data:
            self.mu, self.sd, self.w = data["mu"], data["sd"], data["w"]

    def act(self, observation) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if legal[0] != ROLL or len(legal) < 2:
            return super().act(observation)
        x, values = self.roll_features(observation)
        if np.r_[(np.array(x) - self.mu) / self.sd, 1.0] @ self.w > 0:
            return ROLL
        values.pop(ROLL)
        return self.choose_best(values)


class HeroSeat:
    """The probed seat: ``hero`` at the decision kinds named, ``greedy`` at the others;
    it keeps the hero's time by kind, and at roll decisions calls ``on_roll`` and (with
    ``compare``) counts how its choice differs from greedy's."""

    def __init__(self, hero, greedy, kinds: set[str], compare: bool, on_roll) -> None:
        self.hero, self.greedy, self.kinds = hero, greedy, kinds
        self.compare, self.on_roll = compare, on_roll
        self.seconds, self.count, self.differ = Counter(), Counter(), Counter()

    def reset(self, seed: int) -> None:
        self.greedy.reset(seed)
        self.hero.reset(derive_seed(seed, "hero"))

    def act(self, obs) -> int:
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        kind = kind_of(legal)
        if kind not in self.kinds or len(legal) < 2:
            return self.greedy.act(obs)
        start = time.perf_counter()
        action = self.hero.act(obs)
        self.seconds[kind] += time.perf_counter() - start
        self.count[kind] += 1
        if kind == "roll" and self.on_roll is not None:
            self.on_roll(obs, action)
        if kind == "roll" and self.compare:
            mine = self.greedy.act(obs)
            if mine != action:
                self.differ[f"{'roll' if mine == ROLL else 'stop'} -> "
                            f"{'roll' if action == ROLL else 'stop'}"] += 1
            self.differ["greedy rolls" if mine == ROLL else "greedy stops"] += 1
        return action


def play(hero, kinds: set[str], games: int, seed: int, compare: bool = False,
         on_roll=None) -> None:
    """``hero`` at ``kinds`` (greedy elsewhere) in one rotating seat among two greedy."""
    env = envs.make("otontin_v0", num_players=3)
    greedy = [agents.make("greedy", env) for _ in range(3)]
    probed = HeroSeat(hero(env), agents.make("greedy", env), kinds, compare, on_roll)
    wins = 0.0
    for g in range(games):
        seated = list(greedy)
        seated[g % 3] = probed
        for k, agent in enumerate(seated):
            agent.reset(derive_seed(seed + g, "agent", k))
        env.reset(seed=seed + g)
        play_seated(env, seated)
        winners = list(env.unwrapped.state_.winners())
        wins += (g % 3 in winners) / max(1, len(winners))
    print(f"win share {wins / games:.3f} over {games} games (fair 0.333); the hero's own "
          "decisions, ms each: " + ", ".join(
              f"{k} {1000 * probed.seconds[k] / probed.count[k]:.2f} ({probed.count[k]})"
              for k in probed.count))
    if probed.differ:
        print("at roll decisions: " + ", ".join(f"{k} {v}"
                                                for k, v in sorted(probed.differ.items())))


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 50):
    """A ridge-penalised logistic regression by Newton steps on standardised features."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.c_[(x - mu) / sd, np.ones(len(x))]
    w = np.zeros(z.shape[1])
    penalty = l2 * np.r_[np.ones(len(w) - 1), 0.0]
    for _ in range(steps):
        p = 1 / (1 + np.exp(-z @ w))
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        w -= np.linalg.solve(hessian, z.T @ (p - y) + penalty * w)
    return mu, sd, w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("hybrid", "labels", "fit", "imitate"))
    parser.add_argument("files", nargs="*")
    parser.add_argument("--kinds", default="roll")
    parser.add_argument("--games", type=int, default=240)
    parser.add_argument("--seed", type=int, default=700000)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    kinds = set(args.kinds.split(","))
    if args.mode == "hybrid":
        play(lambda env: agents.make("mcts", env), kinds, args.games, args.seed, args.compare)
    elif args.mode == "labels":
        rows, labels, greedy_rolls = [], [], []
        featured: list[Featured] = []

        def record(obs, action):
            if not obs["action_mask"][ROLL]:  # the bag and the priests are spent: stop only
                return
            x, values = featured[0].roll_features(obs)
            rows.append(x)
            labels.append(action == ROLL)
            greedy_rolls.append(max(values, key=values.get) == ROLL)

        def hero(env):
            featured.append(Featured.for_env(env))
            return agents.make("mcts", env)

        play(hero, {"roll"}, args.games, args.seed, on_roll=record)
        np.savez(args.out, x=np.array(rows), y=np.array(labels), greedy=np.array(greedy_rolls))
    elif args.mode == "fit":
        a, b = (np.load(f) for f in args.files)
        for train, test in ((a, b), (b, a)):
            rule = fit(train["x"], train["y"].astype(float))
            said = np.c_[(test["x"] - rule[0]) / rule[1], np.ones(len(test["x"]))] @ rule[2] > 0
            print(f"{len(train['y'])} labels: the search rolls {train['y'].mean():.3f}, greedy "
                  f"{train['greedy'].mean():.3f}; on the other file greedy agrees with the "
                  f"search {np.mean(test['greedy'] == test['y']):.3f}, the rule "
                  f"{np.mean(said == test['y']):.3f}")
        mu, sd, w = fit(np.r_[a["x"], b["x"]], np.r_[a["y"], b["y"]].astype(float))
        print("weights (standardised): " + ", ".join(
            f"{n} {c:+.2f}" for n, c in sorted(zip(FEATURES, w), key=lambda t: -abs(t[1]))))
        np.savez(args.out, mu=mu, sd=sd, w=w)
    else:
        play(lambda env: Imitator(env.unwrapped.config, args.files[0]), {"roll"}, args.games,
             args.seed)


if __name__ == "__main__":
    main()
