"""How much work one AEC random-play step is: bytecodes by function, or a loop to count
machine instructions under cachegrind.

``--opcodes`` traces every bytecode (``sys.settrace``) over the bench's loop
(``otrio.benchmarks.speed.throughput.aec_random_play``) and prints the bytecodes a step, in all and
for the busiest functions. Without it the loop just runs ``--steps`` steps and prints
them, for an instruction count that cancels start-up: run it under cachegrind twice and
divide the difference of the two ``I refs`` by the difference of the steps::

    python tools/step_work.py oceanos_v0 5 --steps 20000 --opcodes
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python tools/step_work.py oceanos_v0 5 --steps 1000     # and --steps 5000

``connect_four`` as the env id measures the bench's reference.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from otrio import envs
from otrio.benchmarks.speed.throughput import aec_random_play, connect_four_fn

WARM_UP_STEPS = 500
SHOWN = 15  # functions listed with --opcodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id", help="an otrio env id, or connect_four")
    parser.add_argument("players", type=int)
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--opcodes", action="store_true", help="count bytecodes by function")
    args = parser.parse_args()
    if args.env_id == "connect_four":
        env_fn = connect_four_fn()
    else:
        def env_fn():
            return envs.make(args.env_id, num_players=args.players)
    if not args.opcodes:
        print("STEPS", aec_random_play(env_fn, args.steps)["steps"])
        return
    counts: Counter = Counter()

    def tracer(frame, event, _arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            counts["/".join(code.co_filename.split("/")[-2:]), code.co_name] += 1
        return tracer

    aec_random_play(env_fn, WARM_UP_STEPS)
    sys.settrace(tracer)
    steps = aec_random_play(env_fn, args.steps)["steps"]
    sys.settrace(None)
    print(f"{args.env_id}: {sum(counts.values()) / steps:,.0f} bytecodes a step")
    for (file, name), count in counts.most_common(SHOWN):
        print(f"{count / steps:8.1f}  {file} {name}")


if __name__ == "__main__":
    main()
