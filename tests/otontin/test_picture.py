"""The Otontin picture: secret orders stay face down for the other seats until the war
reveals them; the campaign dice and the standings are drawn."""

from otrio import envs
from otrio.envs.core.testing import picture_titles, play_until
from otrio.envs.otontin.env import GAME
from otrio.envs.otontin.orders import NO_ORDER, order_name
from otrio.envs.otontin.rules import COMMIT_PHASE


def test_orders_face_down_until_the_war():
    env = envs.make("otontin_v0", num_players=5)
    env.reset(seed=0)
    state = play_until(env, lambda s: s.phase == COMMIT_PHASE
                        and sum(o != NO_ORDER for o in s.committed) >= 2)
    assert state is not None
    laid = [s for s in range(state.n) if state.committed[s] != NO_ORDER]
    viewer = state.current_player()
    titles = picture_titles(GAME.picture(state, viewer))
    secret = f"secret order ({order_name(state.committed[laid[0]])})"
    assert secret not in titles
    assert titles.count("a secret order, face down until the war") == len(laid)
    whole = picture_titles(GAME.picture(state))
    assert all(f"secret order ({order_name(state.committed[s])})" in whole for s in laid)
    own = GAME.picture(state, laid[0])
    assert secret in picture_titles(own)
    # the war reveals every order to everyone
    round_ = state.round
    after = play_until(env, lambda s: s.revealed_round == round_)
    assert after is not None
    seat_view = GAME.picture(after, viewer).to_svg()
    for s in range(after.n):
        if after.revealed[s] != NO_ORDER:
            assert f"player_{s}'s left card toward" in seat_view


def test_campaign_dice_and_standings_are_drawn():
    env = envs.make("otontin_v0", num_players=4)
    env.reset(seed=3)
    state = env.unwrapped.state_
    svg = GAME.picture(state, 0).to_svg()
    assert f"Campaign of player_{state.active}" in svg
    dice = [t for t in picture_titles(GAME.picture(state, 0)) if t.endswith(" die: warrior")
            or t.endswith(" die: bean") or t.endswith(" die: priest")
            or t.endswith(" die: saboteur")]
    assert len(dice) == len(state.last_roll) > 0
    assert "Standings" in svg and "round 1" in svg
