"""The arena: where games between agents are played, recorded, checked and stored.

It sits between the agents and the commands that run them (envs <- agents <- arena <-
training / benchmarks <- CLI) and holds what every kind of run shares:

- :mod:`~otrio.arena.play`: the one game loop (:func:`~otrio.arena.play.play_seated`) and
  the seeded game a run is made of (:class:`~otrio.arena.play.GameTask`);
- :mod:`~otrio.arena.games`: seeded games played into records (a game's record, the
  execution options, the records' schema), shared by every command that plays games;
- :mod:`~otrio.arena.records`: append-only records, verified by re-playing them before
  they count; :mod:`~otrio.arena.replay`: a game re-played from its record;
- :mod:`~otrio.arena.run_folder`: the run-kind contract every command that writes a folder
  goes through (its files declared, the folder checked and locked:
  :mod:`~otrio.arena.run_lock`; output paths: :mod:`~otrio.arena.outputs`; the file
  operations themselves are :mod:`otrio.envs.core.files`);
- :mod:`~otrio.arena.parallel`: one function over many seeded tasks, on one process, N
  processes or a Ray cluster, in order;
- :mod:`~otrio.arena.stats`: win-rate intervals, mean intervals, ranks.
"""
