"""The decisions an Otys turn is made of (``State.phase`` names the pending one).

A turn runs ``KEY`` -> ``STEP1`` -> ``STEP2``; the other phases are sub-decisions that
return to the step menu they came from (``State.resume_phase``). ``NONE`` is the phase of
a finished game. The observation one-hot encodes the ``NUM_PHASES`` decision phases.
"""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """A pending decision; the values are the saved and observed numbers."""

    NONE = -1  # the game is over
    KEY = 0
    STEP1 = 1
    STEP2 = 2
    SPONSOR_TOKEN = 3
    RETURN_KEY = 4
    SPONSOR_FLIP = 5
    TOKEN_FLIP = 6
    SPONSOR5 = 7
    TOKEN_RESOURCE = 8
    KEEP = 9
    CONTRACT_COLOUR = 10
    COPY = 11
    VARIANT = 12


PHASE_NAMES = {
    Phase.KEY: "choose a key",
    Phase.STEP1: "step 1 (propellers, sponsor, contracts; or start the diver / end the turn)",
    Phase.STEP2: "step 2 (diver effect, contracts; or end the turn)",
    Phase.SPONSOR_TOKEN: "Sponsor #2 advanced: which reward token",
    Phase.RETURN_KEY: "return which own key from the Hacker track",
    Phase.SPONSOR_FLIP: "Sponsor #4 advanced: flip which surface diver",
    Phase.TOKEN_FLIP: "reward token: flip which diver (or decline)",
    Phase.SPONSOR5: "Sponsor #5 advanced: battery or move a resource",
    Phase.TOKEN_RESOURCE: "reward token: which resource colour (or decline)",
    Phase.KEEP: "keep which drawn contract",
    Phase.CONTRACT_COLOUR: "specific-number contract: colour for the next number",
    Phase.COPY: "Spy: use the neighbour's diver (or decline)",
    Phase.VARIANT: "designer's Spy variant: your copied diver resurfaces or uses oxygen",
}
NUM_PHASES = len(PHASE_NAMES)  # the decision phases (all but NONE), numbered 0..12
MAIN_PHASES = (Phase.KEY, Phase.STEP1, Phase.STEP2)  # where contracts may be completed
assert sorted(PHASE_NAMES) == list(range(NUM_PHASES)), "decision phases are 0..NUM_PHASES-1"

# The same phases as plain ints, for the rules' and the observation's per-step code: an
# enum member costs an attribute lookup of about 0.1 us on every use (Python 3.11), a
# module constant next to nothing, and ``State.phase`` stays a plain int.
(
    NO_PHASE, KEY, STEP1, STEP2, SPONSOR_TOKEN, RETURN_KEY, SPONSOR_FLIP, TOKEN_FLIP,
    SPONSOR5, TOKEN_RESOURCE, KEEP, CONTRACT_COLOUR, COPY, VARIANT,
) = (phase.value for phase in Phase)  # fmt: skip
