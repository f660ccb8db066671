"""The Otys picture: private contracts and another seat's drawn cards stay hidden in a
seat's picture; the drawer sees its draw while it chooses."""

from otrio import envs
from otrio.envs.core.rng import make_rng
from otrio.envs.core.testing import picture_titles
from otrio.envs.otys.env import GAME
from otrio.envs.otys.phases import Phase


def _contract_titles(titles: list[str]) -> list[str]:
    return [t for t in titles if t and t.endswith(("PP", "battery", "credit"))
            and "contract:" in t]


def _state_in_phase(phase: int, players: int):
    for seed in range(40):
        env = envs.make("otys_v0", num_players=players)
        env.reset(seed=seed)
        rng = make_rng(seed)
        while not env.unwrapped.state_.is_terminal():
            state = env.unwrapped.state_
            if state.phase == phase:
                return state
            env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return None


def test_drawn_contracts_shown_to_the_drawer_only():
    state = _state_in_phase(Phase.KEEP, 3)
    assert state is not None and state.drawn
    drawer, other = state.seat, (state.seat + 1) % 3
    mine = picture_titles(GAME.picture(state, drawer))
    theirs = picture_titles(GAME.picture(state, other))
    assert theirs.count("a drawn contract (hidden)") == len(state.drawn)
    assert "a drawn contract (hidden)" not in mine
    shown = len(_contract_titles(mine)) - len(_contract_titles(theirs))
    assert shown == len(state.drawn)  # the drawer's own hand is also hidden from the other
    assert "a drawn contract (hidden)" not in picture_titles(GAME.picture(state))


def test_private_contracts_are_backs_for_the_others():
    state = _state_in_phase(Phase.CONTRACT_COLOUR, 2)
    assert state is not None
    for viewer in range(2):
        titles = picture_titles(GAME.picture(state, viewer))
        for p in range(2):
            backs = titles.count(f"a private contract of player_{p}")
            assert backs == (0 if p == viewer else len(state.hands[p]))
    svg = GAME.picture(state, 1 - state.seat).to_svg()
    assert f"being completed on level {state.contract_level + 1}" in svg
