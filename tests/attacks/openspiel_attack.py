"""An attack pass on the OpenSpiel games' serialization: mutated strings handed to
``game.deserialize_state`` and to ``pyspiel.deserialize_game_and_state``.

    python tests/attacks/openspiel_attack.py [--strings 2000] [--seed 0]

For each game, ``--strings`` serialized states (seeded random games at every player
count, cut at random points) are broken by :func:`otrio.envs.core.testing.mutate_text` and
read back, half as a state string, half as a whole game-and-state text. Each outcome
is counted: the one error (``StateStringError``); OpenSpiel's own error where a
mutation took every otrio game's name out of a whole text (OpenSpiel reads those
itself); any other exception by its type (each a bug: the reader promises one
error); or a valid state (a mutation the checks
cannot tell from a real state, such as a changed generator word), which is then played
to its end to show it is a working state. A file planted by a pickle would be found in
the scratch folder the pass runs in. Prints one JSON line per game.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import tempfile
import time

import numpy as np
import pyspiel

from otrio.envs.core.testing import mutate_text
from otrio.integrations import openspiel


def samples(env_id: str, count: int, rng: np.random.Generator) -> list:
    """``count`` (game, state) pairs of seeded random games of ``env_id``, every player
    count, each cut at a random decision (its start and its end included)."""
    info = openspiel.SPECS[env_id].game.info
    out = []
    while len(out) < count:
        for players in range(info.min_players, info.max_players + 1):
            game = openspiel.load(env_id, players=players, seed=int(rng.integers(2**31)))
            state = game.new_initial_state()
            cuts = {0, *rng.integers(0, 400, size=6).tolist(), 10**9}
            taken = 0
            while True:
                if taken in cuts or state.is_terminal():
                    out.append((game, state.clone()))
                if state.is_terminal():
                    break
                state.apply_action(int(rng.choice(state.legal_actions())))
                taken += 1
    return [out[i] for i in rng.permutation(len(out))[:count]]


def attack(env_id: str, strings: int, seed: int) -> dict:
    """Outcomes of ``strings`` mutated serializations of ``env_id`` (see the docstring)."""
    rng = np.random.default_rng(seed)
    outcomes: collections.Counter = collections.Counter()
    examples: dict[str, str] = {}
    start = time.perf_counter()
    for i, (game, state) in enumerate(samples(env_id, strings, rng)):
        whole = i % 2 == 1
        text = (pyspiel.serialize_game_and_state(game, state) if whole
                else state.serialize())
        broken = mutate_text(text, rng)
        try:
            if whole:
                _, got = pyspiel.deserialize_game_and_state(broken)
            else:
                got = game.deserialize_state(broken)
        except openspiel.StateStringError as err:
            outcomes["StateStringError"] += 1
            if "\n" in str(err) or len(str(err)) > 300:
                outcomes["StateStringError over one line"] += 1
            continue
        except Exception as err:  # noqa: BLE001 -- counted: every other type is a bug
            kind = type(err).__name__
            if whole and not openspiel._names_otrio_game(broken):
                kind = f"names no otrio game: OpenSpiel's own {kind}"
            outcomes[kind] += 1
            examples.setdefault(kind, f"{err}"[:200])
            continue
        try:  # accepted: it must be a working state
            play = np.random.default_rng(i)
            while not got.is_terminal():
                got.apply_action(int(play.choice(got.legal_actions())))
            got.returns()
            outcomes["valid state"] += 1
        except Exception as err:  # noqa: BLE001 -- counted: an accepted state that breaks
            kind = f"accepted, then {type(err).__name__}"
            outcomes[kind] += 1
            examples.setdefault(kind, f"{err}"[:200])
    return {"env_id": env_id, "strings": strings, "outcomes": dict(outcomes),
            "examples": examples, "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the pass on every game; print and return one result per game."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strings", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = []
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # a payload writing a relative path would write here
        try:
            for env_id in openspiel.SPECS:
                result = attack(env_id, args.strings, args.seed)
                result["files_written"] = sorted(os.listdir(scratch))
                print(json.dumps(result), flush=True)
                results.append(result)
        finally:
            os.chdir(here)
    return results


if __name__ == "__main__":
    main()
