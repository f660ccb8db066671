"""Contract completion (a mixin of ``rules.State``).

A contract completes on the turn's player's own turn at a main decision point, on
one level: a specific-combination card needs its exact colours, a specific-number
card needs its numbers in different colours, which the player then chooses one
number at a time (largest number first; equal numbers in colour order MPFT, so that
one set of colours is one path of decisions).
"""

from __future__ import annotations

from itertools import chain

from . import actions, data
from .phases import CONTRACT_COLOUR

NC = data.NUM_COLOURS
# per level: the id of ``complete:pub0:<level>`` and the level's first index in ``resources``
_LEVELS = tuple((actions.complete_id(0, level), level * NC) for level in range(data.NUM_LEVELS))


class ContractsMixin:
    """Which contracts fit where, the colour choice, scoring and refilling."""

    def _fits(self, card: int, base: int) -> bool:
        """Whether ``card`` can be completed with the seat's resources at ``base:base+4``."""
        counts = self.resources[self.seat][base : base + NC]
        return self._fits_counts(card, counts, sorted(counts, reverse=True))

    def _fits_counts(self, card: int, counts: list, desc: list) -> bool:
        """``card`` against one level's colour counts (and the same sorted, descending):
        a number card fits iff its numbers, descending, fit the counts, descending."""
        tables = self.tables
        have = desc if tables.contract_number[card] else counts
        for need, got in zip(tables.contract_needs[card], have):
            if need > got:
                return False
        return True

    def _fitting_cards(self, counts: tuple) -> int:
        """Bit set of the cards that one level's colour ``counts`` complete, memoised in
        ``tables.fits`` (it depends on the config's tables alone)."""
        desc = sorted(counts, reverse=True)
        mask = 0
        for card in range(self.tables.num_contracts):
            if self._fits_counts(card, counts, desc):
                mask |= 1 << card
        self.tables.fits[counts] = mask
        return mask

    def _fitting_levels(self) -> tuple[list, int]:
        """The turn's player's levels that complete some card, as (id of
        ``complete:pub0`` at that level, bit set of those cards), and the union of the
        bit sets. Kept per seat on the state while the seat's resources stay the same
        (checked by value, so it cannot go stale; clones and loaded states start
        without it)."""
        p, r = self.seat, self.resources[self.seat]
        kept = getattr(self, "_fitting", None)
        if kept is None or len(kept) != self.n:
            kept = self._fitting = [None] * self.n
        entry = kept[p]
        if entry is not None and entry[0] == r:
            return entry[1], entry[2]
        fits, levels, union = self.tables.fits, [], 0
        for at, b in _LEVELS:
            counts = (r[b], r[b + 1], r[b + 2], r[b + 3])
            mask = fits.get(counts)
            if mask is None:
                mask = self._fitting_cards(counts)
            if mask:
                levels.append((at, mask))
                union |= mask
        kept[p] = (r[:], levels, union)
        return levels, union

    def _contract_options(self, out: list) -> None:
        """``complete`` actions for every (contract, level) that fits."""
        levels, union = self._fitting_levels()
        if not union:
            return
        # the public cards, then the hand's (their sources numbered from HAND_SOURCE0)
        hand = enumerate(self.hands[self.seat], actions.HAND_SOURCE0)
        sources = chain(enumerate(self.public), hand)
        for src, card in sources:
            if card >= 0 and union >> card & 1:
                for at, mask in levels:
                    if mask >> card & 1:
                        out.append(at + src * data.NUM_LEVELS)

    def _assignable(self, needs: tuple, i: int, used: list, counts: list) -> bool:
        """Whether numbers ``needs[i:]`` fit distinct unused colours (equal numbers in
        increasing colour order, so that one colour set is one decision path)."""
        if i == len(needs):
            return True
        low = used[-1] + 1 if i and needs[i] == needs[i - 1] else 0
        for c in range(low, NC):
            if c not in used and counts[c] >= needs[i]:
                used.append(c)
                ok = self._assignable(needs, i + 1, used, counts)
                used.pop()
                if ok:
                    return True
        return False

    def _colour_options(self) -> list[int]:
        """Colours that may take the next number of the card being completed."""
        needs = self.tables.contract_needs[self.contract]
        base = self.contract_level * NC
        counts = self.resources[self.seat][base : base + NC]
        i = len(self.colour_picks)
        low = self.colour_picks[-1] + 1 if i and needs[i] == needs[i - 1] else 0
        options = []
        for c in range(low, NC):
            if c not in self.colour_picks and counts[c] >= needs[i]:
                self.colour_picks.append(c)
                if self._assignable(needs, i + 1, self.colour_picks, counts):
                    options.append(c)
                self.colour_picks.pop()
        return options

    def _start_contract(self, action: int) -> None:
        """Complete a combination card now, or ask the colours of a number card."""
        src, level = actions.complete_of(action)
        if src < actions.HAND_SOURCE0:
            card = self.public[src]
        else:
            card = self.hands[self.seat][src - actions.HAND_SOURCE0]
        self.resume_phase = self.phase
        self.contract, self.contract_source, self.contract_level = card, src, level
        if self.tables.contract_number[card]:
            self.colour_picks = []
            self.phase = CONTRACT_COLOUR
        else:
            self._finish_contract()

    def _finish_contract(self) -> None:
        """Pay the resources, score the card and its bonuses, discard, refill."""
        tables, p = self.tables, self.seat
        card, src, level = self.contract, self.contract_source, self.contract_level
        base = level * NC
        r = self.resources[p]
        needs = tables.contract_needs[card]
        if tables.contract_number[card]:
            for need, c in zip(needs, self.colour_picks):
                r[base + c] -= need
        else:
            for c in range(NC):
                r[base + c] -= needs[c]
        self.pp[p] += tables.contract_pp[card]
        self.credits[p] += tables.contract_credits[card]
        self.batteries[p] += tables.contract_batteries[card]
        token = self.board_tokens[p][level]
        if token >= 0:  # permanent effect of the reward token on that level
            if tables.token_back[token] == data.BACK_CREDITS:
                self.credits[p] += data.PERMANENT_CREDITS
            else:
                self.pp[p] += data.PERMANENT_PP
        self.discard.append(card)
        if src < actions.HAND_SOURCE0:
            self.public[src] = self._draw_card()
        else:
            del self.hands[p][src - actions.HAND_SOURCE0]
        self.contract = self.contract_source = self.contract_level = -1
        self.colour_picks = []
        self.phase = self.resume_phase
