"""The self-play view pays the learner exactly what the AEC env pays its seat.

SelfPlayEnv plays the rules state directly (no AEC bookkeeping for the opponents'
moves); these tests replay its episodes through the AEC env, from the game seed it
reports, and compare every observation, mask, reward and ending.
"""

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core.errors import IllegalActionError
from otrio.training.selfplay import SelfPlayEnv

COUNTS = {"oceanos_v0": (2, 5), "otys_v0": (2, 4), "otontin_v0": (3, 8)}
CASES = [(game, n) for game, counts in COUNTS.items() for n in counts]


class RecordingSelfPlay(SelfPlayEnv):
    """Records every action played (the learner's and the opponents')."""

    def reset(self, *args, **kwargs):
        self.played = []
        return super().reset(*args, **kwargs)

    def _transition(self, action):
        self.played.append(action)
        return super()._transition(action)


def replay_through_aec(game, config, seed, seat, played, max_decisions=None):
    """The learner's decisions of a recorded game replayed through the AEC env:
    ``[(observation, bool mask, reward)]`` and the ending ``(terminated, truncated)``.

    The reward of a learner decision is what the AEC paid its seat for that move
    (plus, on the first, what it was paid before it), then what it was paid during the
    opponents' moves that followed, summed in that order.
    """
    aec = envs.make(game, **config)
    if max_decisions is not None:
        aec.unwrapped._max_decisions = max_decisions
    aec.reset(seed=seed)
    learner = aec.possible_agents[seat]
    decisions, before_first = [], 0.0
    for action in played:
        if aec.agent_selection == learner:
            obs = aec.observe(learner)
            aec.step(action)
            own = (before_first if not decisions else 0.0) + aec.rewards[learner]
            decisions.append([obs["observation"], obs["action_mask"].astype(bool), own, 0.0])
        else:
            aec.step(action)
            if decisions:
                decisions[-1][3] += aec.rewards[learner]
            else:
                before_first += aec.rewards[learner]
    truncated = any(aec.truncations.values())
    terminated = all(aec.terminations.values()) and not truncated
    return [(o, m, own + later) for o, m, own, later in decisions], (terminated, truncated)


def play_and_compare(env, game, config, episodes, rng, max_decisions=None):
    """Play ``episodes`` with random learner moves; each must match its AEC replay.
    Returns the endings seen."""
    endings = []
    for _ in range(episodes):
        obs, info = env.reset()
        seen = []
        while True:
            mask = env.action_masks()
            before = obs
            obs, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            seen.append((before, mask, reward))
            if term or trunc:
                break
        expected, ending = replay_through_aec(game, config, info["game_seed"],
                                              info["learner_seat"], env.played, max_decisions)
        assert len(seen) == len(expected)
        for (o, m, r), (want_o, want_m, want_r) in zip(seen, expected):
            np.testing.assert_array_equal(o, want_o)
            np.testing.assert_array_equal(m, want_m)
            assert r == want_r  # bit for bit: the same terms, summed in the same order
        assert (term, trunc) == ending
        endings.append(ending)
    return endings


@pytest.mark.parametrize("dense", [False, True], ids=["end_reward", "dense"])
@pytest.mark.parametrize("game,n", CASES)
def test_learner_sees_and_is_paid_what_the_aec_pays(game, n, dense):
    config = {"num_players": n, "dense_reward": dense}
    env = RecordingSelfPlay(game, config, {"random": 1.0, "greedy": 1.0}, seed=7)
    play_and_compare(env, game, config, 2, np.random.default_rng(n))


def test_a_game_stopped_at_its_round_cap_is_a_truncation_with_rewards():
    config = {"num_players": 3, "round_cap": 2, "dense_reward": True}
    env = RecordingSelfPlay("otontin_v0", config, {"random": 1.0}, seed=3)
    endings = play_and_compare(env, "otontin_v0", config, 3, np.random.default_rng(0))
    assert endings == [(False, True)] * 3


def test_the_decision_cap_truncates_as_in_the_aec():
    config = {"num_players": 2}
    env = RecordingSelfPlay("oceanos_v0", config, {"random": 1.0}, seed=3)
    env._max_decisions = 9
    endings = play_and_compare(env, "oceanos_v0", config, 2, np.random.default_rng(0),
                               max_decisions=9)
    assert endings == [(False, True)] * 2
    assert len(env.played) == 9


def test_an_illegal_learner_action_is_a_clear_error_and_changes_nothing():
    env = SelfPlayEnv("oceanos_v0", {"num_players": 2}, {"random": 1.0}, seed=1)
    obs, _ = env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    saved = env.state.to_dict()
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal} for player_"):
        env.step(illegal)
    with pytest.raises(IllegalActionError):
        env.step("keep")
    assert env.state.to_dict() == saved
    np.testing.assert_array_equal(env.step(int(np.flatnonzero(env.action_masks())[0]))[0].shape,
                                  obs.shape)


def test_opponent_kinds_are_drawn_by_their_weights():
    env = SelfPlayEnv("otontin_v0", {"num_players": 3}, {"random": 3.0, "greedy": 1.0}, seed=0)
    kinds = [type(env._opponent(1)).__name__ for _ in range(4000)]
    share = kinds.count("RandomAgent") / len(kinds)
    assert share == pytest.approx(0.75, abs=0.03)


def _snapshot(tmp_path, game, n, hints=None):
    """An exported agent of an untrained policy (a self-play snapshot) and its sha256."""
    import json

    from sb3_contrib import MaskablePPO

    from otrio.agents.encoders import policy_kwargs
    from otrio.agents.hints import hint_size
    from otrio.agents.weights import save_policy

    env = SelfPlayEnv(game, {"num_players": n}, {"random": 1.0}, hints=hints)
    info = env.game.info
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu", seed=1,
                        policy_kwargs=policy_kwargs(
                            "hinted" if hints else "mlp", [] if hints else [16],
                            hint_size(info.num_actions) if hints else 0, True))
    manifest = save_policy(model.policy, tmp_path / f"{game}_snap", {
        "env_id": game, "observation_size": info.observation_size,
        "num_actions": info.num_actions, "hints": hints, "timesteps": 0})
    return str(manifest), json.loads(manifest.read_text())["weights"]["sha256"]


def _move(env, rng) -> list:
    """One random legal learner move and what it gives (and the next game's start)."""
    action = int(rng.choice(np.flatnonzero(env.action_masks())))
    obs, reward, term, trunc, _ = env.step(action)
    out = [(action, obs.tobytes(), reward, term, trunc)]
    if term or trunc:
        obs, info = env.reset()
        out.append((obs.tobytes(), info["learner_seat"], info["game_seed"]))
    return out


def _to_next_game(env, rng) -> list:
    """Learner moves to the end of this game and 5 moves into the next."""
    out, after = [], None
    while after is None or after < 5:
        moves = _move(env, rng)
        out += moves
        after = (after + 1 if after is not None else 0 if len(moves) == 2 else None)
    return out


@pytest.mark.parametrize("game,n,hints", [("oceanos_v0", 2, None), ("otys_v0", 2, None),
                                          ("otontin_v0", 3, None), ("oceanos_v0", 3, "greedy")])
def test_resume_state_replays_the_game_in_progress_exactly(tmp_path, game, n, hints):
    """An env rebuilt from resume_state() (JSON) plays on exactly as the original:
    the same opponents with the same draws, the same hints, the same next games."""
    import json

    path, digest = _snapshot(tmp_path, game, n, hints)
    kinds = {"random": 1.0, "greedy": 1.0, "self": 2.0}
    env = SelfPlayEnv(game, {"num_players": n}, kinds, seed=5, hints=hints)
    env.set_snapshots([path], [digest])
    env.reset()
    rng = np.random.default_rng(0)
    for stop in (3, 40, 25):
        for _ in range(stop):
            _move(env, rng)
        saved = json.loads(json.dumps(env.resume_state()))
        copy = SelfPlayEnv(game, {"num_players": n}, kinds, seed=99, hints=hints)
        obs = copy.restore_resume_state(saved)
        np.testing.assert_array_equal(obs, env._observation)
        state = copy.rng.bit_generator.state
        assert _to_next_game(copy, np.random.default_rng(stop)) == _to_next_game(
            env, np.random.default_rng(stop))
        assert state != copy.rng.bit_generator.state  # the next games were drawn too


def test_a_snapshot_is_an_exported_agent_with_the_weights_its_pool_names(tmp_path):
    from otrio.envs.core.errors import ConfigError, StateError
    from otrio.training.selfplay import SnapshotAgent

    path, digest = _snapshot(tmp_path, "oceanos_v0", 2)
    zipped = tmp_path / "snap.zip"
    zipped.write_bytes(b"PK")
    with pytest.raises(ConfigError, match="Stable-Baselines3 zip"):
        SnapshotAgent(str(zipped))
    with pytest.raises(ConfigError, match="Stable-Baselines3 zip"):  # nor as a pool entry
        SelfPlayEnv("oceanos_v0", {"num_players": 2}, {"self": 1.0}).set_snapshots([str(zipped)])
    with pytest.raises(ConfigError, match="not the one its run recorded"):
        SnapshotAgent(path, sha256="0" * 64)
    agent = SnapshotAgent(path, sha256=digest)
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=3)
    obs = env.last()[0]
    picks = []
    for seed in (1, 1, 2):
        agent.reset(seed)
        picks.append([agent.act(obs) for _ in range(20)])
    assert picks[0] == picks[1] != picks[2]  # its own seeded generator, no global one
    assert all(obs["action_mask"][a] for a in picks[0])
    env_ = SelfPlayEnv("oceanos_v0", {"num_players": 2}, {"self": 1.0}, seed=1)
    env_.reset()
    with pytest.raises(StateError, match="does not replay|ends before"):
        saved = env_.resume_state()
        saved["actions"] = [0] * 500
        SelfPlayEnv("oceanos_v0", {"num_players": 2}, {"self": 1.0}).restore_resume_state(saved)
