"""Pictures of a table: the drawing description, its SVG and RGB back-ends, the
``rgb_array`` render mode, and the seat view's information boundary for every game."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import testing, window
from otrio.envs.core.errors import OtrioError
from otrio.envs.core.picture import Picture
from otrio.envs.core.rng import make_rng

SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'
SETUPS = [
    ("oceanos_v0", {"num_players": 2}),
    ("oceanos_v0", {"num_players": 4, "troubled_waters": True}),
    ("otontin_v0", {"num_players": 3}),
    ("otontin_v0", {"num_players": 8}),
    ("otys_v0", {"num_players": 2}),
    ("otys_v0", {"num_players": 4}),
]
IDS = [f"{e}-{c}" for e, c in SETUPS]


def _sample() -> Picture:
    pic = Picture(60, 40, background="#ffffff")
    pic.rect(0, 0, 20, 20, fill="#ff0000")
    pic.rounded_rect(30, 0, 20, 20, radius=5, fill="#0000ff", stroke="#000000", title="a <box>")
    pic.circle(10, 30, 6, fill="#00ff00", opacity=0.5)
    pic.line(0, 39, 59, 39, stroke="#000000", stroke_width=1)
    pic.polygon([(40, 25), (50, 38), (30, 38)], fill="#ffaa00")
    pic.text(30, 30, "A & B", size=8, anchor="middle", bold=True, title="text tip")
    return pic


def _external_references(svg: str) -> list[str]:
    """Anything in ``svg`` that could fetch a file: links, url(), imports, http(s) URIs
    other than the SVG namespace name (an identifier, never fetched)."""
    rest = svg.replace(SVG_NS, "", 1)
    return re.findall(r"href|url\(|@import|https?:|<image|<script|<foreignObject", rest)


def test_svg_is_one_self_contained_element():
    svg = _sample().to_svg()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == ("60", "40")
    assert _external_references(svg) == []
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert titles == ["a <box>", "text tip"]
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0].get("text-anchor") == "middle" and "A & B" in "".join(texts[0].itertext())
    assert root.find("{http://www.w3.org/2000/svg}circle").get("opacity") == "0.5"


def test_rgb_draws_the_same_description():
    pic = _sample()
    rgb = pic.to_rgb()
    assert rgb.shape == (40, 60, 3) and rgb.dtype == np.uint8
    assert tuple(rgb[5, 5]) == (255, 0, 0)  # the red rectangle
    assert tuple(rgb[10, 40]) == (0, 0, 255)  # inside the rounded one
    half = rgb[30, 10].astype(int)  # green at half opacity over white
    assert abs(half[0] - 128) <= 2 and half[1] == 255 and abs(half[2] - 128) <= 2
    assert tuple(rgb[20, 55]) == (255, 255, 255)  # nothing drawn there
    assert pic.to_rgb(scale=2).shape == (80, 120, 3)


def test_bad_drawing_arguments_are_refused():
    pic = Picture(10, 10)
    with pytest.raises(ValueError, match="#rrggbb"):
        pic.rect(0, 0, 5, 5, fill="red")
    with pytest.raises(ValueError, match="opacity"):
        pic.circle(5, 5, 2, fill="#000000", opacity=1.5)
    with pytest.raises(ValueError, match="anchor"):
        pic.text(0, 0, "x", anchor="left")
    with pytest.raises(ValueError, match="3 points"):
        pic.polygon([(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="positive"):
        Picture(0, 10)


@pytest.mark.parametrize(("env_id", "config"), SETUPS, ids=IDS)
def test_rgb_array_render_mode(env_id, config):
    env = envs.make(env_id, render_mode="rgb_array", **config)
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    first = env.render()
    picture = env.unwrapped.game.picture(env.unwrapped.state_)
    assert first.dtype == np.uint8 and first.shape == (picture.height, picture.width, 3)
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 20  # a drawing, not a blank
    for _ in testing.play_random(env, make_rng(1), max_steps=25):
        pass
    later = env.render()
    assert later.dtype == np.uint8 and later.ndim == 3 and later.shape[2] == 3
    assert later.shape != first.shape or not np.array_equal(later, first)


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otontin_v0", "otys_v0"])
def test_pettingzoo_render_test(env_id, capsys, monkeypatch):
    """PettingZoo's own check of every declared render mode (no display: "human"
    prints; its window: tests/core/test_render_window.py)."""
    monkeypatch.setattr(window, "display_available", lambda: False)
    from functools import partial

    from pettingzoo.test import render_test

    render_test(partial(envs.make, env_id))


def test_text_render_modes_are_unchanged(capsys, monkeypatch):
    monkeypatch.setattr(window, "display_available", lambda: False)  # "human" prints
    env = envs.make("oceanos_v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.unwrapped.game.render(env.unwrapped.state_)
    human = envs.make("otontin_v0", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "Otontin round 1" in capsys.readouterr().out
    with pytest.raises(OtrioError, match="rgb_array"):
        envs.make("otontin_v0", render_mode="pixels")


@pytest.mark.parametrize(("env_id", "config"), SETUPS, ids=IDS)
def test_pictures_follow_the_game_and_keep_no_external_reference(env_id, config):
    env = envs.make(env_id, **config)
    env.reset(seed=2)
    game, core = env.unwrapped.game, env.unwrapped
    seen = set()
    for step, _ in enumerate(testing.play_random(env, make_rng(2), max_steps=120)):
        if step % 10:
            continue
        svg = game.picture(core.state_).to_svg()
        assert _external_references(svg) == [], f"step {step}"
        ET.fromstring(svg)  # well-formed
        seen.add(svg)
        for seat in range(core.num_players):
            assert _external_references(game.picture(core.state_, seat).to_svg()) == []
    assert len(seen) > 5  # the picture moves on with the game


@pytest.mark.parametrize(("env_id", "config"), SETUPS, ids=IDS)
def test_seat_picture_keeps_to_the_observation(env_id, config):
    """Re-drawing what seat k cannot know (``resample_hidden``) never changes seat k's
    picture, while the whole-table picture shows the difference."""
    env = envs.make(env_id, **config)
    game, core = env.unwrapped.game, env.unwrapped
    omniscient_differs = compared = 0
    for seed in range(2):
        env.reset(seed=seed)
        rng = make_rng(500 + seed)
        for step, _ in enumerate(testing.play_random(env, make_rng(seed), max_steps=150)):
            if step % 6:
                continue
            state = core.state_
            saved, whole = state.to_dict(), game.picture(state).to_svg()
            for seat in range(core.num_players):
                twin = game.resample_hidden(state, seat, rng)
                if twin.to_dict() == saved:
                    continue
                compared += 1
                assert game.picture(twin, seat).to_svg() == game.picture(state, seat).to_svg(), (
                    f"seat {seat}'s picture changed with hidden information "
                    f"(seed {seed}, step {step})")
                omniscient_differs += game.picture(twin).to_svg() != whole
    assert compared > 10 and omniscient_differs > 0


def test_viewer_must_be_a_seat():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    game, state = env.unwrapped.game, env.unwrapped.state_
    for bad in (3, -1, True, "0"):
        with pytest.raises(ValueError, match="viewer"):
            game.picture(state, bad)
    assert game.picture(state, np.int64(2)).width > 0
