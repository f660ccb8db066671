"""The attack harnesses run, count every outcome, and find no other exception (tiny
budgets; the full passes and their counts are benchmarks/results/hardening/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.attacks.tiny_runs import KIND_MAKERS

ROOT = Path(__file__).resolve().parents[2]


def test_run_folder_attack_counts_every_outcome_and_finds_no_other_exception():
    result = subprocess.run([sys.executable, "tests/attacks/run_folder_attack.py",
                             "--mutations", "6", "--kinds", "tournament,value-data run"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    results = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["kind"] for r in results] == ["tournament", "value-data run"]
    known = {"clear error", "identical", "recomputed"}
    for r in results:
        assert r["mutations"] == sum(r["outcomes"].values()) == 6, r
        assert set(r["outcomes"]) <= known, r["examples"]  # no other exception, no timeout
        assert r["files_written"] == [] and r["files"], r


@pytest.mark.parametrize("kind", sorted(set(KIND_MAKERS) - {"tournament", "value-data run"}))
def test_every_run_kind_is_attacked_and_refuses_in_one_line(kind):
    """The pass on each declared kind (tiny budget: two mutations): its files found from its
    declaration, every outcome counted, no other exception."""
    result = subprocess.run([sys.executable, "tests/attacks/run_folder_attack.py",
                             "--mutations", "2", "--kinds", kind],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    (r,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert r["kind"] == kind and r["mutations"] == 2 and r["files"], r
    assert set(r["outcomes"]) <= {"clear error", "identical", "recomputed",
                                  "different result"}, r["examples"]
    assert r["files_written"] == [], r


def test_openspiel_attack_counts_every_outcome_and_finds_no_other_exception():
    pytest.importorskip("pyspiel", reason="the [openspiel] extra")
    result = subprocess.run([sys.executable, "tests/attacks/openspiel_attack.py",
                             "--strings", "12", "--seed", "3"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    results = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(results) == 3
    allowed = {"StateStringError", "valid state"}
    for r in results:
        assert sum(r["outcomes"].values()) == 12, r
        others = {k for k in r["outcomes"] if k not in allowed
                  and not k.startswith("names no otrio game")}
        assert not others, r["examples"]
        assert r["files_written"] == [], r
