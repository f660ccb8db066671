"""The shared machinery: action table, observation layout, configs, seeds, registry."""

import numpy as np
import pytest

from otrio import envs
from otrio.envs.core import ActionTable, ConfigError, GameInfo, ObservationLayout, StrictModel
from otrio.envs.core.config import validate
from otrio.envs.core.rng import derive_seed, make_rng, rng_from_dict, rng_to_dict


def test_action_table_blocks_and_names():
    t = ActionTable()
    keep = t.block("keep", ["a", "b", "c"])
    stop = t.single("stop")
    assert list(keep) == [0, 1, 2] and stop == 3 and len(t) == 4
    assert t.name(1) == "keep:b" and t.id("stop") == 3 and t.name(np.int32(3)) == "stop"
    assert "| 0–2 | keep | 3 | `keep:a` |" in t.markdown()
    with pytest.raises(ValueError):
        t.block("keep", ["x"])


def test_observation_layout_views_write_through():
    layout = ObservationLayout([("a", (2, 3), "first"), ("b", (4,), "second")])
    assert layout.size == 10 and layout.slice("b") == slice(6, 10)
    buf = np.zeros(layout.size, np.float32)
    views = layout.views(buf)
    views["a"][1, 2] = 5.0
    views["b"][0] = 7.0
    assert buf[5] == 5.0 and buf[6] == 7.0
    assert "| 6 | 4 | `b` | (4,) | [0, 1] | second |" in layout.markdown()


class _Cfg(StrictModel):
    num_players: int = 3
    speed: float = 1.0


def test_validate_names_unknown_and_bad_keys():
    with pytest.raises(ConfigError, match=r"unknown key 'sped' \(allowed: num_players, speed\)"):
        validate(_Cfg, {"sped": 2})
    with pytest.raises(ConfigError, match=r"bad value for 'num_players'"):
        validate(_Cfg, {"num_players": "many"})
    assert validate(_Cfg, {"speed": 2}).speed == 2.0


def test_game_info_player_range():
    info = GameInfo("g", 0, 2, 4, 3, 5, 10, 100)
    assert info.env_id == "g_v0"
    info.check_players(4)
    with pytest.raises(ConfigError, match="plays 2 to 4 players"):
        info.check_players(5)


def test_rng_round_trip_and_derived_seeds():
    rng = make_rng(7)
    rng.integers(100, size=5)
    copy = rng_from_dict(rng_to_dict(rng))
    assert rng.integers(1 << 30, size=4).tolist() == copy.integers(1 << 30, size=4).tolist()
    assert derive_seed(1, 2, "x") == derive_seed(1, 2, "x")
    assert derive_seed(1, 2, "x") != derive_seed(1, 3, "x") != derive_seed(2, 2, "x")
    assert 0 <= derive_seed(123, 4) < 2**63


def test_registry_rejects_unknown_ids():
    with pytest.raises(ConfigError, match="unknown env id 'chess_v0'"):
        envs.make("chess_v0")
    assert "oceanos_v0" in envs.available()


def test_step_before_reset_and_bad_render_mode_are_clear():
    with pytest.raises(Exception, match="render_mode"):
        envs.make("oceanos_v0", render_mode="pixels")
    env = envs.make("oceanos_v0")
    with pytest.raises(Exception, match="reset"):
        env.render()


def test_observations_and_masks_are_the_callers_own_arrays():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    agent = env.agent_selection
    first = env.observe(agent)
    kept = {name: array.copy() for name, array in first.items()}
    first["observation"][:] = -1.0
    first["action_mask"][:] = 0
    again = env.observe(agent)
    assert all(np.array_equal(again[name], kept[name]) for name in kept)
    assert again["action_mask"].flags.writeable and again["action_mask"].any()
    env.step(int(np.flatnonzero(again["action_mask"])[0]))
    assert np.array_equal(again["observation"], kept["observation"])  # not overwritten


def test_acting_mask_view_is_the_acting_mask_and_cannot_be_written():
    env = envs.make("otontin_v0", num_players=3)
    env.reset(seed=0)
    view = env.unwrapped.acting_mask_view()
    assert np.array_equal(view, env.action_mask(env.agent_selection))
    with pytest.raises(ValueError):
        view[:] = 0  # shared with the env's mask cache


def test_every_games_writer_sets_every_value_whatever_the_buffer_held():
    """The adapter reuses its buffer without zeroing it: each game's observation writer
    sets every value (a buffer full of NaN comes back as the observation)."""
    for env_id in envs.available():
        env = envs.make(env_id)
        env.reset(seed=1)
        core = env.unwrapped
        rng = np.random.default_rng(1)
        buffer = np.empty(core.game.info.observation_size, np.float32)
        for _ in range(60):
            state = core.state_
            if state.is_terminal():
                break
            for seat in range(state.num_players):
                buffer.fill(np.nan)
                core.game.observe(state, seat, buffer)
                fresh = core.game.observation(state.clone(), seat, np.zeros_like(buffer))
                assert np.array_equal(buffer, fresh), (env_id, seat)
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


def test_the_adapter_calls_the_games_observe():
    from otrio.envs.oceanos.env import OceanosGame, raw_env

    class Overriding(OceanosGame):
        """Overrides Game.observe: the adapter calls it, not write_observation."""

        def observe(self, state, seat, out):
            out[:] = 0.0
            out[seat + 1] = 2.0

    env = type("Env", (raw_env,), {"game": Overriding()})(num_players=3)
    env.reset(seed=0)
    for seat in (0, 1, 2, 0):
        obs = env.observe(f"player_{seat}")["observation"]
        assert np.flatnonzero(obs).tolist() == [seat + 1] and obs[seat + 1] == 2.0


def test_only_the_acting_agent_has_a_mask_through_play_reload_and_the_end():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    saved = None
    for step, agent in enumerate(env.agent_iter()):
        _, _, term, trunc, _ = env.last()
        for other in env.possible_agents:
            expected_live = other == agent and not (term or trunc)
            assert env.action_mask(other).any() == expected_live
        if term or trunc:
            env.step(None)
            continue
        if step == 20:
            saved = env.unwrapped.save_state()
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert not env.action_mask().any()
    # a reloaded env masks for its saved acting agent, not the one before the load
    env.unwrapped.load_state(saved)
    acting = saved["agent_selection"]
    assert [env.action_mask(a).any() for a in env.possible_agents] == [
        a == acting for a in env.possible_agents]
    assert np.array_equal(env.action_mask(), env.action_mask(acting))
