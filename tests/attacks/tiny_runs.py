"""One tiny run of each kind, made in a folder in about a second: the tests of run-folder
discipline (tests/test_run_folders.py), the kill -9 resume tests and the attack pass on
the side files a resume reads (tests/attacks/run_folder_attack.py) share them.

Each kind's config is a plain dict (``CONFIGS``): the makers validate it, and the
command-line tests write it as the YAML file the ``otrio`` command reads.
"""

from __future__ import annotations

import re
from pathlib import Path

from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.tournament.tournament import TournamentConfig, run
from otrio.envs.core.config import validate
from otrio.training.config import TrainConfig
from otrio.training.distill import distill
from otrio.training.train import evaluate_snapshots, train
from otrio.training.value_data import ValueDataConfig, generate

CONFIGS: dict[str, dict] = {
    "tournament": dict(game="oceanos_v0", game_config={"num_players": 2},
                       agents={"greedy": "greedy", "random": "random"},
                       lineup=["greedy", "random"], games_per_seating=1, seed=2),
    "balance": dict(game="oceanos_v0", game_config={"num_players": 2, "kraken": {
                        "mode": "fixed", "values": [0, -1, -2]}},
                    agents={"random": "random"}, lineup=["random", "random"],
                    games_per_setup=1, seed=5,
                    sweeps=[{"name": "kraken", "factors": [
                        {"name": "small", "path": "kraken.values.0", "values": [0, -2]}]}]),
    "setup search": dict(game="oceanos_v0", game_config={"num_players": 2, "kraken": {
                             "mode": "fixed", "values": [0, -1, -2]}},
                         tiers=["random"], seed=4, search={
                             "space": [{"name": "small", "path": "kraken.values.0",
                                        "values": [0, -1]}],
                             "default": {"kraken": {"mode": "random", "values": None}},
                             "default_label": "rulebook", "trials": 2, "batch": 2,
                             "games_per_trial": 1, "finalists": 1, "finalist_games": 1,
                             "confirm_games": 2, "bootstrap": 100}),
    "search study": dict(game="oceanos_v0", num_players=2, budgets=[2],
                         options="depth=2,rollout=random", games=1, seed=3),
    "training": dict(game="oceanos_v0", game_config={"num_players": 2},
                     opponents={"random": 1.0, "self": 1.0}, total_timesteps=128,
                     ppo={"n_steps": 64, "batch_size": 32, "n_epochs": 1}, net_arch=[16],
                     snapshot_interval=64, checkpoint_interval=64,
                     eval={"interval": 64, "games": 2, "opponents": ["random"]}),
    "distillation": dict(game="oceanos_v0", game_config={"num_players": 2}, seed=3,
                         eval={"games": 2, "opponents": ["random"]},
                         distill={"rounds": [{"teacher": "mcts:iterations=2,depth=3,"
                                              "rollout=random,prior=none,top=0,crn=1",
                                              "games": {2: 2}}],
                                  "epochs": 1, "trunk": [8], "batch_size": 64,
                                  "held_out": 0.0}),
    "value data": dict(kind="value_data", env="otys_v0", players=[2], games=4,
                       shard_games=2, positions=2, mixture={"greedy": 1.0, "explore": 1.0}),
}
TINY_TRAINING = CONFIGS["training"]


def tournament(output: Path, **kw):
    return run(TournamentConfig(**{**CONFIGS["tournament"], "output": str(output), **kw}),
               progress=False)


def balance(output: Path, **kw):
    from otrio.benchmarks.balance.config import BalanceConfig
    from otrio.benchmarks.balance.sweep import run

    return run(BalanceConfig(**{**CONFIGS["balance"], "output": str(output), **kw}),
               progress=False)


def setup_search(output: Path, **kw):
    from otrio.benchmarks.balance.search import run

    return run(BalanceConfig(**{**CONFIGS["setup search"], "output": str(output), **kw}),
               progress=False)


def search_study(output: Path, **kw):
    from otrio.benchmarks.speed.search import SearchBenchConfig, run

    return run(SearchBenchConfig(**{**CONFIGS["search study"], "output": str(output), **kw}),
               progress=False)


def training(output: Path, total_timesteps: int = 128, **kw):
    return train(validate(TrainConfig, {**CONFIGS["training"], "total_timesteps": total_timesteps,
                                        "output": str(output), **kw}), progress=False)


def evaluation(output: Path, games: int | None = None):
    return evaluate_snapshots(output, games)


def distillation(output: Path, **kw):
    return distill(validate(TrainConfig, {**CONFIGS["distillation"], "output": str(output),
                                          **kw}), progress=False)


def value_data(output: Path, **kw):
    return generate(ValueDataConfig(**{**CONFIGS["value data"], **kw}), output, progress=False)


_TIMING = re.compile(r"second|wall_time")  # keys of wall times: no two runs share them


def timeless(value):
    """A JSON value without its wall times (the keys that name seconds or wall time),
    what two runs of one config share."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if not _TIMING.search(k)}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


# kind: the function that makes (or resumes) a tiny run of it in a folder
MAKERS = {"tournament": tournament, "balance": balance, "setup search": setup_search,
          "search study": search_study, "training": training, "distillation": distillation,
          "value data": value_data}
