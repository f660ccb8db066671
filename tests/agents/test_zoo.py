"""The zoo (``agents/zoo.json``, ``agents/zoo.py``): every cell listed, every strength
equal to the committed runs it names, every tier resolving to an agent that plays.

A strength is recomputed from the runs' own files (:func:`measured`): the wins and games
of the named agent in each run's ``summary.json``, pooled, with the 95% Wilson interval
of ``otrio.arena.stats.wilson``; each run's ``run.json`` must play the entry's spec in
one seat and greedy in every other, at the entry's game and player count, with the
shipped files (the digests it recorded are today's). Four kinds of committed run hold
such numbers:

- a ladder (``otrio ladder ... --against greedy``): ``run.json`` has ``agents`` and a
  list of ``lineups``, the summary's ``lineups`` the agent's ``wins`` and ``entries`` in
  the lineup that seats it once among greedy (a tier written as the zoo's spec when the
  ladder started);
- a tournament (``otrio tournament``): ``run.json`` has ``agents`` and ``lineup``, the
  summary's ``leaderboard`` the agent's ``wins`` and ``entries``;
- a group of the skill-ceiling report (``otrio skill-ceiling``: the folder
  ``.../skill_ceiling/<game>_<n>p``): its ``run.json`` has ``agents`` and ``lineups``,
  the report's ``summary.json`` one folder up the group's ``shares`` (the agent's win
  share in its seat, a shared victory split, over ``n`` games: wins = share x n);
- a search benchmark (``otrio search-bench``): ``run.json`` has ``options`` and
  ``opponent``, the summary's ``budgets`` the ``wins`` and ``games`` of each budget; the
  agent is named by its budget, ``iterations=N``, and plays ``mcts:OPTIONS,iterations=N``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import otrio
from otrio import agents
from otrio.agents.search_options import parse_options
from otrio.agents.zoo import RESOLVED, TIERS, Zoo, load_zoo
from otrio.arena.stats import wilson
from otrio.envs.core.aec import live_turns

ROOT = Path(__file__).resolve().parents[2]
PRETRAINED = "agents/pretrained/"
ENV_IDS = {"oceanos": "oceanos_v0", "otys": "otys_v0", "otontin": "otontin_v0"}


def _counts(game: str) -> range:
    info = otrio.make(ENV_IDS[game]).unwrapped.game.info
    return range(info.min_players, info.max_players + 1)


CELLS = [(game, n, tier) for game in ENV_IDS for n in _counts(game) for tier in RESOLVED]


# ------------------------------------------------------------ the recomputation
@dataclass(frozen=True)
class Measured:
    """What one committed run says of one agent among greedy players."""

    wins: float  # a skill-ceiling share splits a shared victory: wins may be fractional
    games: int
    spec: str  # as the run names it, its shipped paths normalised
    env_id: str
    players: int


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(text: str) -> list[str]:
    """The files whose digest a run records for one of its specs (as
    ``otrio.arena.records.run_identity`` does): ``ppo:PATH``, ``net:PATH``,
    ``value:PATH[,...]`` (the model's manifest, not its ``net=``), and a search's
    ``net=PATH`` and ``value=PATH`` options."""
    kind, _, rest = text.partition(":")
    if kind in ("ppo", "net", "value") and rest:
        return [rest.split(",")[0]]
    options = rest if kind == "mcts" else text
    return [value for key, _, value in (p.partition("=") for p in options.split(","))
            if key in ("net", "value") and value]


def _recorded(run: dict, folder: Path) -> dict[str, str]:
    """``path -> sha256`` of the files the run recorded, each one written as a shipped
    file's path checked to be the bytes shipped today."""
    digests = {}
    for text, digest in run.get("checkpoints", {}).items():
        for path in _files(text):
            digests[path] = digest
            shipped = ROOT / PRETRAINED / Path(path).name
            if path.endswith(PRETRAINED + shipped.name) and shipped.is_file():
                assert digest == _digest(shipped), (
                    f"{folder}: measured {path} with other bytes than it ships today")
    return digests


def _shipped(path: str, digests: dict[str, str]) -> str:
    """``path`` as ``agents/pretrained/NAME`` where it names a shipped file: written from
    the repository, the results folder or a config (``.../agents/pretrained/NAME``), or
    any path whose recorded digest is that file's (a copy of its bytes)."""
    shipped = ROOT / PRETRAINED / Path(path).name
    if not shipped.is_file():
        return path
    if path.endswith(PRETRAINED + shipped.name) or digests.get(path) == _digest(shipped):
        return PRETRAINED + shipped.name
    return path


PATH_OPTION = re.compile(r"((?:^|[:,])(?:net|ppo|value)[:=])([^,]+\.json)")


def normalise(spec: str, digests: dict[str, str] | None = None) -> str:
    """``spec`` with every file it names that is a shipped one written
    ``agents/pretrained/NAME`` (``digests``: path -> sha256, as a run recorded them)."""
    return PATH_OPTION.sub(lambda m: m.group(1) + _shipped(m.group(2), digests or {}), spec)


def same_agent(a: str, b: str, game: str) -> bool:
    """Whether two specs (paths normalised) make the same agent: a search's options with
    the game's defaults filled in, other specs' options in any order."""
    kind_a, _, rest_a = a.partition(":")
    kind_b, _, rest_b = b.partition(":")
    if kind_a != kind_b:
        return False
    if kind_a == "mcts":
        return parse_options(rest_a, game) == parse_options(rest_b, game)
    head_a, *opts_a = rest_a.split(",")
    head_b, *opts_b = rest_b.split(",")
    return head_a == head_b and sorted(opts_a) == sorted(opts_b)


def _one_seat(lineup: list[str], agent: str, specs: dict[str, str], players: int,
              folder: Path) -> None:
    assert len(lineup) == players, f"{folder}: lineup {lineup} for {players} players"
    assert lineup.count(agent) == 1, f"{folder}: {agent!r} is not in one seat of {lineup}"
    others = [name for name in lineup if name != agent]
    assert all(specs.get(name) == "greedy" for name in others), (
        f"{folder}: the seats beside {agent!r} are not all greedy: {lineup}")


def measured(run: str, agent: str) -> Measured:
    """What the committed run folder ``run`` (``benchmarks/results/...``) measured of
    ``agent`` in one seat among greedy players; AssertionError where it is not such a
    run or does not hold the agent."""
    folder = ROOT / run
    assert run.startswith("benchmarks/results/") and folder.is_dir(), f"no results folder {run}"
    assert (folder / "run.json").is_file(), f"{run} keeps no run.json: what it played is unknown"
    config = _read(folder / "run.json")
    digests = _recorded(config, folder)
    env_id = config["game"]
    if isinstance(config.get("lineups"), dict):  # a skill-ceiling group: the report's numbers
        players = config["game_config"]["num_players"]
        assert agent in config["lineups"], f"{folder}: no lineup {agent!r}"
        _one_seat(config["lineups"][agent], agent, config["agents"], players, folder)
        report = _read(folder.parent / "summary.json")
        group = next((g for g in report["groups"] if g["folder"] == folder.name), None)
        assert group is not None, f"{folder}: the report's summary.json holds no such group"
        assert (group["game"], group["players"]) == (env_id, players), folder
        share = group["shares"][agent]
        spec, wins, games = config["agents"][agent], share["share"] * share["n"], share["n"]
    elif "budgets" in config:  # a search benchmark: the agent is a budget
        players = config["num_players"]
        assert config["opponent"] == "greedy", f"{folder}: the search plays {config['opponent']}"
        key, _, budget = agent.partition("=")
        assert key == "iterations" and budget.isdigit(), f"{folder}: name a budget, iterations=N"
        summary = _read(folder / "summary.json")
        assert (summary["game"], summary["num_players"]) == (env_id, players), folder
        row = next((b for b in summary["budgets"] if b["budget"] == int(budget)), None)
        assert row is not None, f"{folder}: no budget of {budget} iterations"
        spec = f"mcts:{config['options']},iterations={budget}".replace(":,", ":")
        wins, games = row["wins"], row["games"]
    elif config.get("lineups"):  # a ladder: the agent's lineup among greedy, by its index
        players = config["game_config"]["num_players"]
        k = next((k for k, lineup in enumerate(config["lineups"]) if agent in lineup), None)
        assert k is not None, f"{folder}: no lineup plays {agent!r}"
        _one_seat(config["lineups"][k], agent, config["agents"], players, folder)
        summary = _read(folder / "summary.json")
        assert summary["num_players"] == players, folder
        row = next((r for r in summary["lineups"] if r["lineup"] == k), None)
        assert row is not None, f"{folder}: the summary holds no lineup {k}"
        share = row["agents"][agent]
        assert share["entries"] == row["games"], f"{folder}: {agent!r} is not in every game once"
        spec, wins, games = config["agents"][agent], share["wins"], share["entries"]
    else:  # a tournament
        players = config["game_config"]["num_players"]
        _one_seat(config["lineup"], agent, config["agents"], players, folder)
        summary = _read(folder / "summary.json")
        assert summary["num_players"] == players, folder
        row = next((r for r in summary["leaderboard"] if r["agent"] == agent), None)
        assert row is not None, f"{folder}: {agent!r} is not on the leaderboard"
        assert row["entries"] == summary["games"], f"{folder}: {agent!r} is not in every game once"
        spec, wins, games = config["agents"][agent], row["wins"], row["entries"]
    return Measured(wins, games, normalise(spec, digests), env_id, players)


def recompute(entry) -> tuple[float, float, float, int]:
    """``(share, low, high, games)`` of a zoo entry's player, pooled over its runs, each
    checked to play the entry's spec among greedy at the entry's game and count."""
    wins, games = 0.0, 0
    runs = [(e.run, e.agent) for e in entry.strength.runs]
    assert len(set(runs)) == len(runs), f"{entry.game} {entry.players}p {entry.tier}: a run twice"
    for evidence in entry.strength.runs:
        m = measured(evidence.run, evidence.agent)
        where = f"{entry.game} {entry.players}p {entry.tier}: {evidence.run}"
        assert (m.env_id, m.players) == (ENV_IDS[entry.game], entry.players), (
            f"{where} is {m.env_id} at {m.players} players")
        assert same_agent(m.spec, normalise(entry.spec), entry.game), (
            f"{where} plays {m.spec!r}, not {entry.spec!r}")
        wins, games = wins + m.wins, games + m.games
    low, high = wilson(wins, games)
    return wins / games, low, high, games


def check_strength(entry) -> None:
    """AssertionError unless the entry's stated strength is its runs' (3 decimals)."""
    share, low, high, games = recompute(entry)
    s = entry.strength
    stated = (round(s.share, 3), round(s.low, 3), round(s.high, 3), s.games)
    assert stated == (round(share, 3), round(low, 3), round(high, 3), games), (
        f"{entry.game} {entry.players}p {entry.tier}: the zoo says {stated}, its runs "
        f"{(round(share, 3), round(low, 3), round(high, 3), games)}")


# ------------------------------------------------------------------- the tests
ZOO = load_zoo()
PLAYERS = [e for e in ZOO.entries if e.spec is not None]


def test_the_shipped_zoo_lists_every_cell_once():
    listed = {(e.game, e.players, e.tier) for e in ZOO.entries}
    assert listed == set(CELLS), (f"missing {sorted(set(CELLS) - listed)}, "
                                  f"beyond the games' counts {sorted(listed - set(CELLS))}")


@pytest.mark.parametrize("entry", PLAYERS, ids=lambda e: f"{e.game}-{e.players}p-{e.tier}")
def test_every_strength_is_its_runs(entry):
    check_strength(entry)


def test_a_tier_below_says_why_and_where():
    for e in ZOO.entries:
        if e.spec is None:
            assert e.why and "\n" not in e.why, f"{e.game} {e.players}p {e.tier}: no why"
            assert ".md" in e.why or "benchmarks/results/" in e.why, (
                f"{e.game} {e.players}p {e.tier}: its why names no place: {e.why}")
            assert e.ms is None and e.strength is None


def _share_of(zoo: Zoo, game: str, n: int, tier: str) -> float:
    """The share of the player ``tier`` resolves to (greedy: the fair share)."""
    spec, _ = zoo.resolve(tier, game, n)
    if spec == "greedy":
        return 1 / n
    return next(e.strength.share for e in zoo.entries
                if (e.game, e.players) == (game, n) and e.spec == spec)


def test_each_tier_with_a_player_is_stronger_than_the_tier_below():
    for e in PLAYERS:
        below = TIERS[TIERS.index(e.tier) - 1]
        assert e.strength.share > _share_of(ZOO, e.game, e.players, below), (
            f"{e.game} {e.players}p: {e.tier} is no stronger than {below}")


# the Oceanos network was trained at 2 players and measured at every count: it says so
@pytest.mark.filterwarnings("ignore:network .* was trained at:UserWarning")
@pytest.mark.parametrize("game", list(ENV_IDS))
def test_every_tier_resolves_to_an_agent_that_decides(game):
    for n in _counts(game):
        env = otrio.make(ENV_IDS[game], num_players=n)
        for tier in RESOLVED:
            spec, note = ZOO.resolve(tier, game, n)
            entry = ZOO.entry(game, n, tier)
            if entry.spec is None:
                assert entry.why in note, f"{game} {n}p {tier}: the note leaves out why"
            else:
                assert (spec, note) == (entry.spec, "")
            agents.make(spec, env)
            if tier == "fast":
                continue  # played whole below
            env.reset(seed=n)
            agent = agents.make(tier, env)
            assert agent.resolved == spec
            agent.reset(seed=0)
            obs, *_ = env.last()
            assert obs["action_mask"][agent.act(obs)] == 1


@pytest.mark.parametrize("game", list(ENV_IDS))
def test_fast_plays_a_whole_game_at_the_fewest_players(game):
    n = _counts(game).start
    env = otrio.make(ENV_IDS[game], num_players=n)
    players = [agents.make("fast", env) for _ in range(n)]
    for seat, p in enumerate(players):
        p.reset(seed=seat)
    env.reset(seed=1)
    seat_of = {a: k for k, a in enumerate(env.possible_agents)}
    for name, obs in live_turns(env):
        action = players[seat_of[name]].act(obs)
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.state_.winners()


def test_a_wrong_share_is_caught(tmp_path):
    raw = json.loads((ROOT / "agents/zoo.json").read_text(encoding="utf-8"))
    entry = next(e for e in raw["entries"] if e.get("spec"))
    entry["strength"]["share"] = round(entry["strength"]["share"] + 0.01, 3)
    path = tmp_path / "zoo.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    wrong = next(e for e in load_zoo(path).entries if e.spec)
    with pytest.raises(AssertionError, match="the zoo says"):
        check_strength(wrong)


def test_a_run_of_another_player_or_lineup_is_refused():
    entry = next(e for e in PLAYERS if e.game == "otys" and e.tier == "fast" and e.players == 2)
    other = entry.model_copy(update={"spec": "value:agents/pretrained/otys_value.json"})
    with pytest.raises(AssertionError, match="plays"):
        recompute(other)
    with pytest.raises(AssertionError, match="one seat"):  # greedy in every seat
        measured("benchmarks/results/balance/skill_ceiling/otys_2p", "greedy")
    with pytest.raises(AssertionError, match="run.json"):  # a ladder: no record of its specs
        measured("benchmarks/results/tournament/ladder_otys", "mcts")


def test_the_agent_table_fits_a_laptop_window():
    """docs/agents.md's zoo table: one short line a cell, every row's text within what a
    1,300-pixel window shows beside the site's navigation (~130 characters)."""
    import re
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    html = hooks.d_zoo("", None)
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    assert len(rows) >= 3 + 12  # a header a game, a row a player count
    for row in rows:
        cells = [" ".join(re.sub(r"<[^>]+>", " ", c).split())
                 for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
        assert len(cells) == 4, cells
        assert all(len(c) <= 45 for c in cells), cells
        assert sum(len(c) for c in cells) <= 130, cells
