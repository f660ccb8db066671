"""envs/core/files.py, the one module every file of the suite is opened through: no link
followed at any component, atomic replace, bounded reads, one-line errors naming the
file."""

from __future__ import annotations

import os

import pytest

from otrio.envs.core import files
from otrio.envs.core.errors import ConfigError, StateError


def test_each_folder_below_the_run_is_checked_and_made(tmp_path):
    root = tmp_path / "run"
    root.mkdir()
    made = files.real_dir(root / "a" / "b", root)
    assert made.is_dir() and not made.is_symlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "link").symlink_to(elsewhere)
    for path in (root / "link", root / "link" / "deeper"):
        with pytest.raises(StateError, match="link is a symbolic link"):
            files.real_dir(path, root)
    with pytest.raises(StateError, match="link is a symbolic link"):
        files.write_atomic(root / "link" / "x.json", b"{}", root)
    with pytest.raises(StateError, match="link is a symbolic link"):
        files.open_append(root / "link" / "x.jsonl", root=root)
    (root / "file").write_text("x")
    with pytest.raises(StateError, match="is not a folder"):
        files.real_dir(root / "file" / "sub", root)
    with pytest.raises(StateError, match="not inside the run folder"):
        files.real_dir(tmp_path / "other", root)
    assert os.listdir(elsewhere) == []
    # the run folder itself may be reached through a link: the user named it
    (tmp_path / "alias").symlink_to(root)
    files.write_atomic(tmp_path / "alias" / "a" / "y.json", b"{}", tmp_path / "alias")
    assert (root / "a" / "y.json").read_bytes() == b"{}"


def test_a_link_at_a_file_is_refused_for_every_kind_of_write(tmp_path):
    target = tmp_path / "target"
    target.write_text("mine")
    link = tmp_path / "link"
    link.symlink_to(target)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    for path in (link, dangling):
        with pytest.raises(StateError, match="symbolic link"):
            files.write_atomic(path, b"new")
        with pytest.raises(StateError, match="symbolic link"):
            files.open_append(path)
        with pytest.raises(StateError, match="symbolic link"):
            files.read_json(path)
        with pytest.raises(StateError, match="symbolic link"):
            files.truncate(path, 0)
    assert target.read_text() == "mine" and not (tmp_path / "nowhere").exists()
    (tmp_path / "x.tmp").symlink_to(target)  # a planted temporary is removed, not followed
    files.write_atomic(tmp_path / "x", b"new")
    assert (tmp_path / "x").read_bytes() == b"new" and target.read_text() == "mine"


@pytest.mark.parametrize("content, message", [
    (b"[" * 100_000, "nested deeper"), (b"{", "not JSON"), (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "a JSON object was expected, not a list"), (b'{"a": NaN}', "not JSON"),
])
def test_side_file_bombs_are_one_line_errors_naming_the_file(tmp_path, content, message):
    path = tmp_path / "side.json"
    path.write_bytes(content)
    with pytest.raises(StateError, match=message) as caught:
        files.read_json(path)
    assert "side.json" in str(caught.value) and "\n" not in str(caught.value)


def test_reads_are_bounded_and_lines_are_objects(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n[2]\n')
    with pytest.raises(ConfigError, match="log.jsonl line 2 is corrupt"):
        files.read_json_lines(path, error=ConfigError)
    path.write_bytes(b" " * 2000)
    with pytest.raises(StateError, match="over the limit"):
        files.read_json(path, limit=1000)
    (tmp_path / "zero").symlink_to("/dev/zero")
    with pytest.raises(StateError, match="symbolic link"):
        files.read_bytes(tmp_path / "zero")


def test_a_link_anywhere_under_a_tensorboard_folder_is_refused(tmp_path):
    root = tmp_path / "run"
    (root / "tb" / "ppo_1").mkdir(parents=True)
    assert files.no_links_under(root / "tb", root) == root / "tb"
    (root / "tb" / "ppo_1" / "events").symlink_to(tmp_path)
    with pytest.raises(StateError, match="events is a symbolic link"):
        files.no_links_under(root / "tb", root)
