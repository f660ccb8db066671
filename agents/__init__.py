"""The agents: :func:`make` builds one from a spec such as ``greedy`` or
``mcts:iterations=64``; then ``agent.reset(seed)`` and ``agent.act(observation)``."""

from __future__ import annotations

from otrio.envs.core.errors import ConfigError

from .base import Agent, RandomAgent
from .custom import REGISTERED, build, python_agent
from .custom import register as _register
from .greedy import greedy_agent
from .human import HumanAgent
from .mcts import MCTSAgent
from .ppo import PPOAgent
from .search_options import given_option, parse_options
from .value_agent import ValueAgent
from .zoo import RESOLVED, resolve

SPECS = ("random", "greedy", "fast", "strong", "search", "human", "net:PATH", "ppo:PATH",
         "mcts[:key=value,...]", "python:MODULE:CLASS", "NAME",
         "value:PATH[,top=K,margin=D,net=NET,worlds=W,depth=N,judge=J]")


def _game_name(env) -> str:
    return env.unwrapped.game.info.name


def make(spec: str, env) -> Agent:
    """An agent for ``env`` from a short spec, the same string everywhere: ``otrio play
    --seats``, tournament and balance configs, training opponents and teachers. For example::

        import otrio
        env = otrio.make("oceanos_v0", num_players=2)
        env.reset(seed=0)
        agent = otrio.agents.make("mcts:iterations=64,top=4", env)
        agent.reset(seed=0)
        obs, *_ = env.last()
        action = agent.act(obs)  # an id obs["action_mask"] allows

    | spec | agent |
    |---|---|
    | ``random`` | a uniformly random legal action (seeded by ``reset``) |
    | ``greedy`` | the game's documented heuristic |
    | ``fast``, ``strong``, ``search`` | the zoo's strongest player for the env's game and player count at 2 ms, 20 ms and 0.25 s a decision (:mod:`otrio.agents.zoo`) |
    | ``human`` | a person at the terminal |
    | ``net:PATH`` | an exported network: ``X.json`` beside ``X.safetensors`` |
    | ``ppo:PATH`` | the same; also a Stable-Baselines3 ``.zip`` of your own, if trusted |
    | ``mcts[:key=value,...]`` | information-set MCTS (:mod:`otrio.agents.search_options`) |
    | ``python:MODULE:CLASS`` | your own :class:`~otrio.agents.base.Agent` subclass, imported by name (trusted only: :mod:`otrio.agents.custom`) |
    | ``NAME`` | your own agent, registered under that name by your code (:func:`register`) |
    | ``value:PATH[,top=K,margin=D,net=NET,worlds=W,depth=N,judge=J]`` (:data:`~otrio.agents.value_agent.VALUE_OPTIONS`) | greedy's (or a network's) best moves judged by a value model |

    A relative ``PATH`` is looked up beside the config that names it, then in the
    current folder, then in the installed package (``net:agents/pretrained/oceanos_ppo.json``
    plays the shipped agent from anywhere). An unknown spec raises
    :class:`~otrio.envs.core.errors.ConfigError` naming the known ones."""
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"agent spec must be a non-empty string, got {spec!r}")
    if spec in RESOLVED:  # a tier of the zoo: the player it names for this game and count
        resolved, _ = resolve(spec, env)
        agent = make(resolved, env)
        agent.spec, agent.resolved = spec, resolved
        return agent
    kind, _, arg = spec.partition(":")
    if kind in REGISTERED and not arg:  # your own agent, registered by name
        agent: Agent = build(REGISTERED[kind], env, f"agent {kind!r}")
    elif kind == "python" and arg:  # your own agent, imported by name (trusted only)
        agent = python_agent(arg, env)
    elif kind == "random" and not arg:
        agent = RandomAgent()
    elif kind == "greedy" and not arg:
        agent = greedy_agent(env)
    elif kind == "human" and not arg:
        agent = HumanAgent(env)
    elif kind in ("ppo", "net") and arg:
        agent = PPOAgent(arg, env, safe_only=kind == "net")
    elif kind == "value" and arg:
        agent = ValueAgent(env, arg)
    elif kind == "mcts":
        agent = MCTSAgent(env, parse_options(arg, _game_name(env)))
    else:
        raise ConfigError(f"unknown agent spec {spec!r}; known: {', '.join(SPECS)}")
    agent.spec = spec
    return agent


BUILT_IN = ("random", "greedy", "fast", "strong", "search", "human", "net", "ppo", "mcts",
            "value", "python")  # the names register() may not take


def register(name: str, factory) -> None:
    """Make ``name`` an agent spec for your own agent: ``factory`` is an
    :class:`~otrio.agents.base.Agent` subclass (or a function of the env) that
    :func:`make` builds (:mod:`otrio.agents.custom`)."""
    _register(name, factory, BUILT_IN)


def split_specs(text: str) -> list[str]:
    """Comma-separated specs, where a spec's own ``key=value`` options stay with it:
    ``"human,mcts:iterations=64,top=4,greedy"`` -> ``["human", "mcts:iterations=64,top=4",
    "greedy"]``."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def is_reference(spec: str) -> bool:
    """Whether ``spec`` names a research-only reference agent that cheats (the search's
    ``clairvoyant=1``: it sees the true present, others' hands and secret choices)."""
    kind, _, arg = spec.partition(":")
    if kind != "mcts":
        return False

    # the flag alone: the other options are checked with the game's defaults by make()
    return bool(given_option(arg, "clairvoyant"))


def check_spec(spec: str, env, reference: bool = False) -> None:
    """Raise a clear error now if ``spec`` cannot make an agent for ``env``, or if it is
    a reference agent (:func:`is_reference`) and ``reference`` (a config's ``reference:
    true``) does not allow one."""
    if spec != "human":
        make(spec, env)
    if not reference and is_reference(spec):
        raise ConfigError(f"agent {spec!r} is the clairvoyant reference, a research cheat "
                          "that sees hidden information; only a config with "
                          "`reference: true` may play it")


__all__ = ["Agent", "RandomAgent", "check_spec", "is_reference", "make", "register",
           "split_specs"]
