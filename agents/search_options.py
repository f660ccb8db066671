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

from dataclasses import dataclass, fields, replace

from otrio.envs.core.errors import ConfigError

from .options import Option, OptionTable

ROLLOUTS = ("greedy", "random", "net")
PRIORS = ("greedy", "none", "net")
LEAVES = ("margin", "net", "value")
# ceilings: far above any useful search, low enough that a decision always ends
MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 3600.0
MAX_DEPTH = 100_000
MAX_TOP = 4096
MAX_WEIGHT = 100.0  # c, gap, widen, margin
# iterations x rollout decisions a decision at most, unless seconds caps it: the strongest
# searches the suite plays spend ~15,000 (144 iterations to the end of Oceanos); this is
# minutes a decision
MAX_COST = 2_000_000
ROLLOUT_TO_END = 300  # the decisions a rollout to the end plays, for its cost (Otys: ~250)


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

    def cost(self) -> int:
        """Rollout decisions a decision may play: iterations x the rollout's length (a
        rollout to the end counted as :data:`ROLLOUT_TO_END` decisions)."""
        return self.iterations * max(self.depth if self.depth >= 0 else ROLLOUT_TO_END, 1)

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
        for option in MCTS_OPTIONS.options:  # each option in its range (NaN in none)
            value = getattr(self, option.name)
            if option.choices and value not in option.choices:
                raise ConfigError(f"mcts option {option.name}={value!r} is out of range "
                                  f"({option.takes()})")
            if option.kind is not str:
                option.check(value, "mcts")
        if self.cost() > MAX_COST and not self.seconds:
            raise ConfigError(f"mcts options iterations x rollout decisions = {self.iterations:,} "
                              f"x {self.depth if self.depth >= 0 else ROLLOUT_TO_END:,} = "
                              f"{self.cost():,} a decision, over the ceiling of {MAX_COST:,} "
                              "(minutes a decision): lower iterations or depth, or cap the "
                              "time with seconds=S")
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


# what each option does; its default is SearchOptions', its range or choices here
_HELP = {
    "iterations": "iterations a decision (the budget, unless seconds > 0)",
    "seconds": "wall-clock cap a decision (0: none; breaks determinism)",
    "c": "UCB exploration constant (values lie in about [-1.5, 1.5])",
    "rollout": "the policy of every seat after the tree",
    "depth": "rollout decisions before the leaf is valued (-1: to the end)",
    "prior": "order of expansion: greedy's ranking, none (random), the network's",
    "top": "root candidates: the prior's best top (0: every legal action)",
    "gap": "root candidates: within gap of the prior's best (0: any)",
    "widen": "below the root, a node tries 1 + widen * sqrt(visits) actions",
    "crn": "1: flat rounds, every root candidate played in the same world",
    "margin": "weight of the squashed score margin at the end of a game",
    "leaf": "the value of a depth-limited leaf: the margin, the network's, a value model's",
    "net": "an exported network (X.json) for rollout, prior or leaf = net",
    "value": "a value model (X.json, training/value_fit.py) for leaf = value",
    "halving": "1: crn rounds spent by sequential halving over the root's candidates",
    "clairvoyant": "1: worlds from the true present (a research cheat)",
}
_RANGES = {"iterations": (1, MAX_ITERATIONS), "seconds": (0, MAX_SECONDS), "c": (0, MAX_WEIGHT),
           "depth": (-1, MAX_DEPTH), "top": (0, MAX_TOP), "gap": (0, MAX_WEIGHT),
           "widen": (0, MAX_WEIGHT), "crn": (0, 1), "margin": (0, MAX_WEIGHT),
           "halving": (0, 1), "clairvoyant": (0, 1)}
_CHOICES = {"rollout": ROLLOUTS, "prior": PRIORS, "leaf": LEAVES}
MCTS_OPTIONS = OptionTable("mcts", tuple(
    Option(f.name, type(f.default), f.default, _HELP[f.name], *_RANGES.get(f.name, (None, None)),
           choices=_CHOICES.get(f.name, ()))
    for f in fields(SearchOptions)))


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


def given_option(text: str, key: str):
    """The value ``text`` gives option ``key`` (typed; a ``ConfigError`` if it is not
    valid), or its default where the text does not name it. The rest of the text is not
    checked: :func:`parse_options` does that with the game's defaults."""
    option = MCTS_OPTIONS.get(key)
    value = option.default
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, eq, given = item.partition("=")
        if eq and name.strip() == key:
            value = option.parse(given, "mcts")
    return value


def parse_options(text: str, game: str | None = None) -> SearchOptions:
    """Options from ``key=value,key=value`` over the game's defaults; a clear
    ``ConfigError`` for an unknown key or a bad value (:data:`MCTS_OPTIONS`)."""
    options = replace(SearchOptions(), **GAME_DEFAULTS.get(game or "", {}))
    return replace(options, **MCTS_OPTIONS.parse(text.split(","))).check()
