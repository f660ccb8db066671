"""``Game.render_for(state, seat)`` shows only what the seat may know: re-drawing what
it cannot know (``resample_hidden``) never changes its text, as its observation and its
picture never change (tests/core/test_picture.py). OpenSpiel's information-state and
observation strings are this text (integrations/openspiel.py)."""

import pytest

from otrio import envs
from otrio.envs.core import testing
from otrio.envs.core.rng import make_rng

SETUPS = [
    ("oceanos_v0", {"num_players": 2}),
    ("oceanos_v0", {"num_players": 5}),
    ("otontin_v0", {"num_players": 3}),
    ("otontin_v0", {"num_players": 8}),
    ("otys_v0", {"num_players": 2}),
    ("otys_v0", {"num_players": 4}),
]
IDS = [f"{e}-{c['num_players']}p" for e, c in SETUPS]


@pytest.mark.parametrize(("env_id", "config"), SETUPS, ids=IDS)
def test_seat_text_keeps_to_the_observation(env_id, config):
    env = envs.make(env_id, **config)
    game, core = env.unwrapped.game, env.unwrapped
    compared = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = make_rng(700 + seed)
        for step, _ in enumerate(testing.play_random(env, make_rng(seed), max_steps=400)):
            if step % 3:
                continue
            state = core.state_
            saved = state.to_dict()
            for seat in range(core.num_players):
                twin = game.resample_hidden(state, seat, rng)
                if twin.to_dict() == saved:
                    continue
                compared += 1
                assert game.render_for(twin, seat) == game.render_for(state, seat), (
                    f"seat {seat}'s text changed with hidden information "
                    f"(seed {seed}, step {step})")
    assert compared > 20


def test_oceanos_text_hides_how_many_cards_a_seat_kept():
    """While keeps are secret, a seat that has kept cards looks to the others as it did
    when the choices began (its hand and fuel as in ``State.public_counts``)."""
    env = envs.make("oceanos_v0", num_players=3)
    env.reset(seed=4)
    game, state = env.unwrapped.game, env.unwrapped.state_
    while not (state.choosing() and any(state.kept)):
        state.apply_action(state.legal_actions()[0])
    keeper = next(s for s in range(3) if state.kept[s])
    other = (keeper + 1) % 3
    hands, _, ready, _ = state.public_counts()
    line = next(x for x in game.render_for(state, other).splitlines()
                if x.startswith(f"player_{keeper}:"))
    assert f"fuel {ready[keeper]} " in line and line.endswith(f"hand {hands[keeper]}")
    assert hands[keeper] != len(state.hands[keeper])
    own = next(x for x in game.render_for(state, keeper).splitlines()
               if x.startswith(f"player_{keeper}:"))
    assert own.endswith(f"hand {len(state.hands[keeper])}")
