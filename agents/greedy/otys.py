"""Greedy Otys: value each legal action by its immediate worth to the seat, in PP.

The heuristic reads the seat's view alone (``otrio.envs.otys.view.SeatView``: what the seat
may know, as plain values; from an observation, its exact decoding), and asks the
rules what each diver and sponsor may do and what it costs (``otrio.envs.otys.effects``):

* **Contract potential.** A level's resources are worth the best contract they build
  toward (public or own hand; plus a share of the second best): its PP, bonuses and the
  level's reward-token back, times ``deficit_decay`` per resource still missing or to
  be cleared for room; public cards are discounted for the risk an opponent takes them.
  A resource is worth the change it makes to its level's potential, so Experts,
  purchases, sales, reward-token resources and Sponsor #5 moves go where they build
  contracts, and a kept contract is the one that suits the resources already placed.
* **Completing** scores the card's PP and bonuses plus what its level keeps; it is done
  within the turn unless those resources build something clearly better.
* **Everything in PP:** a credit is worth ``credit`` (Sponsor #4 turns two into a PP and
  an upgrade), a battery ``battery``, an upgrade by its diver (the Trader most), and
  all future value fades to nothing in the last round. So a sale takes PP or credits,
  whichever is worth more now, and Sponsor #4 and PP tokens are taken when they pay.
* **Tempo.** A key is worth the best turn it opens: the sponsor on its level (after an
  X key's rotation) and the diver there, or one a propeller brings for a battery; an X
  key costs the flexibility it spends. In a turn the sponsor, propellers and effects
  follow that plan; at its end the diver stays (oxygen) only if the column it would
  leave is worth more than the battery.

The weights (:class:`~otrio.agents.greedy.otys_values.Weights`, a dataclass: vary one with
``GreedyOtys(weights=replace(Weights(), credit=0.4))``), contract potential, diver
effects and turn plans are in :mod:`otrio.agents.greedy.otys_values`; this module holds the
agent and the values of each kind of decision. ``values_of_view(view, legal)`` values
a view (a search's rollouts build it from their world: ``game.view(world, seat)``);
``action_values(observation)`` decodes the observation first, at the agent's config.
"""

from __future__ import annotations

import numpy as np

from otrio.envs.otys import actions as A
from otrio.envs.otys import data as D
from otrio.envs.otys.config import Config
from otrio.envs.otys.effects import moved
from otrio.envs.otys.observe import decode, observed_players
from otrio.envs.otys.phases import Phase
from otrio.envs.otys.view import SeatView

from ..base import ValuingAgent
from .otys_values import (
    DEFERRED,
    FUSS,
    LEVEL_SLOTS,
    NUM_LEVELS,
    Valuer,
    Weights,
    card_value,
    contract_source,
    number_remainders,
)


class GreedyOtys(ValuingAgent):
    """The Otys heuristic (see the module docstring). ``config``: the game's, which an
    observation is decoded at (None: the default components at the observed player
    count); ``weights``: its numbers."""

    spec = "greedy"

    def __init__(self, config: Config | None = None, weights: Weights | None = None) -> None:
        super().__init__()
        self.config = config
        self.weights = Weights() if weights is None else weights
        self._potentials: dict = {}  # level potentials, kept while the contracts stay
        self._scenes: dict = {}  # effect values, kept while what they read stays
        self._defaults: dict[int, Config] = {}  # player count -> default config

    @classmethod
    def for_env(cls, env) -> GreedyOtys:
        """The agent for ``env``'s game: its observations are decoded at its config."""
        return cls(env.unwrapped.config)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._potentials = {}
        self._scenes = {}

    def action_values(self, observation: dict[str, np.ndarray]) -> dict[int, float]:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return {legal[0]: 0.0}  # nothing to weigh
        vector = observation["observation"]
        config = self.config
        if config is None:
            n = observed_players(vector)
            config = self._defaults.get(n) or self._defaults.setdefault(n, Config(num_players=n))
        return self.values_of_view(decode(vector, config), legal)

    def values_of_view(self, view: SeatView, legal: list[int]) -> dict[int, float]:
        """Legal action -> its value in PP, for ``view``'s pending decision (``legal``:
        the legal actions, sorted)."""
        if len(legal) == 1:
            return {legal[0]: 0.0}  # nothing to weigh
        return _Evaluator(view, self.weights, self._potentials, self._scenes).values(legal)


class _Evaluator(Valuer):
    """What the seat knows, read once, and the values of the pending decision."""

    # ------------------------------------------------------------ the decision
    def values(self, legal: list[int]) -> dict[int, float]:
        """Legal action -> its value in PP, for the pending decision's phase."""
        phase = self.phase
        if phase == Phase.KEY:
            return self._key_values(legal)
        if phase in (Phase.STEP1, Phase.STEP2):
            return self._step_values(legal)
        if phase == Phase.COPY:
            return self._copy_values(legal)
        if phase == Phase.KEEP:
            return self._keep_values(legal)
        if phase == Phase.CONTRACT_COLOUR:
            return self._colour_values(legal)
        if phase == Phase.TOKEN_RESOURCE:
            return {a: 0.0 if a == A.DECLINE else self.change_value(self.level, a - A.COLOUR.start, 1) for a in legal}
        if phase == Phase.RETURN_KEY:
            return self._return_values(legal)
        if phase in (Phase.SPONSOR_FLIP, Phase.TOKEN_FLIP):
            return {a: 0.0 if a == A.DECLINE else self.upgrade_value(self.divers[a - A.FLIP.start]) for a in legal}
        if phase == Phase.SPONSOR_TOKEN:
            return {a: self.token_now(self.tokens(self.level)[a - A.TOKEN.start], self.level) for a in legal}
        if phase == Phase.SPONSOR5:
            return self._sponsor5_values(legal)
        # the designer's variant: a copied diver's owner keeps it down only for free
        return {a: -self.battery if a == A.OXYGEN else 0.0 for a in legal}

    def _key_values(self, legal: list[int]) -> dict[int, float]:
        out = {}
        rotated = [self.sponsors[-1]] + self.sponsors[:-1]
        for a in legal:
            if A.COMPLETE.start <= a < A.COMPLETE.stop:
                # A number card's colour questions asked before a key is chosen come
                # without the card in the observation; complete it in step 1 instead.
                number = self.contracts[self._contract_index(contract_source(a))][0]
                out[a] = DEFERRED if number else self.complete_value(a)
                continue
            kind, level = A.key_of(a)
            if kind == A.KEY_NUMBERED:
                out[a] = self.turn_value(level, self.sponsors[level], self.divers, True)
            else:
                cost = (self.w.own_x_use if kind == A.KEY_OWN_X else self.w.neutral_key) * self.fut
                out[a] = self.turn_value(level, rotated[level], self.divers, False) - cost
        return out

    def _step_values(self, legal: list[int]) -> dict[int, float]:
        level, col = self.level, self.divers
        slot = LEVEL_SLOTS[level]
        active = col[slot]
        tile = None if self.view.sponsor_used else self.sponsors[level]
        end = {A.RESURFACE: self.w.column_weight * (self.column_value(moved(col, slot, 0)) - self.column_value(col))}
        if A.OXYGEN in legal:
            end[A.OXYGEN] = -self.battery - FUSS
        follow = max(end.values())
        effects = None
        out = {}
        for a in legal:
            if a in end:
                out[a] = end[a]
            elif A.COMPLETE.start <= a < A.COMPLETE.stop:
                out[a] = self.complete_value(a) + follow
            elif A.PROP.start <= a < A.PROP.stop:
                s, t = A.prop_of(a)
                out[a] = self.plan(level, tile, moved(col, s, t)) - self.battery - FUSS + follow
            elif a == A.SPONSOR:
                value = self.sponsor_plan(level, self.sponsors[level], col, self.credits)
                out[a] = (value if value is not None else 0.0) + follow
            else:
                if effects is None:
                    effects = self.effects(active, self.upgraded[active], level, 0, self.free_costs, self.credits)
                out[a] = effects.get(a, 0.0) + follow
        return out

    def _copy_values(self, legal: list[int]) -> dict[int, float]:
        dtype, upg = self.view.copied_diver()
        options = self.effects(dtype, upg, self.level, self.view.copy_depth, False, self.credits)
        return {a: 0.0 if a == A.DECLINE else options.get(a, 0.0) for a in legal}

    def _keep_values(self, legal: list[int]) -> dict[int, float]:
        """A kept card is worth what it adds to the potential of the level it suits best
        (and its PP, a little)."""
        levels = []
        for level in range(NUM_LEVELS):
            counts = self.resources[level]
            best, second = self._best_two(level, counts)
            levels.append((counts, best, second, self._potential(best, second, counts)))
        out = {}
        for a in legal:
            if a == A.DECLINE:
                out[a] = 0.0
                continue
            drawn = self.view.drawn[a - A.KEEP.start]
            pp, bc, bb = drawn.pp, drawn.credits, drawn.batteries
            card = (drawn.number, drawn.needs, sum(drawn.needs), pp, bc, bb, False)
            gain = 0.0
            for level, (counts, best, second, before) in enumerate(levels):
                worth = pp + bc * self.credit + bb * self.battery + self._back_worth(level)
                v = card_value(card, worth, self.cap[level], counts, sorted(counts, reverse=True), sum(counts),
                               self.w.deficit_decay, self.w.public_risk)
                if v > best:
                    best, second = v, best
                elif v > second:
                    second = v
                gain = max(gain, self._potential(best, second, counts) - before)
            out[a] = gain + self.w.keep_pp_share * pp
        return out

    def _colour_values(self, legal: list[int]) -> dict[int, float]:
        """A specific-number card's next colour: the one that leaves the best potential
        once the card's remaining numbers are paid too."""
        contract = self.view.contract
        if contract is None:  # not in view: no preference
            return dict.fromkeys(legal, 0.0)
        card = (contract.number, contract.needs, sum(contract.needs), contract.pp, contract.credits,
                contract.batteries)
        level = self.view.contract_level
        picked = list(self.view.colour_picks)
        needs = card[1]
        need, later = needs[len(picked)], needs[len(picked) + 1 :]
        skip = next((k for k, c in enumerate(self.contracts) if c[:6] == card), -1)
        out = {}
        for a in legal:
            c = a - A.COLOUR.start
            rest = list(self.resources[level])
            rest[c] -= need
            used = frozenset(picked + [c])
            out[a] = max(
                (self.level_value(level, left, skip) for left in number_remainders(later, tuple(rest), used)),
                default=0.0,
            )
        return out

    def _return_values(self, legal: list[int]) -> dict[int, float]:
        out = {}
        for a in legal:
            code = a - A.RETURN_KEY.start
            if code == D.OWN_X:
                out[a] = max(self.plan(level, None, self.divers) for level in range(NUM_LEVELS)) + self.w.own_x_use
            else:
                out[a] = self.plan(code, None, self.divers)
        return out

    def _sponsor5_values(self, legal: list[int]) -> dict[int, float]:
        level = self.level
        out = {}
        for a in legal:
            if a == A.BATTERY:
                out[a] = self.battery
                continue
            c, direction, other = A.move_of(a)
            src, dst = (level, other) if direction == 0 else (other, level)
            out[a] = self.change_value(src, c, -1) + self.change_value(dst, c, 1) - self.battery
        return out
