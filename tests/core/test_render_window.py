"""render_mode="human": the table's picture in one matplotlib window where a display
exists, the text picture printed where none does; the display detection itself."""

import sys
import warnings

import matplotlib
import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import window


def _no_display(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def test_linux_needs_a_display_variable(monkeypatch):
    _no_display(monkeypatch)
    monkeypatch.setattr(window, "_backend", lambda: "TkAgg")
    assert not window.display_available()
    monkeypatch.setenv("DISPLAY", ":0")
    assert window.display_available()
    monkeypatch.delenv("DISPLAY")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert window.display_available()
    monkeypatch.setenv("WAYLAND_DISPLAY", "")
    assert not window.display_available()


def test_a_non_interactive_backend_shows_no_window(monkeypatch):
    _no_display(monkeypatch)
    monkeypatch.setenv("DISPLAY", ":0")
    for backend in ("agg", "Agg", "pdf", "svg"):
        monkeypatch.setattr(window, "_backend", lambda name=backend: name)
        assert not window.display_available(), backend


def test_elsewhere_the_backend_decides(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    for platform in ("darwin", "win32"):
        monkeypatch.setattr(sys, "platform", platform)
        monkeypatch.setattr(window, "_backend", lambda: "agg")
        assert not window.display_available()
        for gui in ("macosx", "TkAgg", "QtAgg"):
            monkeypatch.setattr(window, "_backend", lambda name=gui: name)
            assert window.display_available(), (platform, gui)


def test_without_a_display_human_prints_the_text(monkeypatch, capsys):
    _no_display(monkeypatch)
    env = envs.make("oceanos_v0", render_mode="human")
    env.reset(seed=3)
    assert env.render() is None
    raw = env.unwrapped
    assert capsys.readouterr().out == raw.game.render(raw.state_) + "\n"
    assert raw._window is False
    env.close()


def _picture(env_id, seed, actions):
    """The rgb_array picture after ``actions`` from ``seed``."""
    env = envs.make(env_id, render_mode="rgb_array")
    env.reset(seed=seed)
    for action in actions:
        env.step(action)
    return env.render()


@pytest.mark.parametrize("env_id", ["oceanos_v0", "otontin_v0", "otys_v0"])
def test_the_window_shows_the_rgb_picture_and_follows_the_game(env_id, monkeypatch, capsys):
    import matplotlib.pyplot as plt

    plt.switch_backend("agg")
    monkeypatch.setattr(window, "display_available", lambda: True)
    env = envs.make(env_id, render_mode="human")
    env.reset(seed=5)
    assert env.render() is None
    shown = env.unwrapped._window
    figure = shown.figure
    assert isinstance(figure, matplotlib.figure.Figure)
    (image,) = figure.axes[0].get_images()
    assert np.array_equal(np.asarray(image.get_array()), _picture(env_id, 5, []))
    actions, rng = [], np.random.default_rng(0)
    for _ in range(6):  # each step of a human env renders: the same figure, updated
        action = int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection))))
        env.step(action)
        actions.append(action)
    assert env.unwrapped._window.figure is figure and figure.axes[0].get_images() == [image]
    assert np.array_equal(np.asarray(image.get_array()), _picture(env_id, 5, actions))
    assert capsys.readouterr().out == ""  # no text printed beside the window
    env.close()
    assert not plt.fignum_exists(figure.number)


def test_a_window_that_cannot_open_falls_back_to_text(monkeypatch, capsys):
    monkeypatch.setattr(window, "display_available", lambda: True)

    def fail(self, rgb):
        raise RuntimeError("cannot connect to display")

    monkeypatch.setattr(window.TableWindow, "show", fail)
    env = envs.make("otontin_v0", render_mode="human")
    env.reset(seed=0)
    with pytest.warns(RuntimeWarning, match="cannot connect to display"):
        assert env.render() is None
    assert "Otontin round 1" in capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # decided once: text from now on, no second warning
        env.render()
    assert "Otontin round 1" in capsys.readouterr().out
    env.close()
