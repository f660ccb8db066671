"""A recorded game as one self-contained HTML page: ``otrio replay``
(:mod:`~otrio.benchmarks.replay.html`; the page itself: :mod:`~otrio.benchmarks.replay.page`)."""
