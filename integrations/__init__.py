"""The suite with the RL libraries researchers use (docs/libraries.md, "RL libraries").

- :class:`SelfPlay` — the single-agent self-play view (gymnasium), for SB3 /
  sb3-contrib MaskablePPO and any single-agent library; registered with gymnasium as
  ``otrio/OceanosSelfPlay-v0``, ``otrio/OtysSelfPlay-v0``, ``otrio/OtontinSelfPlay-v0``
  when ``envs`` is imported.
- :class:`RenameObservationKeys` / :func:`rllib_keys` — the observation keys RLlib's
  action-masking module reads (``observations``, ``action_mask``).
- :class:`FlattenObservation` — one flat Box (observation, then mask) with the mask in
  ``info["action_mask"]`` too.
- :mod:`otrio.integrations.openspiel` — the games as OpenSpiel (``pyspiel``) games,
  registered when it is imported, which ``import otrio`` does once ``pyspiel`` is
  imported; not imported here, since OpenSpiel is an extra
  (``pip install -e '.[openspiel]'``).
"""

from .selfplay import SelfPlay, selfplay_env
from .wrappers import FlattenObservation, RenameObservationKeys, rllib_keys

__all__ = ["FlattenObservation", "RenameObservationKeys", "SelfPlay", "rllib_keys",
           "selfplay_env"]
