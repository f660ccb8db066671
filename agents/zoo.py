"""The zoo: the suite's reference players by name, per game and player count.

Five tiers name a player in one word, wherever a spec goes (``otrio.agents.make("strong",
env)``, ``--seats strong,greedy``, ``lineup: [strong, greedy]``):

- ``random`` and ``greedy``: the agents of those names;
- ``fast``: the strongest player measured at :data:`TIER_SECONDS` ``["fast"]`` (2 ms) a
  decision or less;
- ``strong``: the strongest at 20 ms or less;
- ``search``: the strongest at a quarter of a second or less.

``agents/zoo.json`` (shipped with the package) maps each (game, player count, tier) to its
spec, the time a decision it was measured at, and the strength measured for it: its win
share in one seat with greedy in every other, over the games of the runs it names (a
committed ladder run, ``otrio ladder ... --against greedy``, in ``benchmarks/results/zoo/``,
on a seed nothing was tuned on, read into the table by ``tools/zoo_from_ladders.py``;
``tests/agents/test_zoo.py`` holds every number equal to its runs'). Where no player beats
a lower tier at a count, the tier resolves to that lower tier and says so
(:meth:`Zoo.resolve`: Otontin's ``fast`` is ``greedy``). ``otrio agents`` prints it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from otrio.envs.core.bounded import read_json
from otrio.envs.core.config import StrictModel, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import PRETRAINED

TIERS = ("random", "greedy", "fast", "strong", "search")  # weakest first
RESOLVED = ("fast", "strong", "search")  # the tiers the zoo resolves (the others are agents)
# the most seconds a decision each tier's player may take (measured, on one core)
TIER_SECONDS = {"fast": 0.002, "strong": 0.020, "search": 0.25}
ZOO_FILE = PRETRAINED.parent / "zoo.json"
FORMAT = "otrio-zoo/1"
MAX_ZOO_BYTES = 1 << 20


class Evidence(StrictModel):
    """One run a player's strength is read from: a results folder and the agent's name
    in its lineup."""

    run: str  # a results folder of the clone (benchmarks/results/...), with summary.json
    agent: str  # the player's name in that run's lineup


class Strength(StrictModel):
    """The win share measured for a player in one seat among greedy players."""

    share: float = Field(ge=0, le=1)
    low: float = Field(ge=0, le=1)  # 95% Wilson interval
    high: float = Field(ge=0, le=1)
    games: int = Field(ge=1)
    runs: list[Evidence] = Field(min_length=1)


class Entry(StrictModel):
    """A (game, player count, tier) cell: its player, or the lower tier it resolves to."""

    game: Literal["oceanos", "otys", "otontin"]
    players: int = Field(ge=2, le=8)
    tier: Literal["fast", "strong", "search"]
    name: str = Field(min_length=1, max_length=40)  # a short name for tables
    spec: str | None = None  # the player; None: the tier is ``same_as``'s
    same_as: Literal["greedy", "fast", "strong"] | None = None
    why: str = ""  # with same_as: the measurement that says no player here beats it
    ms: float | None = Field(None, gt=0)  # milliseconds a decision, measured
    strength: Strength | None = None

    @model_validator(mode="after")
    def _one_or_the_other(self):
        if (self.spec is None) == (self.same_as is None):
            raise ValueError(f"{self.game} {self.players}p {self.tier}: give a spec or same_as")
        if self.spec is not None and (self.ms is None or self.strength is None):
            raise ValueError(f"{self.game} {self.players}p {self.tier}: a player needs its ms "
                             "and its measured strength")
        if self.ms is not None and self.ms / 1000 > TIER_SECONDS[self.tier]:
            raise ValueError(f"{self.game} {self.players}p {self.tier}: {self.ms} ms is over "
                             f"the tier's {TIER_SECONDS[self.tier] * 1000:g} ms")
        return self


class Zoo(StrictModel):
    """The table (``agents/zoo.json``)."""

    format: Literal["otrio-zoo/1"]
    entries: list[Entry]

    @model_validator(mode="after")
    def _once_each(self):
        keys = [(e.game, e.players, e.tier) for e in self.entries]
        if len(set(keys)) != len(keys):
            raise ValueError("a (game, players, tier) cell is listed twice")
        return self

    def entry(self, game: str, players: int, tier: str) -> Entry | None:
        """The cell's entry, or None where the zoo lists none."""
        return next((e for e in self.entries
                     if (e.game, e.players, e.tier) == (game, players, tier)), None)

    def resolve(self, tier: str, game: str, players: int) -> tuple[str, str]:
        """``(spec, note)``: the player of ``tier`` for ``game`` at ``players`` seats; a
        tier with no player of its own here resolves down to the strongest lower tier
        that has one (greedy at the least), and ``note`` says so."""
        if tier not in TIERS:
            raise ConfigError(f"unknown tier {tier!r}; the tiers: {', '.join(TIERS)}")
        asked, notes = tier, []
        while tier in RESOLVED:
            e = self.entry(game, players, tier)
            if e is not None and e.spec is not None:
                break
            lower = e.same_as if e is not None else TIERS[TIERS.index(tier) - 1]
            notes.append(e.why if e is not None and e.why else
                         f"the zoo lists no {tier} player for {game} at {players} players")
            tier = lower
        if tier not in RESOLVED:
            spec = tier
        else:
            spec = self.entry(game, players, tier).spec
        note = "" if tier == asked else f"{asked} is {tier} here ({'; '.join(notes)})"
        return spec, note


_ZOO: Zoo | None = None


def load_zoo(path: str | Path | None = None) -> Zoo:
    """The zoo (``agents/zoo.json`` unless ``path``), read bounded and validated."""
    global _ZOO
    if path is None and _ZOO is not None:
        return _ZOO
    file = Path(path) if path is not None else ZOO_FILE
    raw = read_json(file, MAX_ZOO_BYTES, f"the zoo {file}", ConfigError, follow_symlinks=False)
    zoo = validate(Zoo, raw)
    if path is None:
        _ZOO = zoo
    return zoo


def resolve(tier: str, env) -> tuple[str, str]:
    """``(spec, note)`` of ``tier`` for ``env``'s game and player count
    (:meth:`Zoo.resolve`)."""
    base = env.unwrapped
    return load_zoo().resolve(tier, base.game.info.name, base.num_players)


__all__ = ["RESOLVED", "TIERS", "TIER_SECONDS", "ZOO_FILE", "Entry", "Zoo", "load_zoo", "resolve"]
