"""The options of the search agent (``mcts[:key=value,...]``), their ranges and each
game's defaults; the search itself is ``agents/mcts.py``.

Every option has a range with a ceiling, so that a spec cannot ask for a search that
would never end (``iterations=10**20``): a value outside it is a ``ConfigError`` that
names the option and its range.

**The network options.** ``net=PATH`` names an exported network (``X.json`` beside
``X.safetensors``: a distilled one, ``training/distill.py``), and three options say
where the search uses it:

- ``rollout=net``: every seat plays the network's favourite legal move in rollouts;
- ``prior=net``: the root's candidates (``top``, ``gap``) and the tree's expansion order
  follow the network's policy instead of greedy's ranking (``gap`` then counts in the
  policy's logits, natural-log units of probability);
- ``leaf=net``: a rollout cut by ``depth`` is scored by the network's value of each
  seat's observation instead of the squashed score margin (``depth=0``: right after the
  candidate move).

**The value options.** ``value=PATH`` names a value model (``agents/value.py``: a seat's
chance to win from its observation, fitted on self-play outcomes) and ``leaf=value``
scores a rollout cut by ``depth`` with it: each seat's chance from its own observation
of the re-drawn world, normalised over the seats to sum to one, as the expected end
reward ``2 p - 1`` (the scale of a finished game's value). In flat rounds (``crn=1``)
the leaves of a round are judged in one batch. ``halving=1`` spends the flat rounds by
sequential halving (as in Gumbel AlphaZero's root): the candidates share the budget in
``ceil(log2 k)`` phases, and after each the worse half by mean value is dropped.

A network that reads greedy's hints (``hints: greedy``, e.g. the shipped Otys PPO
agent) serves ``prior=net`` alone: ranking a decision's moves already costs greedy's
values of them, and the hints are those values; in rollouts or leaves they would run
the greedy agent the network is meant to replace, so ``rollout=net`` and ``leaf=net``
refuse it.

The network reads only observations of the re-drawn world, each from the seat it
plays or values, so the search stays honest by construction.

**The clairvoyant reference (a cheat).** ``clairvoyant=1`` draws every world from the
*true present* (``Game.resample_future``: the others' hands, their secret simultaneous
choices, face-down cards, as they are) and re-draws only the *future* (deck order,
dice, bag draws), so it measures what hidden information hides without counting luck
as skill: the ceiling of a skill-ceiling report. It is research only and never a
default: tournaments, ladders and balance sweeps refuse it unless their config says
``reference: true`` (``otrio.agents.check_spec``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from otrio.envs.core.errors import ConfigError

ROLLOUTS = ("greedy", "random", "net")
PRIORS = ("greedy", "none", "net")
LEAVES = ("margin", "net", "value")
# ceilings: far above any useful search, low enough that a decision always ends
MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 3600.0
MAX_DEPTH = 100_000
MAX_TOP = 4096
MAX_WEIGHT = 100.0  # c, gap, widen, margin


@dataclass(frozen=True)
class SearchOptions:
    """What a search may spend and how it values (the spec's ``key=value`` pairs)."""

    iterations: int = 200  # iterations a decision (the budget, unless seconds > 0)
    seconds: float = 0.0  # wall-clock cap a decision (0: none; breaks determinism)
    c: float = 0.7  # UCB exploration constant (values lie in about [-1.5, 1.5])
    rollout: str = "greedy"  # the policy of every seat after the tree: greedy, random, net
    depth: int = -1  # rollout decisions before the leaf is valued (-1: to the end)
    prior: str = "greedy"  # order of expansion: greedy's ranking, none (random), net
    top: int = 0  # root candidates: the prior's best ``top`` (0: every legal action)
    gap: float = 0.0  # root candidates: within ``gap`` of the prior's best (0: any)
    widen: float = 0.5  # below the root, a node tries 1 + widen * sqrt(visits) actions
    crn: int = 0  # 1: flat rounds, every root candidate played in the same world
    margin: float = 0.25  # weight of the squashed score margin at the end of a game
    leaf: str = "margin"  # the value of a depth-limited leaf: margin or net
    net: str = ""  # an exported network for rollout/prior/leaf = net
    value: str = ""  # a value model (agents/value.py) for leaf = value
    halving: int = 0  # 1: crn rounds spent by sequential halving over the root's candidates
    clairvoyant: int = 0  # 1: worlds from the true present (a research cheat; see above)

    def uses_net(self) -> bool:
        """Whether any option asks for the network."""
        return "net" in (self.rollout, self.prior, self.leaf)

    def uses_greedy(self) -> bool:
        """Whether the search needs the greedy agent: for rollouts, or to rank moves
        (its prior, or the root's ``top``/``gap`` unless the network ranks them)."""
        return (self.rollout == "greedy" or self.prior == "greedy"
                or (self.prior != "net" and bool(self.top or self.gap)))

    def check(self) -> SearchOptions:
        """Raise ``ConfigError`` naming the first option out of range."""
        rules = {
            "iterations": 1 <= self.iterations <= MAX_ITERATIONS,
            "seconds": 0 <= self.seconds <= MAX_SECONDS,
            "c": 0 <= self.c <= MAX_WEIGHT,
            "rollout": self.rollout in ROLLOUTS,
            "depth": -1 <= self.depth <= MAX_DEPTH,
            "prior": self.prior in PRIORS,
            "top": 0 <= self.top <= MAX_TOP,
            "gap": 0 <= self.gap <= MAX_WEIGHT,
            "widen": 0 <= self.widen <= MAX_WEIGHT,
            "crn": self.crn in (0, 1),
            "margin": 0 <= self.margin <= MAX_WEIGHT,
            "leaf": self.leaf in LEAVES,
            "halving": self.halving in (0, 1),
            "clairvoyant": self.clairvoyant in (0, 1),
        }
        for name, ok in rules.items():
            if not ok:  # NaN fails every comparison above
                raise ConfigError(f"mcts option {name}={getattr(self, name)!r} is out of range "
                                  f"({HELP[name]})")
        if self.uses_net() and not self.net:
            wants = [k for k in ("rollout", "prior", "leaf") if getattr(self, k) == "net"]
            raise ConfigError(f"mcts option {wants[0]}=net needs the network: add net=PATH "
                              "(an exported agent's .json)")
        if self.net and not self.uses_net():
            raise ConfigError(f"mcts option net={self.net} is used by none of rollout, prior "
                              "or leaf: add rollout=net, prior=net or leaf=net")
        if self.leaf in ("net", "value") and self.depth < 0:
            raise ConfigError(f"mcts option leaf={self.leaf} values a depth-limited leaf: give "
                              "depth=N (N >= 0 rollout decisions before the model's value)")
        if (self.leaf == "value") != bool(self.value):
            raise ConfigError("mcts options leaf=value and value=PATH (a value model's .json) "
                              "go together")
        if self.halving and not self.crn:
            raise ConfigError("mcts option halving=1 spends crn rounds: add crn=1")
        return self


HELP = {
    "iterations": f"an integer from 1 to {MAX_ITERATIONS:,}",
    "seconds": f"a number from 0 (no time cap) to {MAX_SECONDS:g}",
    "c": f"a number from 0 to {MAX_WEIGHT:g}",
    "rollout": " or ".join(ROLLOUTS),
    "depth": f"an integer from -1 (rollouts to the end) to {MAX_DEPTH:,}",
    "prior": " or ".join(PRIORS),
    "top": f"an integer from 0 (every legal action) to {MAX_TOP}",
    "gap": f"a number from 0 (no limit) to {MAX_WEIGHT:g}",
    "widen": f"a number from 0 (the tree is the root alone) to {MAX_WEIGHT:g}",
    "crn": "0 or 1",
    "margin": f"a number from 0 to {MAX_WEIGHT:g}",
    "leaf": " or ".join(LEAVES),
    "net": "the path of an exported network (X.json)",
    "value": "the path of a value model (X.json, training/value_fit.py)",
    "halving": "0 or 1",
    "clairvoyant": "0 (honest) or 1 (the true present: a research cheat)",
}
# Per game: the defaults the budget studies picked (benchmarks/results/search/README.md).
# Below the root an ISMCTS tree mixes up the hand-slot actions of different re-drawn
# hands (slot k is another card in each world), so the defaults search the root alone:
# flat rounds on common random numbers over greedy's best few moves, each played out by
# greedy for every seat (to the end in Oceanos; depth-limited in the long Otys and in
# Otontin, whose greedy is costly). Otys searches only greedy's close calls (gap).
GAME_DEFAULTS: dict[str, dict] = {
    "oceanos": {"iterations": 48, "crn": 1, "top": 4},
    "otys": {"iterations": 48, "crn": 1, "top": 3, "gap": 1.0, "depth": 30},
    "otontin": {"iterations": 48, "crn": 1, "top": 3, "depth": 8},
}


def _number(kind: type, key: str, text: str):
    """``text`` as the option's type; a ConfigError naming the option otherwise."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or (kind is float and not math.isfinite(value)):
        raise ConfigError(f"mcts option {key}={text[:40]!r} is not "
                          f"{'a number' if kind is not str else 'valid'} ({HELP[key]})")
    return value


def given_option(text: str, key: str):
    """The value ``text`` gives option ``key`` (typed; a ``ConfigError`` if it is not
    valid), or its default where the text does not name it. The rest of the text is not
    checked: :func:`parse_options` does that with the game's defaults."""
    kind = type(getattr(SearchOptions(), key))
    value = getattr(SearchOptions(), key)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, eq, given = item.partition("=")
        if eq and name.strip() == key:
            value = given.strip() if kind is str else _number(kind, key, given.strip())
    return value


def parse_options(text: str, game: str | None = None) -> SearchOptions:
    """Options from ``key=value,key=value`` over the game's defaults; a clear
    ``ConfigError`` for an unknown key or a bad value."""
    options = replace(SearchOptions(), **GAME_DEFAULTS.get(game or "", {}))
    types = {f.name: type(getattr(options, f.name)) for f in fields(SearchOptions)}
    given = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise ConfigError(f"mcts option {item[:60]!r} is not key=value")
        if key not in types:
            raise ConfigError(f"unknown mcts option {key[:40]!r}; known: {', '.join(types)}")
        given[key] = value.strip() if types[key] is str else _number(types[key], key, value.strip())
    return replace(options, **given).check()


__all__ = ["GAME_DEFAULTS", "HELP", "LEAVES", "PRIORS", "ROLLOUTS", "SearchOptions", "given_option",
           "parse_options"]
