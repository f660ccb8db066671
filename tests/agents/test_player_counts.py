"""Player counts a model was not made at: a value model refused at one names the shipped
models whose data held it; a policy trained at another count plays, with one warning
saying so; and the docs give each game's default count (``num_players`` is required of
the core config model only)."""

import warnings
from pathlib import Path

import pytest

from otrio import agents, envs
from otrio.agents.value import load_value_model, shipped_models
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import PRETRAINED
from otrio.envs.core.registry import config_model

ROOT = Path(__file__).resolve().parents[2]


def test_a_value_model_refused_at_4_players_names_the_shipped_one_that_covers_it():
    four = envs.make("otys_v0", num_players=4)
    for load in (lambda: load_value_model("agents/pretrained/otys_value.json", four),
                 lambda: agents.make("value:agents/pretrained/otys_value.json", four)):
        with pytest.raises(ConfigError) as caught:
            load()
        message = str(caught.value)
        assert "games of 2, 3 players only, this game has 4" in message and "\n" not in message
        assert "agents/pretrained/otys_value_234.json (players 2, 3, 4)" in message
    # the model it names plays there
    agents.make("value:agents/pretrained/otys_value_234.json", four)


def test_shipped_models_are_read_from_the_manifests():
    assert shipped_models("otys_v0", 4) == ["agents/pretrained/otys_value_234.json (players 2, 3, 4)"]
    assert "agents/pretrained/oceanos_value_5p.json (players 5)" in shipped_models("oceanos_v0", 5)
    assert shipped_models("otys_v0", 9) == []


def test_without_a_shipped_model_the_refusal_says_what_to_fit(tmp_path, monkeypatch):
    monkeypatch.setattr("otrio.agents.value.PRETRAINED", tmp_path)  # nothing shipped
    with pytest.raises(ConfigError, match="use a model fitted at that count"):
        load_value_model(PRETRAINED / "otys_value.json", envs.make("otys_v0", num_players=4))


def test_a_policy_trained_at_2_players_warns_at_3_and_plays():
    manifest = PRETRAINED / "otys_ppo.json"
    three = envs.make("otys_v0", num_players=3)
    with pytest.warns(UserWarning, match="was trained at 2 players .*this game has 3") as caught:
        agent = agents.make(f"ppo:{manifest}", three)
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    three.reset(seed=0)
    obs, *_ = three.last()
    assert obs["action_mask"][agent.act(obs)] == 1  # it plays
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # at its own count: no warning
        agents.make(f"net:{manifest}", envs.make("otys_v0", num_players=2))


def test_the_docs_give_each_games_default_player_count():
    def seats(env_id: str) -> tuple[int, int, int]:
        """The game's default player count, and its least and most."""
        field = config_model(env_id).model_fields["num_players"]
        bounds = {type(m).__name__: getattr(m, type(m).__name__.lower()) for m in field.metadata
                  if type(m).__name__ in ("Ge", "Le")}
        return field.default, bounds["Ge"], bounds["Le"]

    page = " ".join((ROOT / "docs" / "environments.md").read_text().split())
    (o, o_lo, o_hi), (y, y_lo, y_hi), (t, t_lo, t_hi) = (
        seats(env_id) for env_id in ("oceanos_v0", "otys_v0", "otontin_v0"))
    assert (f"`num_players` is required only of the core model: each game sets its own "
            f"default, so `otrio.make(\"oceanos_v0\")` seats {o} players (Oceanos takes {o_lo} "
            f"to {o_hi}), Otys seats {y} ({y_lo} to {y_hi}) and Otontin {t} ({t_lo} to {t_hi}) "
            f"unless `num_players` says otherwise.") in page
    assert envs.make("oceanos_v0").unwrapped.num_players == o
