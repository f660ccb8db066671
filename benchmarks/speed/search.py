"""How strong is the search at each budget? ``otrio search-bench``.

For one game and player count, the ``mcts`` agent (``mcts:<options>,iterations=N``)
plays one seat against ``opponent`` agents (greedy by default) in every other seat,
seats rotated, ``games`` games for each budget ``N``. Each game's record keeps its
result and the search's own clock: the seconds it spent, its decisions (one-action
decisions and greedy's clear choices cost nothing and count), the decisions it searched
and their iterations. The output folder holds ``run.json``, ``games.jsonl`` (an
interrupted run resumes), ``summary.json``, ``report.md`` (a table: win rate with 95%
Wilson intervals against mean seconds a decision) and ``strength.png``.

Seconds are measured on the machine that runs it (a loaded core is slower); results
are the same on one worker or many, the seconds aside.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from otrio import agents, envs
from otrio.arena.outputs import pyplot
from otrio.arena.parallel import run_ordered
from otrio.arena.records import (
    GAME_RUN_FILES,
    RECORDS_FILE,
    RUN_FILE,
    RecordModel,
    RecordSchema,
    RecordWriter,
    open_run,
    read_records,
)
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import wilson
from otrio.envs.core.aec import live_turns
from otrio.envs.core.config import EnvId, StrictModel
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import save_figure, write_text_atomic
from otrio.envs.core.rng import derive_seed


class SearchBenchConfig(StrictModel):
    """One strength-against-budget study (see the module docstring)."""

    game: EnvId  # env id or short name (kept as the env id)
    num_players: int = Field(ge=2)
    budgets: list[int] = Field(min_length=1)  # mcts iterations a decision
    options: str = ""  # further mcts options, key=value,...
    opponent: str = "greedy"
    games: int = Field(200, ge=1)  # games per budget
    games_for: dict[int, int] = Field(default_factory=dict)  # budget -> games, where not games
    seed: int = Field(0, ge=0)
    workers: int = Field(1, ge=1)
    output: str = "runs/search"

    def games_of(self, budget: int) -> int:
        """Games played at ``budget``."""
        return self.games_for.get(budget, self.games)

    def spec(self, budget: int) -> str:
        """The agent spec of one budget."""
        options = ",".join(filter(None, [self.options, f"iterations={budget}"]))
        return f"mcts:{options}"


# one env and its agents per (game, players, searcher's spec, opponent) in a process:
# everything that makes them, so that two studies in one process never share agents
_ENVS: dict[tuple, Any] = {}


def play_one(task: tuple) -> dict[str, Any]:
    """Play one game of the study; its record (``task``: config dict, budget, game)."""

    config, budget, game = task
    cfg = SearchBenchConfig(**config)
    key = (cfg.game, cfg.num_players, cfg.spec(budget), cfg.opponent)
    if key not in _ENVS:
        env = envs.make(cfg.game, num_players=cfg.num_players)
        _ENVS[key] = (env, agents.make(cfg.spec(budget), env),
                      [agents.make(cfg.opponent, env) for _ in range(cfg.num_players)])
    env, searcher, others = _ENVS[key]
    seed = derive_seed(cfg.seed, "search-bench", game)
    seat = game % cfg.num_players
    players = list(others)
    players[seat] = searcher
    for s, player in enumerate(players):
        player.reset(derive_seed(seed, "agent", s))
    env.reset(seed=seed)
    spent = 0.0
    decisions = searched = iterations = 0
    for name, obs in live_turns(env):
        k = env.possible_agents.index(name)
        if k == seat:
            start = time.perf_counter()
            action = searcher.act(obs)
            spent += time.perf_counter() - start
            decisions += 1
            searched += searcher.iterations_done > 0
            iterations += searcher.iterations_done
        else:
            action = players[k].act(obs)
        env.step(action)
    state = env.unwrapped.state_
    winners = list(state.winners()) if state.is_terminal() else []
    return {
        "budget": budget, "game": game, "seed": seed, "seat": seat,
        "win": seat in winners, "winners": winners, "scores": list(state.scores()),
        "decisions": decisions, "searched": searched, "iterations": iterations,
        "seconds": round(spent, 4),
    }


class SearchRecord(RecordModel):
    """What :func:`play_one` writes, as the reader of the study's folder checks it: the
    study fixes each game's budget, seed and seat (:func:`record_schema`); ``win`` is
    the seat's place among the winners, which are distinct seats, one score a seat."""

    budget: int = Field(ge=1)
    game: int = Field(ge=0)
    seed: int = Field(ge=0)
    seat: int = Field(ge=0)
    win: bool
    winners: list[int]
    scores: list[float]
    decisions: int = Field(ge=0)
    searched: int = Field(ge=0)
    iterations: int = Field(ge=0)
    seconds: float = Field(ge=0)

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo):
        n = (info.context or {}).get("players", len(self.scores))
        if len(self.scores) != n:
            raise ValueError(f"{len(self.scores)} scores for {n} players")
        if len(set(self.winners)) != len(self.winners) or not all(
                0 <= w < n for w in self.winners):
            raise ValueError(f"winners {self.winners} are not distinct seats 0..{n - 1}")
        if self.win != (self.seat in self.winners):
            raise ValueError(f"win is {self.win} but the winners are {self.winners} and the "
                             f"searcher sat at seat {self.seat}")
        if self.searched > self.decisions:
            raise ValueError(f"{self.searched} searched decisions of {self.decisions}")
        return self


def record_schema(cfg: SearchBenchConfig) -> RecordSchema:
    """What a record of this study is: a :class:`SearchRecord` of one of its (budget,
    game) pairs, with that game's seed and seat. Search games keep no actions, so their
    results are checked for consistency only (no replay)."""
    games = {(b, g): {"budget": b, "game": g, "seed": derive_seed(cfg.seed, "search-bench", g),
                      "seat": g % cfg.num_players}
             for b in cfg.budgets for g in range(cfg.games_of(b))}
    return RecordSchema(name="search-bench record", model=SearchRecord,
                        unique_by=("budget", "game"), games=games,
                        context={"players": cfg.num_players})


def summarise(cfg: SearchBenchConfig, records: list[dict]) -> dict[str, Any]:
    """Per budget: games, win rate and its interval, seconds a decision, iterations."""
    rows = []
    for budget in sorted(cfg.budgets):
        mine = [r for r in records if r["budget"] == budget]
        if not mine:
            continue
        wins = sum(r["win"] for r in mine)
        low, high = wilson(wins, len(mine))
        decisions = sum(r["decisions"] for r in mine)
        searched = sum(r["searched"] for r in mine)
        seconds = sum(r["seconds"] for r in mine)
        rows.append({
            "budget": budget, "games": len(mine), "wins": wins, "win_rate": wins / len(mine),
            "win_low": low, "win_high": high,
            "seconds_per_decision": seconds / max(decisions, 1),
            "seconds_per_search": seconds / max(searched, 1),
            "searched_share": searched / max(decisions, 1),
            "iterations_per_second": sum(r["iterations"] for r in mine) / max(seconds, 1e-9),
        })
    return {"game": cfg.game, "num_players": cfg.num_players, "opponent": cfg.opponent,
            "options": cfg.options, "fair_share": 1 / cfg.num_players, "budgets": rows}


def report_markdown(cfg: SearchBenchConfig, summary: dict[str, Any], command: str) -> str:
    """The table of a study as Markdown."""
    lines = [
        f"# mcts against {cfg.opponent}: {cfg.game}, {cfg.num_players} players",
        "",
        f"Agent: `{cfg.spec(0).replace('iterations=0', 'iterations=N')}` in one seat, "
        f"`{cfg.opponent}` in the others; seats rotated; fair share {summary['fair_share']:.3f}; "
        "95% Wilson intervals; seconds measured on the machine that ran it.",
        "",
        "| iterations | games | win rate | 95% interval | s / decision | s / searched decision "
        "| searched | iterations / s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in summary["budgets"]:
        lines.append(
            f"| {r['budget']} | {r['games']} | {r['win_rate']:.3f} | "
            f"[{r['win_low']:.3f}, {r['win_high']:.3f}] | {r['seconds_per_decision']:.3f} | "
            f"{r['seconds_per_search']:.3f} | {r['searched_share']:.0%} | "
            f"{r['iterations_per_second']:.0f} |")
    lines += ["", "![strength](strength.png)", "", "Reproduce:", "", "```", command, "```", ""]
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: Path) -> None:
    """Win rate (with intervals) against mean seconds a decision, log scale."""
    plt = pyplot()

    rows = summary["budgets"]
    x = [r["seconds_per_decision"] for r in rows]
    y = [r["win_rate"] for r in rows]
    err = [[r["win_rate"] - r["win_low"] for r in rows], [r["win_high"] - r["win_rate"] for r in rows]]
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label="mcts")
    for r, xi, yi in zip(rows, x, y):
        ax.annotate(f"{r['budget']} it", (xi, yi), textcoords="offset points", xytext=(4, 4),
                    fontsize=8)
    ax.axhline(summary["fair_share"], color="grey", linestyle="--", label="fair share")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(plt.NullFormatter())  # ticks at the measured points instead
    ax.set_xticks(x, [f"{v:.2g}" for v in x])
    ax.set_xlabel("mean seconds per decision (this machine)")
    ax.set_ylabel(f"win rate vs {summary['opponent']}")
    ax.set_title(f"{summary['game']}, {summary['num_players']} players")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    try:
        save_figure(fig, path, dpi=110)
    finally:
        plt.close(fig)


SEARCH_STUDY = register(RunKind(
    name="search study", command="otrio search-bench", marker=RUN_FILE, files=(
        *GAME_RUN_FILES,
        RunFile("summary.json", "derived", "win rate and seconds a decision per budget"),
        RunFile("report.md", "derived", "the report"),
        RunFile("strength.png", "derived", "strength against compute"))))


def run(cfg: SearchBenchConfig, progress: bool = True, command: str = "",
        play: bool = True, repair: bool = False) -> Path:
    """Play (or finish) the study and write its report; returns the output folder.
    ``play=False`` writes the report of the games already recorded (a study still
    running elsewhere, or one stopped early: its table says how many games each
    budget has). Records already there are checked (:func:`record_schema`); a bad one
    stops the study unless ``repair`` moves it aside (:func:`otrio.arena.records.open_run`).
    Search games keep no actions, so nothing is re-played."""

    env = envs.make(cfg.game, num_players=cfg.num_players)  # clear errors before anything
    for budget in cfg.budgets:
        agents.check_spec(cfg.spec(budget), env)
    agents.check_spec(cfg.opponent, env)
    folder = Path(cfg.output)
    if not play:
        records = read_records(folder / RECORDS_FILE, record_schema(cfg))
        if not records:
            where = "no folder" if not folder.is_dir() else f"no games in {RECORDS_FILE}"
            raise ConfigError(f"nothing to report: {folder} holds {where}; play the study "
                              "first (without --report-only)")
        return _report(cfg, folder, records, command)
    with RunFolder(SEARCH_STUDY, folder):
        return _run(cfg, folder, progress, command, repair)


def _run(cfg: SearchBenchConfig, folder: Path, progress: bool, command: str,
         repair: bool = False) -> Path:
    done = open_run(folder, cfg.model_dump(mode="json"), resume_keys_ignored=("workers",),
                    schema=record_schema(cfg), repair=repair, verify="none")
    have = {(r["budget"], r["game"]) for r in done}
    config = cfg.model_dump(mode="json")
    tasks = [(config, b, g) for b in cfg.budgets for g in range(cfg.games_of(b))
             if (b, g) not in have]
    records = list(done)
    with RecordWriter(folder / RECORDS_FILE) as writer:
        for k, record in enumerate(_play(tasks, cfg.workers), 1):
            writer.write(record)
            records.append(record)
            if progress and (k % 10 == 0 or k == len(tasks)):
                print(f"  {k}/{len(tasks)} games", file=sys.stderr, flush=True)
    return _report(cfg, folder, records, command)


def _report(cfg: SearchBenchConfig, folder: Path, records: list[dict], command: str) -> Path:
    summary = summarise(cfg, records)
    write_text_atomic(folder / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    write_text_atomic(folder / "report.md", report_markdown(cfg, summary,
                                                           command or "otrio search-bench"))
    plot(summary, folder / "strength.png")
    return folder


def _play(tasks: list[tuple], workers: int):
    yield from run_ordered(play_one, tasks, workers, chunksize=1)
