"""arena/run_folder.py: a run writes only into a new or empty folder, or one holding its
own run of the same kind; a folder of the user's own files is refused."""

from __future__ import annotations

import pytest

from otrio.arena.run_folder import check_run_folder
from otrio.envs.core.errors import ConfigError


def test_a_folder_that_holds_no_run_of_the_kind_is_refused(tmp_path):
    folder = tmp_path / "out"
    check_run_folder(folder, "run.json", "tournament")  # missing: made later
    folder.mkdir()
    (folder / "run.lock").write_text("{}")  # a run killed before it wrote anything
    check_run_folder(folder, "run.json", "tournament")
    (folder / "report.md").write_text("mine")
    with pytest.raises(ConfigError, match="not empty \\(report.md\\) and holds no tournament"):
        check_run_folder(folder, "run.json", "tournament")
    (folder / "run.json").write_text("{}")
    check_run_folder(folder, "run.json", "tournament")
