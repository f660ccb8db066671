"""A game's AEC steps/s as a ratio to connect_four_v3, in short alternating chunks.

``otrio bench`` takes each ratio against the reference measured either side of a whole
setup (a second or more); on a shared host whose speed drifts within seconds that
leaves a wide spread between rounds. Here the two alternate every few hundredths of a
second, in one process, so a drift moves both sides of every block's ratio alike::

    python tools/interleaved_ratio.py oceanos_v0 5 --blocks 8

Each block is ``--pairs`` pairs of a chunk of the game (``--chunk`` steps, whole games)
and a chunk of the reference (a third as many steps, as each of its steps costs about
three of the games'); a block's ratio is its game steps/s over its reference steps/s.
Prints every block and the median.
"""

from __future__ import annotations

import argparse
import statistics

from otrio import envs
from otrio.benchmarks.speed.throughput import aec_random_play, connect_four_fn

WARM_UP_STEPS = 2_000
REFERENCE_SHARE = 3  # reference steps per chunk = game steps // this


def block_ratio(game_fn, reference_fn, chunk: int, pairs: int, seed: int) -> tuple[float, float, float]:
    """(reference steps/s, game steps/s, ratio) over ``pairs`` alternating chunk pairs."""
    time = {"game": 0.0, "reference": 0.0}
    steps = {"game": 0, "reference": 0}
    for pair in range(pairs):
        for name, fn, n in (("reference", reference_fn, max(chunk // REFERENCE_SHARE, 1)),
                            ("game", game_fn, chunk)):
            result = aec_random_play(fn, n, seed=seed + pair)
            time[name] += result["seconds"]
            steps[name] += result["steps"]
    reference, game = steps["reference"] / time["reference"], steps["game"] / time["game"]
    return reference, game, game / reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("players", type=int)
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=10, help="chunk pairs in a block")
    parser.add_argument("--chunk", type=int, default=2_000, help="game steps in a chunk")
    args = parser.parse_args()
    if min(args.blocks, args.pairs, args.chunk) < 1:
        parser.error("--blocks, --pairs and --chunk must be at least 1")

    def game_fn():
        return envs.make(args.env_id, num_players=args.players)

    reference_fn = connect_four_fn()
    aec_random_play(reference_fn, WARM_UP_STEPS)
    aec_random_play(game_fn, WARM_UP_STEPS)
    ratios = []
    for block in range(args.blocks):
        reference, game, ratio = block_ratio(game_fn, reference_fn, args.chunk, args.pairs,
                                             seed=block * args.pairs)
        ratios.append(ratio)
        print(f"block {block}: reference {reference:,.0f} steps/s, {args.env_id} "
              f"{game:,.0f} steps/s, ratio {ratio:.3f}", flush=True)
    print(f"{args.env_id} {args.players}p: median ratio {statistics.median(ratios):.3f} "
          f"over {args.blocks} blocks")


if __name__ == "__main__":
    main()
