"""Otys configuration: the sponsor setup, the component tables, the variants.

``Config`` is validated by the core (unknown keys are rejected). ``tables_for(config)``
turns it into :class:`Tables`, the plain tuples the rules read in the hot path.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, NamedTuple

from pydantic import Field, ValidationInfo, field_validator, model_validator

from otrio.envs.core import GameConfig, StrictModel

from . import data as D

Side = Literal["basic", "advanced"]


class SponsorSetup(StrictModel):
    """Order and sides of the five sponsor tiles on the Colony display.

    ``order``: the tile numbers (1-5) on levels 1-5, or None to shuffle them from the
    seed. ``sides``: "basic" (first game), "advanced", "random" (each tile drawn from
    the seed), or five explicit sides for tiles #1-#5.
    """

    order: tuple[int, int, int, int, int] | None = None
    sides: Literal["basic", "advanced", "random"] | tuple[Side, Side, Side, Side, Side] = (
        "random"
    )

    @field_validator("order")
    @classmethod
    def _permutation(cls, order):
        if order is not None and sorted(order) != list(range(1, D.NUM_SPONSORS + 1)):
            raise ValueError("order must be a permutation of the tile numbers 1-5")
        return order


class ContractSpec(StrictModel):
    """One contract card: a specific combination ("MMP") or specific numbers ([2, 1])."""

    kind: Literal["combination", "number"]
    needs: str | tuple[int, ...]
    pp: int = Field(ge=0)
    credits: int = Field(0, ge=0)
    batteries: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _needs(self):
        if self.kind == D.COMBINATION:
            if not isinstance(self.needs, str) or not self.needs:
                raise ValueError("a combination card needs a non-empty string of MPFT")
            if any(ch not in D.COLOUR_LETTERS for ch in self.needs):
                raise ValueError(f"unknown colour letter in {self.needs!r} (use MPFT)")
        else:
            if isinstance(self.needs, str) or not 1 <= len(self.needs) <= D.MAX_NUMBERS:
                raise ValueError("a number card needs 1-4 numbers")
            if any(n < 1 for n in self.needs):
                raise ValueError("numbers on a card must be positive")
        return self


class TokenSpec(StrictModel):
    """One reward token: immediate effect (front), colour pair, permanent back."""

    immediate: Literal["resource", "battery", "draw", "upgrade", "pp"]
    colours: str = ""
    back: Literal["credits", "pp"]

    @model_validator(mode="after")
    def _colours(self):
        if self.immediate == "resource":
            ok = len(self.colours) == 2 and all(ch in D.COLOUR_LETTERS for ch in self.colours)
            if not ok or self.colours[0] == self.colours[1]:
                raise ValueError("a resource token shows two different colours (e.g. 'MP')")
        elif self.colours:
            raise ValueError("only resource tokens show colours")
        return self


def _contracts_default() -> tuple[ContractSpec, ...]:
    return tuple(
        ContractSpec(kind=k, needs=n, pp=p, credits=c, batteries=b)
        for k, n, p, c, b in D.CONTRACTS
    )


def _tokens_default() -> tuple[TokenSpec, ...]:
    return tuple(TokenSpec(immediate=i, colours=c, back=b) for i, c, b in D.REWARD_TOKENS)


_DC = D.DEFAULT_COMPONENTS
Count = Field(ge=0)


class Components(StrictModel):
    """Component tables (defaults from ``data.py``); override any to try other data."""

    contracts: tuple[ContractSpec, ...] = Field(default_factory=_contracts_default, min_length=1)
    reward_tokens: tuple[TokenSpec, ...] = Field(
        default_factory=_tokens_default, min_length=1
    )
    level_capacity: tuple[int, int, int, int, int] = _DC["level_capacity"]
    store_credits: tuple[int, int, int] = _DC["store_credits"]
    store_pp: tuple[int, int, int] = _DC["store_pp"]
    mechanic_moves: tuple[int, ...] = Field(_DC["mechanic_moves"], min_length=1, max_length=8)
    hacker_capacity: tuple[int, ...] = Field(_DC["hacker_capacity"], min_length=1, max_length=8)
    start_credits: int = Field(_DC["start_credits"], ge=0)
    start_batteries: int = Field(_DC["start_batteries"], ge=0)
    neutral_x_keys: int = Field(_DC["neutral_x_keys"], ge=0)
    end_pp: int = Field(_DC["end_pp"], ge=1)
    public_contracts: tuple[int, int, int] = _DC["public_contracts"]
    hand_limit: int = Field(_DC["hand_limit"], ge=1, le=D.MAX_HAND)

    @model_validator(mode="after")
    def _ranges(self):
        if any(not 1 <= c <= 9 for c in self.level_capacity):
            raise ValueError("level_capacity values must be 1-9")
        if any(v < 0 for v in self.store_credits + self.store_pp):
            raise ValueError("store values must be >= 0")
        if any(not 1 <= m < D.NUM_SLOTS for m in self.mechanic_moves):
            raise ValueError("mechanic_moves values must be 1-7")
        # at least one own key is always free at a turn's start only if capacity < 6
        if any(not 1 <= c < D.NUM_OWN_KEYS for c in self.hacker_capacity):
            raise ValueError("hacker_capacity values must be 1-5")
        if any(not 1 <= p <= D.MAX_PUBLIC for p in self.public_contracts):
            raise ValueError("public_contracts values must be 1-3")
        display = D.NUM_LEVELS * D.DISPLAY_TOKENS
        if len(self.reward_tokens) < display:
            raise ValueError(f"the Colony display takes {display} reward tokens at setup "
                             f"({D.DISPLAY_TOKENS} a level), but reward_tokens has "
                             f"{len(self.reward_tokens)}")
        return self


class Config(GameConfig):
    """An Otys game: players, sponsor setup, variants, component tables."""

    num_players: int = Field(3, ge=2, le=D.MAX_PLAYERS)
    sponsors: SponsorSetup = Field(default_factory=SponsorSetup)
    spy_designer_variant: bool = False
    round_cap: int = Field(60, ge=1, le=D.MAX_ROUND_CAP)
    components: Components = Field(default_factory=Components)

    @field_validator("components")
    @classmethod
    def _deck_deals_the_setup(cls, components: Components, info: ValidationInfo) -> Components:
        players = info.data.get("num_players")  # absent when itself invalid
        if players is not None:
            public = components.public_contracts[players - 2]
            if len(components.contracts) < public:
                raise ValueError(f"{players} players turn up {public} public contracts at "
                                 f"setup, but the deck has {len(components.contracts)} contracts")
        return components


class Contract(NamedTuple):
    """A contract card as the rules and a seat read it (plain values)."""

    number: bool  # a specific-number card (else a specific combination)
    needs: tuple[int, ...]  # a combination's count per colour (MPFT); a number card's numbers, largest first
    pp: int
    credits: int  # bonus credits
    batteries: int  # bonus batteries


class Token(NamedTuple):
    """A reward token as the rules and a seat read it (plain values)."""

    kind: int  # immediate effect, an index of ``data.TOKEN_KINDS``
    colours: tuple[int, ...]  # the colours a resource token shows, in increasing order
    back: int  # permanent back: ``data.BACK_CREDITS`` or ``data.BACK_PP``


class Tables:
    """The config's component data as plain tuples of ints (read-only but for the
    ``fits`` memo, which the rules fill); ``contracts`` and ``tokens`` hold each card and
    token as one record (:class:`Contract`, :class:`Token`), by id."""

    def __init__(self, config: Config):
        comp = config.components
        letters = D.COLOUR_LETTERS
        self.contract_number: list[bool] = []  # True: specific-number card
        self.contract_needs: list[tuple[int, ...]] = []  # colour counts, or numbers (desc)
        self.contract_total: list[int] = []
        self.contract_pp: list[int] = []
        self.contract_credits: list[int] = []
        self.contract_batteries: list[int] = []
        for card in comp.contracts:
            if card.kind == D.COMBINATION:
                needs = tuple(card.needs.count(ch) for ch in letters)
                self.contract_number.append(False)
            else:
                needs = tuple(sorted(card.needs, reverse=True))
                self.contract_number.append(True)
            self.contract_needs.append(needs)
            self.contract_total.append(sum(needs))
            self.contract_pp.append(card.pp)
            self.contract_credits.append(card.credits)
            self.contract_batteries.append(card.batteries)
        self.num_contracts = len(comp.contracts)
        self.token_kind = tuple(D.TOKEN_KINDS.index(t.immediate) for t in comp.reward_tokens)
        self.token_colours = tuple(
            tuple(letters.index(ch) for ch in t.colours) for t in comp.reward_tokens
        )
        self.token_back = tuple(D.TOKEN_BACKS.index(t.back) for t in comp.reward_tokens)
        self.num_tokens = len(comp.reward_tokens)
        self.contracts = tuple(
            Contract(*card) for card in zip(self.contract_number, self.contract_needs, self.contract_pp,
                                            self.contract_credits, self.contract_batteries))
        self.tokens = tuple(Token(kind, tuple(sorted(colours)), back) for kind, colours, back
                            in zip(self.token_kind, self.token_colours, self.token_back))
        self.capacity = comp.level_capacity
        self.store_credits = comp.store_credits
        self.store_pp = comp.store_pp
        self.moves = comp.mechanic_moves
        self.hacker_capacity = comp.hacker_capacity
        self.start_credits = comp.start_credits
        self.start_batteries = comp.start_batteries
        self.neutral_x_keys = comp.neutral_x_keys
        self.end_pp = comp.end_pp
        self.public = comp.public_contracts[config.num_players - 2]
        self.hand_limit = comp.hand_limit
        self.round_cap = config.round_cap
        self.spy_variant = config.spy_designer_variant
        # memo of the rules: a level's colour counts -> bit set of the cards they complete
        self.fits: dict[tuple[int, ...], int] = {}


@lru_cache(maxsize=64)
def tables_for(config: Config) -> Tables:
    """The plain tables of a config (configs are frozen, so this is a pure cache)."""
    return Tables(config)
