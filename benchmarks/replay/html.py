"""A recorded game as one self-contained HTML page: ``otrio replay RUN_DIR --game K``.

The game is re-played from its record (:func:`otrio.arena.replay.replay_record`, which
checks every step) and the table is drawn at every decision and at the end, once for
the whole table and once for each seat's own view (``Game.picture(state, viewer)``),
so the page can step through the game from any point of view. Hidden information
stays hidden in a seat's view: its pictures are the game's drawing for that seat;
another seat's choice in a simultaneous step (a secret choice, ``Game.simultaneous_step``)
is named only as a secret choice; and the scores, and the final breakdown
(``game_summary``), are shown to a seat only where re-drawing what it cannot see
(``Game.resample_hidden``) leaves them unchanged.

The page holds inline SVG, CSS and JavaScript only (no network reference, no file
reference). To stay small, pictures are cut into their SVG lines, each distinct line is
stored once and each distinct picture once, as a list of line numbers; the whole data
is gzip-compressed and base-64 encoded, and the browser inflates it with its built-in
``DecompressionStream``.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from otrio.arena.outputs import os_error_message, prepare_output_file
from otrio.arena.records import load_record
from otrio.arena.replay import final_result, record_actions, replay_record
from otrio.envs.core.errors import OtrioError
from otrio.envs.core.files import write_text_atomic

from .page import PAGE

SVG_NAMESPACE = ' xmlns="http://www.w3.org/2000/svg"'  # implied for inline SVG in HTML
RESAMPLES = 2  # re-draws of a seat's unknowns that must leave a shown value unchanged


def text_svg(text: str) -> str:
    """A text picture (``render`` output) as an SVG of monospace lines."""
    lines = text.splitlines() or [""]
    width = 16 + 7.8 * max(len(line) for line in lines)
    height = 14 + 17 * len(lines)
    out = [f'<svg width="{width:.0f}" height="{height}" viewBox="0 0 {width:.0f} {height}">',
           f'<rect x="0" y="0" width="{width:.0f}" height="{height}" fill="#fdfaf2"/>',
           '<text font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13" '
           'fill="#222222" xml:space="preserve">']
    for k, line in enumerate(lines):
        out.append(f'<tspan x="8" y="{20 + 17 * k}">{escape(line)}</tspan>')
    out.append("</text></svg>")
    return "\n".join(out)


def table_svg(game, state, viewer: int | None) -> str:
    """The table as ``viewer`` sees it (None: the whole table) as one ``<svg>`` element:
    the game's picture, or its text render where the game draws no picture."""
    try:
        svg = game.picture(state, viewer).to_svg()
    except (AttributeError, NotImplementedError):
        svg = text_svg(game.render(state) if viewer is None else game.render_for(state, viewer))
    return svg.replace(SVG_NAMESPACE, "", 1)


def _same_for(game, state, seat: int, value, read, rng: np.random.Generator) -> bool:
    """Whether ``read(state)`` is ``value`` in every re-draw of what ``seat`` cannot see."""
    return all(read(game.resample_hidden(state, seat, rng)) == value for _ in range(RESAMPLES))


class PictureStore:
    """Pictures kept as the page stores them: each distinct SVG line once (``pool``),
    each distinct picture once, as its list of line numbers (``pictures``)."""

    def __init__(self):
        self.lines: dict[str, int] = {}
        self.ids: dict[tuple[int, ...], int] = {}
        self.svg_bytes = 0  # the size of every picture added, as drawn

    def add(self, svg: str) -> int:
        """Store one picture; return its number."""
        self.svg_bytes += len(svg)
        lines = tuple(self.lines.setdefault(line, len(self.lines)) for line in svg.split("\n"))
        return self.ids.setdefault(lines, len(self.ids))

    @property
    def pool(self) -> list[str]:
        """The distinct lines, by number."""
        return list(self.lines)

    @property
    def pictures(self) -> list[list[int]]:
        """The distinct pictures, by number, each as its line numbers."""
        return [list(lines) for lines in self.ids]


@dataclass
class Frame:
    """One decision of the game (or its end): what the page shows at that step."""

    actor: int | None  # seat to act, None at the end
    action: int | None
    name: str
    secret: bool  # a choice of a simultaneous step
    round: Any
    scores: list
    scores_seen: list[bool]  # per seat: whether its view may show the scores
    pictures: list[int] = field(default_factory=list)  # whole table, then seat by seat


def collect_frames(record: dict[str, Any], store: PictureStore) -> tuple[list[Frame], Any]:
    """Every frame of a record's game (checked by the replay), its pictures added to
    ``store``, and the env at the end."""
    frames: list[Frame] = []
    rng = np.random.default_rng(0)  # only re-draws hidden values for the checks

    def visit(step: int, env, action: int | None) -> None:
        game, state = env.unwrapped.game, env.unwrapped.state_
        n = state.num_players
        scores = list(state.scores())
        actor = None if action is None else env.unwrapped.possible_agents.index(
            env.agent_selection)
        frames.append(Frame(
            actor=actor, action=action,
            name="" if action is None else game.action_name(action),
            secret=action is not None and game.simultaneous_step(state) is not None,
            round=getattr(state, "round", None), scores=scores,
            scores_seen=[_same_for(game, state, k, scores, lambda s: list(s.scores()), rng)
                         for k in range(n)],
            pictures=[store.add(table_svg(game, state, v)) for v in [None, *range(n)]]))

    env = replay_record(record, visit)
    return frames, env


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        return ", ".join(_cell(v) for v in value)
    return escape(json.dumps(value))


def summary_table(summary: dict[str, Any], n: int) -> str:
    """``game_summary`` as an HTML table: a column per seat where a value is per seat."""
    head = "".join(f"<th>player_{k}</th>" for k in range(n))
    rows = []
    for key, value in summary.items():
        items = value.items() if isinstance(value, dict) else [("", value)]
        for sub, item in items:
            label = escape(f"{key} {sub}".strip())
            if isinstance(item, list) and len(item) == n:
                cells = "".join(f"<td>{_cell(v)}</td>" for v in item)
            else:
                cells = f'<td colspan="{n}">{_cell(item)}</td>'
            rows.append(f"<tr><th>{label}</th>{cells}</tr>")
    return (f'<table class="summary"><tr><th></th>{head}</tr>{"".join(rows)}</table>'
            if rows else "")


def player_names(record: dict[str, Any], n: int) -> list[str]:
    """``player_k (agent)`` for every seat (the agent from the record's seating)."""
    seating = record.get("seating", [])
    return [f"player_{k}" + (f" ({seating[k]})" if k < len(seating) else "") for k in range(n)]


def result_html(record: dict[str, Any], env, seat: int | None, rng) -> str:
    """The final screen for ``seat``'s view (None: the whole table): winners, scores,
    ranks and, where that seat may know it, the summary breakdown."""
    state, game = env.unwrapped.state_, env.unwrapped.game
    n = state.num_players
    names = player_names(record, n)
    # the result as the replay reached it (checked against the record's own fields
    # where it has them): a record without ranks, as a teacher game's, shows them too
    result = final_result(env)
    winners = result["winners"]
    if result["truncated"]:
        verdict = "Stopped at the decision cap: no winner."
    elif winners:
        verdict = "Winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(
            names[w] for w in winners)
    else:
        verdict = "No winner."
    rows = "".join(
        f"<tr><td>{escape(names[k])}</td><td>{result['scores'][k]}</td>"
        f"<td>{result['ranks'][k]}</td></tr>" for k in range(n))
    parts = [f"<h2>{escape(verdict)}</h2>",
             f'<table class="result"><tr><th>seat</th><th>score</th><th>rank</th></tr>{rows}'
             "</table>"]
    summary = json.loads(json.dumps(game.game_summary(state)))
    if summary:
        read = lambda s: json.loads(json.dumps(game.game_summary(s)))  # noqa: E731
        if seat is None or _same_for(game, state, seat, summary, read, rng):
            parts.append("<h3>Breakdown</h3>" + summary_table(summary, n))
        else:
            parts.append("<p>The breakdown holds what this seat cannot see: choose the "
                         "whole table to read it.</p>")
    return "".join(parts)


def page_data(record: dict[str, Any], frames: list[Frame], store: PictureStore, env,
              source: str) -> dict:
    """The JSON the page reads: line pool, pictures, frames, labels and results."""
    env_id, config, seed, _ = record_actions(record)
    n = env.unwrapped.num_players
    players = player_names(record, n)
    shown = []
    rounds: list[list] = []
    seen_rounds: set = set()
    for index, frame in enumerate(frames):
        if frame.round not in seen_rounds and frame.round is not None:
            seen_rounds.add(frame.round)
            rounds.append([len(rounds) + 1, index])
        actor = -1 if frame.actor is None else frame.actor
        secret_to = [k + 1 for k in range(n) if frame.secret and k != actor]
        shown.append({"p": frame.pictures, "a": actor,
                      "t": "" if actor < 0 else f"{players[actor]}: {frame.name}",
                      "x": secret_to, "r": len(rounds), "sc": frame.scores,
                      "v": frame.scores_seen})
    rng = np.random.default_rng(1)
    return {
        "title": f"{env_id} game {record.get('game', '?')}",
        "about": f"{source} · {env_id} {json.dumps(config)} · seed {seed} · "
                 f"{len(frames) - 1} decisions",
        "players": players, "pool": store.pool, "pictures": store.pictures,
        "frames": shown, "rounds": rounds,
        "result": [result_html(record, env, None, rng)]
        + [result_html(record, env, k, rng) for k in range(n)],
    }


SECRET = " chooses in secret"


def frame_view(data: dict, index: int, view: int) -> dict[str, Any]:
    """What the page shows at frame ``index`` in ``view`` (0: the whole table, k + 1:
    seat k's own view), read from the page's data as its script reads it: the picture,
    the action label, the scores (None where hidden from the view) and the final
    screen (None before the end)."""
    frame = data["frames"][index]
    actor, end = frame["a"], index == len(data["frames"]) - 1
    if actor < 0:
        label = ""
    elif view in frame["x"]:
        label = data["players"][actor] + SECRET
    else:
        label = frame["t"]
    seen = view == 0 or frame["v"][view - 1]
    return {"svg": "\n".join(data["pool"][i] for i in data["pictures"][frame["p"][view]]),
            "label": label, "scores": frame["sc"] if seen else None,
            "result": data["result"][view] if end else None}


def build_page(record: dict[str, Any], source: str = "") -> tuple[str, dict, dict]:
    """The HTML page of a record's game, its data (:func:`frame_view` reads it) and
    facts about it: frames, distinct pictures and lines, the size of every SVG drawn,
    of the data before compression, and of the page."""
    store = PictureStore()
    frames, env = collect_frames(record, store)
    data = page_data(record, frames, store, env, source)
    raw = json.dumps(data, separators=(",", ":")).encode()
    packed = base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode("ascii")
    html = PAGE.replace("__TITLE__", escape(data["title"])).replace("__DATA__", packed)
    facts = {"frames": len(frames), "pictures": len(data["pictures"]),
             "lines": len(data["pool"]), "json_bytes": len(raw),
             "svg_bytes": store.svg_bytes,
             "html_bytes": len(html.encode())}
    return html, data, facts


def write_replay(run_dir: str | Path, game: int | None, output: str | Path) -> tuple[Path, dict]:
    """Replay game ``game`` of a run folder or a file of records (``game`` None: its
    only game) into the HTML file ``output``."""
    record = load_record(run_dir, game)
    html, _, facts = build_page(record, source=f"{Path(run_dir)} game {record.get('game')}")
    path = prepare_output_file(output, "replay file")
    try:
        write_text_atomic(path, html)
    except OSError as err:
        raise OtrioError(f"cannot write the replay to {path}: {os_error_message(err)}") from None
    return path, facts


__all__ = ["build_page", "write_replay", "collect_frames", "frame_view", "table_svg",
           "text_svg", "summary_table"]
