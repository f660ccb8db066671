"""Every shipped balance config loads, plans its games and passes the checks made
before a run starts (agents, tiers, the reference flag), without playing a game: a
config that a user copies from ``configs/balance/`` works as written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from otrio.benchmarks.balance import skill_ceiling, sweep
from otrio.benchmarks.balance.config import load_config

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs" / "balance").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_a_shipped_balance_config_plans_its_games(path):
    data = yaml.safe_load(path.read_text())
    if "baseline" in data:  # a skill-ceiling report: one balance run per game and count
        cfg = skill_ceiling.load_config(path)
        groups = [skill_ceiling.group_config(cfg, entry, n)
                  for entry in cfg.games for n in entry.players]
        assert groups
    else:
        groups = [load_config(path)]
    for group in groups:
        setups = sweep.build_setups(group)
        sweep.check_before_start(group, setups)
        tasks = sweep.build_tasks(group, setups)
        assert tasks or (group.search is not None and not group.sweeps)  # a search alone
        assert all(t.seating for t in tasks)
        assert len({t.game for t in tasks}) == len(tasks)


def test_a_config_given_to_the_wrong_command_names_the_right_one():
    from otrio.envs.core.errors import ConfigError

    ceiling = next(p for p in CONFIGS if p.stem == "skill_ceiling")
    balance = next(p for p in CONFIGS if p.stem == "otys_sponsors")
    with pytest.raises(ConfigError, match="skill-ceiling config .*otrio skill-ceiling"):
        load_config(ceiling)
    with pytest.raises(ConfigError, match="balance config .*otrio balance"):
        skill_ceiling.load_config(balance)
