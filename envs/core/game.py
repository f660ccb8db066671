"""The contract between a game's pure rules and the shared RL adapter.

A game is two layers (Pgx): ``rules.py`` holds a state class that knows nothing of
gym or PettingZoo, and a :class:`Game` object ties it to its action table, its
observation layout and its config model. :class:`otrio.envs.core.aec.BoardGameEnv` turns any
``Game`` into a PettingZoo AEC environment.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable
from typing import Any, Protocol

import numpy as np

from .actions import ActionTable
from .config import GameConfig
from .full_state import FullState
from .observer import ObservationLayout
from .picture import Picture
from .spec import GameInfo

TERMINAL = -1  # current_player() of a finished game
BOUNDS_CACHE_SIZE = 64  # configs whose observation bounds a game keeps (then starts over)


class GameState(Protocol):
    """What the adapter needs from a rules state. Seats are ints 0..n-1."""

    num_players: int

    def current_player(self) -> int:
        """The seat that takes the pending decision, or ``TERMINAL``."""

    def legal_actions(self) -> list[int]:
        """Sorted ids of the legal actions of the pending decision (never empty)."""

    def apply_action(self, action: int) -> None:
        """Play a legal action (the adapter has checked legality)."""

    def is_terminal(self) -> bool:
        """True once the game is over."""

    def scores(self) -> list[int]:
        """Points of each seat so far (final points once terminal)."""

    def winners(self) -> list[int]:
        """Seats that share the victory (only meaningful once terminal)."""

    def to_dict(self) -> dict[str, Any]:
        """The full state, generator included, as a JSON-able dict."""

    def clone(self) -> GameState:
        """An independent copy (generator included) that shares no mutable list with
        this one; a few engine steps' worth of work (searching agents copy often)."""

    # Optional: ``capped: bool`` -- True when the game stopped at a configured limit
    # rather than by its rules' end. The adapter then reports truncations (not
    # terminations) while still paying the winner rule's rewards.


class Game:
    """One game's fixed facts plus the functions that the adapter calls.

    A game declares its parts and inherits the glue::

        class OceanosGame(Game):
            info = INFO                      # GameInfo
            config_model = Config            # pydantic model of its config
            actions = TABLE                  # ActionTable
            layout = LAYOUT                  # ObservationLayout
            state_class = State              # State(config, rng), State.from_dict(d)
            check_invariants = staticmethod(check_invariants)  # (state, loaded=False)
            write_observation = staticmethod(write_observation)  # (state, seat, out)
            render_text = staticmethod(render_text)  # (state, viewer=None) -> str
            resample_hidden = staticmethod(resample_hidden)  # (state, seat, rng) -> State
            resample_future = staticmethod(resample_future)  # (state, seat, rng) -> State

    and overrides ``game_summary`` (and ``simultaneous_step``) where the game has facts
    worth recording (or simultaneous choices). Each game keeps its parts in the same
    places: ``invariants.check_invariants``, ``observe_cache.write_observation``,
    ``render.render_text``, ``hidden.resample_hidden`` and ``hidden.resample_future``.
    """

    info: GameInfo
    config_model: type[GameConfig]
    actions: ActionTable
    layout: ObservationLayout
    state_class: type
    # what every reachable position satisfies (the game's invariants.py), run on every
    # load: (state, loaded) -> None, or StateError naming the field; None: no checker
    check_invariants: Callable[..., None] | None = None
    # writes every value of ``out`` whatever it held (the adapter reuses its buffer)
    write_observation: Callable[[GameState, int, np.ndarray], None]
    render_text: Callable[..., str]  # (state, viewer=None): a seat sees only what it may know
    # the layout and writer of env.state() (otrio.envs.core.full_state.FullState); None: none
    full_state: FullState | None = None

    def new_state(self, config: GameConfig, rng: np.random.Generator) -> GameState:
        """A fresh game after setup, driven by ``rng`` for all chance."""
        return self.state_class(config, rng)

    def state_from_dict(self, data: dict[str, Any]) -> GameState:
        """Inverse of ``GameState.to_dict``, checked: the state's shape and types by
        its schema (``State.from_dict``), then its meaning by the game's
        ``check_invariants(state, loaded=True)``; StateError naming the field on bad
        data. Loading validates here, outside the rules, so that no rules module
        imports its checker."""
        state = self.state_class.from_dict(data)
        if self.check_invariants is not None:
            self.check_invariants(state, loaded=True)
        return state

    def decision_cap(self, config: GameConfig) -> int:
        """The decisions after which a game of ``config`` is truncated: the most it can
        take under the rules (where the rules bound it), at most ``info.max_decisions``.
        The env's truncation and OpenSpiel's ``max_game_length`` both read it."""
        return self.info.max_decisions

    def observe(self, state: GameState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s view of ``state`` into ``out`` (every value of it)."""
        self.write_observation(state, seat, out)

    def observation(self, state: GameState, seat: int, scratch: np.ndarray) -> np.ndarray:
        """``seat``'s view of ``state`` as a new float32 array that the caller owns.

        The default writes into the reused ``scratch`` buffer (a game may cache views
        of it) and copies it; a game that can build the new array in one step
        overrides this.
        """
        self.observe(state, seat, scratch)
        return scratch.copy()

    def view(self, state: GameState, seat: int):
        """What ``seat`` may know of ``state``, as the game's structured ``SeatView``
        (``envs/<game>/view.py``): the facts the observation encodes."""
        raise NotImplementedError(f"{self.info.name} has no seat view")

    def decode_view(self, observation: np.ndarray, config: GameConfig):
        """The ``SeatView`` that ``observation`` (a seat's observation vector of a game
        with ``config``) encodes: the exact inverse of the observation's writer."""
        raise NotImplementedError(f"{self.info.name} has no seat view")

    def observation_bounds(self, config: GameConfig) -> tuple[np.ndarray, np.ndarray]:
        """The float32 ``(low, high)`` vectors that every observation of a game with
        ``config`` lies between (each piece's declared range, ``layout.bounds``): built
        once per config, shared and read-only."""
        cache = self.__dict__.setdefault("_bounds", {})
        both = cache.get(config)
        if both is None:
            if len(cache) >= BOUNDS_CACHE_SIZE:
                cache.clear()
            both = self.layout.bounds(config)
            for array in both:
                array.flags.writeable = False
            cache[config] = both
        return both

    def observation_names(self) -> tuple[str, ...]:
        """One readable name per observation index (``layout.names()``), e.g.
        ``hand[5].present``."""
        return self.layout.names()

    def render(self, state: GameState) -> str:
        """A readable text picture of the table."""
        return self.render_text(state)

    def render_for(self, state: GameState, viewer: int) -> str:
        """The table as ``viewer``'s player may see it (for a human at the terminal):
        ``render_text(state, viewer)``."""
        return self.render_text(state, viewer)

    def picture(self, state: GameState, viewer: int | None = None) -> Picture:
        """A drawing of the table (:class:`otrio.envs.core.picture.Picture`; ``to_svg()`` or
        ``to_rgb()``): the whole table when ``viewer`` is None, else only what seat
        ``viewer`` may know (exactly its observation's information).

        Drawn by ``draw_picture(state, viewer)`` of the game's ``picture`` module (the
        ``picture.py`` beside its ``env.py``), imported on first use: pictures are drawn
        only on request, never in the rules' hot path.
        """
        if viewer is not None and (
                isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer))
                or not 0 <= viewer < state.num_players):
            raise ValueError(f"viewer must be None or a seat 0..{state.num_players - 1}, "
                             f"got {viewer!r}")
        package = type(self).__module__.rpartition(".")[0]
        try:
            module = importlib.import_module(f"{package}.picture")
        except ModuleNotFoundError as err:
            if err.name != f"{package}.picture":
                raise
            raise NotImplementedError(f"{self.info.name} has no picture module "
                                      f"({package}.picture)") from None
        return module.draw_picture(state, None if viewer is None else int(viewer))

    def resample_hidden(
        self, state: GameState, seat: int, rng: np.random.Generator
    ) -> GameState:
        """A copy of ``state`` whose information hidden from ``seat`` is re-drawn.

        Used by the leak test (``seat``'s observation must not change) and by agents
        that sample what they cannot see. A game with hidden information declares
        its own (``resample_hidden = staticmethod(hidden.resample_hidden)``).
        """
        return self.state_from_dict(state.to_dict())

    def resample_future(
        self, state: GameState, seat: int, rng: np.random.Generator
    ) -> GameState:
        """A copy of ``state`` that keeps the true *present* and re-draws the *future*:
        the clairvoyant reference's worlds (``mcts:clairvoyant=1``, a research cheat).

        The present is what some seat knows (others' hands, secret simultaneous
        choices, face-down cards); the future is what no seat knows yet (deck order,
        dice, bag draws), re-drawn from ``rng`` so that luck is not counted as skill.
        Each game says which is which beside its ``resample_hidden`` (its
        ``hidden.resample_future``); a game that does not cannot be searched
        clairvoyantly.
        """
        raise NotImplementedError(f"{self.info.name} does not say what is present and "
                                  "what is future (no resample_future)")

    def simultaneous_step(self, state: GameState) -> Hashable | None:
        """An id of the simultaneous step in progress, or None outside one.

        In a simultaneous step the rules let several seats choose "at the same time";
        the engine asks them one after another, and no seat's observation may show
        what a seat before it chose in the same step (``check_simultaneous_choices``).
        The id must differ between two consecutive steps (e.g. include the round).
        """
        return None

    def game_summary(self, state: GameState) -> dict[str, Any]:
        """Game-specific facts of a finished game for records (override per game)."""
        return {}

    def action_name(self, action: int) -> str:
        """Readable name of an action id."""
        return self.actions.name(action)
