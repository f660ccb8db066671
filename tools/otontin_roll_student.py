"""Probe (issue 56): a network student of the Otontin search's roll-or-stop choice alone,
greedy at every other decision. Answered; its conclusion is in
benchmarks/results/distill/README.md ("Otontin: a student of the roll-or-stop choice").

    python tools/otontin_roll_student.py labels 2000000 400 roll_0.npz   # and 2100000 -> roll_1
    python tools/otontin_roll_student.py fit roll.pt roll_0.npz roll_1.npz
    python tools/otontin_roll_student.py eval roll.pt 3000000 300       # and 3100000
    python tools/otontin_roll_student.py agree roll.pt 4000000 24       # and 4100000

- ``labels``: 3-player games, every seat played by the search (``mcts:iterations=48``, the
  zoo's Otontin search) at its roll-or-stop decisions and by greedy elsewhere; a row per
  such decision: the seat's observation, which campaign actions are legal, greedy's values
  of them (below its best, and roll minus the best stop), and the search's choice;
- ``fit``: an MLP (256, 256) on those rows, a tenth of the games held out; its held-out
  agreement with the search beside greedy's;
- ``eval``: the student at roll-or-stop and greedy elsewhere, in one rotating seat among
  two greedy players: its win share (95% Wilson) and time a decision;
- ``agree``: at that player's roll-or-stop decisions, the search asked twice (two seeds),
  the student and greedy once.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from otrio import agents, envs
from otrio.envs.core.aec import live_turns
from otrio.envs.core.rng import derive_seed
from otrio.envs.otontin.actions import ROLL, STOP

CAMPAIGN = [ROLL, *STOP]  # roll, stop: attack, stop: defence
TEACHER = "mcts:iterations=48"
SEATS = 3


def is_roll(obs) -> bool:
    """A roll-or-stop decision with a choice."""
    return bool(obs["action_mask"][ROLL]) and int(obs["action_mask"].sum()) >= 2


def features(obs, greedy) -> tuple[np.ndarray, int]:
    """A row's inputs and greedy's favourite action."""
    values = greedy.action_values(obs)
    best = max(values.values())
    own = np.array([values.get(a, best - 50) for a in CAMPAIGN], np.float32)
    legal = np.array([obs["action_mask"][a] for a in CAMPAIGN], np.float32)
    roll_minus_stop = values[ROLL] - max(v for a, v in values.items() if a != ROLL)
    extra = [np.clip(roll_minus_stop, -50, 50) / 10.0]
    row = np.concatenate([obs["observation"].astype(np.float32), legal,
                          np.clip(own - best, -50, 0) / 10.0, extra])
    return row, max(values, key=values.get)


def legal_of(rows: np.ndarray) -> np.ndarray:
    """The legal-campaign-action block of rows."""
    return rows[..., -7:-4] > 0


def network(size: int) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(size, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, len(CAMPAIGN)))


def labels(seed: int, games: int, out: str) -> None:
    env = envs.make("otontin_v0", num_players=SEATS)
    rows, chosen, greedy_chose, game_ids = [], [], [], []
    for g in range(games):
        greedy = [agents.make("greedy", env) for _ in range(SEATS)]
        teachers = [agents.make(TEACHER, env) for _ in range(SEATS)]
        for k in range(SEATS):
            greedy[k].reset(derive_seed(seed + g, "g", k))
            teachers[k].reset(derive_seed(seed + g, "t", k))
        env.reset(seed=seed + g)
        for name, obs in live_turns(env):
            k = env.possible_agents.index(name)
            if not is_roll(obs):
                env.step(int(greedy[k].act(obs)))
                continue
            row, favourite = features(obs, greedy[k])
            action = int(teachers[k].act(obs))
            rows.append(row)
            chosen.append(CAMPAIGN.index(action))
            greedy_chose.append(CAMPAIGN.index(favourite))
            game_ids.append(seed + g)
            env.step(action)
    np.savez(out, x=np.array(rows), y=np.array(chosen), greedy=np.array(greedy_chose),
             game=np.array(game_ids))


def fit(out: str, files: list[str]) -> None:
    data = [np.load(f) for f in files]
    x, y, by_greedy, game = (np.concatenate([d[key] for d in data])
                             for key in ("x", "y", "greedy", "game"))
    held = game % 10 == 7
    mu, sd = x[~held].mean(0), x[~held].std(0) + 1e-6
    inputs = torch.tensor((x - mu) / sd, dtype=torch.float32)
    targets, legal = torch.tensor(y), torch.tensor(legal_of(x))
    torch.manual_seed(0)
    net = network(x.shape[1])
    opt = torch.optim.Adam(net.parameters(), 1e-3, weight_decay=1e-5)
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    best = (-1.0, None, -1)
    for epoch in range(30):
        np.random.default_rng(epoch).shuffle(train)
        for i in range(0, len(train), 256):
            b = train[i:i + 256]
            logits = net(inputs[b]).masked_fill(~legal[b], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, targets[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            picks = net(inputs[test]).masked_fill(~legal[test], -1e9).argmax(1).numpy()
        agreement = float((picks == y[test]).mean())
        if agreement > best[0]:
            best = (agreement, {k: v.clone() for k, v in net.state_dict().items()}, epoch)
    print(f"rows {len(y)} (held out {len(test)}), the search rolls {np.mean(y == 0):.3f}, "
          f"greedy {np.mean(by_greedy == 0):.3f}; held-out agreement with the search: greedy "
          f"{np.mean(by_greedy[test] == y[test]):.3f}, student {best[0]:.3f} (epoch {best[2]})")
    torch.save({"state": best[1], "mu": mu, "sd": sd, "size": x.shape[1]}, out)


class Student:
    """The network at roll-or-stop, greedy elsewhere."""

    def __init__(self, env, model: str) -> None:
        saved = torch.load(model, weights_only=False)  # a file this probe wrote
        self.net = network(saved["size"])
        self.net.load_state_dict(saved["state"])
        self.mu, self.sd = saved["mu"], saved["sd"]
        self.greedy = agents.make("greedy", env)
        self.seconds, self.decisions = 0.0, 0

    def reset(self, seed=None) -> None:
        self.greedy.reset(seed)

    def act(self, obs) -> int:
        if not is_roll(obs):
            return self.greedy.act(obs)
        start = time.perf_counter()
        row, _ = features(obs, self.greedy)
        with torch.no_grad():
            logits = self.net(torch.tensor((row - self.mu) / self.sd,
                                           dtype=torch.float32)).numpy()
        logits[~legal_of(row)] = -1e9
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return CAMPAIGN[int(np.argmax(logits))]


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def seated_games(env, hero: Student, seed: int, games: int, on_hero_roll=None):
    """Games with the student in one rotating seat among greedy players; yields each
    game's share of the win for that seat. ``on_hero_roll(g, obs, hero)``, if given, is
    called at the student's roll-or-stop decisions and returns the action it plays."""
    greedy = [agents.make("greedy", env) for _ in range(SEATS)]
    for g in range(games):
        seated = list(greedy)
        seated[g % SEATS] = hero
        for k, agent in enumerate(seated):
            agent.reset(derive_seed(seed + g, "agent", k))
        env.reset(seed=seed + g)
        for name, obs in live_turns(env):
            k = env.possible_agents.index(name)
            if k == g % SEATS and on_hero_roll is not None and is_roll(obs):
                env.step(int(on_hero_roll(g, obs, hero)))
            else:
                env.step(int(seated[k].act(obs)))
        winners = list(env.unwrapped.state_.winners())
        yield (g % SEATS in winners) / max(1, len(winners))


def evaluate(model: str, seed: int, games: int) -> None:
    env = envs.make("otontin_v0", num_players=SEATS)
    hero = Student(env, model)
    wins = sum(seated_games(env, hero, seed, games))
    low, high = wilson(wins / games, games)
    print(f"student at roll-or-stop, greedy elsewhere: {wins / games:.3f} [{low:.3f}, "
          f"{high:.3f}] over {games} games (seed {seed}); "
          f"{1000 * hero.seconds / max(hero.decisions, 1):.2f} ms a roll-or-stop decision")


def agree(model: str, seed: int, games: int) -> None:
    env = envs.make("otontin_v0", num_players=SEATS)
    hero = Student(env, model)
    first, second = agents.make(TEACHER, env), agents.make(TEACHER, env)
    counts = np.zeros(6)

    def ask(g, obs, hero):
        if not counts[5] or counts[5] != g + 1:
            first.reset(derive_seed(seed + g, "t1"))
            second.reset(derive_seed(seed + g, "t2"))
            counts[5] = g + 1
        a, b = int(first.act(obs)), int(second.act(obs))
        mine, greedy = int(hero.act(obs)), int(hero.greedy.act(obs))
        counts[:5] += [1, a == b, mine == a, greedy == a, 0]
        return mine

    for _ in seated_games(env, hero, seed, games, ask):
        pass
    n = counts[0]
    print(f"{int(n)} roll-or-stop decisions: the search with itself {counts[1] / n:.3f}, the "
          f"student with the search {counts[2] / n:.3f}, greedy {counts[3] / n:.3f}")


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "labels":
        labels(int(args[0]), int(args[1]), args[2])
    elif mode == "fit":
        fit(args[0], args[1:])
    elif mode == "eval":
        evaluate(args[0], int(args[1]), int(args[2]))
    else:
        agree(args[0], int(args[1]), int(args[2]))
