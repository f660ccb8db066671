"""A flat float32 observation described by a layout of named pieces.

``ObservationLayout([("hand", (8, 20), "own hand"), ("round", (3,), "round")])`` gives
each piece an offset into one vector; ``layout.views(buffer)`` returns named numpy views
(reshaped), so an observation writer never uses a magic index. ``layout.markdown()``
prints the table that each game's README carries.

A piece may add a :class:`Values` as a fourth item: the names of its axes' entries
(``Values(None, CARD_FEATURE_NAMES)`` names ``hand[5].present``) and the range its
values lie in (``high=MAX / SCALE``, or a function of the game config where the config
sets the bound). ``layout.names()`` gives one name per index and
``layout.bounds(config)`` the float32 ``low`` / ``high`` vectors of the observation
space; :func:`describe` lists an observation's non-zero values by name.

Each game defines its observation once, by a plain writer (``write_plain`` in
``envs/<game>/observe.py``) that fills the named views from the state. The env uses a
cached writer (``envs/<game>/observe_cache.py``) built the same way in every game:

* a cache (a :class:`StateCache`) hangs on the state and keeps the pieces that do not
  depend on the observer, the per-seat rows in absolute seat order;
* each part of it is rewritten only when the state values it is made of differ from
  the copy taken when it was last written (compared by value, so a state edited by
  hand is seen too);
* the writer rotates the seat rows to the observer, by one gather of the cache's
  vector (:func:`seat_gather`) or, for wide rows, by copying contiguous runs of a
  :class:`SeatRows`, then adds the observer's private pieces.

A test per game holds the cached writer to ``write_plain`` at every decision of
random and greedy games.
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Callable, Sequence
from math import prod

import numpy as np

FLOAT_BYTES = np.dtype(np.float32).itemsize


class Values:
    """What the values of one layout piece are called and where they lie.

    ``labels`` has one entry per axis of the piece's shape: a sequence of names, one a
    row of that axis (``.name`` in a value's name), or None (``[i]``); none at all
    numbers every axis. ``low`` and ``high`` are the range every value of the piece
    lies in, in any position of any game: a number, an array that broadcasts to the
    piece's shape (one bound a column, say), or a function of the game config giving
    either (where the config sets the bound, e.g. a deck's size). Declare a bound
    beside the scale the writer divides by: a count of at most ``MAX`` written as
    ``count / SCALE`` has ``high=MAX / SCALE``. The default, ``[0, 1]``, is that of a
    flag, a one-hot or a share.
    """

    __slots__ = ("labels", "low", "high")

    def __init__(self, *labels: Sequence[str] | None, low=0.0, high=1.0):
        self.labels = labels
        self.low, self.high = low, high


UNIT = Values()  # a piece of flags, one-hots or shares, numbered along every axis


class ObservationLayout:
    """Named, shaped slices of one flat vector, with a name and a range for each value."""

    def __init__(self, pieces: Sequence[tuple], default_config: Callable[[], object] | None = None):
        """``pieces`` are ``(name, shape, description)`` or ``(name, shape, description,
        values)`` in vector order, ``values`` a :class:`Values` (default: :data:`UNIT`).
        ``default_config`` (e.g. the game's config class) makes the config that bounds
        depending on one get when none is given (the README's table)."""
        self.default_config = default_config
        self.pieces = [(name, tuple(shape), doc) for name, shape, doc, *_ in pieces]
        self.values: dict[str, Values] = {}
        self.offsets: dict[str, tuple[int, int, tuple[int, ...]]] = {}
        start = 0
        for name, shape, _, *rest in pieces:
            shape = tuple(shape)
            if name in self.offsets:
                raise ValueError(f"observation piece {name!r} defined twice")
            values = self.values[name] = rest[0] if rest else UNIT
            _check_labels(name, shape, values.labels)
            size = prod(shape)
            self.offsets[name] = (start, start + size, shape)
            start += size
        self.size = start
        self._names: tuple[str, ...] | None = None
        self._index: dict[str, int] | None = None

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into ``buffer`` (which must have length ``size``)."""
        return {
            name: buffer[a:b].reshape(shape) for name, (a, b, shape) in self.offsets.items()
        }

    def slice(self, name: str) -> slice:
        """The flat slice of one piece."""
        a, b, _ = self.offsets[name]
        return slice(a, b)

    # ------------------------------------------------------------------ names
    def names(self) -> tuple[str, ...]:
        """One readable name per index, in vector order: the piece's name, then for
        each axis ``.label`` (a labelled axis) or ``[i]`` (a numbered one), e.g.
        ``hand[5].present`` or ``player[1].fuel_ready``; a one-value piece is its name."""
        if self._names is None:
            names: list[str] = []
            for name, shape, _ in self.pieces:
                names.extend(_piece_names(name, shape, self.values[name].labels))
            if len(set(names)) != len(names):
                seen: set[str] = set()
                twice = sorted({n for n in names if n in seen or seen.add(n)})
                raise ValueError(f"observation names given twice: {twice[:5]}")
            self._names = tuple(names)
        return self._names

    def name(self, index: int) -> str:
        """The name of the value at ``index``."""
        return self.names()[index]

    def index(self, name: str) -> int:
        """The index of the value called ``name`` (the inverse of :meth:`name`)."""
        if self._index is None:
            self._index = {n: i for i, n in enumerate(self.names())}
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no observation value is called {name!r}") from None

    # ----------------------------------------------------------------- bounds
    def bounds(self, config=None) -> tuple[np.ndarray, np.ndarray]:
        """The float32 ``(low, high)`` vectors every observation lies between, from
        each piece's :class:`Values` (a bound that is a function gets ``config``, or
        the layout's ``default_config()`` when it is None). ``low < high`` everywhere:
        a value the config holds constant gets ``[low, low + 1]``."""
        if config is None and self.default_config is not None:
            config = self.default_config()
        low = np.empty(self.size, np.float64)
        high = np.empty(self.size, np.float64)
        for name, (a, b, shape) in self.offsets.items():
            values = self.values[name]
            for out, bound, which in ((low, values.low, "low"), (high, values.high, "high")):
                if callable(bound):
                    bound = bound(config)
                try:
                    out[a:b] = np.broadcast_to(np.asarray(bound, np.float64), shape).ravel()
                except ValueError:
                    raise ValueError(f"observation piece {name!r}: its {which} bound of shape "
                                     f"{np.shape(bound)} does not fit its shape {shape}") from None
        bad = np.flatnonzero(~(low <= high))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"observation value {self.name(i)}: low {low[i]} > high {high[i]}")
        low, high = low.astype(np.float32), high.astype(np.float32)
        # a value the config holds constant (a die colour it does not have) gets a range
        # of 1 above it: normalisers divide by high - low
        constant = low == high
        high[constant] = low[constant] + 1.0
        return low, high

    def markdown(self, config=None) -> str:
        """The layout as a markdown table: offsets, shapes, ranges (at ``config``, by
        default the layout's ``default_config()``) and meanings."""
        low, high = self.bounds(config)
        rows = ["| offset | size | name | shape | range | meaning |",
                "|---|---|---|---|---|---|"]
        for name, shape, doc in self.pieces:
            a, b, _ = self.offsets[name]
            rows.append(f"| {a} | {b - a} | `{name}` | {shape} | "
                        f"{_range(low[a:b], high[a:b])} | {doc} |")
        return "\n".join(rows)


def _check_labels(name: str, shape: tuple[int, ...], labels: tuple) -> None:
    """Labels, if any, give one entry per axis and one name per row of a named axis."""
    if not labels:
        return
    if len(labels) != len(shape):
        raise ValueError(f"observation piece {name!r} of shape {shape} has labels for "
                         f"{len(labels)} axes")
    for axis, (size, names) in enumerate(zip(shape, labels)):
        if names is not None and len(names) != size:
            raise ValueError(f"observation piece {name!r}: axis {axis} has {size} rows "
                             f"but {len(names)} labels")


def _piece_names(name: str, shape: tuple[int, ...], labels: tuple) -> list[str]:
    """The names of one piece's values, in the order of its flat slice."""
    if shape == (1,) and not (labels and labels[0] is not None):
        return [name]
    axes = labels or (None,) * len(shape)
    parts = [[f".{label}" for label in names] if names is not None
             else [f"[{i}]" for i in range(size)] for size, names in zip(shape, axes)]
    out = [name]
    for part in parts:
        out = [prefix + p for prefix in out for p in part]
    return out


def _range(low: np.ndarray, high: np.ndarray) -> str:
    """A piece's range for its README row: ``[lo, hi]``, or the spread of its bounds."""
    def show(x: float) -> str:
        return f"{float(x):.4g}"

    lo = show(low.min()) if low.min() == low.max() else f"{show(low.min())}..{show(low.max())}"
    hi = show(high.min()) if high.min() == high.max() else f"{show(high.min())}..{show(high.max())}"
    return f"[{lo}, {hi}]"


def describe(observation, layout, *, zeros: bool = False) -> str:
    """An observation as readable lines, one per non-zero value: its name and value.

    ``observation`` is a vector of ``layout.size`` values, or the dict an env's
    ``last()`` / ``observe()`` returns (then its action mask is described too, as the
    legal actions' ids). ``layout`` is an :class:`ObservationLayout`, a game, or an env
    (then the legal actions are also named, and the flat vector of
    ``integrations.FlattenObservation``, observation then mask, is read too).
    ``zeros=True`` lists every value.
    """
    names_of = None
    game = getattr(getattr(layout, "unwrapped", layout), "game", layout)
    if not isinstance(game, ObservationLayout):
        names_of = getattr(game, "action_name", None)
        layout = game.layout
    mask = None
    if isinstance(observation, dict):
        mask = observation.get("action_mask")
        observation = observation["observation"]
    values = np.asarray(observation).ravel()
    actions = getattr(getattr(game, "info", None), "num_actions", None)
    if mask is None and actions is not None and values.size == layout.size + actions:
        values, mask = values[: layout.size], values[layout.size :]  # a FlattenObservation's
    if values.size != layout.size:
        raise ValueError(f"an observation of this layout has {layout.size} values, "
                         f"not {values.size}")
    names = layout.names()
    shown = range(values.size) if zeros else np.flatnonzero(values).tolist()
    width = max((len(names[i]) for i in shown), default=0)
    lines = [f"{names[i]:<{width}}  {float(values[i]):g}" for i in shown]
    if mask is not None:
        legal = np.flatnonzero(np.asarray(mask)).tolist()
        named = [f"{a} {names_of(a)}" if names_of else str(a) for a in legal]
        lines.append("legal actions: " + (", ".join(named) if named else "none"))
    return "\n".join(lines)


class StateCache:
    """Base of a cache that hangs on a game state (``state._obs_cache``) and serves
    only the state that built it: a copied, deep-copied, pickled or cloned state
    carries no cache of its own (copying one gives ``None``) or one whose owner is the
    original, so :func:`owned_cache` makes it build a fresh one on first use."""

    __slots__ = ("owner",)

    def __init__(self, state) -> None:
        self.owner = weakref.ref(state)

    def __reduce__(self):
        """A copy (``copy``, ``pickle``) is no cache: the state builds one on first use."""
        return _no_cache, ()


def _no_cache() -> None:
    """What a copied cache becomes."""
    return None


def owned_cache(state):
    """The state's observation cache if that state built it, else ``None``."""
    cache = getattr(state, "_obs_cache", None)
    return cache if cache is not None and cache.owner() is state else None


def zeros(size: int) -> array:
    """A float32 ``array`` of ``size`` zeros."""
    return array("f", bytes(FLOAT_BYTES * size))


def seat_gather(layout: ObservationLayout, seat_pieces: tuple[str, ...], n: int,
                seat: int) -> np.ndarray:
    """For each value of ``seat``'s observation: its index in a vector laid out like
    ``layout`` but with the rows of ``seat_pieces`` (first axis: seats) in absolute seat
    order, plus one zero at index ``layout.size``. Relative row ``k`` reads absolute
    seat ``(seat + k) % n``; rows past ``n`` read the zero; other pieces stay in place.
    Read-only; a game builds it once per (player count, seat)."""
    index = np.arange(layout.size, dtype=np.intp)
    for name in seat_pieces:
        a, b, shape = layout.offsets[name]
        width = (b - a) // shape[0]
        for k in range(shape[0]):
            row = index[a + k * width : a + (k + 1) * width]
            row[:] = layout.size if k >= n else np.arange(width) + a + (seat + k) % n * width
    index.flags.writeable = False
    return index


class SeatRows:
    """One float32 row per seat, stored twice (seat ``p`` at rows ``p`` and ``p + n``)
    so that the ``n`` rows from any seat on, in turn order, are one contiguous run,
    ``runs[seat]``: rotating wide rows is then one copy instead of a gather."""

    __slots__ = ("n", "width", "data", "floats", "raw", "runs")

    def __init__(self, n: int, width: int):
        self.n, self.width = n, width
        self.data = zeros(2 * n * width)
        floats = self.floats = memoryview(self.data)  # float32 items, written as Python floats
        self.raw = floats.cast("B")
        self.runs = [floats[seat * width : (seat + n) * width] for seat in range(n)]

    def set(self, p: int, i: int, value: float) -> None:
        """Value ``i`` of seat ``p``'s row."""
        w = self.width
        self.floats[p * w + i] = self.floats[(p + self.n) * w + i] = value

    def put(self, p: int, i: int, raw: bytes) -> None:
        """Raw float32 bytes into seat ``p``'s row from value ``i`` on."""
        at = (p * self.width + i) * FLOAT_BYTES
        twin = at + self.n * self.width * FLOAT_BYTES
        self.raw[at : at + len(raw)] = self.raw[twin : twin + len(raw)] = raw
