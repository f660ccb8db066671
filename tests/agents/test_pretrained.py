"""The shipped agents (agents/pretrained/) load as ppo:PATH (the distilled networks as
net:PATH, the value models as the fast value agent value:PATH), play legal moves, and
play as they were recorded.

``reference_actions.json`` holds, for each shipped agent, the action it chose at each of
300 decisions of seeded games (and a digest of each observation, so a change to the
game shows up as such rather than as a changed agent). It was recorded from the
Stable-Baselines3 zips the agents shipped as before the safe format (commit 6cf67cc,
where the zips and the safetensors agents were also compared directly: bit-identical
logits and the same action at every one of ~460 observations each); the safetensors
agents must choose the same actions. ``python tests/agents/test_pretrained.py --record``
adds a newly shipped agent (the distilled ``<game>_net`` networks were recorded so, from
the files as shipped); ``--record --all`` rewrites every agent's -- for a game whose
observations changed, and only with agents known to be unchanged.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from otrio import agents, envs

PRETRAINED = Path(__file__).resolve().parents[2] / "agents" / "pretrained"
AGENTS = sorted(PRETRAINED.glob("*_ppo.json"))
NETS = sorted(PRETRAINED.glob("*_net.json"))  # distilled from search (training/distill.py)
VALUES = sorted(PRETRAINED.glob("*_value*.json"))  # value models (training/value_fit.py)
SHIPPED = AGENTS + NETS + VALUES
REFERENCE = PRETRAINED / "reference_actions.json"
REFERENCE_DECISIONS = 300
REFERENCE_SEED = 20_000


def test_every_game_ships_an_agent_in_the_safe_format_only():
    assert {p.name for p in AGENTS} == {f"{e.rsplit('_v', 1)[0]}_ppo.json" for e in envs.available()}
    for manifest in AGENTS:
        assert manifest.with_suffix(".safetensors").exists()
    assert not list(PRETRAINED.glob("*.zip")), "shipped agents are never SB3 zips (code runs on load)"
    for manifest in NETS + VALUES:
        assert manifest.with_suffix(".safetensors").exists()
        assert json.loads(manifest.read_text())["env_id"] in envs.available()


def spec_of(manifest: Path) -> str:
    """How a shipped file is played: ``net:`` for a distilled network, ``value:`` for a
    value model (the fast value agent), else ``ppo:``."""
    kind = "net" if manifest in NETS else "value" if manifest in VALUES else "ppo"
    return f"{kind}:{manifest}"


def game_config(meta: dict) -> dict:
    """The game a shipped file plays in the tests: its manifest's ``game_config``; for a
    value model, the game's default player count if its data held it, else the fewest
    its data held (a model is refused at a count its data never held)."""
    config = dict(meta.get("game_config", {}))
    players = meta.get("made", {}).get("players") if meta.get("format") == "otrio-value" else None
    if players and "num_players" not in config:
        default = len(envs.make(meta["env_id"]).possible_agents)
        config["num_players"] = default if default in players else min(players)
    return config


@pytest.mark.parametrize("manifest", SHIPPED, ids=lambda p: p.stem)
def test_a_shipped_agent_plays_a_whole_game_legally(manifest):
    meta = json.loads(manifest.read_text())
    env = envs.make(meta["env_id"], **game_config(meta))
    agent = agents.make(spec_of(manifest), env)
    agent.reset(0)
    env.reset(seed=1)
    ended = set()
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            ended.add(name)
            env.step(None)
            continue
        action = agent.act(obs)  # the agent plays every seat
        assert obs["action_mask"][action] == 1, f"{name} chose illegal {action}"
        env.step(action)
    assert ended == set(env.possible_agents)  # the game reached its end


def digest(obs: dict[str, np.ndarray]) -> str:
    """A short hash of an observation dict (its vector and its mask)."""
    data = (np.asarray(obs["observation"], np.float32).tobytes()
            + np.asarray(obs["action_mask"], np.int8).tobytes())
    return hashlib.sha256(data).hexdigest()[:16]


def play_reference(spec: str, meta: dict, count: int = REFERENCE_DECISIONS):
    """``count`` decisions of seeded games, the agent of ``spec`` in every seat: one
    ``{"seed", "decisions": [[observation digest, action], ...]}`` per game. Half of the
    moves played are the agent's, half a seeded random legal move, so the games reach
    positions the agent alone would not."""
    env = envs.make(meta["env_id"], **game_config(meta))
    agent = agents.make(spec, env)
    rng = np.random.default_rng(REFERENCE_SEED)
    games, total = [], 0
    while total < count:
        seed = REFERENCE_SEED + len(games)
        env.reset(seed=seed)
        agent.reset(seed)
        decisions = []
        games.append({"seed": seed, "decisions": decisions})
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs)
            decisions.append([digest(obs), action])
            total += 1
            if total == count:
                break
            legal = np.flatnonzero(obs["action_mask"])
            env.step(action if rng.random() < 0.5 else int(rng.choice(legal)))
    return games


@pytest.mark.parametrize("manifest", SHIPPED, ids=lambda p: p.stem)
def test_a_shipped_agent_plays_as_recorded(manifest):
    recorded = json.loads(REFERENCE.read_text())["agents"][manifest.stem]
    played = play_reference(spec_of(manifest), json.loads(manifest.read_text()),
                            sum(len(g["decisions"]) for g in recorded))
    for want, got in zip(recorded, played):
        assert got["seed"] == want["seed"]
        for k, ((want_obs, want_action), (got_obs, got_action)) in enumerate(
                zip(want["decisions"], got["decisions"])):
            where = f"{manifest.stem}, game seed {want['seed']}, decision {k}"
            assert got_obs == want_obs, (
                f"{where}: the game's observation changed since the reference was recorded "
                "(a rules or observation change, not the agent): re-record it only if the "
                "agent is known to be unchanged")
            assert got_action == want_action, f"{where}: chose {got_action}, recorded {want_action}"


def record(every: bool = False) -> None:
    """Write ``reference_actions.json`` from the shipped agents as they load now: the
    agents it does not hold yet (a newly shipped one), or with ``every`` all of them."""
    out = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {
        "about": "actions of each shipped agent at seeded decisions "
                 "(tests/agents/test_pretrained.py)", "agents": {}}
    for manifest in SHIPPED:
        if every or manifest.stem not in out["agents"]:
            out["agents"][manifest.stem] = play_reference(spec_of(manifest),
                                                          json.loads(manifest.read_text()))
    REFERENCE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__" and "--record" in sys.argv:
    record(every="--all" in sys.argv)

