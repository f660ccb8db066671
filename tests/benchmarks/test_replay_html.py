"""The HTML replay page: self-contained, small, faithful to the record, and a seat's
view holds nothing that seat cannot see; ``otrio replay`` end to end."""

import base64
import gzip
import json
import re

import numpy as np
import pytest

from otrio.arena.games import play_game
from otrio.arena.play import GameTask
from otrio.arena.records import RECORDS_FILE, read_records
from otrio.arena.replay import replay_record
from otrio.benchmarks.replay.html import SECRET, build_page, frame_view, table_svg
from otrio.benchmarks.tournament.tournament import TournamentConfig, run
from otrio.cli import main

GAMES = [  # Oceanos and Otontin have secret choices in simultaneous steps
    ("oceanos_v0", {"num_players": 3}),
    ("otys_v0", {"num_players": 2}),
    ("otontin_v0", {"num_players": 3}),
]


def record_of(env_id, config, seed=5):
    seats = ("greedy",) + ("random",) * (config["num_players"] - 1)
    return play_game(GameTask(game=0, env_id=env_id, config=config, seating=seats,
                              specs={"greedy": "greedy", "random": "random"}, seed=seed))


@pytest.fixture(scope="module")
def pages():
    """For every game: its record, page, data, facts and the states of its frames."""
    out = {}
    for env_id, config in GAMES:
        record = json.loads(json.dumps(record_of(env_id, config)))
        html, data, facts = build_page(record, "test")
        states: list = []

        def keep(step, env, action, states=states):
            states.append(env.unwrapped.state_.clone())

        env = replay_record(record, keep)
        out[env_id] = (record, html, data, facts, states, env.unwrapped.game)
    return out


def unpacked(html: str) -> dict:
    """The page's data, inflated as its script does."""
    packed = re.search(r'<script id="data" type="application/octet-stream">([^<]*)</script>',
                       html).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


@pytest.mark.parametrize("env_id", [g for g, _ in GAMES])
def test_the_page_has_no_external_reference(pages, env_id):
    _, html, data, _, _, _ = pages[env_id]
    assert unpacked(html) == data
    for text in (html, json.dumps(data)):  # the page and what it draws after inflating
        lowered = text.lower()
        for banned in ("http:", "https:", "src=", "@import", "<link", "href=", "url("):
            assert banned not in lowered, (env_id, banned)
    assert "<svg" in data["pool"][0] or any("<svg" in line for line in data["pool"])


@pytest.mark.parametrize("env_id", [g for g, _ in GAMES])
def test_every_frame_names_its_action_and_the_end_shows_the_result(pages, env_id):
    record, _, data, facts, states, game = pages[env_id]
    frames = data["frames"]
    assert len(frames) == facts["frames"] == record["decisions"] + 1
    actions = []
    replay_record(record, lambda step, env, a: actions.append(a))
    for index, state in enumerate(states[:-1]):
        view = frame_view(data, index, 0)
        assert view["label"].endswith(": " + game.action_name(actions[index]))
        assert view["scores"] == list(state.scores())
        assert view["result"] is None
    end = frame_view(data, len(frames) - 1, 0)
    assert end["scores"] == record["scores"] and end["label"] == ""
    winners = ", ".join(data["players"][w] for w in record["winners"])
    assert winners in end["result"]
    assert "Breakdown" in end["result"]  # every game here writes a summary
    assert [r[0] for r in data["rounds"]] == list(range(1, len(data["rounds"]) + 1))


@pytest.mark.parametrize("env_id", [g for g, _ in GAMES])
def test_a_seat_view_holds_nothing_that_seat_cannot_see(pages, env_id):
    """Each seat's view at every frame is what it would be in any world that seat cannot
    tell apart from the true one (its unknowns re-drawn by resample_hidden); another
    seat's secret choice is not named; and the view is not the whole table's."""
    record, _, data, _, states, game = pages[env_id]
    rng = np.random.default_rng(11)
    n = len(data["players"])
    differs = secrets = 0
    for index, state in enumerate(states):
        frame = data["frames"][index]
        whole = frame_view(data, index, 0)
        for seat in range(n):
            view = frame_view(data, index, seat + 1)
            other = game.resample_hidden(state, seat, rng)
            assert view["svg"] == table_svg(game, other, seat), (index, seat)
            if view["scores"] is not None:
                assert view["scores"] == list(other.scores())
            differs += view["svg"] != whole["svg"]
            if frame["x"] and seat + 1 in frame["x"]:
                secrets += 1
                assert view["label"] == data["players"][frame["a"]] + SECRET
                assert whole["label"] != view["label"]
            elif frame["a"] >= 0:
                assert view["label"] == whole["label"]
    assert differs > 0, "no seat view differs from the whole table: nothing was hidden"
    if env_id != "otys_v0":  # Otys has no simultaneous step
        assert secrets > 0


def test_pages_stay_small(pages):
    """Pictures are stored once per distinct line and compressed: a page is a small
    part of the SVG it draws, and a game of a few hundred decisions a few MB at most."""
    for env_id, (_, html, _, facts, _, _) in pages.items():
        assert facts["html_bytes"] == len(html.encode())
        assert facts["html_bytes"] < 3_000_000, env_id
        assert facts["html_bytes"] * 10 < facts["svg_bytes"], env_id
    record = record_of("otys_v0", {"num_players": 3}, seed=0)
    assert record["decisions"] >= 300
    _, _, facts = build_page(record)
    assert facts["html_bytes"] < 3_000_000


def test_otrio_replay_writes_the_page_and_refuses_bad_records(tmp_path, capsys):
    folder = tmp_path / "run"
    run(TournamentConfig(game="oceanos_v0", game_config={"num_players": 2},
                         agents={"greedy": "greedy", "random": "random"},
                         lineup=["greedy", "random"], games_per_seating=1, seed=2,
                         output=str(folder)), progress=False)
    out = tmp_path / "pages" / "g1.html"
    out.parent.mkdir()  # an output file's folder must exist (issue 29)
    assert main(["replay", str(folder), "--game", "1", "--output", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "oceanos_v0 game 1" in html
    assert main(["replay", str(folder), "--game", "0"]) == 0
    assert (folder / "replay_game0.html").exists()
    capsys.readouterr()

    assert main(["replay", str(folder), "--game", "7"]) == 2
    assert "has no game 7 (games recorded: 0..1" in capsys.readouterr().err
    records = read_records(folder / RECORDS_FILE)
    old = {k: v for k, v in records[0].items() if k != "replay"}
    tampered = json.loads(json.dumps(records[1]))
    tampered["scores"][0] += 5
    (folder / RECORDS_FILE).write_text(json.dumps(old) + "\n" + json.dumps(tampered) + "\n")
    assert main(["replay", str(folder), "--game", "0"]) == 2
    assert "cannot be replayed" in capsys.readouterr().err
    assert main(["replay", str(folder), "--game", "1"]) == 2
    assert "game 1 diverged at its end" in capsys.readouterr().err
