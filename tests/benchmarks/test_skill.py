"""The luck-share measures (benchmarks/balance/luck.py) on synthetic paired-seed records with
known answers: pure luck (the winner a function of the seed), pure skill (a function
of the agents), and a planted mixture whose luck share is known."""

import numpy as np
import pytest

from otrio.arena.stats import ranks
from otrio.benchmarks.balance.luck import (
    focal_seat,
    luck_report,
    rating_spread,
    swap_changes,
    variance_parts,
)

N = 3


def record(game: int, lineup: str, seats: list[str], j: int, winner: int) -> dict:
    """Game ``j`` of a lineup: seed 1000 + j, rotation j mod 3, one winner."""
    rotation = j % N
    scores = [10 if s == winner else s for s in range(N)]
    return {"game": game, "seed": 1000 + j, "rotation": rotation, "lineup": lineup,
            "seating": seats[rotation:] + seats[:rotation], "scores": scores,
            "winners": [winner], "ranks": ranks(scores, [winner]), "truncated": False}


def games(winner_of, count: int = 300) -> list[dict]:
    """Base lineup (greedy everywhere) and the swap (strong first), ``winner_of(lineup,
    j, strong_seat)`` choosing each game's winner."""
    out = []
    lineups = {"greedy": ["greedy"] * N, "strong": ["strong"] + ["greedy"] * (N - 1)}
    for name, seats in lineups.items():
        for j in range(count):
            strong_seat = (N - j % N) % N
            out.append(record(len(out), name, seats, j, winner_of(name, j, strong_seat)))
    return out


def by_lineup(records):
    out = {}
    for r in records:
        out.setdefault(r["lineup"], []).append(r)
    return out


def test_the_focal_seat_is_where_the_lineups_first_entry_sits():
    r = record(0, "strong", ["strong", "greedy", "greedy"], 1, 0)
    assert r["seating"][focal_seat(r)] == "strong"


def test_pure_luck_changes_no_winner_and_has_no_skill():
    luck = games(lambda name, j, strong: j // N % N)  # every seat wins in every seating
    swap = swap_changes(by_lineup(luck), "greedy", "strong", resamples=200)
    assert swap["changed"] == 0
    assert swap["independent"] == pytest.approx(2 / 3, abs=0.02)
    assert swap["luck_share"] == 1 and swap["luck_low"] == 1
    parts = variance_parts(by_lineup(luck), ["greedy", "strong"], resamples=200)
    assert parts["luck"] == pytest.approx(1) and parts["skill"] == pytest.approx(0)
    assert parts["ss_luck"] == pytest.approx(1)


def test_pure_skill_changes_every_winner_and_has_no_luck():
    # greedy everywhere: seat 0 wins (the agents alone decide); the strong agent always
    # wins, and it never sits in seat 0 (rotations 1 and 2 only)
    skill = [r for r in games(lambda name, j, strong: strong if name == "strong" else 0)
             if r["rotation"] != 0]
    swap = swap_changes(by_lineup(skill), "greedy", "strong", resamples=200)
    assert swap["changed"] == 1 and swap["independent"] == 1
    assert swap["luck_share"] == pytest.approx(0, abs=1e-12)
    assert swap["gained"] == 1 and swap["lost"] == 0
    parts = variance_parts(by_lineup(skill), ["greedy", "strong"], resamples=200)
    assert parts["skill"] == pytest.approx(1) and parts["luck"] == pytest.approx(0)


def test_fresh_luck_keeps_the_seating_of_the_swap():
    """The base game's winner follows its seeds, which differ by rotation (seat 0 wins the
    seeds of rotations 0 and 1, seat 1 those of rotation 2); the strong agent always wins
    its seat. Given the seating, no seed changes any outcome, so coincidences of the
    seating are no luck: the share is 0 (pooling the seatings read 0.5)."""
    rigged = games(lambda name, j, strong: strong if name == "strong" else int(j % N == 2))
    swap = swap_changes(by_lineup(rigged), "greedy", "strong", resamples=200)
    assert swap["changed"] == pytest.approx(1 / 3)
    assert swap["independent"] == pytest.approx(1 / 3)
    assert swap["luck_share"] == pytest.approx(0, abs=1e-12)


def test_a_planted_luck_share_is_recovered():
    """Half the games are decided by the seed whatever the lineup; the other half are
    won by a fresh draw in each lineup: the luck share is about one half."""
    rng = np.random.default_rng(3)
    fixed = rng.random(2000) < 0.5
    seeded = rng.integers(N, size=2000)
    fresh = {"greedy": rng.integers(N, size=2000), "strong": rng.integers(N, size=2000)}
    mixed = games(lambda name, j, strong: int(seeded[j] if fixed[j] else fresh[name][j]),
                  count=2000)
    swap = swap_changes(by_lineup(mixed), "greedy", "strong", resamples=200)
    assert swap["luck_low"] < 0.5 < swap["luck_high"]
    assert swap["luck_high"] - swap["luck_low"] < 0.15


def test_rating_spread_is_wide_for_skill_and_narrow_for_luck():
    luck = rating_spread(games(lambda name, j, strong: j // N % N))
    skill = rating_spread(games(lambda name, j, strong: strong if name == "strong" else 0))
    assert set(skill["ratings"]) == {"greedy", "strong"}
    assert skill["ratings"]["strong"]["mu"] > skill["ratings"]["greedy"]["mu"]
    assert skill["sd"] > 5 * luck["sd"]


def test_the_report_and_its_refusals():
    report = luck_report(games(lambda name, j, strong: j % N, count=30), "greedy",
                         ["strong"], resamples=50)
    assert [s["swapped"] for s in report["swaps"]] == ["strong"]
    assert report["variance"]["score"]["seeds"] == 30
    with pytest.raises(ValueError, match="outcome"):
        variance_parts({}, ["a", "b"], outcome="rank")
    two_seats = games(lambda name, j, strong: 0, count=3)
    for r in two_seats:
        if r["lineup"] == "strong":
            r["seating"] = ["strong", "strong", "greedy"]
    with pytest.raises(ValueError, match="not one"):
        swap_changes(by_lineup(two_seats), "greedy", "strong")
