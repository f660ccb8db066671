"""Build Otys positions directly and play named actions (shared by the rule tests)."""

from __future__ import annotations

from otrio import agents, envs
from otrio.envs.core import make_rng, testing, validate
from otrio.envs.otys import data as D
from otrio.envs.otys.actions import TABLE
from otrio.envs.otys.config import Config
from otrio.envs.otys.rules import State

SHORT = {name: i for i, name in enumerate(D.DIVER_SHORT)}
DEFAULT_COLUMN = "Mx Px Fx Tx Tr Sp En Ex"


def token_id(front: str, back: str, colours: str = "") -> int:
    """First default reward token with this front, back and colour pair."""
    for i, (kind, pair, b) in enumerate(D.REWARD_TOKENS):
        if kind == front and b == back and pair == colours:
            return i
    raise KeyError((front, back, colours))


def contract_id(needs) -> int:
    """First default contract with these needs (a string or a tuple of numbers)."""
    for i, card in enumerate(D.CONTRACTS):
        if card[1] == needs:
            return i
    raise KeyError(needs)


def column(text: str) -> list[int]:
    """Diver types from short names, slot 0 first: 'Mx Px Fx Tx Tr Sp En Ex'."""
    return [SHORT[w] for w in text.split()]


def position(n: int = 2, order=(1, 2, 3, 4, 5), sides="basic", **config) -> State:
    """A clean position at seat 0's key choice: known columns (all basic), no
    resources, 3 credits, 1 battery, empty store, empty hands, no reward tokens.
    Display, bag and deck come from seed 0 unless a test sets them."""
    cfg = validate(
        Config, {"num_players": n, "sponsors": {"order": order, "sides": sides}, **config}
    )
    s = State(cfg, make_rng(0))
    for p in range(n):
        s.divers[p] = column(DEFAULT_COLUMN)
        s.upgraded[p] = [0] * D.NUM_DIVERS
        s.resources[p] = [0] * (D.NUM_LEVELS * D.NUM_COLOURS)
        s.credits[p] = 3
        s.batteries[p] = 1
        s.pp[p] = 0
        s.hands[p] = []
        s.board_tokens[p] = [-1] * D.NUM_LEVELS
    s.store = [0] * D.NUM_COLOURS
    return s


def set_res(s: State, p: int, level: int, text: str) -> None:
    """Set the resources of level ``level`` (1-5) of seat ``p`` from letters 'MMP'."""
    base = (level - 1) * D.NUM_COLOURS
    for c, letter in enumerate(D.COLOUR_LETTERS):
        s.resources[p][base + c] = text.count(letter)


def res(s: State, p: int, level: int) -> str:
    """The resources of a level as sorted letters ('MMP')."""
    base = (level - 1) * D.NUM_COLOURS
    return "".join(D.COLOUR_LETTERS[c] * s.resources[p][base + c] for c in range(D.NUM_COLOURS))


def names(s: State) -> set[str]:
    """Names of the legal actions."""
    return {TABLE.name(a) for a in s.legal_actions()}


def play(s: State, *actions: str) -> State:
    """Apply named actions, each checked legal first."""
    for name in actions:
        aid = TABLE.id(name)
        legal = s.legal_actions()
        assert aid in legal, f"{name} is not legal; legal: {sorted(names(s))}"
        s.apply_action(aid)
    return s


def legal(s: State, name: str) -> bool:
    """Whether the named action is legal now."""
    return TABLE.id(name) in s.legal_actions()


def divers(s: State, p: int) -> str:
    """The column of seat ``p`` as short names."""
    return " ".join(D.DIVER_SHORT[t] for t in s.divers[p])


def with_diver_at(short: str, level: int, **config) -> State:
    """A ``position`` whose diver ``short`` sits on ``level`` (others in default order)."""
    s = position(**config)
    others = [w for w in DEFAULT_COLUMN.split() if w != short]
    others.insert(D.SURFACE_SLOTS - 1 + level, short)
    s.divers[0] = column(" ".join(others))
    return s


M, P, F, T = D.METAL, D.PLANT, D.FUEL, D.TECH
PP_PP = token_id("pp", "pp")
BATTERY_C = token_id("battery", "credits")
RES_MP_C = token_id("resource", "credits", "MP")
DRAW_PP = token_id("draw", "pp")
UPGRADE_C = token_id("upgrade", "credits")


GAMES = 2  # seeded games of each kind that the observation and seat-view tests walk


def random_games(setup: dict):
    """Every state of a few seeded random games (one state object, played on)."""
    return testing.random_states(lambda seed: State(validate(Config, setup), make_rng(seed)), GAMES)


def greedy_games(setup: dict):
    """Every state of a few greedy games played through the env."""
    def env_fn():
        return envs.make("otys_v0", **setup)

    agent = agents.make("greedy", env_fn())
    return testing.policy_states(env_fn, lambda env, obs: agent.act(obs), range(GAMES))
