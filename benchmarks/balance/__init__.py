"""Balance of a game's setups: ``otrio balance`` (:mod:`~otrio.benchmarks.balance.sweep`,
its ``--search``: :mod:`~otrio.benchmarks.balance.search`), ``otrio skill-ceiling``
(:mod:`~otrio.benchmarks.balance.skill_ceiling`) and ``otrio dossier``
(:mod:`~otrio.benchmarks.balance.dossier`), with the analysis they share (``summary``,
``skill``, ``luck``, ``stats``, ``optimise``) and their reports."""
