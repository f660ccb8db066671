"""Where a relative path names a file (envs/core/paths.py): beside the config that names
it, then in the current folder, then in the installed package; shipped configs and the
shipped agents they name work from any folder."""

import shutil
from pathlib import Path

import pytest
import yaml

from otrio import agents, envs
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import (
    CONFIGS,
    PACKAGE_ROOT,
    PRETRAINED,
    find_file,
    rebase_file,
    rebase_spec,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_PPO = "agents/pretrained/oceanos_ppo.json"


def test_the_package_root_holds_the_shipped_agents_and_configs():
    # from the sources (or an editable install), the package root is the clone's root
    assert PACKAGE_ROOT == ROOT
    assert (PRETRAINED / "oceanos_ppo.json").is_file()
    assert (CONFIGS / "tournament" / "oceanos_ppo_vs_greedy.yaml").is_file()


def test_find_file_tries_the_current_folder_then_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_file(SHIPPED_PPO) == PACKAGE_ROOT / SHIPPED_PPO  # not here: the package's
    mine = tmp_path / SHIPPED_PPO
    mine.parent.mkdir(parents=True)
    mine.write_text("{}")
    assert find_file(SHIPPED_PPO) == Path(SHIPPED_PPO)  # here first, as before the rule
    assert find_file("no/such.json") == Path("no/such.json")  # nowhere: as given
    assert find_file(tmp_path / "x.json") == tmp_path / "x.json"  # absolute: as given


def test_the_package_lookup_never_leads_out_of_the_package(tmp_path, monkeypatch):
    """Issue 38, point 8: ``..`` from the package root reached any file on the machine."""
    import os

    secret = tmp_path / "outside" / "secret.json"
    secret.parent.mkdir()
    secret.write_text("{}")
    here = tmp_path / "here" / "deeper"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    escape = os.path.relpath(secret, PACKAGE_ROOT)  # ../../tmp/.../secret.json
    assert escape.startswith("..") and not Path(escape).exists()  # not from here
    assert (PACKAGE_ROOT / escape).exists()  # but from the package root
    with pytest.raises(ConfigError, match=rf"{escape} is not in the current folder, and in "
                                          rf"the installed package it leads out of the "
                                          rf"package \(to {secret}\)"):
        find_file(escape)
    with pytest.raises(ConfigError, match="leads out of the package"):
        agents.make(f"net:{escape}", envs.make("oceanos_v0", num_players=2))
    inside = f"configs/../{SHIPPED_PPO}"  # a detour that stays inside is fine
    assert find_file(inside) == PACKAGE_ROOT / inside


def test_rebase_spec_makes_files_beside_the_config_absolute(tmp_path):
    (tmp_path / "mine.json").write_text("{}")
    mine = str((tmp_path / "mine.json").resolve())
    assert rebase_spec("ppo:mine.json", tmp_path) == f"ppo:{mine}"
    assert rebase_spec("net:mine.json", tmp_path) == f"net:{mine}"
    assert (rebase_spec("mcts:iterations=8,net=mine.json,rollout=net", tmp_path)
            == f"mcts:iterations=8,net={mine},rollout=net")
    assert (rebase_spec("mcts:leaf=value,value=mine.json", tmp_path)
            == f"mcts:leaf=value,value={mine}")
    assert rebase_spec("value:mine.json,top=2", tmp_path) == f"value:{mine},top=2"
    assert (rebase_spec("value:other.json,net=mine.json", tmp_path)
            == f"value:other.json,net={mine}")
    # not beside the config: unchanged, looked up (here, then the package) when opened
    for spec in ("ppo:other.json", f"ppo:{SHIPPED_PPO}", "mcts:net={previous},rollout=net",
                 "mcts", "mcts:iterations=8", "random", "greedy", "human", "ppo:/abs/x.json"):
        assert rebase_spec(spec, tmp_path) == spec
    assert rebase_file("mine.json", tmp_path) == mine
    assert rebase_file("other.json", tmp_path) == "other.json"


def test_a_spec_names_the_shipped_agent_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = envs.make("oceanos_v0", num_players=2)
    agent = agents.make(f"ppo:{SHIPPED_PPO}", env)
    assert agent.spec == f"ppo:{SHIPPED_PPO}"  # the spec as written
    assert agent.path == PACKAGE_ROOT / SHIPPED_PPO
    agents.make(f"mcts:iterations=2,net={SHIPPED_PPO},rollout=net", env)
    with pytest.raises(ConfigError, match="does not exist .*installed package"):
        agents.make("ppo:agents/pretrained/nothing.json", env)


def test_a_shipped_tournament_config_runs_from_any_folder(tmp_path, monkeypatch):
    from otrio.benchmarks.tournament.tournament import load_config, run

    monkeypatch.chdir(tmp_path)
    # the config's own path falls back to the package too
    cfg = load_config("configs/tournament/oceanos_ppo_vs_greedy.yaml", games_per_seating=1,
                      output="out")
    # the spec is kept as written: run folders made before the rule still resume
    assert cfg.agents["ppo"] == f"ppo:{SHIPPED_PPO}"
    folder = run(cfg, progress=False)
    assert folder == Path("out") and (tmp_path / "out" / "report.md").is_file()


def test_a_shipped_config_keeps_its_identity_from_the_clone_root(monkeypatch):
    from otrio.benchmarks.tournament.tournament import load_config

    monkeypatch.chdir(ROOT)
    cfg = load_config("configs/tournament/ladder_oceanos.yaml")
    raw = yaml.safe_load((ROOT / "configs/tournament/ladder_oceanos.yaml").read_text())
    assert cfg.agents == raw["agents"]


def _beside(folder: Path) -> None:
    """A copy of the shipped Oceanos agent as ``folder/mine.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in (".json", ".safetensors"):
        shutil.copy(PRETRAINED / f"oceanos_ppo{suffix}", folder / f"oceanos_ppo{suffix}")


def test_a_users_config_names_files_beside_itself(tmp_path, monkeypatch):
    from otrio.benchmarks.balance.config import load_config as load_balance
    from otrio.benchmarks.tournament.tournament import check_before_start, load_config

    exp = tmp_path / "exp"
    _beside(exp)
    (exp / "tour.yaml").write_text(yaml.safe_dump({
        "game": "oceanos_v0", "game_config": {"num_players": 2},
        "agents": {"mine": "ppo:oceanos_ppo.json", "shipped": f"net:{SHIPPED_PPO}"},
        "lineup": ["mine", "shipped"], "games_per_seating": 1}))
    (exp / "balance.yaml").write_text(yaml.safe_dump({
        "game": "oceanos_v0", "agents": {"mine": "ppo:oceanos_ppo.json", "g": "greedy"},
        "lineup": ["mine", "g"],
        "sweeps": [{"name": "s", "setups": [{"label": "base"}]}]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    mine = f"ppo:{(exp / 'oceanos_ppo.json').resolve()}"
    cfg = load_config(exp / "tour.yaml")
    assert cfg.agents == {"mine": mine, "shipped": f"net:{SHIPPED_PPO}"}
    check_before_start(cfg)  # both agents load
    assert load_balance("../exp/balance.yaml").agents["mine"] == mine


def test_a_training_config_names_files_beside_itself(tmp_path, monkeypatch):
    from otrio.training.config import load_train_config

    exp = tmp_path / "exp"
    _beside(exp)
    mine = str((exp / "oceanos_ppo.json").resolve())
    (exp / "ppo.yaml").write_text(yaml.safe_dump({
        "game": "oceanos_v0", "init_policy": "oceanos_ppo.json",
        "eval": {"opponents": ["random", "ppo:oceanos_ppo.json", f"ppo:{SHIPPED_PPO}"]}}))
    (exp / "distill.yaml").write_text(yaml.safe_dump({
        "game": "oceanos_v0", "eval": {"opponents": ["greedy"]},
        "distill": {"rounds": [
            {"teacher": "mcts:iterations=4,net=oceanos_ppo.json,rollout=net", "games": {2: 1}},
            {"teacher": "mcts:net={previous},rollout=net", "games": {2: 1}}]}}))
    monkeypatch.chdir(tmp_path)
    cfg = load_train_config("exp/ppo.yaml")
    assert cfg.init_policy == mine
    assert cfg.eval.opponents == ["random", f"ppo:{mine}", f"ppo:{SHIPPED_PPO}"]
    teachers = [r.teacher for r in load_train_config("exp/distill.yaml").distill.rounds]
    assert teachers == [f"mcts:iterations=4,net={mine},rollout=net",
                        "mcts:net={previous},rollout=net"]
    # a shipped training config loads by its clone-root name from anywhere
    assert load_train_config("configs/train/oceanos_ppo.yaml").game == "oceanos_v0"


def test_a_missing_config_says_where_it_was_looked_for(tmp_path, monkeypatch):
    from otrio.benchmarks.tournament.tournament import load_config

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="tournament config nothing.yaml.*"
                                          "installed package"):
        load_config("nothing.yaml")
