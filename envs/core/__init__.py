"""What every game shares: adapter, action table, observer (and ``describe``, an
observation by name), config, seeding, errors."""

from .actions import ActionTable
from .aec import BoardGameEnv
from .config import GameConfig, StrictModel, validate
from .errors import ConfigError, IllegalActionError, OtrioError, StateError
from .game import TERMINAL, Game
from .observer import ObservationLayout, Values, describe
from .rng import derive_seed, make_rng, rng_from_dict, rng_to_dict
from .spec import GameInfo

__all__ = [
    "ActionTable",
    "BoardGameEnv",
    "ConfigError",
    "Game",
    "GameConfig",
    "GameInfo",
    "IllegalActionError",
    "ObservationLayout",
    "OtrioError",
    "StateError",
    "StrictModel",
    "TERMINAL",
    "Values",
    "derive_seed",
    "describe",
    "make_rng",
    "rng_from_dict",
    "rng_to_dict",
    "validate",
]
