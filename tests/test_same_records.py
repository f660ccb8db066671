"""The same seeded tournament and balance sweep give the same records, game for game, as
they did before the run machinery moved out of ``otrio.agents`` (issue 53): every agent
kind the suite ships (random, greedy, the search, a value agent, a network) plays, and the
records' digest (wall times left out: they are measured, not decided) is the one the code
before the move wrote. A change that moves a decision, a seed or a record field fails
here; one that only moves code does not."""

from __future__ import annotations

import hashlib
import json

import pytest

from otrio.arena.records import RECORDS_FILE, read_records
from otrio.benchmarks.balance.config import BalanceConfig
from otrio.benchmarks.balance.sweep import run as run_sweep
from otrio.benchmarks.tournament.tournament import TournamentConfig
from otrio.benchmarks.tournament.tournament import run as run_tournament

VALUE_2P = ("value:agents/pretrained/oceanos_value_2p.json,"
            "net=agents/pretrained/oceanos_net.json,margin=0.03,depth=2")
TOURNAMENTS = {
    "otys_3p": dict(game="otys_v0", game_config={"num_players": 3},
                    agents={"greedy": "greedy", "value": "value:agents/pretrained/otys_value_mlp.json",
                            "mcts": "mcts:iterations=4"},
                    lineup=["greedy", "value", "mcts"]),
    "oceanos_2p": dict(game="oceanos_v0", game_config={"num_players": 2},
                       agents={"net": "net:agents/pretrained/oceanos_net.json", "value": VALUE_2P},
                       lineup=["net", "value"]),
    "otontin_3p": dict(game="otontin_v0", game_config={"num_players": 3},
                       agents={"greedy": "greedy", "random": "random", "mcts": "mcts:iterations=4"},
                       lineup=["greedy", "random", "mcts"]),
}
# sha256 of the records (sorted keys, wall_time left out), written by the code before the move
DIGESTS = {
    "otys_3p": "4f23b6b62cbc14701b6273b94bd45190256f6db0b721a0b63d458c2bf2921f9c",
    "oceanos_2p": "8e2af3819fe2b7e9be988712fefe5d5661f0dc2658d3a3e3ec5a4bc8851a385b",
    "otontin_3p": "8f0b4f87c27b2f73ee9870238a65c9ffa6e9f77a122abb2d1ccba0953f444c12",
    "sweep": "a2b9b8ffd9d90f86c11e799e862d968997d0cad4fb465dcf751242b55a78d8cc",
}


def _digest(folder) -> str:
    records = [{k: v for k, v in r.items() if k != "wall_time"}
               for r in read_records(folder / RECORDS_FILE)]
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(TOURNAMENTS))
def test_a_seeded_tournament_writes_the_records_it_wrote_before_the_move(tmp_path, name):
    config = TournamentConfig(**TOURNAMENTS[name], games_per_seating=1, seed=53,
                              output=str(tmp_path / name))
    assert _digest(run_tournament(config, progress=False)) == DIGESTS[name]


def test_a_seeded_balance_sweep_writes_the_records_it_wrote_before_the_move(tmp_path):
    config = BalanceConfig(
        game="oceanos_v0", game_config={"num_players": 3, "kraken": {"mode": "fixed"}},
        agents={"greedy": "greedy", "random": "random"}, lineup=["greedy", "random", "random"],
        games_per_setup=3, seed=53, output=str(tmp_path / "sweep"),
        sweeps=[{"name": "kraken", "factors": [
            {"name": "small", "path": "kraken.values.0", "values": [0, -2]},
            {"name": "medium", "path": "kraken.values.1", "values": [-1]},
            {"name": "big", "path": "kraken.values.2", "values": [-2, -4]}]}])
    assert _digest(run_sweep(config, progress=False)) == DIGESTS["sweep"]
