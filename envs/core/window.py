"""The window of ``render_mode="human"``: the table's picture in one matplotlib figure.

:func:`display_available` says whether a window can be shown (a display on Linux and an
interactive matplotlib backend); without one, ``"human"`` prints the text picture.
A :class:`TableWindow` keeps one figure and draws each new picture into it in place.
matplotlib is imported only when a window is asked for.
"""

from __future__ import annotations

import os
import sys

import numpy as np

# matplotlib's built-in non-interactive backends (its registry's list, where it has one)
_NON_INTERACTIVE = ("agg", "cairo", "pdf", "pgf", "ps", "svg", "template")


def is_interactive_backend(name: str) -> bool:
    """Whether the matplotlib backend ``name`` can show a window (Agg, PDF, SVG ... cannot)."""
    try:
        from matplotlib.backends import (  # deferred: matplotlib (~0.5 s)
            BackendFilter,
            backend_registry,
        )

        names = backend_registry.list_builtin(BackendFilter.NON_INTERACTIVE)
    except ImportError:  # matplotlib before 3.9
        names = _NON_INTERACTIVE
    return name.lower() not in {n.lower() for n in names}


def _backend() -> str:
    """The backend matplotlib uses (resolving its automatic choice: the first GUI
    toolkit it can load, else Agg)."""
    import matplotlib  # deferred: matplotlib (~0.5 s)

    return matplotlib.get_backend()


def display_available() -> bool:
    """Whether ``render_mode="human"`` can open a window: on Linux, ``DISPLAY`` or
    ``WAYLAND_DISPLAY`` is set; and everywhere, matplotlib's backend is interactive (not
    Agg or another file-only backend, e.g. ``MPLBACKEND=Agg`` or no GUI toolkit)."""
    if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    return is_interactive_backend(_backend())


class TableWindow:
    """One matplotlib figure showing the latest picture, updated in place."""

    def __init__(self, title: str):
        self.title = title
        self.figure = None
        self._image = None
        self._interactive = False

    def show(self, rgb: np.ndarray) -> None:
        """Draw the ``H x W x 3`` uint8 picture ``rgb`` (opening the window if it is not
        open, or was closed by its user)."""
        import matplotlib.pyplot as plt  # deferred: matplotlib (~0.5 s)

        if self.figure is None or not plt.fignum_exists(self.figure.number):
            self._open(plt, rgb)
        else:
            self._image.set_data(rgb)
            height, width = rgb.shape[:2]
            self._image.set_extent((-0.5, width - 0.5, height - 0.5, -0.5))
            self._image.axes.set_xlim(-0.5, width - 0.5)
            self._image.axes.set_ylim(height - 0.5, -0.5)
        if self._interactive:
            self.figure.canvas.draw_idle()
            self.figure.canvas.flush_events()  # let the GUI draw it now, without focus
        else:
            self.figure.canvas.draw()

    def _open(self, plt, rgb: np.ndarray) -> None:
        """A new figure holding ``rgb`` at one picture pixel per screen pixel."""
        height, width = rgb.shape[:2]
        dpi = 100
        self.figure = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
        manager = self.figure.canvas.manager
        if manager is not None:
            manager.set_window_title(self.title)
        axes = self.figure.add_axes((0, 0, 1, 1))
        axes.set_axis_off()
        self._image = axes.imshow(rgb, interpolation="nearest")
        self._interactive = is_interactive_backend(_backend())
        if self._interactive:
            plt.show(block=False)

    def close(self) -> None:
        """Close the window (a later :meth:`show` opens a new one)."""
        if self.figure is not None:
            import matplotlib.pyplot as plt  # deferred: matplotlib (~0.5 s)

            plt.close(self.figure)
        self.figure = self._image = None


__all__ = ["TableWindow", "display_available", "is_interactive_backend"]
