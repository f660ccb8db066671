"""The arena: where games between agents are played, recorded, checked and stored.

It sits between the agents and the commands that run them (envs <- agents <- arena <-
training / benchmarks <- CLI) and holds what every kind of run shares:

- :mod:`~otrio.arena.play`: the one game loop (:func:`~otrio.arena.play.play_seated`) and
  the seeded game a run is made of (:class:`~otrio.arena.play.GameTask`);
- :mod:`~otrio.arena.records`: append-only records, verified by re-playing them before
  they count; :mod:`~otrio.arena.replay`: a game re-played from its record;
- :mod:`~otrio.arena.run_folder`, :mod:`~otrio.arena.run_lock`, :mod:`~otrio.arena.outputs`:
  which folders a run may write into, one writer per folder, output paths checked before
  a run starts (the file operations themselves are :mod:`otrio.envs.core.files`);
- :mod:`~otrio.arena.parallel`: one function over many seeded tasks, on one process, N
  processes or a Ray cluster, in order;
- :mod:`~otrio.arena.stats`: win-rate intervals, mean intervals, ranks.
"""
