"""One balance dossier per game: ``otrio dossier GAME``.

A single Markdown page (a page of the docs site, ``docs/dossiers/GAME.md``; the site
build makes its HTML) with its PNG plots, written from the balance results already
there (``benchmarks/results/balance/*``: each run's ``run.json``, ``report.md``,
``effects.csv``, ``matchups.csv``, ``luck.csv``, a search's ``summary.json`` and the
skill ceiling's ``skill_ceiling/summary.json``). Nothing is played. It opens with **at a
glance**: how much skill pays (greedy, the best honest player and the clairvoyant's gap
per player count), the seat order per player count and agent, whether any setup feature
moves a seat (Holm), and the fairest setup searches' verdicts. Then, for every run that
covers the game, the agents named and the command that reproduces its numbers, and:

- **seat advantage by skill tier**: each tier's seat shares (the run report's tier
  tables, as they are);
- **setup effects**: every setup feature's effect on each seat's win share with its
  interval (a table and a plot);
- **skill depth**: each tier's win share alone among another tier, pooled over setups;
- **the fairest setup** a search found, against the default, and its confirmation;
- **luck per setup**: the luck share of a seat swapped from the weakest tier to the
  strongest, per setup (a sweep's ``luck.csv``);
- **skill ceiling and luck share**, where the skill ceiling report has the game.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

from otrio.arena.outputs import pyplot
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.bounded import read_bytes
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import (
    dumps_json,
    exists,
    read_json,
    save_figure,
    write_atomic,
    write_text_atomic,
)

from .report import seat_effects
from .skill_ceiling import clairvoyant_gap
from .stats import holm

RESULTS = Path(__file__).resolve().parents[1] / "results" / "balance"  # benchmarks/results/balance
CEILING = "skill_ceiling"
CEILING_GAP = "skill_ceiling_gap"  # a top-up of the clairvoyant gap (pooled with CEILING)
GAMES = ("oceanos", "otys", "otontin")
GLANCE_MIN_GAMES = 200  # fewer games say too little to stand in the page's summary
MAX_IMAGE_BYTES = 32 << 20  # a run's figure copied into the dossier
SOURCES_FILE = "dossiers.json"  # which results each page was written from
DOSSIER = register(RunKind(
    name="dossier folder", command="otrio dossier", marker=SOURCES_FILE, files=(
        RunFile(SOURCES_FILE, "marker", "each page's results folder and the runs it read"),
        RunFile("*.md", "derived", "a game's dossier, written from its results on every call"),
        RunFile("*.png", "derived", "the figures of the pages"))))


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_games(folder: Path) -> set[str]:
    """The env ids a result folder covers (its ``run.json``, or a search's plan)."""
    games: set[str] = set()
    if (folder / "summary.json").exists() and (folder / "preregistration.json").exists():
        games.add(_read_json(folder / "summary.json").get("plan", {}).get("env", ""))
    if (folder / "run.json").exists():
        run = _read_json(folder / "run.json")
        games.update(g for g in [run.get("game")] + [s.get("game") for s in run.get(
            "sweeps", [])] if g)
    return games - {""}


def _sweep_games(run: dict) -> dict[str, str]:
    """A run's sweeps: name -> the env id it plays (the sweep's own, else the run's)."""
    return {s["name"]: s.get("game") or run.get("game") for s in run.get("sweeps", [])}


def _rows(path: Path, env_id: str) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as f:  # older files name no lineup
        return [{"lineup": "lineup", **{k: v for k, v in row.items() if v is not None}}
                for row in csv.DictReader(f) if row.get("env") == env_id]


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section of a report (up to the next ``## ``)."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1).strip() if match else ""


def tier_tables(report: str, env_id: str, sweeps: dict[str, str]) -> list[str]:
    """The report's tier subsections (``### `sweep`, n players: tiers ...``) of the
    sweeps that play ``env_id``."""
    body = _section(report, "Skill tiers")
    out = []
    for block in re.split(r"(?=^### )", body, flags=re.M):
        name = re.match(r"### `([^`]+)`", block)
        if name and sweeps.get(name.group(1)) == env_id:
            out.append(block.strip())
    return out


def _copy_images(text: str, folder: Path, out: Path, prefix: str) -> str:
    """``text`` with each image it links from ``folder`` copied to ``out`` as
    ``prefix_NAME`` and the link rewritten (an image not there is dropped)."""
    def copy(match: re.Match) -> str:
        source = folder / match.group(2)
        if not source.is_file():
            return ""
        data = read_bytes(source, MAX_IMAGE_BYTES, f"the figure {source}", ConfigError,
                          follow_symlinks=False)
        write_atomic(out / f"{prefix}_{source.name}", data, out)
        return f"![{match.group(1)}]({prefix}_{source.name})"

    return re.sub(r"!\[([^\]]*)\]\(([^)/]+\.png)\)", copy, text)


def _num(row: dict, key: str) -> float:
    return float(row[key])


def _plot_effects(rows: list[dict], path: Path, title: str) -> None:
    """A forest plot of win-share effects with their intervals."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(7, 0.3 * len(rows) + 1.2))
    ys = list(range(len(rows)))
    est = [_num(r, "estimate") for r in rows]
    ax.errorbar(est, ys, xerr=[[e - _num(r, "low") for e, r in zip(est, rows)],
                               [_num(r, "high") - e for e, r in zip(est, rows)]],
                fmt="o", capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(ys, [f"{r['lineup']} seat {r['seat']}: {r['feature']}" for r in rows],
                  fontsize=7)
    ax.set_xlabel("effect on the seat's win share (95% interval)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)
    plt.close(fig)


def _ladder(group: dict) -> list[tuple[str, dict]]:
    """A ceiling group's agents from the weakest to the strongest (their shares)."""
    return sorted(group["shares"].items(), key=lambda item: item[1]["share"])


def _plot_ceiling(groups: list[dict], path: Path) -> None:
    """Each agent's win share in its seat among greedy, per player count."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(len(g["shares"]) for g in groups)
    colour: dict[str, str] = {}  # one colour an agent in every group, one legend entry
    for k, g in enumerate(groups):
        for j, (name, s) in enumerate(_ladder(g)):
            x = k + j * width
            first = name not in colour
            colour.setdefault(name, f"C{len(colour)}")
            ax.bar(x, s["share"], width, yerr=[[s["share"] - s["low"]], [s["high"] - s["share"]]],
                   capsize=2, color=colour[name], label=name if first else None)
        ax.hlines(g["fair"], k - width / 2, k + 0.8, colors="k", linestyles="dashed", lw=0.8)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(groups))],
                  [f"{g['players']} players" for g in groups])
    ax.set_ylabel("win share in its seat (95%)")
    ax.legend(fontsize=7, loc="upper left")  # the weakest bars stand there
    fig.tight_layout()
    save_figure(fig, path, dpi=90)
    plt.close(fig)


def _f(value: Any) -> str:
    """A number to 3 places; "n/a" for none (a summary writes a number that is not finite,
    a headroom with no ceiling above greedy, as null)."""
    number = float("nan") if value is None else float(value)
    return f"{number:.3f}" if math.isfinite(number) else "n/a"


def _run_section(folder: Path, env_id: str, out: Path, game: str) -> list[str]:
    """The dossier's part from one sweep or search folder."""
    lines = [f"## `{folder.name}`", ""]
    report = (folder / "report.md").read_text(encoding="utf-8") \
        if (folder / "report.md").exists() else ""
    command = re.search(r"Reproduce: `([^`]+)`", report)
    agents = re.search(r"^Agents: (.+)$", report, re.M)
    if agents:
        lines += [f"Agents: {agents.group(1).split('**')[0].strip()}", ""]
    lines += [f"Reproduce: `{command.group(1) if command else 'see ' + folder.name}` "
              f"(results: `benchmarks/results/balance/{folder.name}/`)", ""]
    if (folder / "run.json").exists():
        run = _read_json(folder / "run.json")
        sweeps = _sweep_games(run)
        tables = tier_tables(report, env_id, sweeps)
        prefix = f"{game}_{folder.name}"
        if tables:
            lines += ["### Seat advantage by skill tier", ""]
            for table in tables:
                lines += ["#" + _copy_images(table, folder, out, prefix), ""]
        else:
            maps = [f"![seat advantage by setup](heatmap_{name}.png)"
                    for name, env in sweeps.items() if env == env_id]
            shown = [_copy_images(m, folder, out, prefix) for m in maps]
            if any(shown):
                lines += ["### Seat advantage by setup", "", *filter(None, shown), ""]
    effects = [r for r in _rows(folder / "effects.csv", env_id) if r["outcome"] == "win_share"]
    if effects:
        image = f"{game}_{folder.name}_effects.png"
        _plot_effects(effects, out / image, f"{folder.name}: setup effects on win share")
        lines += ["### Setup effects on the seats' win shares", "",
                  "| sweep | lineup | players | seat | feature | effect | 95% interval | p |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['sweep']} | {r['lineup']} | {r['players']} | {r['seat']} | "
                  f"{r['feature']} | {_f(r['estimate'])} | [{_f(r['low'])}, {_f(r['high'])}] | "
                  f"{float(r['p']):.3g} |" for r in effects]
        lines += ["", f"![setup effects]({image})", ""]
    depth = [r for r in _rows(folder / "matchups.csv", env_id) if r["setup"] == "all setups"]
    if depth:
        lines += ["### Skill depth (one seat of a tier among another, all setups)", "",
                  "| players | alone | among | win share | 95% interval | edge |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {r['players']} | {r['lone']} | {r['others']} | {_f(r['share'])} | "
                  f"[{_f(r['low'])}, {_f(r['high'])}] | {_f(r['edge'])} |" for r in depth]
        lines.append("")
    luck = _rows(folder / "luck.csv", env_id)
    if luck:
        lines += ["### Luck per setup (one seat swapped from the weakest tier to the strongest)",
                  "",
                  "The share of paired games whose winner the seed fixed whatever the swap "
                  "(1: luck alone; 0: the swap changes the winner as often as fresh luck).", "",
                  "| sweep | players | setup | swap | games | luck share | 95% interval |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {r['sweep']} | {r['players']} | {r['setup']} | {r['base']} → "
                  f"{r['swapped']} | {r['pairs']} | {_f(r['luck_share'])} | "
                  f"[{_f(r['luck_low'])}, {_f(r['luck_high'])}] |" for r in luck]
        lines.append("")
    if (folder / "preregistration.json").exists():
        lines += _search_lines(_read_json(folder / "summary.json"))
    return lines


def _search_lines(summary: dict) -> list[str]:
    """The fairest setup a search found and its confirmation against the default."""
    confirm = summary.get("confirm", {})
    lines = ["### Fairest setup found", "",
             f"Winner: **{summary.get('winner', {}).get('label')}** "
             f"(`{json.dumps(summary.get('winner', {}).get('config'))}`).", ""]
    for role, cand in confirm.get("candidates", {}).items():
        for lineup in cand.get("lineups", []):
            if "seats" not in lineup:  # a skill-depth lineup: no seat shares
                continue
            seats = ", ".join(f"seat {s['seat']} {_f(s['share'])} [{_f(s['low'])}, "
                              f"{_f(s['high'])}]" for s in lineup["seats"])
            lines.append(f"- {role} `{cand['label']}` ({lineup['lineup']}, "
                         f"{lineup['decided']} games): {seats}")
    if "confirmed" in confirm:
        lines += ["", f"Confirmation on fresh seeds: **{'confirmed' if confirm['confirmed'] else 'not confirmed'}** "
                  f"(difference of objectives {_f(confirm['difference'])}, interval high "
                  f"{_f(confirm.get('difference_high', float('nan')))})."]
    return lines + [""]


def _gap_lines(groups: list[dict], gap_groups: list[dict]) -> list[str]:
    """The clairvoyant's gap over the fair share: the ceiling report's, then each top-up
    run's own and pooled with the report's games."""
    lines = ["", "The clairvoyant search's gap over the fair share (greedy's exact expectation "
             "in a rotated seat among greedy; the clairvoyant's 95% Wilson interval):", "",
             "| players | clairvoyant | games | gap | 95% interval | from |",
             "|---|---|---|---|---|---|"]

    def row(g: dict, gap: dict, source: str) -> str:
        return (f"| {g['players']} | `{g['shares'][g['clairvoyant']]['spec']}` | {gap['n']} | "
                f"{_f(gap['value'])} | [{_f(gap['low'])}, {_f(gap['high'])}] | {source} |")

    rows = [(g["players"], 0, row(g, clairvoyant_gap(g), "the report above")) for g in groups]
    for g in gap_groups:  # each player count's rows together: report, top-up, pooled
        rows.append((g["players"], 1, row(g, clairvoyant_gap(g),
                                          f"gap run `{g.get('command') or 'n/a'}`")))
        if g.get("pooled_gap"):
            rows.append((g["players"], 2, row(g, g["pooled_gap"], "the two pooled")))
    return lines + [text for *_, text in sorted(rows, key=lambda r: r[:2])]


def _ceiling_lines(summary: dict, env_id: str, out: Path, game: str,
                   gap_summary: dict | None = None) -> list[str]:
    groups = [g for g in summary.get("groups", []) if g["game"] == env_id]
    gap_groups = [g for g in (gap_summary or {}).get("groups", []) if g["game"] == env_id]
    if not groups:
        return []
    image = f"{game}_skill_ceiling.png"
    _plot_ceiling(groups, out / image)
    lines = ["## Skill ceiling and luck share", "",
             "Reproduce: " + ", ".join(
                 f"`{g.get('command') or summary.get('command') or 'otrio skill-ceiling'}` "
                 f"({g['players']} players)" for g in groups)
             + f" (results: `benchmarks/results/balance/{CEILING}/`)", "",
             "| players | agent | spec | win share in its seat | 95% interval |", "|---|---|---|---|---|"]
    for g in groups:
        lines += [f"| {g['players']} | {name} | `{s['spec']}` | {_f(s['share'])} | "
                  f"[{_f(s['low'])}, {_f(s['high'])}] |" for name, s in _ladder(g)]
    lines += ["", "| players | headroom used | luck share (swap to clairvoyant) | variance: "
              "luck / skill | rating sd |", "|---|---|---|---|---|"]
    for g in groups:
        h = g.get("headroom_used") or {}
        swap = next((s for s in g["luck"]["swaps"] if s["swapped"] == g["clairvoyant"]), {})
        var = g["luck"]["variance"]["win"]
        lines.append(f"| {g['players']} | {_f(h.get('value', 'nan'))} [{_f(h.get('low', 'nan'))}, "
                     f"{_f(h.get('high', 'nan'))}] ({g['best']}) | "
                     f"{_f(swap.get('luck_share', 'nan'))} [{_f(swap.get('luck_low', 'nan'))}, "
                     f"{_f(swap.get('luck_high', 'nan'))}] | {_f(var['luck'])} / "
                     f"{_f(var['skill'])} | {_f(g['luck']['ratings']['sd'])} |")
    lines += _gap_lines(groups, gap_groups)
    for g in groups:
        if g.get("little_skill"):
            lines.append(f"\n**At {g['players']} players the game rewards little skill above "
                         "greedy**: even the clairvoyant search stays near the fair share.")
    return lines + ["", f"![skill ceiling]({image})", ""]


def pooled_seats(report: str) -> list[dict]:
    """The report's table of each seat's win share pooled over a sweep's setups: one dict
    a row (sweep, lineup, players, games, seats as (percent, low, high), the uniformity
    test's p as printed)."""
    match = re.search(r"^Win share of each seat pooled over the setups[^\n]*\n\n(\|.*?)(?:\n\n|\Z)",
                      report, re.M | re.S)
    rows = []
    for line in match.group(1).splitlines()[2:] if match else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        sweep, _, lineup = cells[0].partition(", lineup ")
        players = int(cells[1])
        rows.append({"sweep": sweep, "lineup": lineup.strip("`") or "lineup",
                     "players": players, "games": int(cells[2]), "uniformity": cells[-1],
                     "seats": [tuple(float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", c))
                               for c in cells[3:3 + players]]})
    return rows


def _best_gap(g: dict, gap_groups: list[dict], twin_of: str | None = None
              ) -> tuple[dict, str]:
    """The clairvoyant gap the dossier leads with at ``g``'s player count: per clairvoyant
    spec the estimate on the most games (pooled before its parts); the spec whose honest
    twin is ``twin_of`` (the row's best honest player: the same agent on both sides) where
    one was measured, else the strongest spec."""
    found: dict[str, dict] = {}  # clairvoyant spec -> its gap on the most games
    candidates = [(g, clairvoyant_gap(g))]
    for top in (t for t in gap_groups if t["players"] == g["players"]):
        candidates.append((top, top.get("pooled_gap") or clairvoyant_gap(top)))
    for group, gap in candidates:
        spec = group["shares"][group["clairvoyant"]]["spec"]
        if spec not in found or gap["n"] > found[spec]["n"]:
            found[spec] = gap
    twins = [s for s in found if twin_of is not None and _honest_spec(s) == twin_of]
    spec = twins[0] if twins else max(found, key=lambda s: found[s]["value"])
    return found[spec], spec


def _honest_spec(spec: str) -> str:
    """A clairvoyant spec's honest twin: the same spec without ``clairvoyant=1``."""
    return ",".join(part for part in spec.split(",") if part.strip() != "clairvoyant=1")


def _honest_twin(spec: str, groups: list[dict]) -> str:
    """The share of the clairvoyant ``spec``'s honest twin (the same spec without
    ``clairvoyant=1``) where a group measured it, with its interval; "not measured"."""
    twin = _honest_spec(spec)
    for group in groups:
        for name, cell in group["shares"].items():
            if cell.get("spec") == twin:
                return f"`{name}` {_f(cell['share'])} [{_f(cell['low'])}, {_f(cell['high'])}]"
    return "not measured"


def _glance_skill(summary: dict, gap_summary: dict | None, env_id: str) -> list[str]:
    groups = [g for g in summary.get("groups", []) if g["game"] == env_id]
    gap_groups = [g for g in (gap_summary or {}).get("groups", []) if g["game"] == env_id]
    if not groups:
        return []
    rows, edges, gaps, stronger = [], [], [], []
    for g in groups:
        greedy = g["shares"][g["baseline"]]
        best = g["shares"].get(g["best"] or "", {})
        gap, spec = _best_gap(g, gap_groups, best.get("spec"))
        top, top_spec = _best_gap(g, gap_groups)
        if top_spec != spec:  # a stronger clairvoyant than the best honest player's twin
            stronger.append(f"at {g['players']} players `{top_spec}` {top['value']:+.3f} "
                            f"[{top['low']:+.3f}, {top['high']:+.3f}] ({top['n']} games)")
        honest = (f"`{g['best']}` {_f(best['share'])} [{_f(best['low'])}, {_f(best['high'])}]"
                  if best else "-")
        twin = _honest_twin(spec, [g, *gap_groups])  # the same player, not seeing
        rows.append(f"| {g['players']} | {_f(g['fair'])} | {_f(greedy['share'])} | {honest} | "
                    f"{gap['value']:+.3f} [{gap['low']:+.3f}, {gap['high']:+.3f}] "
                    f"({gap['n']} games) | {twin} | `{spec}` |")
        if best:
            edges.append((best["share"] - g["fair"], g["players"]))
        gaps.append(top["value"])
    verdict = "**In a word**: "
    if edges:
        top = max(edges)
        low = min(edges)
        verdict += (f"the best honest player's edge over the fair share runs from "
                    f"{low[0]:+.2f} (at {low[1]} players) to {top[0]:+.2f} (at {top[1]} "
                    "players)")
    verdict += (f"; seeing the hidden present would add up to {max(gaps):+.2f} over the fair "
                "share for the clairvoyant search.")
    lines = ["**How much skill pays**: one seat's win share among greedy players; the "
             "clairvoyant search sees the present (the future is still re-drawn), so its gap "
             "over the fair share bounds what reading the hidden information is worth; its "
             "honest twin (the same search, not seeing) sits beside it.", "", verdict, "",
             "| players | fair | greedy | best honest player | clairvoyant's gap over fair | "
             "its honest twin | clairvoyant |", "|---|---|---|---|---|---|---|", *rows]
    if stronger:
        lines += ["", "A stronger clairvoyant than the best honest player's twin, whose own "
                  "honest twin is not in this table: " + "; ".join(stronger) + "."]
    little = [str(g["players"]) for g in groups if g.get("little_skill")]
    if little:
        lines += ["", f"**At {' and '.join(little)} players the game rewards little skill above "
                  "greedy**: even the clairvoyant search stays near the fair share."]
    return lines + [""]


def _lineup_agent(run: dict, lineup: str) -> str | None:
    """The agent a run's lineup seats everywhere (``lineup``: the run's own lineup), or
    None for a mixed lineup (one tier among another)."""
    names = set(run.get("lineup") or []) if lineup == "lineup" else {lineup}
    return names.pop() if len(names) == 1 and names <= set(run.get("agents") or {}) else None


def _seat(seats: list[tuple], k: int) -> str:
    share, low, high = seats[k]
    return f"seat {k} {share:.1f}% [{low:.1f}, {high:.1f}]"


def _feature_rows(folder: Path, run: dict, env_id: str) -> list[tuple[str, str, str, dict]]:
    """A run's setup-feature verdicts, one (agent, spec, table row, numbers) a sweep and
    lineup with the same agent in every seat and GLANCE_MIN_GAMES games or more; Holm over
    the family the report tests. The numbers: the Holm-significant effects' count and the
    largest effect's size in points."""
    families: dict[tuple, list[dict]] = {}
    for r in _rows(folder / "effects.csv", env_id):
        families.setdefault((r["sweep"], r["lineup"], int(r["players"])), []).append(r)
    out = []
    for (sweep, lineup, n), rows in families.items():
        tested = seat_effects(rows, n)
        agent = _lineup_agent(run, lineup)
        if not tested or agent is None or int(tested[0]["n"]) < GLANCE_MIN_GAMES:
            continue
        adjusted = holm([_num(r, "p") for r in tested])
        alpha = run.get("alpha", 0.05)  # the run's level, as its report uses
        points = [(100 * _num(r, "estimate"), 100 * (_num(r, "high") - _num(r, "estimate")))
                  for r in tested]
        moved = [f"{r['feature']} on seat {r['seat']} {e:+.1f} ± {h:.1f} (Holm p {p:.2g})"
                 for r, (e, h), p in zip(tested, points, adjusted) if p < alpha]
        k = max(range(len(tested)), key=lambda j: abs(points[j][0]))
        out.append((agent, run["agents"][agent],
                    f"| {n} | {agent} | `{folder.name}` | {sweep} | {len(tested)} | "
                    f"{'; '.join(moved) or 'none'} | {points[k][0]:+.1f} ± {points[k][1]:.1f} "
                    f"({tested[k]['feature']}, seat {tested[k]['seat']}) |",
                    {"moved": len(moved), "largest": abs(points[k][0]),
                     "largest_ci": points[k][1], "players": n,
                     "where": f"{tested[k]['feature']}, seat {tested[k]['seat']}, `{folder.name}`"}))
    return out


def _p(text: str) -> float:
    """A uniformity p-value as the glance writes it (``<1e-4``: below)."""
    return float(str(text).lstrip("<"))


def order_verdict(order: dict[tuple, tuple]) -> str:
    """The seat order's one-line answer: for the agent measured at the most player counts,
    the seat that leads where the seats are not uniform (p < 0.05), and where they are."""
    by_agent: dict[str, list[tuple[int, dict]]] = {}
    for (players, _), (agent, _, row) in order.items():
        by_agent.setdefault(agent, []).append((players, row))
    agent = max(by_agent, key=lambda a: (len(by_agent[a]), a == "greedy"))
    leads, uniform = {}, []
    for players, row in sorted(by_agent[agent]):
        if _p(row["uniformity"]) < 0.05:
            leads[players] = max(range(players), key=lambda k: row["seats"][k][0])
        else:
            uniform.append(str(players))
    parts = []
    for seat in sorted(set(leads.values())):
        counts = [str(n) for n, s in leads.items() if s == seat]
        every = len(counts) == len(by_agent[agent])
        parts.append(f"seat {seat} leads {'at every player count' if every else 'at ' + ', '.join(counts) + ' players'}")
    if uniform:
        parts.append(f"the seats are even at {', '.join(uniform)} players")
    return f"**In a word**: with {agent} in every seat, {'; '.join(parts)}."


def feature_verdict(numbers: list[dict]) -> str:
    """The setup features' one-line answer: how many effects moved a seat at the Holm
    level, and the clearest effect of any feature in points (its interval farthest from
    zero)."""
    moved = sum(n["moved"] for n in numbers)
    # the clearest: the effect whose interval lies farthest from zero (a noisy small run's
    # large estimate does not stand for the game)
    top = max(numbers, key=lambda n: n["largest"] - n["largest_ci"])
    largest = (f"the clearest effect measured is {top['largest']:.1f} ± {top['largest_ci']:.1f} "
               f"points ({top['where']})")
    if not moved:
        return (f"**In a word**: no setup feature moves a seat at the Holm level in any run; "
                f"{largest}.")
    verb = "passes" if moved == 1 else "pass"
    return (f"**In a word**: {moved} effect{'s' * (moved > 1)} of a setup feature on a seat "
            f"{verb} the Holm level (below); {largest}.")


def _glance_runs(folders: list[Path], env_id: str) -> list[str]:
    """The seat order per player count and agent (the run with the most games; every seat
    the same agent, GLANCE_MIN_GAMES games or more), each run's setup-feature verdicts,
    the agents' specs, and the fairest setup searches."""
    order: dict[tuple, tuple] = {}  # (players, spec) -> (agent, run, pooled row)
    named: dict[str, dict[str, set[str]]] = {}  # agent name -> its spec -> the runs shown
    features, numbers, searches = [], [], []
    for folder in folders:
        report = (folder / "report.md").read_text(encoding="utf-8") \
            if (folder / "report.md").exists() else ""
        run = _read_json(folder / "run.json") if (folder / "run.json").exists() else {}
        sweeps = _sweep_games(run)
        for row in pooled_seats(report):
            agent = _lineup_agent(run, row["lineup"])
            if sweeps.get(row["sweep"]) != env_id or agent is None \
                    or row["games"] < GLANCE_MIN_GAMES:
                continue
            key = (row["players"], run["agents"][agent])
            if key not in order or row["games"] > order[key][2]["games"]:
                order[key] = (agent, folder.name, row)
        for agent, spec, line, found in _feature_rows(folder, run, env_id):
            named.setdefault(agent, {}).setdefault(spec, set()).add(folder.name)
            features.append(line)
            numbers.append(found)
        if (folder / "preregistration.json").exists():
            summary = _read_json(folder / "summary.json")
            confirmed = summary.get("confirm", {}).get("confirmed")
            verdict = {True: "confirmed", False: "not confirmed"}.get(confirmed, "not judged")
            searches.append(f"- `{folder.name}`: **{summary.get('winner', {}).get('label')}**, "
                            f"{verdict} on fresh seeds.")
    lines = []
    if order:
        lines += ["**Seat order**: each seat's win share pooled over a run's setups with the "
                  "same agent in every seat (per player count and agent, the run with the most "
                  "games); the most and the least favoured seat, seat 0 playing first.", "",
                  order_verdict(order), "",
                  "| players | agent | games | most favoured | least favoured | uniformity p | "
                  "run |", "|---|---|---|---|---|---|---|"]
        for (players, spec), (agent, name, row) in sorted(
                order.items(), key=lambda kv: (kv[0][0], -kv[1][2]["games"])):
            named.setdefault(agent, {}).setdefault(spec, set()).add(name)
            ranked = sorted(range(players), key=lambda k: row["seats"][k][0])
            lines.append(f"| {players} | {agent} | {row['games']} | "
                         f"{_seat(row['seats'], ranked[-1])} | {_seat(row['seats'], ranked[0])} "
                         f"| {row['uniformity']} | `{name}` |")
        lines.append("")
    if features:
        lines += ["**Do the setup features move a seat?** Each feature's effect on a seat's win "
                  "share, in points a unit, Holm-corrected over a run's sweep and lineup.", "",
                  feature_verdict(numbers), "",
                  "| players | agent | run | sweep | effects tested | Holm-significant | "
                  "largest |", "|---|---|---|---|---|---|---|", *sorted(features), ""]
    if named:
        lines += ["Agents: " + "; ".join(
            f"`{agent}` = " + ", ".join(f"`{spec}`" + (f" ({', '.join(sorted(runs))})"
                                                      if len(specs) > 1 else "")
                                        for spec, runs in sorted(specs.items()))
            for agent, specs in sorted(named.items())) + ".", ""]
    if searches:
        lines += ["**Fairest setup searches** (the winner against the default, on fresh "
                  "seeds):", "", *searches, ""]
    return lines


def write_dossier(game: str, results: Path = RESULTS, output: Path | str = "docs/dossiers"
                  ) -> Path:
    """Write ``OUTPUT/GAME.md`` and its plots from the results in ``results``; the page."""
    if game not in GAMES:
        raise ConfigError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    results = Path(results)
    if not results.is_dir():
        raise ConfigError(f"no balance results folder {results}")
    env_id = f"{game}_v0"
    folder = RunFolder(DOSSIER, output, "dossier folder")
    folder.check()
    with folder:
        return _write_page(game, env_id, results, folder.path)


def _write_page(game: str, env_id: str, results: Path, out: Path) -> Path:
    """:func:`write_dossier` in its locked folder."""
    shown = "benchmarks/results/balance/" if results.resolve() == RESULTS else results
    lines = [f"# Balance dossier: {game.capitalize()}", "",
             f"Written by `otrio dossier {game}` from `{shown}` (nothing "
             "is played). Every number holds only for the agents named beside it; each "
             "section names the command that reproduces it. Win share: 1 for a sole "
             "winner, 1/k for each of k seats sharing the victory; intervals are 95%.", ""]
    header = len(lines)
    folders = [f for f in sorted(results.iterdir())
               if f.is_dir() and f.name not in (CEILING, CEILING_GAP) and env_id in run_games(f)]
    glance = _glance_runs(folders, env_id)
    if (results / CEILING / "summary.json").exists():
        ceiling = _read_json(results / CEILING / "summary.json")
        gap = results / CEILING_GAP / "summary.json"
        gap_summary = _read_json(gap) if gap.exists() else None
        glance = _glance_skill(ceiling, gap_summary, env_id) + glance
        ceiling_lines = _ceiling_lines(ceiling, env_id, out, game, gap_summary)
    else:
        ceiling_lines = []
    if glance:
        lines += ["## At a glance", "", "What the runs below measured, in one place; each "
                  "row names its run, whose section holds the detail and the command.", "",
                  *glance]
    lines += ceiling_lines
    for folder in folders:
        lines += _run_section(folder, env_id, out, game)
    if len(lines) == header:
        lines += ["No balance results cover this game yet."]
    page = out / f"{game}.md"
    write_text_atomic(page, "\n".join(lines).rstrip() + "\n")
    sources_file = out / SOURCES_FILE
    saved = (read_json(sources_file, f"the dossiers' sources {sources_file}", out, ConfigError)
             if exists(sources_file) else {})
    # the other pages' sources, each kept only while its page is there and it is well formed
    sources = {name: entry for name, entry in saved.items()
               if name in GAMES and name != game and (out / f"{name}.md").is_file()
               and isinstance(entry, dict) and set(entry) == {"results", "runs"}
               and isinstance(entry["results"], str) and isinstance(entry["runs"], list)
               and all(isinstance(r, str) for r in entry["runs"])}
    sources[game] = {"results": str(shown).rstrip("/"), "runs": sorted(
        [f.name for f in folders] + [name for name in (CEILING, CEILING_GAP)
                                     if (results / name / "summary.json").exists()])}
    write_atomic(sources_file, dumps_json(sources).encode(), out)
    return page
