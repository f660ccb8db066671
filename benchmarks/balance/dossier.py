"""One balance dossier per game: ``otrio dossier GAME``.

A single Markdown page (a page of the docs site, ``docs/dossiers/GAME.md``; the site
build makes its HTML) with its PNG plots, written from the balance results already
there (``benchmarks/results/balance/*``: each run's ``run.json``, ``report.md``,
``effects.csv``, ``matchups.csv``, ``luck.csv``, a search's ``summary.json`` and the
skill ceiling's ``skill_ceiling/summary.json``). Nothing is played. For every run that covers the
game it gives the agents named and the command that reproduces its numbers, then:

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
import re
import shutil
from pathlib import Path
from typing import Any

from otrio.envs.core.errors import ConfigError

from .skill_ceiling import clairvoyant_gap

RESULTS = Path(__file__).resolve().parents[1] / "results" / "balance"  # benchmarks/results/balance
CEILING = "skill_ceiling"
CEILING_GAP = "skill_ceiling_gap"  # a top-up of the clairvoyant gap (pooled with CEILING)
GAMES = ("oceanos", "otys", "otontin")


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
        shutil.copyfile(source, out / f"{prefix}_{source.name}")
        return f"![{match.group(1)}]({prefix}_{source.name})"

    return re.sub(r"!\[([^\]]*)\]\(([^)/]+\.png)\)", copy, text)


def _num(row: dict, key: str) -> float:
    return float(row[key])


def _plot_effects(rows: list[dict], path: Path, title: str) -> None:
    """A forest plot of win-share effects with their intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _ladder(group: dict) -> list[tuple[str, dict]]:
    """A ceiling group's agents from the weakest to the strongest (their shares)."""
    return sorted(group["shares"].items(), key=lambda item: item[1]["share"])


def _plot_ceiling(groups: list[dict], path: Path) -> None:
    """Each agent's win share in its seat among greedy, per player count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _f(value: Any) -> str:
    return f"{float(value):.3f}"


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
        sweeps = {s["name"]: s.get("game") or run.get("game") for s in run.get("sweeps", [])}
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


def write_dossier(game: str, results: Path = RESULTS, output: Path | str = "docs/dossiers"
                  ) -> Path:
    """Write ``OUTPUT/GAME.md`` and its plots from the results in ``results``; the page."""
    if game not in GAMES:
        raise ConfigError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    results = Path(results)
    if not results.is_dir():
        raise ConfigError(f"no balance results folder {results}")
    env_id = f"{game}_v0"
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    shown = "benchmarks/results/balance/" if results.resolve() == RESULTS else results
    lines = [f"# Balance dossier: {game.capitalize()}", "",
             f"Written by `otrio dossier {game}` from `{shown}` (nothing "
             "is played). Every number holds only for the agents named beside it; each "
             "section names the command that reproduces it. Win share: 1 for a sole "
             "winner, 1/k for each of k seats sharing the victory; intervals are 95%.", ""]
    header = len(lines)
    folders = [f for f in sorted(results.iterdir())
               if f.is_dir() and f.name not in (CEILING, CEILING_GAP) and env_id in run_games(f)]
    if (results / CEILING / "summary.json").exists():
        gap = results / CEILING_GAP / "summary.json"
        lines += _ceiling_lines(_read_json(results / CEILING / "summary.json"), env_id, out,
                                game, _read_json(gap) if gap.exists() else None)
    for folder in folders:
        lines += _run_section(folder, env_id, out, game)
    if len(lines) == header:
        lines += ["No balance results cover this game yet."]
    page = out / f"{game}.md"
    page.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    return page
