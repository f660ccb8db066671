"""Speed: ``otrio bench`` (:mod:`~otrio.benchmarks.speed.bench`, the engines' throughput,
measured by :mod:`~otrio.benchmarks.speed.throughput`) and ``otrio search-bench``
(:mod:`~otrio.benchmarks.speed.search`, the search's strength against its time)."""
