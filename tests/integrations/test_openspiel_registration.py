"""``import otrio`` registers the games with OpenSpiel once ``pyspiel`` is imported, in
either order, imports no OpenSpiel itself, and costs nothing where it is not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOAD = ("game = pyspiel.load_game('python_otrio_otontin', {'players': 3})\n"
        "assert game.max_game_length() == 3784, game.max_game_length()\n"
        "assert 'otrio.integrations.openspiel' in sys.modules\n")
# a machine without OpenSpiel: its modules cannot be found
BLOCK = """
import sys
class _NoOpenSpiel:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspiel", "open_spiel"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoOpenSpiel())
"""


def _run(code: str, tmp_path: Path) -> None:
    """Run ``code`` in a fresh interpreter (warnings are errors) from a folder of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-W", "error", "-c", "import sys\n" + code],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("order", ["import otrio\nimport pyspiel\n",
                                   "import pyspiel\nimport otrio\n",
                                   "import otrio\nfrom open_spiel.python.algorithms import "
                                   "ismcts\nimport pyspiel\n"])
def test_load_game_after_a_plain_import_otrio(order, tmp_path):
    pytest.importorskip("pyspiel")
    _run(order + LOAD, tmp_path)


def test_import_otrio_imports_no_openspiel(tmp_path):
    _run("import otrio\nassert 'pyspiel' not in sys.modules\n"
         "assert 'otrio.integrations.openspiel' not in sys.modules\n", tmp_path)


def test_without_openspiel_import_otrio_works_and_pyspiel_stays_missing(tmp_path):
    _run(BLOCK + "import otrio\nenv = otrio.make('oceanos_v0')\n"
         "try:\n    import pyspiel\nexcept ModuleNotFoundError:\n    pass\n"
         "else:\n    raise AssertionError('pyspiel imported')\n"
         "assert 'otrio.integrations.openspiel' not in sys.modules\n", tmp_path)


def test_a_failed_registration_warns_and_leaves_pyspiel_working(tmp_path):
    pytest.importorskip("pyspiel")
    _run("import warnings\nimport otrio\nsys.modules['otrio.integrations.openspiel'] = None\n"
         "with warnings.catch_warnings(record=True) as caught:\n"
         "    warnings.simplefilter('always')\n    import pyspiel\n"
         "assert [w.category for w in caught] == [RuntimeWarning], caught\n"
         "assert 'not registered with OpenSpiel' in str(caught[0].message)\n"
         "pyspiel.load_game('tic_tac_toe')\n", tmp_path)
