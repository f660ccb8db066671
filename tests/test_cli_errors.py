"""Every user error of the ``otrio`` command: one line on stderr naming the problem,
exit code 2 (130 for Ctrl-C), no traceback, and nothing left behind."""

import io
from pathlib import Path

import pytest

from otrio_cli import main


def fails_cleanly(capsys, argv, *needles, code=2) -> str:
    """Run ``otrio ARGV``; check the exit code and a one-line error naming ``needles``."""
    assert main([str(a) for a in argv]) == code
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and err.count("\n") == 0, err
    assert err.startswith("otrio"), err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def write_yaml(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def left_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ------------------------------------------------------------------- play
class Interrupting(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_play_ends_cleanly_when_input_closes(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    fails_cleanly(capsys, ["play", "oceanos", "--seats", "human,random"],
                  "input closed", "player_0")


def test_play_ends_cleanly_on_ctrl_c(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", Interrupting())
    fails_cleanly(capsys, ["play", "oceanos", "--seats", "human,random"], "interrupted", code=130)


def test_a_digit_that_is_not_a_number_asks_again(monkeypatch, capsys):
    # '²'.isdigit() is true, but int('²') fails
    monkeypatch.setattr("sys.stdin", io.StringIO("²\n" + "0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,random", "--seed", "3"]) == 0
    assert "'²' is not one of the moves listed" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["play", "oceanos", "--seats", "random,random", "--seed", "-5"], "--seed"),
    (["play", "oceanos", "--seats", "random,random", "--seed", "x"], "--seed"),
    (["demo", "--games", "0", "--output", "{tmp}/demo"], "--games"),
    (["demo", "--seed", "-1", "--output", "{tmp}/demo"], "--seed"),
    (["tournament"], "config"),
    (["no-such-command"], "no-such-command"),
])
def test_bad_arguments_are_one_line(tmp_path, capsys, argv, needle):
    fails_cleanly(capsys, [a.replace("{tmp}", str(tmp_path)) for a in argv], needle)
    assert left_in(tmp_path) == []


# ---------------------------------------------------------- tournament YAML
TOURNAMENT = """
game: oceanos_v0
game_config: {game_config}
agents: {{greedy: greedy, random: random}}
lineup: [greedy, random]
games_per_seating: 1
seed: {seed}
output: {output}
"""


def tournament_yaml(tmp_path, game_config="{num_players: 2}", seed=0) -> Path:
    return write_yaml(tmp_path / "t.yaml", TOURNAMENT.format(
        game_config=game_config, seed=seed, output=tmp_path / "out"))


def test_a_negative_tournament_seed_is_refused_before_anything_is_made(tmp_path, capsys):
    fails_cleanly(capsys, ["tournament", tournament_yaml(tmp_path, seed=-1), "--quiet"], "seed")
    assert left_in(tmp_path) == ["t.yaml"]
    # the folder is not blocked: the corrected config runs there
    assert main(["tournament", str(tournament_yaml(tmp_path, seed=1)), "--quiet"]) == 0


def test_a_nested_unknown_game_key_names_the_nested_allowed_keys(tmp_path, capsys):
    path = tournament_yaml(tmp_path, game_config="{num_players: 2, kraken: {mod: fixed}}")
    fails_cleanly(capsys, ["tournament", path], "unknown key 'kraken.mod' (allowed: mode, values)")
    assert left_in(tmp_path) == ["t.yaml"]


@pytest.mark.parametrize("command", ["tournament", "train", "balance"])
@pytest.mark.parametrize("text", ["- game: oceanos_v0\n", "just words\n", "42\n"])
def test_a_yaml_that_is_not_a_mapping_is_refused(tmp_path, capsys, command, text):
    fails_cleanly(capsys, [command, write_yaml(tmp_path / "c.yaml", text)], "mapping")
    assert left_in(tmp_path) == ["c.yaml"]


# --------------------------------------------------------------- training
TRAIN = """
game: oceanos_v0
game_config: {game_config}
ppo: {ppo}
total_timesteps: 64
output: {output}
"""


def train_yaml(tmp_path, game_config="{num_players: 2}", ppo="{n_steps: 32}", extra="") -> Path:
    return write_yaml(tmp_path / "train.yaml", TRAIN.format(
        game_config=game_config, ppo=ppo, output=tmp_path / "out") + extra)


def test_a_training_typo_in_a_nested_key_names_the_nested_allowed_keys(tmp_path, capsys):
    err = fails_cleanly(capsys, ["train", train_yaml(tmp_path, ppo="{learning_rat: 0.1}")],
                        "unknown key 'ppo.learning_rat'")
    assert "(allowed: batch_size, clip_range, ent_coef, gae_lambda, gamma, learning_rate, " \
           "max_grad_norm, n_epochs, n_steps, vf_coef)" in err
    assert left_in(tmp_path) == ["train.yaml"]


@pytest.mark.parametrize("game_config, needle", [
    ("{num_players: 9}", "num_players"),
    ("{num_players: 2, kraken: {mod: fixed}}", "(allowed: mode, values)"),
    ("{num_players: 2, dense_reward: 'yes'}", "dense_reward"),
])
def test_training_with_a_bad_game_config_leaves_no_folder(tmp_path, capsys, game_config, needle):
    fails_cleanly(capsys, ["train", train_yaml(tmp_path, game_config=game_config), "--quiet"],
                  needle)
    assert left_in(tmp_path) == ["train.yaml"]


@pytest.mark.parametrize("extra, needle", [("seed: -1\n", "seed"),
                                           ("learner_seat: 2\n", "learner_seat")])
def test_training_with_a_bad_seed_or_seat_leaves_no_folder(tmp_path, capsys, extra, needle):
    fails_cleanly(capsys, ["train", train_yaml(tmp_path, extra=extra), "--quiet"], needle)
    assert left_in(tmp_path) == ["train.yaml"]


# ------------------------------------------------------------------ balance
BALANCE = """
game: oceanos_v0
game_config: {{num_players: 2}}
agents: {{r: random}}
lineup: [r, r]
games_per_setup: 2
seed: {seed}
sweeps:
  - name: variant
    factors:
      - {{name: variant, path: two_player_variant, {values}: [true, false]}}
output: {output}
"""


def test_a_balance_factor_typo_names_the_factor_keys(tmp_path, capsys):
    path = write_yaml(tmp_path / "b.yaml", BALANCE.format(values="valus", seed=0,
                                                          output=tmp_path / "out"))
    fails_cleanly(capsys, ["balance", path], "unknown key 'sweeps.0.factors.0.valus' (allowed: "
                  "coding, labels, name, path, permutations_of, values)")
    assert left_in(tmp_path) == ["b.yaml"]


def test_a_negative_balance_seed_is_refused(tmp_path, capsys):
    path = write_yaml(tmp_path / "b.yaml", BALANCE.format(values="values", seed=-3,
                                                          output=tmp_path / "out"))
    fails_cleanly(capsys, ["balance", path], "seed")
    assert left_in(tmp_path) == ["b.yaml"]


# ------------------------------------------------------------------- export
def test_exporting_a_missing_source_says_it_does_not_exist(tmp_path, capsys):
    fails_cleanly(capsys, ["export-checkpoint", tmp_path / "nothing.zip", tmp_path / "agent"],
                  "does not exist", "nothing.zip")
    assert left_in(tmp_path) == []


def _checkpoint(tmp_path: Path) -> Path:
    """A (untrained) training checkpoint with the metadata beside it."""
    from sb3_contrib import MaskablePPO

    from training.config import TrainConfig
    from training.selfplay import SelfPlayEnv
    from training.train import save_checkpoint

    cfg = TrainConfig(game="oceanos_v0", game_config={"num_players": 2})
    env = SelfPlayEnv(cfg.game, cfg.game_config, {"random": 1.0})
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, n_steps=32,
                        batch_size=32, seed=0, device="cpu")
    path = tmp_path / "source" / "last.zip"
    save_checkpoint(model, path, cfg)
    return path


def test_an_export_either_writes_its_files_or_leaves_nothing(tmp_path, capsys, monkeypatch):
    # the export format is the safe one of agents/weights.py: TARGET.json and
    # TARGET.safetensors (a .zip target is refused); the zip-writing export wrote
    # TARGET.zip and TARGET.json for a target without .zip, then failed on TARGET
    monkeypatch.setenv("OTRIO_TRUST_CHECKPOINTS", "1")
    source = _checkpoint(tmp_path)
    before = left_in(tmp_path)
    for target in ("agent.zip", "sub/agent", "agent.json"):
        code = main(["export-checkpoint", str(source), str(tmp_path / "out" / target)])
        err = capsys.readouterr().err.strip()
        assert "Traceback" not in err and err.count("\n") <= 0, err
        written = sorted(set(left_in(tmp_path)) - set(before))
        if code == 0:
            stem = str(Path("out") / target).removesuffix(".json")
            assert {f"{stem}.json", f"{stem}.safetensors"} <= set(written), written
        else:
            assert code == 2 and written == [], (target, written, err)
        before = left_in(tmp_path)
