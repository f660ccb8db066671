"""Studies of the games and their agents, by what a user runs:

- :mod:`otrio.benchmarks.tournament`: ``otrio tournament`` (rotated seats, OpenSkill
  ratings, the report);
- :mod:`otrio.benchmarks.balance`: ``otrio balance`` (setup sweeps, skill tiers, the setup
  search), ``otrio skill-ceiling`` and ``otrio dossier``;
- :mod:`otrio.benchmarks.replay`: ``otrio replay`` (a recorded game as an HTML page);
- :mod:`otrio.benchmarks.speed`: ``otrio bench`` (throughput) and ``otrio search-bench``
  (the search's strength against its time).

They play their games through :mod:`otrio.arena.games` (seeded games into records, on
one process, many or Ray; also ``otrio play`` and the value curve) and share
:mod:`otrio.benchmarks.ratings` (OpenSkill).
"""
