"""The skill ceiling report: ``otrio skill-ceiling configs/balance/skill_ceiling.yaml``.

How much skill does a game reward at a player count? Each agent under test (random,
the best fast agent, the honest search, the clairvoyant search...) plays one seat among
the ``baseline`` (greedy) in every other seat, and the baseline plays every seat, all
on the same seeds and rotations: one balance run per game and player count
(:mod:`otrio.benchmarks.balance.sweep`, its lineups, records, resume and report; no game loop of
its own), into ``OUTPUT/<game>_<n>p``. Per group the report gives:

- each agent's win share in its seat, with its Wilson interval, against the fair 1/n;
- the **headroom used**, ``(X - greedy) / (clairvoyant - greedy)`` for each honest agent
  ``X`` (the baseline's share on the same seeds as ``greedy``; the clairvoyant search,
  ``mcts:clairvoyant=1``, the reference that sees the true present), with a paired
  bootstrap interval over the seeds; where the ceiling itself sits within ``little``
  of the fair share (its whole interval) the report says plainly that the game rewards little skill above
  greedy there;
- the **luck share** (:mod:`otrio.benchmarks.balance.luck`): winner changes when the baseline seat
  is swapped for each agent, the seed/lineup variance parts, the rating spread;
- the **clairvoyant gap**: the clairvoyant's share minus the fair 1/n (:func:`clairvoyant_gap`).
  The baseline's expected share in a rotated seat among itself is exactly 1/n (the seats'
  shares sum to 1 in every game, and games round up to a multiple of n, so each seat is
  the rotated one equally often): the gap over greedy needs no noisy estimate of greedy's
  side, and its interval is the clairvoyant's own Wilson interval. With ``pool_with`` (an earlier report's
  ``summary.json``) a group whose game, player count, baseline and clairvoyant spec match
  an earlier group's also gets the gap over both runs' games (independent seeds), so a
  top-up run of the baseline and the clairvoyant alone can tighten it.

The clairvoyant search is a research cheat, so the config must say ``reference: true``
(the balance runs refuse it otherwise). ``summary.json`` and ``README.md`` go to the
output folder; the balance dossier (:mod:`otrio.benchmarks.balance.dossier`) reads the summary.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from otrio.agents import is_reference
from otrio.arena.games import ExecutionOptions
from otrio.arena.records import read_records
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import wilson
from otrio.envs.core.bounded import read_json
from otrio.envs.core.config import EnvId, StrictModel, apply_sets, load_yaml, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import dumps_json, write_atomic
from otrio.envs.core.paths import find_file, rebase_spec, where_looked

from . import sweep
from .config import BalanceConfig
from .luck import RESAMPLES, focal_seat, luck_report, paired
from .skill import cell
from .stats import win_shares, z_quantile

SUMMARY_FILE = "summary.json"
MAX_SUMMARY_BYTES = 16 << 20  # an earlier summary read back: a few KB a group
MAX_POOLED_GAMES = 10**8  # an earlier group's games, at most (a report plays thousands)
SWEEP = "ceiling"


class CeilingGame(StrictModel):
    """One game of the report: its player counts and the agents under test (name ->
    spec; exactly one a reference, the clairvoyant search)."""

    game: EnvId  # env id (a short name such as oceanos is read as its env id)
    players: list[int] = Field(min_length=1)
    game_config: dict[str, Any] = Field(default_factory=dict)
    agents: dict[str, str] = Field(min_length=1)


class SkillCeilingConfig(ExecutionOptions):
    """The report: the baseline, the games, games per lineup, seed, the ``little``
    ceiling, parallelism and the ``reference`` permission the clairvoyant search needs."""

    baseline: str = "greedy"  # the agent spec in every other seat (also its name)
    games: list[CeilingGame] = Field(min_length=1)
    games_per_lineup: int = Field(400, ge=1)
    seed: int = Field(0, ge=0)
    little: float = Field(0.05, gt=0, lt=1)  # a ceiling this close to 1/n: little skill
    alpha: float = Field(0.05, gt=0, lt=1)
    output: str = "runs/balance/skill_ceiling"
    pool_with: str | None = None  # an earlier report's summary.json: its games join the gap

    @model_validator(mode="after")
    def _names(self):
        groups = [group_name(entry, n) for entry in self.games for n in entry.players]
        if len(set(groups)) < len(groups):  # one folder a group: a pair named twice clashes
            twice = sorted({g for g in groups if groups.count(g) > 1})
            raise ValueError(f"a game and player count named twice: {', '.join(twice)}")
        for entry in self.games:
            if self.baseline in entry.agents:
                raise ValueError(f"{entry.game}: agent name {self.baseline!r} is the baseline's")
            refs = [name for name, spec in entry.agents.items() if is_reference(spec)]
            if len(refs) != 1:
                raise ValueError(f"{entry.game}: name exactly one reference agent (the "
                                 f"clairvoyant search, mcts:...,clairvoyant=1), not {refs}")
        return self


def load_config(path: str | Path, sets: Sequence[str] = (),
                **overrides: Any) -> SkillCeilingConfig:
    """Read a YAML skill-ceiling config; ``overrides`` (not None) replace its keys; agent
    paths are rebased as a tournament's are."""
    path = find_file(path)
    data = load_yaml(path, "skill-ceiling config", where_looked(path)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"skill-ceiling config {path} must be a mapping")
    if "sweeps" in data and "baseline" not in data:
        raise ConfigError(f"{path} is a balance config (it names 'sweeps'): "
                          f"run it with `otrio balance {path}`")
    data = apply_sets(data, sets, f"skill-ceiling config {path}")  # --set and --seed
    data.update({k: v for k, v in overrides.items() if v is not None})
    cfg = validate(SkillCeilingConfig, data)
    folder = path.resolve().parent
    games = [g.model_copy(update={"agents": {n: rebase_spec(s, folder)
                                             for n, s in g.agents.items()}}) for g in cfg.games]
    return cfg.model_copy(update={"games": games})


def group_name(entry: CeilingGame, players: int) -> str:
    """The folder of one game and player count: ``otontin_3p``."""
    return f"{entry.game.split('_v')[0]}_{players}p"


def group_config(cfg: SkillCeilingConfig, entry: CeilingGame, players: int) -> BalanceConfig:
    """The balance run of one game and player count: the baseline in every seat, and
    each agent under test first among the baseline (lineup named after the agent)."""
    base = cfg.baseline
    lineups = {base: [base] * players,
               **{name: [name] + [base] * (players - 1) for name in entry.agents}}
    return BalanceConfig(
        game=entry.game, game_config={**entry.game_config, "num_players": players},
        agents={base: base, **entry.agents}, lineups=lineups,
        games_per_setup=cfg.games_per_lineup, seed=cfg.seed, alpha=cfg.alpha,
        sweeps=[{"name": f"{SWEEP}_{group_name(entry, players)}",
                 "setups": [{"label": "rulebook"}]}],
        workers=cfg.workers, backend=cfg.backend, ray_address=cfg.ray_address,
        reference=cfg.reference, output=str(Path(cfg.output) / group_name(entry, players)))


def _headroom(table: np.ndarray, k: int, clair: int) -> float:
    """(agent k - baseline) / (clairvoyant - baseline) of a seeds x lineups table whose
    column 0 is the baseline."""
    means = table.mean(axis=0)
    gap = means[clair] - means[0]
    return float((means[k] - means[0]) / gap) if gap > 1e-12 else float("nan")


def summarize_group(records: list[dict], cfg: SkillCeilingConfig, entry: CeilingGame,
                    players: int, resamples: int = RESAMPLES) -> dict[str, Any]:
    """One game and player count: shares, headroom used and luck (module docstring)."""

    base, names = cfg.baseline, list(entry.agents)
    clair = next(n for n in names if is_reference(entry.agents[n]))
    records_of: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        records_of[r["lineup"]].append(r)
    z = z_quantile(1 - cfg.alpha / 2)
    shares = {}
    for name in [base] + names:
        values = [win_shares(r)[focal_seat(r)] for r in records_of[name] if win_shares(r)]
        shares[name] = {"spec": base if name == base else entry.agents[name],
                        **cell(values, players, z)}
    order = [base] + names
    rows = paired(records_of, order)
    table = np.array([[win_shares(r)[focal_seat(r)] for r in row] for row in rows])
    headroom = {}
    rng = np.random.default_rng(cfg.seed)
    boots = [table[rng.integers(len(rows), size=len(rows))] for _ in range(resamples)] \
        if len(rows) else []
    for k, name in enumerate(order):
        if name in (base, clair) or not len(rows):
            continue
        sample = np.array([_headroom(t, k, order.index(clair)) for t in boots])
        finite = sample[np.isfinite(sample)]
        low, high = (np.percentile(finite, [100 * cfg.alpha / 2, 100 * (1 - cfg.alpha / 2)])
                     if finite.size else (float("nan"), float("nan")))
        headroom[name] = {"value": _headroom(table, k, order.index(clair)),
                          "low": float(low), "high": float(high)}
    best = max(headroom, key=lambda n: shares[n]["share"]) if headroom else None
    ceiling = shares[clair]["high"] - 1 / players  # the interval's top, not the estimate
    return {
        "game": entry.game, "players": players, "baseline": base, "clairvoyant": clair,
        "paired_seeds": len(rows), "fair": 1 / players, "shares": shares,
        "headroom": headroom, "best": best,
        "headroom_used": headroom[best] if best else None,
        "little_skill": bool(ceiling < cfg.little),
        "luck": luck_report(records, base, names, resamples),
    }


def select_groups(cfg: SkillCeilingConfig, only: list[str] | None = None
                  ) -> list[tuple[CeilingGame, int]]:
    """The (game, player count) groups to play: all the config's, or those named in
    ``only`` by folder (``otontin_3p``), a slice a small machine can afford."""
    groups = [(entry, n) for entry in cfg.games for n in entry.players]
    if only is None:
        return groups
    names = [group_name(entry, n) for entry, n in groups]
    unknown = sorted(set(only) - set(names))
    if unknown or not only:
        raise ConfigError(f"--only: no group {', '.join(unknown) or '(none named)'} in this "
                          f"config; its groups: {', '.join(names)}")
    return [g for g, name in zip(groups, names) if name in only]


def clairvoyant_gap(group: dict[str, Any]) -> dict[str, float]:
    """A summarised group's clairvoyant share minus the fair 1/n, with its interval and
    games (module docstring: the baseline's side is exactly 1/n)."""
    cell = group["shares"][group["clairvoyant"]]
    fair = group["fair"]
    return {"value": cell["share"] - fair, "low": cell["low"] - fair,
            "high": cell["high"] - fair, "n": cell["n"]}


def _clairvoyant_cell(group: dict[str, Any], where: str) -> tuple[str, float, int]:
    """The clairvoyant's spec, share and games of an earlier group, checked (it was read
    from a file)."""
    try:
        cell = group["shares"][group["clairvoyant"]]
        spec, share, n = cell["spec"], cell["share"], cell["n"]
    except (KeyError, TypeError) as e:
        raise ConfigError(f"{where}: a group without its clairvoyant's share ({e})") from None
    if not (isinstance(spec, str) and isinstance(n, int) and not isinstance(n, bool)
            and 1 <= n <= MAX_POOLED_GAMES and isinstance(share, (int, float))
            and not isinstance(share, bool) and 0 <= share <= 1):
        shown = n if not isinstance(n, int) or n < 10**12 else f"a number of {len(str(n))} digits"
        raise ConfigError(f"{where}: the clairvoyant's share {share!r} over {shown} games of "
                          f"{str(spec)[:80]!r} is not a share of 1 to {MAX_POOLED_GAMES:,} "
                          "games")
    return spec, float(share), n


def pooled_gap(group: dict[str, Any], earlier: list[dict[str, Any]], where: str,
               alpha: float = 0.05) -> dict[str, Any] | None:
    """The clairvoyant gap over this group's games and those of the ``earlier`` group
    (from the summary at ``where``) with the same game, player count, baseline and
    clairvoyant spec; None if there is none."""
    spec = group["shares"][group["clairvoyant"]]["spec"]
    for other in earlier:
        if (other.get("game"), other.get("players"), other.get("baseline")) != (
                group["game"], group["players"], group["baseline"]):
            continue
        other_spec, other_share, other_n = _clairvoyant_cell(other, where)
        if other_spec != spec:
            continue
        cell = group["shares"][group["clairvoyant"]]
        n = cell["n"] + other_n
        if n == 0:
            return None
        total = cell["share"] * cell["n"] + other_share * other_n
        low, high = wilson(total, n, z_quantile(1 - alpha / 2))
        fair = group["fair"]
        return {"value": total / n - fair, "low": low - fair, "high": high - fair, "n": n,
                "pooled_with": {"summary": where, "folder": other.get("folder"),
                                "command": other.get("command"), "n": other_n}}
    return None


def _summary_groups(path: Path, advice: str = "move it away to start a new report in "
                    "this folder") -> list[dict[str, Any]]:
    """The groups of a skill-ceiling summary (none if there is no file)."""
    if not (path.exists() or path.is_symlink()):
        return []
    # read as untrusted: not through a link, bounded, strict UTF-8 JSON (a headroom with
    # no ceiling above greedy is written as NaN)
    data = read_json(path, MAX_SUMMARY_BYTES, str(path), ConfigError, follow_symlinks=False,
                     allow_nan=True)
    try:
        groups = data["groups"]
        if not all(isinstance(g, dict) and isinstance(g["folder"], str) for g in groups):
            raise TypeError("a group without its folder")
        for g in groups:  # a summary written before commands were kept per group
            g.setdefault("command", data.get("command"))
    except (KeyError, TypeError) as e:
        raise ConfigError(f"{path} is not a skill-ceiling summary ({e}); {advice}") from None
    return groups


def _pool_groups(pool_with: str | None) -> list[dict[str, Any]]:
    """The groups of the summary ``pool_with`` names (checked before any game)."""
    if pool_with is None:
        return []
    path = Path(pool_with)
    if not (path.exists() or path.is_symlink()):
        raise ConfigError(f"pool_with: no summary {pool_with} (an earlier skill-ceiling "
                          "report's summary.json)")
    groups = _summary_groups(path, "pool_with names an earlier report's summary.json")
    for group in groups:
        _clairvoyant_cell(group, pool_with)
    return groups


SKILL_CEILING = register(RunKind(
    name="skill-ceiling report", command="otrio skill-ceiling", marker=SUMMARY_FILE, files=(
        RunFile(SUMMARY_FILE, "marker", "every group's numbers, recomputed on every call from "
                "the groups' verified records (only the command that played a group is read "
                "back)"),
        RunFile("README.md", "derived", "the report"),
        RunFile("*_*p", "sub-run", "one balance run a game and player count"),
        RunFile("*_*p/*", "sub-run", "its files")),
    folders=("*_*p",)))


def run(cfg: SkillCeilingConfig, progress: bool = True, command: str | None = None,
        only: list[str] | None = None) -> Path:
    """Play (or resume) every group's balance run (or the groups named in ``only``), then
    write ``summary.json`` and ``README.md`` in the output folder; the folder. Every group
    of the config whose run is in the folder is summarised from its records, re-played
    and checked on every call (a group this call did not play keeps the command that
    played it), so slices of a config build one report and no number is read back."""
    groups = select_groups(cfg, only)
    configs = [group_config(cfg, entry, n) for entry, n in groups]
    for group in configs:  # every problem of every group before any game
        sweep.check_before_start(group, sweep.build_setups(group))
    pool = _pool_groups(cfg.pool_with)
    report = RunFolder(SKILL_CEILING, cfg.output)
    report.check()
    with report:
        out = report.path
        # the commands that played the groups not played now: text, not numbers
        earlier = {g["folder"]: g["command"] for g in _summary_groups(out / SUMMARY_FILE)
                   if isinstance(g.get("command"), str)}
        played = {group_name(entry, n) for entry, n in groups}
        for (entry, n), group in zip(groups, configs):
            report.no_link_at(group_name(entry, n))
            sweep.run(group, progress=progress, command=command)
        summaries = []
        for entry, n in select_groups(cfg, None):  # every group of the config, in order
            name = group_name(entry, n)
            report.no_link_at(name)
            group = group_config(cfg, entry, n)
            records = sweep.verified_records(group, progress)
            if records is None:
                continue
            summary = summarize_group(records, cfg, entry, n)
            timing = (read_records(Path(group.output) / sweep.TIMING_FILE, sweep.TIMING_SCHEMA)
                      if (Path(group.output) / sweep.TIMING_FILE).exists() else [])
            summary["seconds"] = sum(t["seconds"] for t in timing)
            summary["folder"] = name
            summary["command"] = command if name in played else earlier.get(name)
            if cfg.pool_with:
                summary["pooled_gap"] = pooled_gap(summary, pool, cfg.pool_with, cfg.alpha)
            summaries.append(summary)
        data = {"command": command, "config": cfg.model_dump(mode="json"), "groups": summaries}
        write_atomic(out / SUMMARY_FILE, dumps_json(data).encode())
        write_atomic(out / "README.md", ceiling_markdown(data).encode())
    return out


def _pct(x: float) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.3f}"


def ceiling_markdown(data: dict[str, Any]) -> str:
    """The report's Markdown: one table row per game and player count, then each
    group's verdict."""
    lines = ["# Skill ceiling", "",
             "Each agent plays one seat among the baseline on the same seeds (win share in "
             "its seat, 95% Wilson interval); headroom used = (best - baseline) / "
             "(clairvoyant - baseline), paired bootstrap interval; luck share: the share of "
             "games whose winner the seed fixed when the baseline seat was swapped for the "
             "clairvoyant search.", "",
             "| game | players | agent | spec | games | win share | interval |",
             "|---|---|---|---|---|---|---|"]
    for g in data["groups"]:
        for name, s in g["shares"].items():
            lines.append(f"| {g['game']} | {g['players']} | {name} | `{s['spec']}` | {s['n']} | "
                         f"{_pct(s['share'])} | [{_pct(s['low'])}, {_pct(s['high'])}] |")
    lines += ["", "| game | players | fair | best | headroom used | luck share (swap) | "
              "variance: luck / skill | rating sd |", "|---|---|---|---|---|---|---|---|"]
    for g in data["groups"]:
        h = g["headroom_used"] or {}
        swap = next((s for s in g["luck"]["swaps"] if s["swapped"] == g["clairvoyant"]), {})
        var = g["luck"]["variance"]["win"]
        headroom = (f"{_pct(h['value'])} [{_pct(h['low'])}, {_pct(h['high'])}]" if h
                    else "- (no honest agent)")  # a gap run plays the clairvoyant alone
        lines.append(
            f"| {g['game']} | {g['players']} | {_pct(g['fair'])} | {g['best'] or '-'} | "
            f"{headroom} | "
            f"{_pct(swap.get('luck_share'))} [{_pct(swap.get('luck_low'))}, "
            f"{_pct(swap.get('luck_high'))}] | {_pct(var['luck'])} / {_pct(var['skill'])} | "
            f"{_pct(g['luck']['ratings']['sd'])} |")
    lines += ["", "The clairvoyant's gap over the fair share (greedy's exact expectation in a "
              "rotated seat among greedy), 95% Wilson interval; pooled: with the earlier "
              "report's games of the same clairvoyant (independent seeds).", "",
              "| game | players | clairvoyant | games | gap | interval | pooled games | "
              "pooled gap | interval |", "|---|---|---|---|---|---|---|---|---|"]
    for g in data["groups"]:
        gap, pooled = clairvoyant_gap(g), g.get("pooled_gap")
        lines.append(
            f"| {g['game']} | {g['players']} | `{g['shares'][g['clairvoyant']]['spec']}` | "
            f"{gap['n']} | {_pct(gap['value'])} | [{_pct(gap['low'])}, {_pct(gap['high'])}] | "
            + (f"{pooled['n']} | {_pct(pooled['value'])} | [{_pct(pooled['low'])}, "
               f"{_pct(pooled['high'])}] |" if pooled else "- | - | - |"))
    lines += ["", "Each group was played by:", ""]
    lines += [f"- {g['game']}, {g['players']} players: `{g.get('command') or 'n/a'}`"
              for g in data["groups"]]
    lines.append("")
    for g in data["groups"]:
        if g["little_skill"]:
            lines.append(f"- **{g['game']}, {g['players']} players: the game rewards little "
                         "skill above greedy here**: even the clairvoyant search wins "
                         f"{_pct(g['shares'][g['clairvoyant']]['share'])} (at most "
                         f"{_pct(g['shares'][g['clairvoyant']]['high'])}) in its seat against "
                         f"a fair {_pct(g['fair'])}.")
    return "\n".join(lines) + "\n"
