"""The Oceanos picture shows what each seat may know and nothing more."""

import numpy as np

from otrio import envs
from otrio.envs.core.testing import picture_titles, play_until
from otrio.envs.oceanos.env import GAME


def test_keeps_in_progress_stay_secret_in_a_seat_picture():
    """While keeps are chosen, another seat is drawn as it was when the choices began:
    its whole hand as card backs and nothing kept; the whole table shows the keeps."""
    env = envs.make("oceanos_v0", num_players=4)
    found = 0
    for seed in range(6):
        env.reset(seed=seed)
        state = play_until(env, lambda s: s.choosing() and any(
            s.kept[k] for k in range(s.num_players) if k != s.actor), seed=seed)
        if state is None:
            continue
        found += 1
        viewer = state.actor
        hands, kept, _, _ = state.public_counts()
        for other in range(state.num_players):
            if other == viewer or not state.kept[other]:
                continue
            titles = picture_titles(GAME.picture(state, viewer))
            backs = titles.count(f"a hidden card of player_{other}'s hand")
            assert backs == hands[other] == len(state.hands[other]) + len(state.kept[other])
            assert f"a hidden card of player_{other}'s kept" not in titles
            assert kept[other] == 0
            whole = picture_titles(GAME.picture(state))
            assert whole.count("kept face down this turn") >= len(state.kept[other])
    assert found > 0


def test_own_hand_face_up_and_other_hands_as_backs():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=4)
    state = env.unwrapped.state_
    seat = state.actor
    titles = picture_titles(GAME.picture(state, seat))
    for card in state.hands[seat]:
        assert state.table.label(card) in titles
    other_labels = {state.table.label(c) for s in range(3) if s != seat for c in state.hands[s]}
    own_or_public = {state.table.label(c) for c in state.hands[seat]}
    secret = other_labels - own_or_public
    assert secret  # cards only another seat holds
    assert not secret & set(titles)
    whole = picture_titles(GAME.picture(state))
    assert secret <= set(whole)


def test_kraken_tokens_face_down_for_a_seat_until_scored():
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=0)
    state = env.unwrapped.state_
    other = state.clone()
    other.kraken = [v - 1 for v in state.kraken]  # another face-down draw
    for seat in range(3):
        assert GAME.picture(state, seat).to_svg() == GAME.picture(other, seat).to_svg()
    assert GAME.picture(state).to_svg() != GAME.picture(other).to_svg()
    assert sum("Kraken token" in t and ": ?" in t for t in picture_titles(GAME.picture(state, 0))) == 3
    fixed = envs.make("oceanos_v0", num_players=3,
                      kraken={"mode": "fixed", "values": [-1, -2, -3]})
    fixed.reset(seed=0)
    titles = picture_titles(GAME.picture(fixed.unwrapped.state_, 0))
    assert "big Kraken token (round 3): -3" in titles


def test_rgb_picture_of_a_finished_game():
    env = envs.make("oceanos_v0", num_players=5, render_mode="rgb_array")
    env.reset(seed=1)
    state = play_until(env, lambda s: s.is_terminal(), seed=1, limit=5000)
    assert state is not None
    rgb = env.render()
    assert rgb.dtype == np.uint8 and rgb.shape[2] == 3
    svg = GAME.picture(state, 2).to_svg()
    assert "game over" in svg and "final: animals" in svg
