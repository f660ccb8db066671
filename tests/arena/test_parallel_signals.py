"""A 2-worker run that is killed or interrupted prints no worker traceback, and its
workers end with it (issue 29: a SIGKILL left workers printing BrokenPipeError)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

RUN = """
import sys, time
from otrio.arena.parallel import run_ordered
try:
    for k, _ in enumerate(run_ordered(time.sleep, [0.2] * 400, workers=2)):
        if k == 3:
            print("running", flush=True)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
"""


def _default_sigint() -> None:
    """A terminal's run takes Ctrl-C: the child hears SIGINT even when the tests run as a
    background job (whose children a shell starts with SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start() -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", RUN], cwd=ROOT, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_default_sigint,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "running"
    return child


def _group_ends(pgid: int, seconds: float = 10.0) -> bool:
    """Whether every process of the group ``pgid`` (the run and its workers) ends."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_of_a_killed_run_end_quietly(sig):
    child = _start()
    try:
        os.kill(child.pid, sig)
        _, err = child.communicate(timeout=60)  # until the workers let go of stderr too
        assert child.returncode == -sig
        assert "Traceback" not in err and "BrokenPipeError" not in err, err
        assert _group_ends(child.pid), "a worker outlived its run"
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_ctrl_c_of_a_run_is_one_line_from_the_parent_alone():
    child = _start()
    try:
        os.killpg(child.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        _, err = child.communicate(timeout=60)
        assert child.returncode == 130
        assert err == "interrupted\n", err
        assert _group_ends(child.pid)
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
