"""One tiny run of each kind, made in a folder in about a second: the tests of run-folder
discipline (tests/test_run_folders.py), the kill -9 resume tests and the attack pass on
the files of every run kind (tests/attacks/run_folder_attack.py) share them.

Each kind's config is a plain dict (``CONFIGS``): the makers validate it, and the
command-line tests write it as the YAML file the ``otrio`` command reads.
:data:`KIND_MAKERS` has a maker for every run kind the commands declare
(:data:`otrio.arena.run_folder.KINDS`): a test fails when a kind has none, so a new kind
is attacked without an edit of the attack pass. A kind that reads other runs (a gate, a
curve, a dossier) makes them once beside its folder (``NAME.inputs``).
"""

from __future__ import annotations

import re
from pathlib import Path

from otrio.benchmarks.balance import search as balance_search
from otrio.benchmarks.balance import skill_ceiling as ceiling
from otrio.benchmarks.balance import sweep
from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.balance.dossier import write_dossier
from otrio.benchmarks.speed import search as search_bench
from otrio.benchmarks.tournament import tournament as tournaments
from otrio.cli import main
from otrio.envs.core.config import validate
from otrio.training.config import TrainConfig
from otrio.training.distill import distill
from otrio.training.train import evaluate_snapshots, train
from otrio.training.value_curve import run_curve
from otrio.training.value_data import ValueDataConfig, generate
from otrio.training.value_fit import ValueFitConfig, fit_and_export
from otrio.training.value_pipeline import run_all
from otrio.training.value_report import write_gate

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
    "value fit": dict(hidden=[4], epochs=1, batch=16),
    "skill ceiling": dict(reference=True, baseline="greedy", games_per_lineup=2, seed=0,
                          games=[{"game": "oceanos_v0", "players": [2], "agents": {
                              "clair": "mcts:iterations=2,depth=2,rollout=random,"
                                       "clairvoyant=1"}}]),
}
TINY_TRAINING = CONFIGS["training"]


def tournament(output: Path, **kw):
    return tournaments.run(tournaments.TournamentConfig(**{**CONFIGS["tournament"], "output": str(output), **kw}),
               progress=False)


def balance(output: Path, **kw):
    return sweep.run(BalanceConfig(**{**CONFIGS["balance"], "output": str(output), **kw}),
               progress=False)


def setup_search(output: Path, **kw):
    return balance_search.run(BalanceConfig(**{**CONFIGS["setup search"], "output": str(output),
                                               **kw}), progress=False)


def search_study(output: Path, **kw):
    return search_bench.run(search_bench.SearchBenchConfig(
        **{**CONFIGS["search study"], "output": str(output), **kw}), progress=False)


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


# ------------------------------------------------------------------ the kinds that read runs
def _inputs(output: Path) -> Path:
    """The folder beside ``output`` where a kind's input runs are made once."""
    folder = Path(f"{output}.inputs")
    folder.mkdir(exist_ok=True)
    return folder


def _value_data_and_model(output: Path, games: int = 6) -> tuple[Path, Path]:
    """A finished value-data run of ``games`` Otys games and a model fitted on it."""

    inputs = _inputs(output)
    data = inputs / f"data_{games}"
    value_data(data, games=games)
    model = inputs / f"model_{games}" / "model"
    if not model.with_suffix(".json").is_file():
        (inputs / f"model_{games}").mkdir(exist_ok=True)
        fit_and_export([data], model, ValueFitConfig(**CONFIGS["value fit"]), progress=False)
    return data, model.with_suffix(".json")


def value_gate(output: Path):
    data, model = _value_data_and_model(output)
    return write_gate([data], model, output)


def value_all(output: Path):
    return run_all(ValueDataConfig(**{**CONFIGS["value data"], "games": 6}),
                   ValueFitConfig(**CONFIGS["value fit"]), output, progress=False)


def value_curve(output: Path):
    data, _ = _value_data_and_model(output, games=10)
    return run_curve(data, ValueFitConfig(**CONFIGS["value fit"]), [10], output,
                     play="value:{model}", games=2, progress=False)


def skill_ceiling(output: Path):
    return ceiling.run(validate(ceiling.SkillCeilingConfig, {
        **CONFIGS["skill ceiling"], "output": str(output)}), progress=False)


def dossier(output: Path):
    results = _inputs(output) / "results"
    results.mkdir(exist_ok=True)
    balance(results / "kraken")
    return write_dossier("oceanos", results, output)


def demo(output: Path):
    assert main(["demo", "--games", "1", "--output", str(output), "--quiet"]) == 0
    return output


# every run kind the commands declare, by its name: the function that makes (or resumes) a
# tiny run of it in a folder
KIND_MAKERS = {"tournament": tournament, "balance sweep": balance, "setup search": setup_search,
               "search study": search_study, "training run": training,
               "distillation run": distillation, "value-data run": value_data,
               "value gate": value_gate, "value run": value_all, "value curve": value_curve,
               "skill-ceiling report": skill_ceiling, "dossier folder": dossier, "demo": demo}
