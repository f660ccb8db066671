"""``otrio bench``: throughput of every game next to PettingZoo's connect_four_v3.

Measured in one process run, for each game at its minimum and maximum player count:
random legal play through the full AEC API (steps/s, games/s), the rules engine alone
(decisions/s), the cost of one ``state.clone()`` in engine steps (what a search agent
pays to copy a state), and the cost of one observation plus mask; the reference
``connect_four_v3`` goes through the same loop, and OpenSpiel's ``connect_four`` too
when ``open_spiel`` is installed. Every figure is also given as a ratio to the
reference's AEC steps/s measured either side of it (the reference runs before every
game and after the last), in rounds, reported as the median over the rounds: a load
that comes and goes, or a drift, then moves both sides of a ratio. Optionally: the share of MaskablePPO training wall time
spent inside the environment, and the tournament speed-up of 2 workers over 1.
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from otrio import envs
from otrio.arena.outputs import prepare_output_file
from otrio.envs.core.files import write_text_atomic
from otrio.envs.core.rng import make_rng
from otrio.training.config import TrainConfig
from otrio.training.selfplay import SelfPlayEnv
from otrio.training.train import train

from ..tournament.tournament import TournamentConfig, run
from .throughput import aec_random_play, clone_cost, connect_four_fn, engine_random_play


def observation_cost(env_id: str, num_players: int, samples: int, seed: int = 0) -> float:
    """Mean seconds for one ``observe()`` (observation + mask) over varied states."""

    env = envs.make(env_id, num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states_seen = 0
    total = 0.0
    while states_seen < samples:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            start = time.perf_counter()
            obs = env.observe(agent)
            total += time.perf_counter() - start
            states_seen += 1
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            if states_seen >= samples:
                break
        env.reset(seed=seed + states_seen)
    return total / states_seen


def openspiel_rate(min_steps: int, seed: int = 0) -> dict | None:
    """OpenSpiel's connect_four under random play, if open_spiel is installed."""
    try:
        import pyspiel  # optional: the [openspiel] extra
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while steps < min_steps:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            if not state.is_terminal():  # pyspiel refuses a tensor with no player to move
                state.observation_tensor()
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


def player_counts(env_id: str) -> list[int]:
    """The game's minimum and maximum player count (the counts the bench measures)."""

    info = envs.make(env_id).unwrapped.game.info
    return sorted({info.min_players, info.max_players})


def play_rates(env_id: str, num_players: int, steps: int) -> dict[str, float]:
    """AEC steps/s, games/s and decisions per game, the engine's decisions/s, and a
    state clone's cost: microseconds per clone and per engine step on the same states,
    and their ratio (``clone_steps``)."""

    env = envs.make(env_id, num_players=num_players)
    game, config = env.unwrapped.game, env.unwrapped.config
    aec = aec_random_play(lambda: envs.make(env_id, num_players=num_players), steps)
    engine = engine_random_play(lambda s: game.new_state(config, make_rng(s)), steps * 3)
    clone = clone_cost(lambda s: game.new_state(config, make_rng(s)), steps)
    return {"aec_steps_per_s": aec["steps_per_s"], "games_per_s": aec["games_per_s"],
            "mean_decisions": aec["steps"] / aec["games"],
            "engine_steps_per_s": engine["steps_per_s"],
            "clone_us": clone["clone_us"], "clone_step_us": clone["step_us"],
            "clone_steps": clone["clone_steps"]}


def measure_rounds(setups: list[tuple[str, int]], steps: int, rounds: int,
                   progress=None) -> tuple[dict, list[dict]]:
    """``rounds`` rounds; in each, the reference is measured before every setup and
    after the last, and a setup's ratios are taken against the mean of the two
    reference rates either side of it (a load that comes and goes, or a drift, then
    moves both sides of a ratio). A figure is the median over the rounds, and each
    round's ratios are kept. An untimed warm-up round comes first. ``progress(text)``,
    if given, is told of each measurement as it starts.
    """
    tell = progress or (lambda text: None)
    tell("warm-up (untimed)")
    aec_random_play(connect_four_fn(), min(steps, 2_000))  # warm-up: imports, caches
    for env_id, n in setups:
        play_rates(env_id, n, min(steps, 2_000))
    ref_steps = max(steps // 2, 1)  # the reference runs len(setups) + 1 times a round
    refs, per_setup = [], {setup: [] for setup in setups}
    for r in range(rounds):
        before = aec_random_play(connect_four_fn(), ref_steps)
        refs.append(before)
        for setup in setups:
            tell(f"round {r + 1}/{rounds}: {setup[0]}, {setup[1]} players")
            rates = play_rates(*setup, steps)
            after = aec_random_play(connect_four_fn(), ref_steps)
            refs.append(after)
            around = (before["steps_per_s"] + after["steps_per_s"]) / 2
            rates["reference_steps_per_s"] = around
            rates["aec_ratio"] = rates["aec_steps_per_s"] / around
            rates["engine_ratio"] = rates["engine_steps_per_s"] / around
            per_setup[setup].append(rates)
            before = after
    reference = {"steps_per_s": float(np.median([r["steps_per_s"] for r in refs])),
                 "games_per_s": float(np.median([r["games_per_s"] for r in refs])),
                 "steps_per_s_measured": [r["steps_per_s"] for r in refs]}
    rows = []
    for (env_id, n), measured in per_setup.items():
        row: dict[str, Any] = {"game": env_id, "players": n}
        for key in measured[0]:
            row[key] = float(np.median([m[key] for m in measured]))
        row["aec_ratio_by_round"] = [m["aec_ratio"] for m in measured]
        row["engine_ratio_by_round"] = [m["engine_ratio"] for m in measured]
        row["clone_steps_by_round"] = [m["clone_steps"] for m in measured]
        rows.append(row)
    return reference, rows


ENV_METHODS = ("step", "reset", "action_masks")  # every call MaskablePPO makes into the env


def ppo_env_share(env_id: str, timesteps: int) -> dict[str, float]:
    """Share of MaskablePPO ``learn()`` wall time spent inside the environment (its
    ``step``, ``reset`` and ``action_masks``)."""
    spent = {"env": 0.0}
    originals = {name: getattr(SelfPlayEnv, name) for name in ENV_METHODS}

    def timed(method):
        def run(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return method(self, *args, **kwargs)
            finally:
                spent["env"] += time.perf_counter() - start

        return run


    n = envs.make(env_id).unwrapped.game.info.min_players
    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(game=env_id, game_config={"num_players": max(n, 2)},
                          opponents={"random": 1.0}, total_timesteps=timesteps,
                          ppo={"n_steps": 512, "batch_size": 128, "n_epochs": 4},
                          net_arch=[256, 256], checkpoint_interval=10**9,
                          snapshot_interval=10**9, eval={"interval": 10**9, "games": 2},
                          output=tmp)
        for name, method in originals.items():
            setattr(SelfPlayEnv, name, timed(method))
        try:
            start = time.perf_counter()
            train(cfg, progress=False)
            total = time.perf_counter() - start
        finally:
            for name, method in originals.items():
                setattr(SelfPlayEnv, name, method)
    return {"env_seconds": spent["env"], "train_seconds": total, "env_share": spent["env"] / total}


def fresh_process_env_share(env_id: str, timesteps: int) -> dict[str, float]:
    """:func:`ppo_env_share` in a new interpreter, as ``otrio train`` runs it: not
    after the bench's other loops and earlier trainings, whose leftovers (heap,
    collector, caches) the environment pays for (Otontin, idle machine: 8.9% fresh
    twice; 9.0% then 9.7% in one process after the bench's loops)."""

    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(ppo_env_share, env_id, timesteps).result()


def tournament_speedup(games_per_seating: int, rounds: int = 1) -> dict[str, Any]:
    """Wall time of one tournament with 1 worker and with 2 (identical games).

    An untimed one-game-per-seating run comes first, so neither timing pays for the
    first imports and caches; each round times both, and the figures are the medians
    over the rounds (every round's speed-up is kept).
    """
    def config(workers: int, games: int, folder: str) -> TournamentConfig:
        return TournamentConfig(game="oceanos_v0", game_config={"num_players": 4},
                                agents={"g": "greedy", "r": "random"}, lineup=["g", "r", "r", "r"],
                                games_per_seating=games, seed=0, workers=workers, output=folder)

    times: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        run(config(1, 1, f"{tmp}/warm-up"), progress=False)
        for r in range(rounds):
            for workers in (1, 2):
                start = time.perf_counter()
                run(config(workers, games_per_seating, f"{tmp}/r{r}w{workers}"), progress=False)
                times[workers].append(time.perf_counter() - start)
    by_round = [one / two for one, two in zip(times[1], times[2], strict=True)]
    return {"one_worker_s": float(np.median(times[1])), "two_workers_s": float(np.median(times[2])),
            "speedup": float(np.median(by_round)), "speedup_by_round": by_round}


def run_bench(steps: int = 20_000, obs_samples: int = 2_000, ppo_timesteps: int = 0,
              tournament_games: int = 0, rounds: int = 3, progress=None) -> dict[str, Any]:
    """Every measurement, with ratios to connect_four_v3 measured in this same run;
    ``progress(text)``, if given, is told of each measurement as it starts."""

    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    tell = progress or (lambda text: None)
    setups = [(env_id, n) for env_id in envs.available() for n in player_counts(env_id)]
    reference, rows = measure_rounds(setups, steps, rounds, tell)
    tell(f"observation cost ({obs_samples} samples a setup)")
    for row in rows:
        row["observe_us"] = observation_cost(row["game"], row["players"], obs_samples) * 1e6
    result: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}",
        "rounds": rounds,
        "reference": {"env": "pettingzoo connect_four_v3", **reference},
        "openspiel_connect_four": openspiel_rate(steps),
        "games": rows,
    }
    if ppo_timesteps:
        result["ppo_env_share"] = {}
        for env_id in envs.available():
            tell(f"MaskablePPO's environment share on {env_id} ({ppo_timesteps} timesteps)")
            result["ppo_env_share"][env_id] = fresh_process_env_share(env_id, ppo_timesteps)
    if tournament_games:
        tell(f"tournament with 1 and 2 workers ({tournament_games} games a seating, "
             f"{rounds} round(s))")
        result["tournament"] = tournament_speedup(tournament_games, rounds)
    return result


def format_table(result: dict[str, Any]) -> str:
    """The result as a markdown table (ratios to the reference in parentheses)."""
    ref = result["reference"]
    lines = [
        f"Reference: {ref['env']} {ref['steps_per_s']:,.0f} AEC steps/s (same loop, same run). "
        f"Each figure is the median of {result.get('rounds', 1)} rounds; each ratio is taken "
        "against the reference measured either side of it.",
        "",
        "| game | players | AEC steps/s (× ref) | games/s | decisions/game | engine decisions/s (× ref) | observe+mask µs | clone µs (engine steps) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["games"]:
        lines.append(
            f"| {r['game']} | {r['players']} | {r['aec_steps_per_s']:,.0f} ({r['aec_ratio']:.2f}×) | "
            f"{r['games_per_s']:.1f} | {r['mean_decisions']:.0f} | {r['engine_steps_per_s']:,.0f} "
            f"({r['engine_ratio']:.2f}×) | {r['observe_us']:.1f} | {r['clone_us']:.1f} "
            f"({r['clone_steps']:.1f}) |"
        )
    lines.append("\nclone: one `state.clone()`, and in parentheses its cost in engine steps "
                 "(a step timed on the same states in the same run; `clone_step_us` in the JSON).")
    if result.get("openspiel_connect_four"):
        lines.append(f"\nOpenSpiel connect_four: {result['openspiel_connect_four']['steps_per_s']:,.0f} steps/s")
    for env_id, share in result.get("ppo_env_share", {}).items():
        lines.append(f"\nMaskablePPO on {env_id}: environment {share['env_share']:.1%} of "
                     f"{share['train_seconds']:.0f} s training wall time")
    if "tournament" in result:
        t = result["tournament"]
        rounds = ", ".join(f"{x:.2f}×" for x in t.get("speedup_by_round", []))
        lines.append(f"\nTournament: 1 worker {t['one_worker_s']:.1f} s, 2 workers "
                     f"{t['two_workers_s']:.1f} s, speed-up {t['speedup']:.2f}× (rounds: {rounds})")
    return "\n".join(lines)


def write_json(result: dict[str, Any], path: Path) -> None:
    """Write the measurements as JSON (whole or not at all; its folder is made as
    :func:`otrio.arena.outputs.prepare_output_file` allows)."""

    path = prepare_output_file(path, "--json file")
    write_text_atomic(path, json.dumps(result, indent=2) + "\n")
