"""The suite's three games as OpenSpiel Python games (``pip install -e '.[openspiel]'``).

Importing this module registers them with ``pyspiel``, and ``import otrio`` imports it
as soon as ``pyspiel`` is imported (before or after ``otrio``)::

    import otrio
    import pyspiel
    game = pyspiel.load_game("python_otrio_oceanos", {"players": 3, "seed": 7})

| OpenSpiel name | env | players (default) | setup parameters |
|---|---|---|---|
| ``python_otrio_oceanos`` | ``oceanos_v0`` | 2-5 (4) | ``two_player_variant``, ``troubled_waters`` |
| ``python_otrio_otys`` | ``otys_v0`` | 2-4 (3) | ``spy_designer_variant``, ``round_cap``, ``sponsor_sides`` |
| ``python_otrio_otontin`` | ``otontin_v0`` | 3-8 (5) | ``bean_target``, ``round_cap``, ``split_spoils`` |

Every game also takes ``players`` and ``seed``; a parameter's default is the game
config's (``envs/<game>/``), so an OpenSpiel game plays exactly the env of the same
config, with sparse rewards (``dense_reward`` is off; richer configs, such as other
component tables, stay with ``otrio.envs.make``).

What the games are, in OpenSpiel's terms:

- **Sequential, imperfect information, terminal rewards.** ``returns()`` are the
  suite's end rewards (``otrio.envs.core.rewards.end_rewards``): +1 for each winner and -1
  for every other seat, 0 for all when every seat shares the victory, and 0 for all
  when a game reaches its decision cap, where the env truncates it too
  (``max_game_length``: ``Game.decision_cap`` of the game's config, the most decisions
  it can take, e.g. 1,065 for five-player Oceanos). The utility is general-sum,
  zero-sum at two players.
- **Sampled chance** (``ChanceMode.SAMPLED_STOCHASTIC``). Each engine draws its chance
  (shuffles, deals, dice) from one ``numpy`` generator inside its state, in the middle
  of applying a player's action; there is no point between two decisions where the
  outcomes could be listed with their probabilities, so no state is a chance node and
  ``chance_outcomes()`` is never asked for. The generator travels with the state:
  ``clone()`` continues the same future, and ``resample_from_infostate`` re-draws it.
  The game's ``seed`` parameter: ``-1`` (default) draws each new game's generator
  from fresh entropy; ``s >= 0`` makes the game's deals a fixed sequence, the ``k``-th
  game dealt getting seed ``derive_seed(s, k)``. A state is dealt when first used; one
  OpenSpiel makes only to overwrite (a C++ clone, a deserialization) deals nothing, and
  one that is only observed through an observer and then dropped (OpenSpiel makes one
  to size a tensor at every tensor call from C++) hands its deal on to the next state.
  ``game.new_initial_state_from_seed(s)`` is the game the env deals on ``reset(seed=s)``.
- **Information states.** The tensors (information state and observation alike) are
  the seat's float32 observation, ``Game.observe`` (own seat first, then the others in
  turn order), which holds only what the seat may know; an observer's ``dict`` is
  ``{"observation": tensor}`` and its ``pieces`` the named views of the game's README.
  From Python, ``state.observation_tensor(p)`` and the game's tensor sizes are answered
  directly; from C++, OpenSpiel sizes a Python game's tensor by making a state and
  observing it, at each call. The strings (information state and observation alike)
  are a line naming the seat, the table as its player may see it (``Game.render_for``)
  and the observation's digest: two states that differ in the seat's observation never
  share a string (the text alone can be coarser), so a string fixes the legal actions,
  and re-drawing what the seat cannot know never changes it. The observation is what
  the seat may know now, not a record of everything it saw: OpenSpiel's perfect-recall
  information state is offered as this same view.
- **``resample_from_infostate(player, sampler)``** is ``Game.resample_hidden``: a world
  with everything ``player`` cannot know re-drawn (other hands, deck order, secret
  choices, future chance), seeded by two draws of ``sampler`` (``ISMCTSBot`` passes a
  ``pyspiel.UniformProbabilitySampler``; :func:`resampler` gives a seeded one). The
  re-drawn state has the same strings and tensors for ``player``, the same count of
  decisions played (the cap) and an empty ``history()`` (no sequence of actions is
  known to lead to the re-drawn world).
- ``apply_action`` refuses an illegal action (``IllegalActionError`` naming the legal
  ones) rather than corrupt the engine, and a bool or a float as well (OpenSpiel would
  read ``True`` as action 1); games and states pickle (a game as its name and
  parameters, a state as its game and ``serialize()``).
- The ``seed`` parameter is ``-1`` or an integer ``0..2**31 - 1`` (OpenSpiel's
  integer parameters are 32-bit); another negative, a bool or a float is a
  ``ConfigError``. :func:`load` refuses a larger one by name; ``pyspiel.load_game``
  handed one fails in OpenSpiel's own conversion, before the game sees it.

**Serialization, without pickle.** ``state.serialize()`` is JSON: the engine's state
(``to_dict``, its generator included, so a copy continues the same future), the count
of decisions (the cap) and OpenSpiel's history of ``(player, action)``.
``game.deserialize_state(text)`` reads it with the suite's bounded JSON reader and
checks it as ``load_state`` checks a saved state; any text that is not a state of
that game raises one error, :class:`StateStringError` (a ``pyspiel.SpielError`` and
a ``StateError``), one line. OpenSpiel's own serialization of a Python state pickles
its attributes, and its ``SerializeGameAndState`` asks a sampled-stochastic game for
a C++ generator state that a Python game cannot give; so importing this module routes
``pyspiel.serialize_game_and_state`` and ``pyspiel.deserialize_game_and_state`` to
:func:`serialize_game_and_state` / :func:`deserialize_game_and_state` for the otrio
games (OpenSpiel's text layout; the generator section is the count of games the game
has dealt), and leaves every other game's to OpenSpiel. What stays OpenSpiel's, in
C++ where Python cannot reach: code that calls a game's C++ ``DeserializeState``
itself (``pyspiel.Game.deserialize_state(game, text)``, the base method called by
name, is such code) unpickles the text, as for every Python game, so hand it only
strings you made; and ``pyspiel.random_sim_test(..., serialize=True)`` stops at
``GetRNGState unimplemented`` (``tests/integrations/test_openspiel.py`` runs its
serialization check through these functions instead).

``pyspiel.random_sim_test(game, num_sims, serialize=False, verbose=False)`` passes at
every game's fewest and most players (``tests/integrations/test_openspiel.py``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError("OpenSpiel is not installed: pip install -e '.[openspiel]' "
                      "(or pip install 'open_spiel>=2.0')") from err

from otrio.envs.core.bounded import check_nesting, clip, parse_json
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, StateError, checked_action, is_integer_action
from otrio.envs.core.fields import show
from otrio.envs.core.game import Game
from otrio.envs.core.registry import ENV_MODULES
from otrio.envs.core.rewards import end_rewards
from otrio.envs.core.rng import derive_seed, make_rng
from otrio.envs.core.saves import MAX_SAVE_DEPTH, MAX_SAVE_NODES, MAX_SAVE_TEXT

_Type = pyspiel.GameType
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
STATE_FORMAT = 1  # the layout of ``state.serialize()``'s JSON
MAX_SEED = 2**31 - 1  # OpenSpiel's integer parameters are C++ ints (32-bit)
MAX_STATE_STRING = 8 << 20  # characters of one serialized state (the longest game: ~4 M)
MAX_GAME_STRING = 1_000  # characters of a game's name and parameters in a serialization
MAX_DEALT = 2**62  # games a game reports dealt in a serialization's generator section


class StateStringError(StateError, pyspiel.SpielError):
    """A string that is not a serialized state of the game it is handed to
    (``game.deserialize_state``, :func:`deserialize_game_and_state`).

    One type for every such string, caught as OpenSpiel's ``pyspiel.SpielError`` or as
    the suite's :class:`~otrio.envs.core.errors.StateError`; its message is one line naming
    what is wrong."""


@dataclass(frozen=True)
class _Spec:
    """One game's registration: its env, OpenSpiel names and setup parameters."""

    env_id: str
    short_name: str
    long_name: str
    setup: tuple[str, ...]  # parameters copied to the config key of the same name
    extra: dict[str, Any]  # parameters whose config key differs: name -> default

    @property
    def game(self) -> Game:
        return importlib.import_module(ENV_MODULES[self.env_id]).GAME

    def defaults(self) -> dict[str, Any]:
        """Every parameter with its default, taken from the game's config model."""
        fields = self.game.config_model.model_fields
        return {"players": self.game.info.default_players, "seed": -1,
                **{name: fields[name].default for name in self.setup}, **self.extra}

    def config(self, params: dict[str, Any]) -> dict[str, Any]:
        """The env config of a game's parameters."""
        config = {"num_players": params["players"],
                  **{name: params[name] for name in self.setup}}
        if "sponsor_sides" in self.extra:
            config["sponsors"] = {"sides": params["sponsor_sides"]}
        return config

    def game_type(self, zero_sum: bool = False) -> pyspiel.GameType:
        info = self.game.info
        return pyspiel.GameType(
            short_name=self.short_name,
            long_name=self.long_name,
            dynamics=_Type.Dynamics.SEQUENTIAL,
            chance_mode=_Type.ChanceMode.SAMPLED_STOCHASTIC,
            information=_Type.Information.IMPERFECT_INFORMATION,
            utility=_Type.Utility.ZERO_SUM if zero_sum else _Type.Utility.GENERAL_SUM,
            reward_model=_Type.RewardModel.TERMINAL,
            max_num_players=info.max_players,
            min_num_players=info.min_players,
            provides_information_state_string=True,
            provides_information_state_tensor=True,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=self.defaults(),
        )


SPECS = {
    spec.env_id: spec for spec in (
        _Spec("oceanos_v0", "python_otrio_oceanos", "Python otrio Oceanos",
              ("two_player_variant", "troubled_waters"), {}),
        _Spec("otys_v0", "python_otrio_otys", "Python otrio Otys",
              ("spy_designer_variant", "round_cap"), {"sponsor_sides": "random"}),
        _Spec("otontin_v0", "python_otrio_otontin", "Python otrio Otontin",
              ("bean_target", "round_cap", "split_spoils"), {}),
    )
}
# env id -> OpenSpiel short name
GAMES = {env_id: spec.short_name for env_id, spec in SPECS.items()}
_STATE_KEYS = {"format", "game", "decisions", "history", "state"}


def _checked_seed(seed) -> int:
    """The game's ``seed`` parameter: -1 (fresh entropy) or an integer in
    0..:data:`MAX_SEED`; anything else (a bool, a float, another negative, a number
    OpenSpiel's parameters cannot hold) raises ConfigError."""
    if not is_integer_action(seed) or not (seed == -1 or 0 <= seed <= MAX_SEED):
        raise ConfigError(f"seed must be -1 (fresh entropy) or an integer 0..{MAX_SEED} "
                          f"(OpenSpiel's integer parameters are 32-bit), got {show(seed)} "
                          f"({type(seed).__name__})")
    return int(seed)


class _World:
    """The engine state behind one OpenSpiel state, and what is cached about it.

    OpenSpiel's C++ ``Clone`` makes a new initial state and then deep-copies the
    Python attributes into it, and its C++ serializer pickles them: this holder makes
    the first ``clone()`` of the engine (a few engine steps, generator included) and
    the second its JSON ``to_dict``, checked when read back (:func:`_restore`). A fresh initial state is dealt on first use, so
    the state a clone overwrites deals nothing; and one that is only observed through
    an observer and then dropped (OpenSpiel builds one to size a tensor at each tensor
    call from C++) hands its world on to the next state dealt.
    """

    __slots__ = ("game", "cap", "state", "decisions", "owner", "committed", "seat", "_legal",
                 "_text", "_obs", "__weakref__")

    def __init__(self, game: Game, cap: int, state=None, decisions: int = 0, owner=None):
        self.game = game  # the suite's Game object (shared, read-only)
        self.cap = cap  # the game's decision cap (Game.decision_cap of its config)
        self.state = state  # the engine's state, None until dealt
        self.decisions = decisions  # decisions applied (the game ends at the cap)
        self.owner = owner  # the OpenSpiel game that deals it (None once committed)
        self.committed = state is not None  # False: dealt lazily, not yet used
        self._obs: np.ndarray | None = None  # scratch for observations
        self._clear()

    def _clear(self) -> None:
        self.seat: int | None = None  # the player to act (TERMINAL once over), once known
        self._legal: list[int] | None = None
        self._text: dict[int, str] = {}

    def player(self) -> int:
        """The seat to act, or OpenSpiel's TERMINAL once the rules end the game or it
        reaches the decision cap (OpenSpiel asks this many times a step: cached)."""
        seat = self.seat
        if seat is None:
            state = self.engine()
            if state.is_terminal() or self.decisions >= self.cap:
                seat = _TERMINAL
            else:
                seat = state.current_player()
            self.seat = seat
        return seat

    def engine(self):
        """The engine state, dealt now if need be; from here on it is this state's."""
        if not self.committed:
            if self.state is None:
                self.state = self.owner._deal(self)
            self.owner._taken(self)
            self.owner, self.committed = None, True
        return self.state

    def legal(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self.engine().legal_actions()
        return legal

    def apply(self, action: int) -> None:
        state = self.engine()
        action = checked_action(action, f"player_{state.current_player()}", self.legal(),
                                self.game.action_name)
        state.apply_action(action)
        self.decisions += 1
        self._clear()

    def observe(self, seat: int, out: np.ndarray, commit: bool = True) -> None:
        """Write ``seat``'s observation into ``out``; ``commit=False`` (an observer's
        call) deals a fresh state without taking its world for good."""
        if commit or self.committed:
            state = self.engine()
        else:
            state = self.state
            if state is None:
                state = self.state = self.owner._deal(self)
        self.game.observe(state, seat, out)

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation, in this world's reused buffer."""
        out = self._obs
        if out is None:
            out = self._obs = np.empty(self.game.info.observation_size, dtype=np.float32)
        self.observe(seat, out)
        return out

    def text(self, seat: int) -> str:
        """What ``seat``'s player may see, then its observation's digest."""
        text = self._text.get(seat)
        if text is None:
            digest = hashlib.blake2b(self.observation(seat).tobytes(),
                                     digest_size=8).hexdigest()
            text = self._text[seat] = (f"view of player_{seat}\n"
                                       f"{self.game.render_for(self.engine(), seat)}\n"
                                       f"observation {digest}")
        return text

    def __deepcopy__(self, memo) -> _World:
        return _World(self.game, self.cap, self.engine().clone(), self.decisions)

    def __reduce__(self):
        return _restore, (self.game.info.env_id, self.engine().to_dict(), self.decisions)


def _restore(env_id: str, data: dict, decisions: int) -> _World:
    """A pickled :class:`_World` rebuilt from its JSON state, checked as a saved state
    is. Only OpenSpiel's C++ serializer pickles a world (Python's ``serialize()`` and
    pickles of a state write JSON): see the module's note on serialization."""
    game = SPECS[env_id].game
    state = game.state_from_dict(data)
    cap = game.decision_cap(state.config)
    if not is_integer_action(decisions) or not 0 <= decisions <= cap:
        raise StateError(f"corrupt state: decisions = {show(decisions)} is not an integer "
                         f"in 0..{cap}")
    return _World(game, cap, state, decisions)


class _Replay:
    """Stands in for a state's world while OpenSpiel's record of its history is written
    back (:meth:`OtrioGame.deserialize_state`): OpenSpiel's ``ApplyAction`` asks this
    for the player to act and applies nothing."""

    __slots__ = ("seat",)

    def __init__(self):
        self.seat: int | None = None

    def apply(self, action: int) -> None:
        """Nothing: the state is already the one after the history."""


class OtrioGame(pyspiel.Game):
    """One of the suite's games as an OpenSpiel game (a subclass per game sets ``spec``)."""

    spec: _Spec

    def __init__(self, params: dict | None = None):
        spec = self.spec
        params = {**spec.defaults(), **(params or {})}
        params["seed"] = _checked_seed(params["seed"])
        self.env_game = game = spec.game
        info = game.info
        # the env's own checks: an unknown or out-of-range value raises ConfigError
        self.config = validate(game.config_model, spec.config(params))
        info.check_players(self.config.num_players)
        self.cap = game.decision_cap(self.config)  # the most decisions a game takes
        n = self.config.num_players
        super().__init__(
            spec.game_type(zero_sum=n == 2),
            pyspiel.GameInfo(
                num_distinct_actions=info.num_actions,
                max_chance_outcomes=0,
                num_players=n,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0 if n == 2 else None,
                max_game_length=self.cap,
            ),
            params,
        )
        self.seed = int(params["seed"])
        self.worlds = 0  # games dealt so far (with seed >= 0: the next one's index)
        self._lent: tuple | None = None  # (weakref to a _World, its uncommitted state)

    @property
    def env_id(self) -> str:
        return self.spec.env_id

    def __reduce_ex__(self, protocol):
        """Pickled as its name and parameters (pyspiel's own pickle of a game asks a
        sampled-stochastic game for its generator, which a Python game cannot give);
        the copy deals its worlds afresh from ``seed``."""
        return pyspiel.load_game, (self.spec.short_name, self.get_parameters())

    def env_config(self) -> dict[str, Any]:
        """The config of the equivalent env: ``otrio.envs.make(game.env_id, **game.env_config())``."""
        return self.spec.config(self.get_parameters())

    def deserialize_state(self, text: str) -> OtrioState:
        """The state that ``state.serialize()`` wrote, checked as a saved state is.

        The text is JSON read with limits (at most :data:`MAX_STATE_STRING` characters,
        nesting and values bounded as a save's), never unpickled: the engine state is
        checked by its game (``Game.state_from_dict``: shape, types, the invariants of
        reachable positions, the generator) and must play this game's config; the
        count of decisions is an integer up to the decision cap; the history is
        OpenSpiel's record of ``(player, action)`` pairs, no longer than that count
        (shape only: the actions before a state are not in it). Anything else raises
        :class:`StateStringError` (a ``pyspiel.SpielError``), one line naming what is
        wrong.
        """
        world, history = self._read_state(text)
        state = OtrioState(self, _Replay())
        replay = state._w
        for player, action in history:  # OpenSpiel's own record: history(), move_number()
            replay.seat = player
            pyspiel.State.apply_action(state, action)
        state._w = world
        return state

    def _read_state(self, text) -> tuple[_World, list[tuple[int, int]]]:
        """The world and history of a serialized state (see :meth:`deserialize_state`)."""
        name, info = self.spec.short_name, self.env_game.info

        def bad(why: str):
            raise StateStringError(clip(f"not a serialized {name} state: {why}"))

        if not isinstance(text, str):
            bad(f"got {type(text).__name__}, not str")
        if len(text) > MAX_STATE_STRING:
            bad(f"{len(text)} characters, over the limit of {MAX_STATE_STRING}")
        data = parse_json(text, f"serialized {name} state", StateStringError,
                          max_depth=MAX_SAVE_DEPTH,
                          max_nodes=MAX_SAVE_NODES + 3 * self.cap)
        if not isinstance(data, dict) or set(data) != _STATE_KEYS:
            keys = sorted(map(str, data)) if isinstance(data, dict) else type(data).__name__
            bad(f"expected a JSON object of {sorted(_STATE_KEYS)}, got {show(keys)}")
        if data["format"] != STATE_FORMAT:
            bad(f"format = {show(data['format'])}, not {STATE_FORMAT} (made by another "
                "version of otrio, or not by otrio)")
        if data["game"] != name:
            bad(f"it is a state of {show(data['game'])}")
        decisions = data["decisions"]
        if not is_integer_action(decisions) or not 0 <= decisions <= self.cap:
            bad(f"decisions = {show(decisions)} is not an integer in 0..{self.cap}")
        history = data["history"]
        n = self.config.num_players
        if not isinstance(history, list) or len(history) > decisions:
            bad(f"history is not a list of at most decisions = {decisions} entries")
        for i, entry in enumerate(history):
            if (not isinstance(entry, list) or len(entry) != 2
                    or not all(map(is_integer_action, entry)) or not 0 <= entry[0] < n
                    or not 0 <= entry[1] < info.num_actions):
                bad(f"history[{i}] = {show(entry)} is not [seat 0..{n - 1}, action "
                    f"0..{info.num_actions - 1}]")
        try:
            check_nesting(data["state"], "its engine state", StateError, MAX_SAVE_DEPTH,
                          MAX_SAVE_NODES, MAX_SAVE_TEXT)
            engine = self.env_game.state_from_dict(data["state"])
        except StateError as err:
            bad(str(err))
        inner = getattr(engine, "config", None)
        if engine.num_players != n or (
                inner is not None
                and inner.model_copy(update={"dense_reward": self.config.dense_reward})
                != self.config):
            bad(f"it plays another config than this game's ({self.get_parameters()})")
        return _World(self.env_game, self.cap, engine, decisions), [tuple(e) for e in history]

    def _deal(self, holder: _World):
        """The engine state of a new game for ``holder``: the world a state that was
        only observed left behind, else the next of the game's worlds."""
        lent = self._lent
        if lent is not None and lent[0]() is None:
            state = lent[1]
        else:
            if self.seed < 0:
                rng = make_rng(None)
            else:
                rng = make_rng(derive_seed(self.seed, self.worlds))
            self.worlds += 1
            state = self.env_game.new_state(self.config, rng)
        self._lent = (weakref.ref(holder), state)
        return state

    def _next_world(self) -> int:
        """The index of the next game this game deals (with ``seed >= 0``, that game is
        dealt from ``derive_seed(seed, index)``): the world an observed-and-dropped
        state left behind counts as not yet dealt."""
        lent = self._lent
        return self.worlds - 1 if lent is not None and lent[0]() is None else self.worlds

    def _taken(self, holder: _World) -> None:
        """``holder`` keeps its world: it is no longer handed on."""
        lent = self._lent
        if lent is not None and lent[0]() is holder:
            self._lent = None

    def new_initial_state(self) -> OtrioState:
        """A new game (dealt when first used; see the module's note on ``seed``)."""
        return OtrioState(self, _World(self.env_game, self.cap, owner=self))

    def new_initial_state_from_seed(self, seed: int) -> OtrioState:
        """The game the env of this config deals on ``reset(seed=seed)``."""
        world = self.env_game.new_state(self.config, make_rng(seed))
        return OtrioState(self, _World(self.env_game, self.cap, world))

    # OpenSpiel sizes a Python game's tensor by building a new state and observing it,
    # on every call; from Python these answer at once
    def observation_tensor_shape(self) -> list[int]:
        return [self.env_game.info.observation_size]

    def observation_tensor_size(self) -> int:
        return self.env_game.info.observation_size

    information_state_tensor_shape = observation_tensor_shape
    information_state_tensor_size = observation_tensor_size

    def make_py_observer(self, iig_obs_type=None, params=None) -> OtrioObserver:
        """The observer OpenSpiel asks for its tensors and strings: one seat's own view
        (with or without perfect recall: the same view, see the module's note)."""
        return OtrioObserver(self.env_game, iig_obs_type, params)


class OtrioState(pyspiel.State):
    """An OpenSpiel state over the engine's state (``envs/<game>/rules.py``)."""

    def __init__(self, game: OtrioGame, world: _World | None = None):
        super().__init__(game)
        # a state OpenSpiel makes itself (a C++ clone, a deserialization) gets its
        # world assigned afterwards; until then it deals nothing
        self._w = world if world is not None else _World(game.env_game, game.cap, owner=game)

    @property
    def engine(self):
        """The suite's engine state (read it, do not change it)."""
        return self._w.engine()

    def current_player(self) -> int:
        seat = self._w.seat
        return self._w.player() if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return self._w.legal()

    def _apply_action(self, action: int) -> None:
        self._w.apply(action)

    def apply_action(self, action: int) -> None:
        """Play ``action``, an integer id (a Python or numpy integer) legal now; a bool,
        a float or anything else raises IllegalActionError naming the legal actions
        (OpenSpiel would read ``True`` as action 1 and ``1.9`` as 1)."""
        pyspiel.State.apply_action(self, self._integer(action))

    def apply_action_with_legality_check(self, action: int) -> None:
        """:meth:`apply_action` (which checks legality anyway)."""
        pyspiel.State.apply_action(self, self._integer(action))

    def child(self, action: int) -> OtrioState:
        """A copy of this state with ``action`` applied (refused as in :meth:`apply_action`)."""
        return pyspiel.State.child(self, self._integer(action))

    def _integer(self, action) -> int:
        """``action`` as an int; IllegalActionError if it is not an integer."""
        if not is_integer_action(action):
            w = self._w
            checked_action(action, f"player_{self.current_player()}", w.legal()
                           if not self.is_terminal() else [], w.game.action_name)
        return int(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._w.game.action_name(action)

    def is_terminal(self) -> bool:
        seat = self._w.seat
        return (self._w.player() if seat is None else seat) == _TERMINAL

    def returns(self) -> list[float]:
        w = self._w
        state = w.engine()
        n = state.num_players
        if not state.is_terminal():  # in play, or stopped by the decision cap
            return [0.0] * n
        ends = end_rewards(state.winners(), n)
        return [0.0] * n if ends is None else ends

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation (default: the player to act) as a list, as
        OpenSpiel's own (from Python this skips OpenSpiel's re-sizing of the tensor)."""
        w = self._w
        seat = w.player() if player is None else int(player)
        if not 0 <= seat < self.num_players():
            raise ValueError(f"player must be a seat 0..{self.num_players() - 1}, got {player!r}")
        return w.observation(seat).tolist()

    information_state_tensor = observation_tensor

    def resample_from_infostate(self, player_id: int, probability_sampler) -> OtrioState:
        """A world with everything ``player_id`` cannot know re-drawn
        (``Game.resample_hidden``), seeded by two draws of ``probability_sampler``."""
        w = self._w
        high, low = probability_sampler(), probability_sampler()
        seed = int(high * 2**31) << 32 | int(low * 2**32)
        world = w.game.resample_hidden(w.engine(), int(player_id), make_rng(seed))
        return OtrioState(self.get_game(), _World(w.game, w.cap, world, w.decisions))

    def serialize(self) -> str:
        """The state as JSON text, for ``game.deserialize_state``: the engine's state
        (``to_dict()``, its generator included, so the copy continues the same future),
        the count of decisions played and OpenSpiel's history of ``(player, action)``.
        No pickle: OpenSpiel's own serialization of a Python state pickles it."""
        w = self._w
        return json.dumps({
            "format": STATE_FORMAT,
            "game": self.get_game().spec.short_name,
            "decisions": w.decisions,
            "history": [[int(step.player), int(step.action)] for step in self.full_history()],
            "state": w.engine().to_dict(),
        }, separators=(",", ":"), allow_nan=False)

    def __reduce_ex__(self, protocol):
        """Pickled as its game and ``serialize()`` (see :meth:`OtrioGame.__reduce_ex__`)."""
        return _unpickle_state, (self.get_game(), self.serialize())

    def __str__(self) -> str:
        """The whole table (hidden information included), for logs."""
        return self._w.game.render(self._w.engine())


def _unpickle_state(game: OtrioGame, serialized: str) -> OtrioState:
    return game.deserialize_state(serialized)


class OtrioObserver:
    """OpenSpiel's Python observer interface over ``Game.observe`` and ``render_for``."""

    def __init__(self, game: Game, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and not (
                iig_obs_type.public_info
                and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("the otrio games offer one seat's own view only (public "
                             "information and the seat's private information)")
        self.tensor = np.zeros(game.info.observation_size, dtype=np.float32)
        self.dict = {"observation": self.tensor}
        self.pieces = game.layout.views(self.tensor)  # named views, in vector order

    def set_from(self, state: OtrioState, player: int) -> None:
        state._w.observe(player, self.tensor, commit=False)

    def string_from(self, state: OtrioState, player: int) -> str:
        return state._w.text(player)


def _register() -> dict[str, type[OtrioGame]]:
    known = {game.short_name for game in pyspiel.registered_games()}
    classes = {}
    for env_id, spec in SPECS.items():
        name = spec.game.info.name.capitalize() + "OpenSpielGame"
        cls = classes[env_id] = type(name, (OtrioGame,), {"spec": spec, "__module__": __name__})
        if spec.short_name not in known:  # a second import (a reload) registers nothing
            pyspiel.register_game(spec.game_type(), cls)
    return classes


GAME_CLASSES = _register()


def load(env_id: str, **params: Any) -> OtrioGame:
    """``pyspiel.load_game`` of an env's OpenSpiel game: ``load("oceanos_v0", players=3)``."""
    if env_id not in GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(sorted(GAMES))}")
    if "seed" in params:
        _checked_seed(params["seed"])
    for key, value in params.items():  # OpenSpiel would fail to convert it, in C++ terms
        if is_integer_action(value) and not -2**31 <= value < 2**31:
            raise ConfigError(f"{key} = {show(value)} does not fit OpenSpiel's integer "
                              "parameters (32-bit)")
    return pyspiel.load_game(GAMES[env_id], params)


_SERIAL_HEAD = "# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"


def serialize_game_and_state(game: OtrioGame, state: OtrioState) -> str:
    """``pyspiel.serialize_game_and_state`` for the otrio games (importing this module
    routes that function here for them): OpenSpiel's layout, with the game's name and
    parameters, its generator section (the count of games it has dealt: with
    ``seed >= 0``, what it deals next) and the state's :meth:`OtrioState.serialize`.
    OpenSpiel's own asks a Python game for a C++ generator state it cannot give."""
    if not isinstance(game, OtrioGame) or not isinstance(state, OtrioState):
        raise TypeError("serialize_game_and_state takes an otrio OpenSpiel game and one "
                        f"of its states, got {type(game).__name__} and {type(state).__name__}")
    if state.get_game().spec is not game.spec or state.get_game().config != game.config:
        raise ValueError(f"the state is not of {game}: it plays {state.get_game()}")
    return (f"{_SERIAL_HEAD}[Game]\n{game}\n[GameRNGState]\n{game._next_world()}\n"
            f"[State]\n{state.serialize()}\n")


def deserialize_game_and_state(text: str) -> tuple[OtrioGame, OtrioState]:
    """The game and state that :func:`serialize_game_and_state` wrote (importing this
    module routes ``pyspiel.deserialize_game_and_state`` here for text naming an otrio
    game). Nothing is unpickled: the game is loaded from its name and parameters (at
    most :data:`MAX_GAME_STRING` characters), continues dealing where the original
    was, and the state is read by ``game.deserialize_state``. Anything else raises
    :class:`StateStringError`, one line naming what is wrong."""
    def bad(why: str):
        raise StateStringError(clip(f"not a serialized otrio game and state: {why}"))

    if not isinstance(text, str):
        bad(f"got {type(text).__name__}, not str")
    if len(text) > MAX_STATE_STRING + MAX_GAME_STRING + 200:
        bad(f"{len(text)} characters, over the limit of "
            f"{MAX_STATE_STRING + MAX_GAME_STRING + 200}")
    if not text.startswith(_SERIAL_HEAD + "[Game]\n"):
        bad("it does not begin with OpenSpiel's meta section and [Game]")
    rest = text[len(_SERIAL_HEAD) + len("[Game]\n"):]
    game_text, found, rest = rest.partition("\n[GameRNGState]\n")
    dealt, found_too, state_text = rest.partition("\n[State]\n")
    if not (found and found_too) or "\n" in game_text or "\n" in dealt:
        bad("its sections are not [Game], [GameRNGState] and [State], one line each but "
            "the last")
    if len(game_text) > MAX_GAME_STRING:
        bad(f"its game is {len(game_text)} characters, over the limit of {MAX_GAME_STRING}")
    if _otrio_name(game_text) is None:
        bad(f"{show(game_text)} is none of the otrio games {sorted(GAMES.values())}")
    if not (dealt.isascii() and dealt.isdigit() and len(dealt) <= 19
            and int(dealt) <= MAX_DEALT):
        bad(f"its generator section {show(dealt)} is not a count of games dealt "
            f"0..{MAX_DEALT}")
    try:
        game = pyspiel.load_game(game_text)
    except (RuntimeError, ValueError) as err:  # SpielError (a RuntimeError), ConfigError
        bad(f"its game {show(game_text)}: {err}")
    state = game.deserialize_state(state_text[:-1] if state_text.endswith("\n")
                                   else state_text)
    game.worlds, game._lent = int(dealt), None
    return game, state


def _otrio_name(game_text: str) -> str | None:
    """The otrio game that ``name(params)`` names, or None."""
    name = game_text.partition("(")[0]
    return name if name in _SHORT_NAMES else None


_SHORT_NAMES = frozenset(GAMES.values())
_NAME_PREFIX = "python_otrio_"  # what every otrio game's OpenSpiel name begins with
assert all(name.startswith(_NAME_PREFIX) for name in _SHORT_NAMES)


def _route(name: str, ours: Callable, is_ours: Callable[..., bool]) -> None:
    """Route ``pyspiel.<name>`` to ``ours`` when ``is_ours(*args)``; every other call goes
    to OpenSpiel's own function, unchanged (a reload routes from the same original)."""
    current = getattr(pyspiel, name)
    original = getattr(current, "__wrapped__", current)

    def routed(*args):
        return ours(*args) if is_ours(*args) else original(*args)

    routed.__wrapped__ = original
    routed.__name__ = routed.__qualname__ = name
    routed.__doc__ = (f"{original.__doc__}\nFor the otrio games: "
                      f"otrio.integrations.openspiel.{ours.__name__} (no pickle).")
    setattr(pyspiel, name, routed)


def _names_otrio_game(text, *_) -> bool:
    """Whether OpenSpiel could read ``text`` as naming an otrio game, anywhere (its
    reader skips comments and blank lines, and a game transform may wrap another
    game): any mention of one routes it to :func:`deserialize_game_and_state`, which
    reads only its own layout. Another game's state never holds the names (OpenSpiel
    writes a Python state as base64, a C++ one as action ids)."""
    return isinstance(text, str) and _NAME_PREFIX in text


_route("serialize_game_and_state", serialize_game_and_state,
       lambda game, *_: isinstance(game, OtrioGame))
_route("deserialize_game_and_state", deserialize_game_and_state, _names_otrio_game)


def resampler(seed: int) -> Callable[[OtrioState, int], OtrioState]:
    """A seeded ``resample_from_infostate`` for ``ISMCTSBot.set_resampler``: the bot's
    own re-draws use an unseeded ``UniformProbabilitySampler``, so a search is
    reproducible only with this."""
    rng = np.random.default_rng(seed)
    return lambda state, player: state.resample_from_infostate(player, rng.random)


__all__ = ["GAMES", "GAME_CLASSES", "OtrioGame", "OtrioObserver", "OtrioState",
           "StateStringError", "deserialize_game_and_state", "load", "resampler",
           "serialize_game_and_state"]
