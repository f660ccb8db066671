"""Which folders a run may write into: a new or empty one, or one holding its own run.

Every kind of run -- tournament, balance sweep, setup search, search study, training,
distillation, evaluation, value data -- checks its output folder here before writing
(:func:`check_run_folder`), and opens, reads, writes and replaces the files in it through
:mod:`otrio.envs.core.files` (no link followed, bounded reads, whole-file writes).

The run folder itself may be reached through a link (``runs -> /data/runs``): the user
named it. What lies under it may not.
"""

from __future__ import annotations

import os
from pathlib import Path

from otrio.envs.core.errors import ConfigError

from .run_lock import LOCK_FILE


# ------------------------------------------------------------------ the folder itself
def check_run_folder(folder: Path, marker: str, kind: str) -> None:
    """Refuse to write into ``folder`` when it exists, is not empty and holds no run of
    this ``kind`` (no ``marker`` file, e.g. ``run.json`` or ``config.json``): a folder of
    the user's own files (a ``report.md``, a ``summary.json``) is never written over.
    A stale ``run.lock`` alone (a run killed before it wrote anything) is no content."""
    folder = Path(folder)
    if not folder.is_dir():
        return  # missing (made later), or a file: the output checks say so
    if os.path.lexists(folder / marker):
        return
    try:
        entries = sorted(name for name in os.listdir(folder) if name != LOCK_FILE)
    except OSError as err:
        raise ConfigError(f"cannot read the output folder {folder}: {err.strerror or err}") from None
    if entries:
        shown = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3
                                          else "")
        raise ConfigError(f"{folder} is not empty ({shown}) and holds no {kind} (no {marker}): "
                          "otrio writes only into a new or empty folder, or one of its own runs "
                          "of this kind; choose another output folder")


__all__ = ["check_run_folder"]
