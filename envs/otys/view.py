"""What one Otys seat may know, as plain values: :class:`SeatView`.

``view(state, seat)`` builds it from the rules' state. The observation is written from
it and read back into it beside its layout, in :mod:`otrio.envs.otys.observe`:
``write_plain(state, seat, out)`` is ``encode(view(state, seat), out)``, and
``decode(observation, config)`` is the exact inverse, ``decode(observation, config) ==
view(state, seat)`` for every seat at every decision (tested on random and greedy
games at 2-4 players). Agents that reason about the game (greedy, a search's
rollouts) read a view, never float offsets.

A view holds exactly what the observation holds, in its shape:

* seats are relative, as in the observation: ``players[0]`` is the viewer, then the
  others in turn order; ``actor``, ``turn_seat``, ``copy_owner`` and ``marks`` are
  relative seats too (``seat`` is the viewer's absolute seat, known from the First
  Player marker);
* cards and tokens are their faces (:class:`~otrio.envs.otys.config.Contract`,
  :class:`~otrio.envs.otys.config.Token`), not ids: two cards alike are alike to a player;
* what the rules derive from these (free spaces, the track's room, the propeller's
  reach, the diver at the key's level, a Spy's copied diver, what a diver used at a
  level can act on: ``site``) is not stored: the
  view's methods ask the rules' functions, on the config's tables (``view.tables``:
  the component tables are public).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from . import data as D
from .config import Config, Contract, Tables, Token
from .effects import Site, free_space
from .phases import CONTRACT_COLOUR, COPY, KEEP, NO_PHASE
from .rules import State

__all__ = ["Contract", "PlayerView", "SeatView", "Token", "view"]

NC, NL = D.NUM_COLOURS, D.NUM_LEVELS
NO_TOKEN = -1  # ``PlayerView.backs``: no reward token on that level
NUMBERED, OWN_X_KEY, NEUTRAL_X_KEY = range(3)  # ``SeatView.key_kind``


def key_kind(key: int) -> int:
    """The kind of a key code (a numbered key's code is its level)."""
    return key - D.OWN_X + OWN_X_KEY if key >= D.OWN_X else NUMBERED


class PlayerView(NamedTuple):
    """One seat's public facts (and, for the viewer, nothing more: its hand is the
    view's ``hand``)."""

    divers: tuple[int, ...]  # diver type per slot (0-2 surface, 3-7 levels 1-5)
    upgraded: tuple[int, ...]  # per diver type: 1 when it shows its upgraded side
    resources: tuple[tuple[int, ...], ...]  # per level, per colour (MPFT)
    keys_home: tuple[int, ...]  # own keys 1-5 and X on the player board (1: there)
    keys_track: tuple[int, ...]  # own keys 1-5 and X on the Hacker track
    neutral_track: int  # neutral X keys on the Hacker track
    neutral_held: int  # neutral X keys held
    hacker: int  # Hacker improvements
    mechanic: int  # Mechanic improvements
    credits: int
    batteries: int
    pp: int
    backs: tuple[int, ...]  # per level: the back of the reward token there, or NO_TOKEN
    hand_size: int  # private contracts in hand


@dataclass(frozen=True)
class SeatView:
    """What one seat may know (see the module docstring). The pending decision's
    fields are empty (-1, 0, None, ()) where the observation leaves them zero: once the
    game is over, before a key is chosen (the key's level and what hangs on it), and
    outside their phases."""

    config: Config = field(repr=False)
    tables: Tables = field(repr=False, compare=False)  # the config's tables (derived)
    seat: int  # the viewer's absolute seat
    players: tuple[PlayerView, ...]  # relative: 0 the viewer, then turn order
    hand: tuple[Contract, ...]  # the viewer's private contracts, in hand-slot order
    round: int
    end_triggered: int
    sponsors: tuple[int, ...]  # the tile (0-4: #1-#5) on each level
    advanced: tuple[int, ...]  # each tile's side (1: advanced)
    display: tuple[Token | None, ...]  # the Colony display, level by level, DISPLAY_TOKENS each
    store: tuple[int, ...]  # resources in each store column (per colour)
    public: tuple[Contract | None, ...]  # the public contract slots (the config's count)
    deck_size: int
    discard_size: int
    neutral_supply: int
    bag_size: int
    bag_kinds: tuple[tuple[int, ...], ...]  # bag: tokens per immediate effect and back
    bag_colours: tuple[int, ...]  # bag: resource tokens showing each colour
    token_discard: tuple[tuple[int, ...], ...]  # discarded tokens per immediate effect and back
    # the pending decision
    phase: int  # a Phase; NO_PHASE once the game is over
    actor: int  # relative seat that decides (-1: over)
    turn_seat: int  # relative seat whose turn it is (-1: over)
    marks: tuple[int, ...]  # designer's variant: relative seats whose copied diver resurfaces (sorted)
    level: int  # the key's level index (-1: no key yet)
    key_kind: int  # the key: NUMBERED, OWN_X_KEY or NEUTRAL_X_KEY (-1: no key yet; once
    # the key is on the track, in the designer's variant's answers: NUMBERED, as observed)
    uses_left: int  # diver effect uses left this turn
    sponsor_used: int
    free_costs: int  # Sponsor #1 advanced is in force
    copy_owner: int  # COPY: relative seat whose diver the Spy copies (-1: none)
    copy_depth: int  # 1: copied by the own Spy, 2: through a copied Spy
    token: Token | None  # the reward token being resolved
    drawn_count: int  # contracts drawn for the pending keep decision
    drawn: tuple[Contract, ...]  # those contracts (the drawer's keep decision only)
    contract: Contract | None  # CONTRACT_COLOUR: the card being completed
    contract_level: int  # its level (-1: none)
    colour_picks: tuple[int, ...]  # the colours chosen so far, one per number

    # ------------------------------------------------------------ derived (the rules')
    @property
    def num_players(self) -> int:
        return len(self.players)

    def free_space(self, block: int, level: int) -> int:
        """Free resource spaces on level ``level`` of relative seat ``block``."""
        return free_space(self.tables.capacity[level], self.players[block].resources[level])

    def track_room(self, block: int) -> int:
        """Keys the Hacker track of ``block`` takes before the full return."""
        player = self.players[block]
        return (self.tables.hacker_capacity[player.hacker] - sum(player.keys_track)
                - player.neutral_track)

    def reach(self, block: int) -> int:
        """The propeller reach of ``block`` (its Mechanic improvements' move)."""
        return self.tables.moves[self.players[block].mechanic]

    def site(self, level: int) -> Site:
        """What a diver the viewer uses at ``level`` on its own turn can act on (the rules'
        :class:`~otrio.envs.otys.effects.Site`; the state's own is ``effects.StateSite``)."""
        me, t, players = self.players[0], self.tables, self.players
        slot = D.level_slot(level)
        # the left neighbour, then the right (block 1 and the last: one with two players)
        neighbours = (players[1],) if len(players) == 2 else (players[1], players[-1])
        at = level * D.DISPLAY_TOKENS
        return Site(
            self.free_space(0, level), me.resources[level], self.store, t.store_credits, t.store_pp,
            self.neutral_supply, any(me.keys_track), bool(self.deck_size) and me.hand_size < t.hand_limit,
            tuple([(p.divers[slot], p.upgraded[p.divers[slot]]) for p in neighbours]),
            me.mechanic < len(t.moves) - 1, me.hacker < len(t.hacker_capacity) - 1,
            tuple([token is not None for token in self.display[at : at + D.DISPLAY_TOKENS]]),
        )  # fmt: skip

    def active_diver(self) -> tuple[int, int]:
        """(type, upgraded) of the diver at the key's level on the turn's player's
        board (the key chosen: ``level >= 0``)."""
        player = self.players[self.turn_seat]
        dtype = player.divers[D.level_slot(self.level)]
        return dtype, player.upgraded[dtype]

    def copied_diver(self) -> tuple[int, int]:
        """(type, upgraded) of the diver the pending Spy copy uses (phase COPY)."""
        player = self.players[self.copy_owner]
        dtype = player.divers[D.level_slot(self.level)]
        return dtype, player.upgraded[dtype]


_FIELDS = tuple(SeatView.__dataclass_fields__)


def new_view(*values) -> SeatView:
    """``SeatView(*values)``, at a third of the cost: the fields set in one dict
    update (a frozen dataclass only refuses attribute assignment)."""
    made = object.__new__(SeatView)
    made.__dict__.update(zip(_FIELDS, values))
    return made


# ------------------------------------------------------------------ from the state
_NO_KEYS = (0,) * D.NUM_OWN_KEYS
_COUNTS: dict[tuple, tuple] = {}  # (tables, token ids) -> their counts (bounded)


def _counts(tokens: list[int], t: Tables) -> tuple:
    """Tokens ``tokens`` counted per (immediate effect, back), and per colour shown."""
    key = (t, tuple(tokens))
    counted = _COUNTS.get(key)
    if counted is None:
        kinds = [[0] * len(D.TOKEN_BACKS) for _ in D.TOKEN_KINDS]
        colours = [0] * NC
        for tid in tokens:
            kinds[t.token_kind[tid]][t.token_back[tid]] += 1
            for c in t.token_colours[tid]:
                colours[c] += 1
        if len(_COUNTS) >= 4096:
            _COUNTS.clear()
        counted = _COUNTS[key] = (tuple(map(tuple, kinds)), tuple(colours))
    return counted


def _player(s: State, q: int, token_back: tuple[int, ...]) -> PlayerView:
    r, track = s.resources[q], s.hacker_track[q]
    keys_track, neutral_track = _NO_KEYS, 0
    if track:
        own = [0] * D.NUM_OWN_KEYS
        for code in track:
            if code == D.NEUTRAL_X:
                neutral_track += 1
            else:
                own[code] = 1
        keys_track = tuple(own)
    return PlayerView(
        tuple(s.divers[q]), tuple(s.upgraded[q]),
        (tuple(r[0:4]), tuple(r[4:8]), tuple(r[8:12]), tuple(r[12:16]), tuple(r[16:20])),
        tuple(s.keys_home[q]), keys_track, neutral_track, s.neutral_held[q], s.hacker[q],
        s.mechanic[q], s.credits[q], s.batteries[q], s.pp[q],
        tuple([token_back[x] if x >= 0 else NO_TOKEN for x in s.board_tokens[q]]), len(s.hands[q]),
    )  # fmt: skip


assert NC == 4 and NL == 5  # (_player's resource slices)


def view(s: State, seat: int) -> SeatView:
    """What ``seat`` may know of ``s``."""
    n, t = s.n, s.tables
    cards, tokens, back = t.contracts, t.tokens, t.token_back
    players = tuple([_player(s, (seat + k) % n, back) for k in range(n)])
    bag_kinds, bag_colours = _counts(s.bag, t)
    pending = _pending(s, seat) if not s.over else _OVER
    return new_view(
        s.config, t, seat, players, tuple([cards[c] for c in s.hands[seat]]), s.round,
        s.end_triggered, tuple(s.sponsors), tuple(s.advanced),
        tuple([tokens[i] if i >= 0 else None for i in s.display]), tuple(s.store),
        tuple([cards[c] if c >= 0 else None for c in s.public]), len(s.deck), len(s.discard),
        s.neutral_supply, len(s.bag), bag_kinds, bag_colours, _counts(s.token_discard, t)[0],
        *pending,
    )  # fmt: skip


# the pending fields once the game is over (and the defaults of each)
_OVER = (NO_PHASE, -1, -1, (), -1, -1, 0, 0, 0, -1, 0, None, 0, (), None, -1, ())


def _pending(s: State, seat: int) -> tuple:
    """The pending decision's fields (``SeatView`` order from ``phase``), as observed."""
    n, p, phase, level = s.n, s.seat, s.phase, s.level
    cards = s.tables.contracts
    marks = tuple(sorted((q - seat) % n for q in s.marks))
    contract, contract_level, picks = None, -1, ()
    if phase == CONTRACT_COLOUR and s.contract >= 0:  # asked before any key is chosen too
        contract, contract_level, picks = cards[s.contract], s.contract_level, tuple(s.colour_picks)
    head = (phase, (s.actor - seat) % n, (p - seat) % n, marks)
    tail = (contract, contract_level, picks)
    if level < 0:  # no key chosen yet this turn: nothing hangs on it
        return (*head, -1, -1, 0, 0, 0, -1, 0, None, 0, (), *tail)
    copy_owner, copy_depth = ((s.copy_seat - seat) % n, s.copy_depth) if phase == COPY else (-1, 0)
    token = s.tables.tokens[s.token] if s.token >= 0 else None
    drawn = tuple(cards[c] for c in s.drawn) if phase == KEEP and seat == p else ()
    return (*head, level, key_kind(s.key), s.uses_left, s.sponsor_used, s.free_costs, copy_owner, copy_depth,
            token, len(s.drawn), drawn, *tail)
