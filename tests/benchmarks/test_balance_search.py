"""The setup search: optimisers find a planted optimum within a small budget (a cheap
fake evaluator), and the real search (tiny) is resumable, the same on 1 and 2 workers
and on Ray, confirms on fresh seeds registered in advance, and refuses bad configs."""

import json
import random
from pathlib import Path

import pytest

import otrio.benchmarks.balance.search as balance_search
from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.balance.config import BalanceConfig, load_config
from otrio.benchmarks.balance.optimise import make_optimiser, pick, search_loop
from otrio.benchmarks.balance.search import (
    PREREGISTRATION_FILE,
    make_plan,
    objective_of_means,
    run,
    seed_of,
)
from otrio.cli import main
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.rng import derive_seed

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "balance"


# ---------------------------------------------------------------- planted landscapes
def planted(optimum, noise, salt):
    """A noisy landscape: the objective is the L1 distance to ``optimum`` in level steps
    plus Gaussian noise drawn from the trial's number (a fresh draw per evaluation)."""
    def evaluate(numbers, points):
        return [sum(abs(a - b) for a, b in zip(p, optimum))
                + random.Random(derive_seed(salt, n)).gauss(0, noise)
                for n, p in zip(numbers, points)]
    return evaluate


@pytest.mark.parametrize("optimizer", ["ntbea", "tpe"])
@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_search_finds_a_planted_optimum_within_a_small_budget(optimizer, batch, seed):
    levels, optimum = (4, 4, 4), (2, 0, 3)  # 64 setups, 30 trials (+ 3 finalists)
    opt = make_optimiser(optimizer, levels, seed, batch=batch)
    trials = search_loop(opt, 30, batch, planted(optimum, 0.5, seed))
    winner, finalists, values = pick(opt, trials, 3, planted(optimum, 0.5, seed + 100))
    assert winner == optimum
    assert len(finalists) == 3 and len(values) == 3
    assert len({t.number for t in trials}) == 30


def test_an_optimiser_proposes_the_same_points_when_told_the_same_values():
    for name in ("ntbea", "tpe", "random"):
        runs = []
        for _ in range(2):
            opt = make_optimiser(name, (3, 2, 5), 7, batch=2)
            runs.append(search_loop(opt, 10, 2, planted((1, 1, 4), 0.3, 9)))
        assert runs[0] == runs[1], name


# ---------------------------------------------------------------- real (tiny) searches
def search_config(tmp_path, name="s", **search) -> BalanceConfig:
    spec = {"space": [{"name": "small", "path": "kraken.values.0", "values": [0, -1, -2]},
                      {"name": "big", "path": "kraken.values.2", "values": [-2, -4]}],
            "default": {"kraken": {"mode": "random", "values": None}},
            "default_label": "rulebook", "objective": {"depth_weight": 0.2},
            "trials": 3, "batch": 2, "games_per_trial": 3, "finalists": 2,
            "finalist_games": 3, "confirm_games": 6, "bootstrap": 200}
    spec.update(search)
    return BalanceConfig(
        game="oceanos_v0",
        game_config={"num_players": 3, "kraken": {"mode": "fixed", "values": [0, -1, -2]}},
        tiers=["random", "greedy"], seed=4, search=spec, output=str(tmp_path / name))


def strip(records):
    return [{k: v for k, v in r.items() if k != "wall_time"} for r in records]


OUTPUTS = ("summary.json", "trace.csv", PREREGISTRATION_FILE)


def same_search(a: Path, b: Path) -> None:
    assert strip(read_records(a / RECORDS_FILE)) == strip(read_records(b / RECORDS_FILE))
    for name in OUTPUTS:
        assert (a / name).read_text() == (b / name).read_text(), name


def test_a_search_plays_its_phases_and_writes_its_report(tmp_path, monkeypatch):
    registered = []
    real = balance_search.run_tasks

    def watch(tasks, *args):  # the registration exists before any confirmation game
        if any(t.tags["phase"] == "confirm" for t in tasks):
            registered.append((tmp_path / "s" / PREREGISTRATION_FILE).exists())
        yield from real(tasks, *args)

    monkeypatch.setattr(balance_search, "run_tasks", watch)
    folder = run(search_config(tmp_path), progress=False)
    assert folder == tmp_path / "s" and registered == [True]
    with_sweeps = search_config(tmp_path).model_copy(update={"sweeps": [
        {"name": "k", "setups": [{"label": "x"}]}]})
    assert balance_search.search_folder(with_sweeps) == tmp_path / "s_search"
    records = read_records(folder / RECORDS_FILE)
    plan = make_plan(search_config(tmp_path))
    assert len(records) == plan.total == (3 * 3 + 2 * 3 + 2 * 6) * 3
    assert {r["lineup"] for r in records} == {"random", "greedy", "greedy among random"}
    seeds = {p: {r["seed"] for r in records if r["phase"] == p} for p in
             ("search", "final", "confirm")}
    assert not seeds["confirm"] & (seeds["search"] | seeds["final"])  # fresh seeds
    assert seeds["confirm"] == {seed_of(plan, "confirm", 0, j) for j in range(6)}
    summary = json.loads((folder / "summary.json").read_text())
    prereg = json.loads((folder / PREREGISTRATION_FILE).read_text())
    assert prereg["winner"]["label"] == summary["winner"]["label"]
    assert prereg["default"]["config"] == {"num_players": 3, "kraken": {"mode": "random"}}
    report = (folder / "report.md").read_text()
    for text in ("## Verdict", "## Pre-registered confirmation", "## Search",
                 "default `rulebook`", "greedy among random (the lone seat)"):
        assert text in report, text
    for name in ("trace.png", "confirm.png", "trace.csv", "run.json", "timing.jsonl"):
        assert (folder / name).exists(), name
    assert not list(folder.glob(".*.tmp"))


def test_a_search_resumes_exactly_and_one_and_two_workers_agree(tmp_path):
    full = run(search_config(tmp_path, "full"), progress=False)
    two = run(search_config(tmp_path, "two").model_copy(update={"workers": 2}), progress=False)
    same_search(full, two)
    cfg = search_config(tmp_path, "part")
    part = Path(cfg.output)
    part.mkdir()
    (part / "run.json").write_text((full / "run.json").read_text())
    lines = (full / RECORDS_FILE).read_text().splitlines(keepends=True)
    (part / RECORDS_FILE).write_text("".join(lines[:20]) + lines[20][:50])  # mid-search
    run(cfg, progress=False)
    same_search(full, part)


def test_a_changed_or_tampered_search_is_refused(tmp_path):
    folder = run(search_config(tmp_path), progress=False)
    with pytest.raises(ConfigError, match="differs in: search"):
        run(search_config(tmp_path, optimizer="random"), progress=False)
    prereg = folder / PREREGISTRATION_FILE
    saved = prereg.read_text()
    prereg.write_text(saved.replace('"alpha": 0.05', '"alpha": 0.5'))
    with pytest.raises(StateError, match="registered another confirmation"):
        run(search_config(tmp_path), progress=False)
    prereg.write_text(saved)
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    assert first["phase"] == "search"
    label = first["setup"]
    other = "0 -4" if label != "0 -4" else "-1 -4"
    lines[0] = json.dumps({**first, "setup": other}, sort_keys=True) + "\n"
    (folder / RECORDS_FILE).write_text("".join(lines))
    before = (folder / RECORDS_FILE).read_bytes()
    for verify in ("all", "none"):  # its replay is sound: the label alone was edited
        with pytest.raises(StateError, match=rf"{RECORDS_FILE} line 1: the record of game "
                                             rf"{first['game']} is tampered or inconsistent "
                                             rf"with this search: its 'setup' is \"{other}\" "
                                             rf"where the search plays \"{label}\", yet its "
                                             "replay config is that of the game the search "
                                             "plays: the record contradicts itself"):
            run(search_config(tmp_path), progress=False, verify=verify)
    assert (folder / RECORDS_FILE).read_bytes() == before


def _won_by_another_seat(line: str) -> str:
    """A confirmation record turned self-consistently: another seat wins, with the top
    score, and the ranks follow (only a replay tells)."""
    from otrio.arena.stats import ranks

    record = json.loads(line)
    seat = (record["winners"][0] + 1) % len(record["seating"]) if record["winners"] else 0
    record["winners"] = [seat]
    record["scores"][seat] = max(record["scores"]) + 1
    record["ranks"] = ranks(record["scores"], record["winners"])
    return json.dumps(record, sort_keys=True) + "\n"


def test_tampered_confirmation_records_are_refused_by_default(tmp_path):
    """Issue 38, point 4: three edited confirmation records changed the pre-registered
    test under the old default (a sample re-played); every record is re-played now."""
    folder = run(search_config(tmp_path), progress=False)
    honest = json.loads((folder / "summary.json").read_text())["confirm"]
    lines = (folder / RECORDS_FILE).read_text().splitlines(keepends=True)
    confirm = [k for k, line in enumerate(lines) if json.loads(line)["phase"] == "confirm"]
    edited = confirm[:3]
    for k in edited:
        lines[k] = _won_by_another_seat(lines[k])
    (folder / RECORDS_FILE).write_text("".join(lines))
    before = (folder / RECORDS_FILE).read_bytes()
    with pytest.raises(StateError, match=rf"{RECORDS_FILE} line {edited[0] + 1}: its replay "
                                         r"does not match.*\(2 more bad lines: "
                                         rf"{edited[1] + 1}, {edited[2] + 1}\)"):
        run(search_config(tmp_path), progress=False)
    assert (folder / RECORDS_FILE).read_bytes() == before
    run(search_config(tmp_path), progress=False, verify="none")  # what the attack did
    assert json.loads((folder / "summary.json").read_text())["confirm"] != honest


def test_a_search_on_ray_gives_the_same_result(tmp_path):
    import ray  # in the dev extra: the test starts a local Ray instance

    assert not ray.is_initialized()
    small = {"trials": 2, "finalists": 1, "confirm_games": 3}
    local = run(search_config(tmp_path, "local", **small), progress=False)
    remote = run(search_config(tmp_path, "ray", **small).model_copy(
        update={"backend": "ray", "workers": 2}), progress=False)
    same_search(local, remote)


def test_the_objective_judges_every_seat_and_rewards_depth(tmp_path):
    import numpy as np

    plan = make_plan(search_config(tmp_path))
    fair = {"random": np.array([1 / 3] * 3), "greedy": np.array([0.38, 0.31, 0.31]),
            "greedy among random": np.array([0.9])}
    parts = objective_of_means(fair, plan, tolerance=0.01, depth_weight=0.2)
    assert parts["deviation"] == pytest.approx(0.38 - 1 / 3)
    edge = (0.9 - 1 / 3) / (2 / 3)
    assert parts["value"] == pytest.approx(100 * (0.38 - 1 / 3 - 0.01) - 0.2 * 100 * edge)


def test_the_cli_runs_a_search_section(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        "game: otys_v0\ngame_config: {num_players: 2}\nlineup: [g]\nagents: {g: random}\n"
        "fill_lineup: true\nsearch:\n  space:\n"
        "    - {name: tile1, path: sponsors.sides.0, values: [basic, advanced]}\n"
        "  game_config: {sponsors: {order: [1, 2, 3, 4, 5], sides: [basic, basic, basic,"
        " basic, basic]}}\n"
        "  trials: 2\n  games_per_trial: 2\n  finalists: 0\n  confirm_games: 2\n"
        "  bootstrap: 100\n")
    out = tmp_path / "found"
    assert main(["balance", str(path), "--search", "--output", str(out), "--quiet"]) == 0
    assert f"report: {out / 'report.md'}" in capsys.readouterr().out
    assert len(read_records(out / RECORDS_FILE)) == (2 * 2 + 2 * 2)
    assert main(["balance", str(path), "--quiet"]) == 2  # no sweeps to run without --search
    assert "has no sweeps: run its search: section with --search" in capsys.readouterr().err


def test_shipped_search_sections_plan_their_spaces():
    kraken = make_plan(load_config(CONFIGS / "oceanos_kraken_tiers.yaml"))
    assert kraken.levels == [3, 3, 3, 2] and kraken.default.config["kraken"] == {
        "mode": "random"}
    assert [n for n, _ in kraken.lineups] == ["greedy", "mcts16", "mcts16 among greedy"]
    otys = make_plan(load_config(CONFIGS / "otys_sponsors_tiers.yaml"))
    assert otys.levels == [2, 2, 2, 2, 2, 120] and otys.default.config == {"num_players": 3}
    demo = load_config(CONFIGS / "search_demo.yaml")
    assert make_plan(demo).total == 15900 and not demo.sweeps


@pytest.mark.parametrize("change, message", [
    ({"tiers": ["random", "greedy"], "search": {"space": [
        {"name": "x", "path": "num_players", "values": [3, 4]}]}}, "keeps the player count"),
    ({"search": {"space": [{"name": "x", "path": "kraken.values.0", "values": [0, -3]}]}},
     "search setup 'x=-3'.*-3 is not a small token"),
    ({"search": {"space": [{"name": "x", "path": "troubled_waters", "values": [False]}],
                 "tiers": ["mcts"]}}, r"search.tiers \['mcts'\] are not among the tiers"),
    ({"tiers": ["greedy"], "search": {"space": [
        {"name": "x", "path": "troubled_waters", "values": [False]}],
        "objective": {"depth_weight": 1}}}, "depth_weight needs two tiers"),
    ({"search": {"space": [{"name": "x", "path": "troubled_waters", "values": [False]}],
                 "optimizer": "bayes"}}, "optimizer"),
    ({"search": {"space": []}}, "search.space"),
])
def test_bad_search_configs_are_one_line_errors(tmp_path, change, message):
    from otrio.envs.core.config import validate

    base = dict(game="oceanos_v0",
                game_config={"num_players": 3, "kraken": {"mode": "fixed", "values": [0, -1, -2]}},
                tiers=["random", "greedy"], output=str(tmp_path / "s"))
    base.update(change)
    with pytest.raises(ConfigError, match=message) as err:
        make_plan(validate(BalanceConfig, base))
    assert "\n" not in str(err.value)


def test_search_without_a_search_section_is_an_error(tmp_path, capsys):
    path = tmp_path / "b.yaml"
    path.write_text("game: oceanos_v0\nagents: {r: random}\nlineup: [r, r]\n"
                    "game_config: {num_players: 2}\nsweeps: [{name: a, setups: [{label: x}]}]\n")
    assert main(["balance", str(path), "--search", "--quiet"]) == 2
    assert "has no search: section" in capsys.readouterr().err
