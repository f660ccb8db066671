"""Whole rounds from built positions: Strategy protocol, what each seat sees, the end
triggers, the tie-breaks and the round cap."""

from __future__ import annotations

import numpy as np
import pytest
from otontin_dice import script_rolls

from otrio.envs.core import make_rng
from otrio.envs.otontin.actions import COMMIT, DECLARE, DECLARE_NOTHING, STOP
from otrio.envs.otontin.campaign import COMMIT_ORDER, DECLARE_ORDER
from otrio.envs.otontin.env import GAME
from otrio.envs.otontin.observe import LAYOUT, ORDER_VEC
from otrio.envs.otontin.observe_cache import write_observation
from otrio.envs.otontin.orders import NO_ORDER, ORDERS, order_name
from otrio.envs.otontin.render import render_text
from otrio.envs.otontin.rules import CAMPAIGN, COMMIT_PHASE, TALK, Config, State

G, P = 0, 2
QUIET = [[G, P]] * 3  # three priests: nothing collected, nothing stolen
TRUCE_BOTH = ORDERS.index((2, 0, 2, 0))
SPEAR_LEFT = ORDERS.index((0, -1, 1, -1))  # spear left, shield right


def built(n=3, beans=None, atk=None, **cfg) -> State:
    """Round 1, every campaign roll scripted quiet, the pool conserving the tokens."""
    st = State(Config(num_players=n, **cfg), make_rng(0), begin=False)
    st.beans = list(beans or [0] * n)
    st.attack = list(atk or [0] * n)
    st.pool_beans -= sum(st.beans)
    st.pool_warriors -= sum(st.attack)
    script_rolls(st, [QUIET] * (n * (cfg.get("round_cap", 3) + 1)))
    st.begin_turn()
    return st


def play_round(st: State, commits: dict[int, int] | None = None, declare=None) -> None:
    """Stop every campaign turn at once, declare nothing, commit ``commits`` (default
    a truce on both sides) -- until the round's war is over."""
    commits = commits or {}
    start_round = st.round
    while st.round == start_round and not st.is_terminal():
        seat = st.current_player()
        if st.decision == DECLARE_ORDER:
            st.apply_action(DECLARE_NOTHING if declare is None else declare(seat))
        elif st.decision == COMMIT_ORDER:
            st.apply_action(COMMIT[commits.get(seat, TRUCE_BOTH)])
        else:
            legal = st.legal_actions()
            st.apply_action(STOP.start if STOP.start in legal else legal[0])


def view(st: State, seat: int) -> dict[str, np.ndarray]:
    out = np.zeros(LAYOUT.size, np.float32)
    write_observation(st, seat, out)
    return LAYOUT.views(out)


@pytest.mark.parametrize("target,beans,final", [(15, 15, True), (15, 14, False), (10, 10, True)])
def test_bean_target_makes_next_round_final(target, beans, final):
    """At or above the target after a War phase: the next round is the final one."""
    st = built(beans=[0, beans, 0], bean_target=target)
    play_round(st)
    assert st.round == 2 and st.final_round is final and not st.is_terminal()
    play_round(st)
    assert st.is_terminal() is final
    if final:
        assert st.winners() == [1] and not st.capped


def test_pool_run_out_ends_after_this_war():
    """A run-out makes the current round final: the game ends after its war."""
    st = State(Config(num_players=3, pool_beans=2), make_rng(0), begin=False)
    script_rolls(st, [[[G, 1], [G, 1], [G, 1]]] + [QUIET] * 3)
    st.begin_turn()
    st.apply_action(STOP.start)
    assert st.phase == TALK and st.pool_beans == 0
    play_round(st)
    assert st.is_terminal() and st.round == 1 and st.winners() == [0]


def test_round_cap_ends_the_game():
    """The round cap ends the game after that round's war (terminal, winners by the
    normal rule), flagged as capped."""
    st = built(beans=[0, 0, 3], round_cap=2)
    play_round(st)
    assert not st.is_terminal()
    play_round(st)
    assert st.is_terminal() and st.capped and st.round == 2 and st.winners() == [2]


@pytest.mark.parametrize(
    "beans,armies,winners",
    [
        ([5, 6, 3], [9, 0, 0], [1]),  # most beans
        ([5, 5, 3], [2, 3, 9], [1]),  # tie on beans: most warriors
        ([5, 5, 3], [3, 3, 0], [0, 1]),  # still tied: shared
        ([4, 4, 4], [1, 1, 1], [0, 1, 2]),  # everyone shares
    ],
)
def test_winners(beans, armies, winners):
    """Most beans; tie: most warriors; still tied: shared victory."""
    st = built(beans=beans, atk=armies)
    assert st.winners() == winners


def test_starting_leader_passes_left():
    """Round r's Starting Leader is seat r-1 (mod n) and campaigns first."""
    st = built(n=4)
    for r in range(1, 4):
        assert st.round == r and st.start == (r - 1) % 4 and st.active == st.start
        play_round(st)


def test_declarations_public_commits_secret_then_revealed():
    """Declarations show to all at once; a commit shows only to its owner until the
    war reveals every order (relative rows: own seat first, then leftwards)."""
    st = built(n=3)
    while st.phase == CAMPAIGN:
        st.apply_action(STOP.start)
    st.apply_action(DECLARE[SPEAR_LEFT])  # p0 declares
    row = view(st, 1)["declared"][2]  # p0 is two seats left of p1
    assert row[0] == 1 and row[1] == 0 and (row[2:] == ORDER_VEC[SPEAR_LEFT]).all()
    st.apply_action(DECLARE_NOTHING)
    st.apply_action(DECLARE_NOTHING)
    assert view(st, 0)["declared"][1][:2].tolist() == [1, 1]  # p1 said nothing
    assert st.phase == COMMIT_PHASE
    st.apply_action(COMMIT[TRUCE_BOTH])  # p0's secret order
    other = st.clone()
    other.committed[0] = SPEAR_LEFT
    for seat in (1, 2):
        assert (view(st, seat)["own_order"] == 0).all()
        assert all((view(st, seat)[k] == view(other, seat)[k]).all() for k in LAYOUT.offsets)
    assert (view(st, 0)["own_order"][1:] == ORDER_VEC[TRUCE_BOTH]).all()
    assert (view(st, 0)["own_order"] != view(other, 0)["own_order"]).any()
    assert view(st, 1)["committed"].tolist()[:3] == [0, 0, 1]
    st.apply_action(COMMIT[SPEAR_LEFT])
    st.apply_action(COMMIT[TRUCE_BOTH])
    assert st.round == 2 and st.revealed == [TRUCE_BOTH, SPEAR_LEFT, TRUCE_BOTH]
    revealed = view(st, 2)["revealed"]
    assert (revealed[2][1:] == ORDER_VEC[SPEAR_LEFT]).all() and revealed[0][0] == 1


def test_busted_leader_sits_out_strategy():
    """A busted leader neither declares nor commits; its order is NO_ORDER."""
    st = built(n=3)
    st.apply_action(STOP.start)
    st.busted[1] = True
    while st.phase == CAMPAIGN:
        st.apply_action(STOP.start)
    assert st.actives == [0, 2]
    seats = []
    while st.round == 1:
        seats.append(st.current_player())
        st.apply_action(DECLARE_NOTHING if st.phase == TALK else COMMIT[TRUCE_BOTH])
    assert seats == [0, 2, 0, 2] and st.revealed[1] == NO_ORDER


def test_resample_hidden_redraws_only_unrevealed_orders():
    """Others' secret orders are re-drawn (and sometimes differ); the seat's own stays."""
    st = built(n=3)
    while st.phase == CAMPAIGN:
        st.apply_action(STOP.start)
    for _ in range(3):
        st.apply_action(DECLARE_NOTHING)
    st.apply_action(COMMIT[TRUCE_BOTH])
    st.apply_action(COMMIT[TRUCE_BOTH])
    rng = make_rng(1)
    changed = 0
    for _ in range(20):
        other = GAME.resample_hidden(st, 2, rng)
        assert other.committed[2] == st.committed[2]
        changed += other.committed[:2] != st.committed[:2]
    assert changed > 0 and st.committed == [TRUCE_BOTH, TRUCE_BOTH, NO_ORDER]


def test_render_for_shows_only_the_viewers_own_secret_order():
    """A seat's text view names its own laid order (it is in its observation too);
    no view, nor the ``ansi`` text, names another seat's unrevealed order."""
    st = built(n=3)
    while st.phase == CAMPAIGN:
        st.apply_action(STOP.start)
    for _ in range(3):
        st.apply_action(DECLARE_NOTHING)
    st.apply_action(COMMIT[TRUCE_BOTH])
    st.apply_action(COMMIT[SPEAR_LEFT])
    own = {0: order_name(TRUCE_BOTH), 1: order_name(SPEAR_LEFT)}
    assert own[0] != own[1] and st.committed == [TRUCE_BOTH, SPEAR_LEFT, NO_ORDER]
    for seat in range(3):
        text = GAME.render_for(st, seat)
        assert text == render_text(st, seat)
        for other, name in own.items():
            assert (name in text) == (other == seat), (seat, other, text)
        if seat in own:
            assert f"secret order of player_{seat}: {own[seat]}" in text
    assert not any(name in GAME.render(st) for name in own.values())


def test_war_through_actions():
    """The same war as the ``shield_win`` row, reached through Strategy actions."""
    st = built(n=3, atk=[5, 0, 0])
    st.defence[1] = 2
    st.pool_warriors -= 2
    st.beans[1] = 4
    st.pool_beans -= 4
    commits = {
        0: SPEAR_LEFT,
        1: ORDERS.index((2, 0, 1, -1)),
        2: TRUCE_BOTH,
    }
    play_round(st, commits)
    assert (st.attack, st.defence, st.beans, st.pool_warriors) == ([1, 0, 0], [0, 0, 0], [4, 0, 0], 44)
    assert st.phase == CAMPAIGN and st.round == 2


def test_round_cap_is_a_truncation_with_winner_rewards():
    """The env reports a capped game as truncated, and still pays +1/-1 by the winner rule."""
    import numpy as np

    from otrio import envs

    env = envs.make("otontin_v0", num_players=3, round_cap=1)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            final[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.state_
    assert state.capped
    winners = state.winners()
    expected = {f"player_{s}": (1.0 if s in winners else -1.0) for s in range(3)}
    if len(winners) == 3:
        expected = dict.fromkeys(expected, 0.0)
    assert final == expected
