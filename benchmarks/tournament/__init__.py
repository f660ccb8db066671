"""Tournaments: ``otrio tournament`` (:mod:`~otrio.benchmarks.tournament.tournament`) and
their reports (:mod:`~otrio.benchmarks.tournament.report`)."""
