"""The Oceanos game config: player count, variants and every component table."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from otrio.envs.core.config import GameConfig, StrictModel

from .cards import CARDS
from .data import (
    ANIMALS,
    COCKPIT_PERISCOPES,
    KRAKEN_SIZES,
    KRAKEN_TOKENS,
    MAX_CORALS_PER_CARD,
    MAX_EYES_PER_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ROUNDS,
    TREASURE_TOKENS,
)

CardRow = tuple[str, int, int, int, str, int]  # animal, corals, chest, eyes, crystal, base


def min_deck(num_players: int) -> int:
    """The fewest cards a round deck may hold: one turn's hands for every seat.

    A turn gives each seat a hand of periscopes + 1 cards (2 at the start). The Captain
    turn deals the non-Captains, who may keep every card they were dealt, and then tops
    the Captain up from the deck after it receives what they passed on; the two-player
    turn deals both. Kept cards leave the deck for the round, so a smaller deck cannot
    give even the first turn its hands (with discards reshuffled, a deck of one card
    "ended" a five-player game in four decisions).
    """
    return num_players * (COCKPIT_PERISCOPES[0] + 1)


class KrakenSetup(StrictModel):
    """Which Kraken token of each size is used: drawn at random (default) or fixed.

    ``values`` is the (small, medium, big) triple when ``mode`` is ``fixed``; each value
    must be one of that size's tokens. A fixed setup is public knowledge.
    """

    mode: Literal["random", "fixed"] = "random"
    values: tuple[int, int, int] | None = None

    @model_validator(mode="after")
    def _values_match_mode(self):
        if self.mode == "fixed" and self.values is None:
            raise ValueError("kraken.mode 'fixed' needs kraken.values (small, medium, big)")
        if self.mode == "random" and self.values is not None:
            raise ValueError("kraken.values is only allowed with kraken.mode 'fixed'")
        return self


class KrakenTokens(StrictModel):
    """The Kraken tokens of each size (three each in the designed split)."""

    small: tuple[int, ...] = KRAKEN_TOKENS["small"]
    medium: tuple[int, ...] = KRAKEN_TOKENS["medium"]
    big: tuple[int, ...] = KRAKEN_TOKENS["big"]

    @field_validator("small", "medium", "big")
    @classmethod
    def _non_positive(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if not v or any(x > 0 for x in v):
            raise ValueError("each size needs at least one token, all values <= 0")
        return v


class Config(GameConfig):
    """Oceanos setup. Unknown keys are rejected."""

    num_players: int = Field(4, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    two_player_variant: bool = True  # the rulebook's 2-player turn when num_players == 2
    troubled_waters: bool = False
    kraken: KrakenSetup = KrakenSetup()
    kraken_tokens: KrakenTokens = KrakenTokens()
    treasure_tokens: tuple[int, ...] = TREASURE_TOKENS
    cards: tuple[tuple[CardRow, ...], ...] = CARDS

    @field_validator("treasure_tokens")
    @classmethod
    def _treasures_positive(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if not v or any(x <= 0 for x in v):
            raise ValueError("treasure_tokens must be a non-empty list of positive values")
        return v

    @field_validator("cards")
    @classmethod
    def _cards_valid(cls, v, info: ValidationInfo):
        if len(v) != NUM_ROUNDS:
            raise ValueError(f"cards needs {NUM_ROUNDS} round decks")
        players = info.data.get("num_players")  # absent when itself invalid
        need = min_deck(players) if players else 1
        for r, deck in enumerate(v):
            if len(deck) < need:
                raise ValueError(
                    f"the round {r + 1} deck holds {len(deck)} cards; {players} players need "
                    f"at least {need} (a turn deals every seat a hand of periscopes + 1 = "
                    f"{COCKPIT_PERISCOPES[0] + 1} cards)")
        for deck in v:
            for animal, corals, chest, eyes, crystal, base in deck:
                if animal != "-" and animal not in ANIMALS:
                    raise ValueError(f"unknown animal {animal!r}")
                if crystal not in ("-", "green", "yellow"):
                    raise ValueError(f"unknown crystal {crystal!r}")
                if crystal != "-" and base:
                    raise ValueError("no card has both a crystal and a base")
                if not (0 <= corals <= MAX_CORALS_PER_CARD and chest in (0, 1)
                        and 0 <= eyes <= MAX_EYES_PER_CARD):
                    raise ValueError(f"corals 0-{MAX_CORALS_PER_CARD}, chest 0/1, eyes "
                                     f"0-{MAX_EYES_PER_CARD} per card")
        return v

    @model_validator(mode="after")
    def _fixed_kraken_in_pool(self):
        if self.kraken.values is not None:
            for size, value in zip(KRAKEN_SIZES, self.kraken.values):
                pool = getattr(self.kraken_tokens, size)
                if value not in pool:
                    raise ValueError(f"kraken.values: {value} is not a {size} token {pool}")
        if self.troubled_waters and self.num_players == 2 and self.two_player_variant:
            raise ValueError(
                "troubled_waters needs the Captain turn: at 2 players set two_player_variant=false"
            )
        return self

    @property
    def captain_mode(self) -> bool:
        """True when turns use the Expedition Captain (always, except the 2-player turn)."""
        return not (self.num_players == 2 and self.two_player_variant)
