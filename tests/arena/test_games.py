"""How games are handed to workers: a few quick games at a time, one at a time where a
search plays (its games take minutes; handed out 15 at a time, a run's first record came
after 15 of them and a stop lost up to 15 finished games a worker)."""

from __future__ import annotations

from otrio.arena import games as play
from otrio.arena.play import GameTask


def _task(game: int, seating: tuple[str, ...], specs: dict[str, str]) -> GameTask:
    return GameTask(game=game, env_id="otys_v0", config={"num_players": len(seating)},
                    seating=seating, specs=specs, seed=game)


def _chunks(monkeypatch, tasks) -> list:
    seen = []

    def fake(fn, todo, workers, backend, ray_address, chunksize=None):
        seen.append(chunksize)
        return iter(())

    monkeypatch.setattr(play, "run_ordered", fake)
    list(play.run_tasks(tasks, workers=2))
    return seen


def test_quick_games_go_out_a_few_at_a_time(monkeypatch):
    specs = {"greedy": "greedy", "net": "net:agents/pretrained/oceanos_net.json"}
    tasks = [_task(k, ("greedy", "net"), specs) for k in range(40)]
    assert not play.seats_search(tasks)
    assert _chunks(monkeypatch, tasks) == [None]  # run_ordered's default for short tasks


def test_a_search_at_any_seat_gets_its_games_out_one_at_a_time(monkeypatch):
    specs = {"greedy": "greedy", "vsearch": "mcts:iterations=48,leaf=value"}
    quick = [_task(k, ("greedy", "greedy"), specs) for k in range(40)]
    tasks = quick + [_task(40, ("vsearch", "greedy"), specs)]
    assert play.seats_search(tasks)
    assert not play.seats_search(quick)  # an agent named in specs but seated nowhere
    assert _chunks(monkeypatch, tasks) == [1]
    # a seat named by its spec itself (a lineup entry that names no agent)
    bare = [_task(0, ("greedy", "mcts:iterations=8"), {"greedy": "greedy"})]
    assert play.seats_search(bare)
