"""``render_viewer`` (issue 32, item 4): the config key that makes ``render()`` draw one
seat's view, so that a recorded video (``rgb_array``), a ``human`` window or the text
shows only what that seat knows; the default (None) draws the whole table."""

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import testing, window
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.rng import make_rng

SETUPS = [("oceanos_v0", 2), ("otys_v0", 2), ("otontin_v0", 3)]


@pytest.mark.parametrize(("env_id", "players"), SETUPS)
def test_a_seats_video_frames_hold_nothing_that_seat_cannot_see(env_id, players):
    """Every frame of seat 1's rgb_array video is the same in every re-draw of what seat
    1 cannot know; the whole table's frames are not (they leak it)."""
    env = envs.make(env_id, num_players=players, render_mode="rgb_array", render_viewer=1)
    whole = envs.make(env_id, num_players=players, render_mode="rgb_array")
    core, game = env.unwrapped, env.unwrapped.game
    rng, leaked, frames = make_rng(9), 0, 0
    for seed in range(2):
        env.reset(seed=seed)
        for step, _ in enumerate(testing.play_random(env, make_rng(seed), max_steps=400)):
            if step % 25:
                continue
            frame = env.render()
            assert frame.dtype == np.uint8 and frame.ndim == 3
            twin = game.resample_hidden(core.state_, 1, rng)
            assert np.array_equal(frame, game.picture(twin, 1).to_rgb()), (seed, step)
            whole.unwrapped.state_ = core.state_
            leaked += not np.array_equal(whole.render(), game.picture(twin).to_rgb())
            frames += 1
    assert frames >= 8 and leaked > 0


def test_text_and_human_draw_the_seats_view_too(monkeypatch, capsys):
    monkeypatch.setattr(window, "display_available", lambda: False)  # "human" prints
    env = envs.make("oceanos_v0", num_players=3, render_mode="ansi", render_viewer=2)
    env.reset(seed=0)
    core = env.unwrapped
    assert env.render() == core.game.render_for(core.state_, 2) != core.game.render(core.state_)
    human = envs.make("oceanos_v0", num_players=3, render_mode="human", render_viewer=0)
    human.reset(seed=0)
    human.render()
    assert capsys.readouterr().out == human.unwrapped.game.render_for(
        human.unwrapped.state_, 0) + "\n"


def test_the_window_shows_the_seats_picture(monkeypatch):
    import matplotlib.pyplot as plt

    plt.switch_backend("agg")
    monkeypatch.setattr(window, "display_available", lambda: True)
    env = envs.make("oceanos_v0", num_players=2, render_mode="human", render_viewer=1)
    env.reset(seed=5)
    env.render()
    (image,) = env.unwrapped._window.figure.axes[0].get_images()
    core = env.unwrapped
    assert np.array_equal(np.asarray(image.get_array()),
                          core.game.picture(core.state_, 1).to_rgb())
    env.close()


def test_the_default_is_the_whole_table():
    env = envs.make("oceanos_v0", num_players=2, render_mode="rgb_array")
    assert env.unwrapped.config.render_viewer is None
    env.reset(seed=0)
    core = env.unwrapped
    assert np.array_equal(env.render(), core.game.picture(core.state_).to_rgb())


@pytest.mark.parametrize("bad", [2, -1, True, "0", 1.0])
@pytest.mark.parametrize("env_id", ["oceanos_v0", "otys_v0", "otontin_v0"])
def test_render_viewer_must_be_a_seat_of_the_game(env_id, bad):
    players = 3 if env_id == "otontin_v0" else 2
    bad = players if bad == 2 else bad
    with pytest.raises(ConfigError, match="render_viewer"):
        envs.make(env_id, num_players=players, render_viewer=bad)
