"""The skill-tier parts of a balance report: the "Skill tiers" and "Skill depth"
sections of ``report.md``, ``matchups.csv``, and the plots (a heatmap of seat
advantage by setup and tier, the matchup matrix, depth by setup). Plots are written to
a temporary file and renamed into place, so a reader never sees half a PNG."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from otrio.arena.outputs import pyplot
from otrio.envs.core.files import save_figure as save

PCT = 100
PLOT_DPI = 100


def _pt(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x * PCT:.1f}"


def _num(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _p(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "n/a"
    return f"{x:.2g}" if x >= 1e-4 else "<1e-4"


def _peq(x: float | None) -> str:
    text = _p(x)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def slug(name: str) -> str:
    """A file-name-safe form of a lineup name."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name).strip("_") or "lineup"


def group_tag(g: dict[str, Any]) -> str:
    """The file-name tag of a report group: sweep, player count and (with tiers) lineup."""
    tag = f"{g['sweep']}_{g['players']}p"
    return tag + (f"_{slug(g['lineup_name'])}" if "lineup_name" in g else "")


def save_figure(fig, path: Path) -> None:
    """``fig`` saved as PNG at ``path`` (:func:`otrio.envs.core.files.save_figure`: through a
    temporary file renamed into place, no link followed)."""

    save(fig, path, dpi=PLOT_DPI, format="png")


# ---------------------------------------------------------------- report text
def _tier_line(tiers: list[str]) -> str:
    return " < ".join(f"`{t}`" for t in tiers)


def _seat_name(seat: int) -> str:
    return f"seat {seat}" + (" (first player)" if seat == 0 else "")


def tier_section(g: dict[str, Any], alpha: float) -> list[str]:
    """Seat balance by tier, and whether it (and the setup effects) change with skill."""
    n = g["players"]
    lines = [f"### `{g['sweep']}`, {n} players: tiers {_tier_line(g['tiers'])}", ""]
    table = g["tier_table"]
    if table:
        lines += ["| tier | decided games | " + " | ".join(f"seat {k} % [95% CI]" for k in range(n))
                  + " | uniformity p | setups with a Holm-significant imbalance |",
                  "|---" * (4 + n) + "|"]
        for t in table:
            cells = " | ".join(f"{_pt(c['share'])} [{_pt(c['low'])}, {_pt(c['high'])}]"
                               for c in t["seats"])
            lines.append(f"| `{t['tier']}` | {t['decided']} | {cells} | {_p(t['uniformity_p'])} "
                         f"| {t['unfair_setups']} of {t['setups']} |")
        lines.append("")
    tests = g.get("seat_tests")
    if not tests:
        return lines + ["One tier: nothing to compare across skill.", ""]
    base = g["tiers"][0]
    found = [m for m in tests["main"] if m["p_holm"] < alpha]
    for m in found:
        parts = ", ".join(f"{_pt(e['diff'])} ± {_pt(e['high'] - e['diff'])} points with "
                          f"`{e['tier']}`" for e in m["estimates"])
        lines.append(f"- **{_seat_name(m['seat'])}'s win share changes with skill**: against "
                     f"`{base}`, {parts} (averaged over the setups; Wald χ² = "
                     f"{_num(m['chi2'], 1)}, {m['df']} df, Holm-adjusted {_peq(m['p_holm'])}).")
    if tests["main"] and not found:
        detect = max(m["detectable"] for m in tests["main"])
        lines.append(f"- No seat's win share changes detectably with skill (paired Wald test "
                     f"over the tiers, Holm over {_count(len(tests['main']), 'seat')}); a "
                     "difference of "
                     f"{_pt(detect)} points between two tiers would be detected with power "
                     f"{g.get('power', 0.8):g}.")
    varying = [o for o in tests["omnibus"] if o["p_holm"] < alpha]
    for o in varying:
        lines.append(f"- The tiers' difference for {_seat_name(o['seat'])} varies with the setup "
                     f"(tier × setup χ² = {_num(o['chi2'], 1)}, {o['df']} df, Holm-adjusted "
                     f"{_peq(o['p_holm'])}).")
    if tests["omnibus"] and not varying:
        lines.append(f"- No tier × setup interaction: the tiers differ alike in every setup "
                     f"(Holm over {_count(len(tests['omnibus']), 'seat')}, smallest "
                     f"{_peq(min(o['p_holm'] for o in tests['omnibus']))}).")
    inter = tests["interactions"]
    hits = [e for e in inter if e["p_holm"] < alpha]
    for e in hits:
        parts = ", ".join(f"{_pt(x['estimate'])} ± {_pt(x['high'] - x['estimate'])} points "
                          f"more with `{x['tier']}`" for x in e["estimates"])
        lines.append(f"- **The effect of `{e['feature']}` changes with skill**: one unit moves "
                     f"{_seat_name(e['seat'])}'s win share by {parts} than with `{base}` "
                     f"(Wald χ² = {_num(e['chi2'], 1)}, {e['df']} df, Holm-adjusted "
                     f"{_peq(e['p_holm'])}).")
    if inter and not hits:
        lines.append(f"- No setup feature's effect changes detectably with skill (tier × "
                     f"feature, Holm over {len(inter)} tests, smallest "
                     f"{_peq(min(e['p_holm'] for e in inter))}).")
    lines.append("")
    if inter:
        tiers = g["tiers"][1:]
        lines += ["Tier × feature interactions: the change of a feature's effect on a seat's win "
                  f"share (points per unit) in each tier against `{base}`.", "",
                  "| seat | feature | " + " | ".join(f"`{t}`" for t in tiers)
                  + " | χ² (df) | Holm p |", "|---" * (4 + len(tiers)) + "|"]
        for e in inter:
            cells = " | ".join(f"{_pt(x['estimate'])} ± {_pt(x['high'] - x['estimate'])}"
                               for x in e["estimates"])
            lines.append(f"| {e['seat']} | {e['feature']} | {cells} | {_num(e['chi2'], 1)} "
                         f"({e['df']}) | {_p(e['p_holm'])} |")
        if tests["dropped"]:
            lines.append(f"\nNot estimable in this design: {', '.join(tests['dropped'])}.")
        lines.append("")
    return lines


def _cell_text(c: dict | None) -> str:
    if not c:
        return "—"
    return f"{_pt(c['share'])} [{_pt(c['low'])}, {_pt(c['high'])}] (edge {_num(c['edge'])})"


def _luck_text(luck: dict) -> str:
    return f"{_num(luck['luck_share'])} [{_num(luck['luck_low'])}, {_num(luck['luck_high'])}]"


def depth_section(g: dict[str, Any], alpha: float, rows_by_tier: dict) -> list[str]:
    """The matchup matrix, the depth of every setup and the seat-0 share by tier."""
    m = g.get("matchups")
    if not m:
        return []
    n, tiers = g["players"], g["tiers"]
    fair = 1 / n
    lines = [f"### `{g['sweep']}`, {n} players", "",
             f"Matchup matrix over all setups: the win share (%) of one seat of the row tier "
             f"among {n - 1} of the column tier, seats rotated (fair: {_pt(fair)}%), with its "
             "edge (share - 1/n) / (1 - 1/n).", "",
             "| alone ↓ among → | " + " | ".join(f"`{t}`" for t in tiers) + " |",
             "|---" * (1 + len(tiers)) + "|"]
    for lone in tiers:
        cells = [("fair" if lone == others else _cell_text(next(
            (c for c in m["matrix"] if c["lone"] == lone and c["others"] == others), None)))
            for others in tiers]
        lines.append(f"| `{lone}` | " + " | ".join(cells) + " |")
    lines.append("")
    d = m["depth"]
    if d:
        lines.append(f"- **Skill depth** (`{m['strong']}` alone among `{m['weak']}`, all setups): "
                     f"wins {_pt(d['share'])}% [{_pt(d['low'])}, {_pt(d['high'])}] against a fair "
                     f"{_pt(fair)}%, an edge of {_num(d['edge'])} [{_num(d['edge_low'])}, "
                     f"{_num(d['edge_high'])}] ({_peq(d['p'])}).")
        h = m["homogeneity"]
        if len(m["per_setup"]) > 1:
            verdict = ("differs between setups" if h["p"] < alpha else
                       "does not differ detectably between setups")
            lines.append(f"- The depth {verdict} (χ² = {_num(h['chi2'], 1)}, {h['df']} df, "
                         f"{_peq(h['p'])}).")
    luck = m.get("luck")
    if luck:
        lines.append(f"- **Luck share** (one seat swapped from `{m['weak']}` to `{m['strong']}` "
                     f"on the same seeds, all setups): {_luck_text(luck)}: the winner changed "
                     f"in {_pt(luck['changed'])}% of {luck['pairs']} paired games, against "
                     f"{_pt(luck['independent'])}% with fresh luck (1: the seed alone fixes the "
                     "winner; 0: the swap changes it as often as fresh luck would).")
    rows = m["per_setup"]
    inverted = [r for r in rows if r["inversions"]]
    if any(r["pairs"] for r in rows):
        lines.append(f"- Skill order: in {len(inverted)} of {len(rows)} setups a stronger tier "
                     "alone among a weaker one wins less than its fair share"
                     + (f" ({', '.join('`' + r['label'] + '`' for r in inverted[:8])}"
                        + (", …" if len(inverted) > 8 else "") + ")." if inverted else "."))
    lines.append("")
    lines += ["| setup | depth: share % [95% CI] | edge [95% CI] | Holm p | inverted pairs | "
              "luck share [95% CI] | " + " | ".join(f"seat 0 % `{t}`" for t in tiers) + " |",
              "|---" * (6 + len(tiers)) + "|"]
    for r in rows:
        d, luck = r["depth"], r.get("luck")
        seat0 = [rows_by_tier.get((t, r["label"])) for t in tiers]
        seat0_text = " | ".join(_pt(s["seats"][0]["share"]) if s else "—" for s in seat0)
        luck_text = _luck_text(luck) if luck else "—"
        if d:
            lines.append(f"| {r['label']} | {_pt(d['share'])} [{_pt(d['low'])}, {_pt(d['high'])}]"
                         f" | {_num(d['edge'])} [{_num(d['edge_low'])}, {_num(d['edge_high'])}] | "
                         f"{_p(d.get('p_holm'))} | {r['inversions']} of {r['pairs']} | "
                         f"{luck_text} | {seat0_text} |")
        else:
            lines.append(f"| {r['label']} | — | — | — | — | {luck_text} | {seat0_text} |")
    tag = f"{g['sweep']}_{n}p"
    lines += ["", f"![matchups](matchups_{tag}.png)", "", f"![depth](depth_{tag}.png)", ""]
    if any(r.get("luck") for r in rows):
        lines += [f"![luck share by setup](luck_{tag}.png)", ""]
    return lines


def skill_sections(analysis: dict[str, Any]) -> list[str]:
    """The report's "Skill tiers" and "Skill depth" sections (none without tiers)."""
    skill = analysis.get("skill")
    if not skill:
        return []
    alpha = analysis["alpha"]
    lines = ["## Skill tiers", "",
             "Each tier plays every setup in every seat, on the same seeds and seat rotations "
             "as the other tiers (common random numbers). A tier's difference in a seat's win "
             "share is measured game by game on the common seeds (paired); averaged over the "
             "setups it is tested by a Wald test with one degree of freedom per tier but the "
             "weakest, and its variation over the setups by a tier × setup test and a tier × "
             "feature test per setup feature (GLS on the per-setup paired means). Each tier's "
             "own setup tables, Holm-corrected seat tests, HC3 regressions and power are in its "
             "sections below.", ""]
    for k, g in enumerate(skill):
        lines += tier_section({**g, "power": analysis["power"]}, alpha)
        if all(later["sweep"] != g["sweep"] for later in skill[k + 1:]):  # once a sweep
            lines += [f"![seat advantage by setup and tier](heatmap_{g['sweep']}.png)", ""]
    if any(g.get("matchups") for g in skill):
        rows_by_tier = {(s.get("lineup_name"), s["label"]): s for s in analysis["setups"]}
        lines += ["## Skill depth", "",
                  "A well-made game of skill lets the better player win more, by a margin that "
                  "luck keeps human. Depth here is the edge of the strongest tier when it holds "
                  "one seat among the weakest: 0 is no reward for skill, 1 a certain win. "
                  "Intervals are Wilson's; the per-setup depth test is against an edge of 0, "
                  "Holm over the setups.", ""]
        for g in skill:
            lines += depth_section(g, alpha, rows_by_tier)
    return lines


# ---------------------------------------------------------------- plots
def skill_plots(folder: Path, analysis: dict[str, Any]) -> None:
    """The heatmap of seat advantage by setup and tier (one per sweep), the pooled
    matchup matrix and the depth by setup (one per sweep and player count)."""
    skill = analysis.get("skill")
    if not skill:
        return
    plt = pyplot()

    by_sweep: dict[str, list[dict]] = {}
    for g in skill:
        by_sweep.setdefault(g["sweep"], []).append(g)
    rows = {(s["sweep"], s.get("lineup_name"), s["label"]): s for s in analysis["setups"]}
    for sweep, groups in by_sweep.items():
        tiers = groups[0]["tiers"]
        labels = [lab for g in groups for lab in g["setups"]]
        width = max(g["players"] for g in groups)
        grid = np.full((len(labels), len(tiers) * width), np.nan)
        text = np.full(grid.shape, "", dtype=object)
        for i, label in enumerate(labels):
            for t, tier in enumerate(tiers):
                s = rows.get((sweep, tier, label))
                if not s:
                    continue
                for c in s["seats"]:
                    grid[i, t * width + c["seat"]] = (c["share"] - 1 / s["players"]) * PCT
                    text[i, t * width + c["seat"]] = f"{c['share'] * PCT:.0f}"
        finite = np.isfinite(grid)
        limit = max(1.0, float(np.nanmax(np.abs(grid)))) if finite.any() else 1.0
        fig, ax = plt.subplots(figsize=(2.5 + 0.55 * grid.shape[1], 1.6 + 0.24 * len(labels)))
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                if text[i, j]:
                    ax.text(j, i, text[i, j], ha="center", va="center", fontsize=6)
        for t in range(1, len(tiers)):
            ax.axvline(t * width - 0.5, color="black", linewidth=1)
        ax.set_xticks(range(grid.shape[1]), [f"{tiers[j // width]}\nseat {j % width}"
                                             for j in range(grid.shape[1])], fontsize=6)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(f"{sweep}: win share % by setup, tier and seat (colour: points above 1/n)",
                     fontsize=9)
        fig.colorbar(image, ax=ax, label="points above 1/n")
        fig.tight_layout()
        save_figure(fig, folder / f"heatmap_{sweep}.png")
        plt.close(fig)
    for g in skill:
        m = g.get("matchups")
        if not m:
            continue
        tiers, n = g["tiers"], g["players"]
        tag = f"{g['sweep']}_{n}p"
        k = len(tiers)
        grid = np.full((k, k), np.nan)
        fig, ax = plt.subplots(figsize=(2.5 + 1.2 * k, 1.8 + 0.9 * k))
        for c in m["matrix"]:
            i, j = tiers.index(c["lone"]), tiers.index(c["others"])
            grid[i, j] = c["edge"]
            ax.text(j, i, f"{c['share'] * PCT:.1f}%\n[{c['low'] * PCT:.1f}, {c['high'] * PCT:.1f}]",
                    ha="center", va="center", fontsize=7,
                    color="white" if abs(c["edge"]) > 0.6 else "black")
        for i in range(k):
            ax.text(i, i, "fair", ha="center", va="center", fontsize=7, color="grey")
        image = ax.imshow(grid, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(k), tiers, fontsize=7, rotation=20)
        ax.set_yticks(range(k), tiers, fontsize=7)
        ax.set_xlabel("the other seats' tier")
        ax.set_ylabel("the lone seat's tier")
        ax.set_title(f"{g['sweep']}, {n} players: lone seat's win share (fair {100 / n:.0f}%)",
                     fontsize=9)
        fig.colorbar(image, ax=ax, label="edge (share - 1/n) / (1 - 1/n)")
        fig.tight_layout()
        save_figure(fig, folder / f"matchups_{tag}.png")
        plt.close(fig)
        depth = [(r["label"], r["depth"]["edge"], r["depth"]["edge_low"],
                  r["depth"]["edge_high"]) for r in m["per_setup"] if r["depth"]]
        _forest(plt, depth, folder / f"depth_{tag}.png",
                f"edge of `{m['strong']}` alone among `{m['weak']}` (95% CI)",
                f"{g['sweep']}, {n} players: skill depth by setup")
        luck = [(r["label"], r["luck"]["luck_share"], r["luck"]["luck_low"],
                 r["luck"]["luck_high"]) for r in m["per_setup"] if r.get("luck")]
        pooled = m.get("luck")
        _forest(plt, luck, folder / f"luck_{tag}.png",
                f"luck share of one seat swapped `{m['weak']}` -> `{m['strong']}` (95% CI)",
                f"{g['sweep']}, {n} players: luck share by setup",
                (pooled["luck_share"], "all setups") if pooled else None)


def _forest(plt, rows: list[tuple[str, float, float, float]], path: Path, xlabel: str,
            title: str, line: tuple[float, str] | None = None) -> None:
    """One point with its interval per setup, ``(label, value, low, high)``, against 0 (and
    a pooled ``line``, ``(value, name)``); nothing without rows."""
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(6.5, 1.5 + 0.25 * len(rows)))
    ys = range(len(rows))
    ax.errorbar([x for _, x, _, _ in rows], ys, fmt="o", capsize=3,
                xerr=[[x - lo for _, x, lo, _ in rows], [hi - x for _, x, _, hi in rows]])
    if line:
        ax.axvline(line[0], color="tab:orange", label=f"{line[1]}: {line[0]:.2f}")
        ax.legend(fontsize=7)
    ax.axvline(0, color="grey", linestyle="--")
    ax.invert_yaxis()
    ax.set_yticks(list(ys), [label for label, _, _, _ in rows], fontsize=7)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
