"""Every user error of the ``otrio`` command: one line on stderr naming the problem,
exit code 2 (130 for Ctrl-C), no traceback, and nothing left behind."""

import errno
import functools
import io
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from otrio import envs
from otrio.cli import main


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


# ------------------------------------------------------- play --resume
def saved_game(tmp_path, monkeypatch, capsys) -> Path:
    """A game of oceanos saved by ``save`` after two of the human's moves."""
    path = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(f"0\n0\nsave {path}\nquit\n"))
    assert main(["play", "oceanos", "--seats", "human,random", "--seed", "3"]) == 0
    capsys.readouterr()
    return path


def _with_digest(save: dict) -> str:
    """A save's JSON with its digest made right again (a save whose content lies)."""
    from otrio.cli_play import _digest

    return json.dumps({**save, "digest": _digest(save)})


@pytest.mark.parametrize("damage, needle", [
    (lambda text: text[: len(text) // 2], "is corrupt (not JSON)"),  # truncated
    (lambda text: "", "is corrupt (not JSON)"),
    (lambda text: text.replace('"seed": 3', '"seed": 4'), "does not match its digest"),
    (lambda text: '{"game": 0, "seed": 1, "replay": {}}', "is not a game saved by otrio play"),
    (lambda text: "[1, 2, 3]", "is not a game saved by otrio play"),
    (lambda text: "game: oceanos_v0\n", "is corrupt (not JSON)"),  # a YAML config
    (lambda text: text.replace('"format": 1,\n "kind"', '"format": 7,\n "kind"'),
     "another version of otrio wrote it"),
    (lambda text: _with_digest({**json.loads(text), "seed": "3"}), "is corrupt: invalid PlaySave"),
    (lambda text: _with_digest({**json.loads(text), "seats": ["human"]}),
     "1 seats for a game of 2 players"),
    (lambda text: _with_digest({**json.loads(text), "replay": {
        **json.loads(text)["replay"], "actions": "_" * 4}}), "is not legal for player_0"),
    (lambda text: _with_digest({**json.loads(text), "replay": {
        **json.loads(text)["replay"], "env_id": "chess_v0"}}), "cannot build 'chess_v0'"),
    (lambda text: "[" * 100_000 + "]" * 100_000, "nested deeper"),
])
def test_a_broken_save_is_refused_in_one_line(tmp_path, monkeypatch, capsys, damage, needle):
    path = saved_game(tmp_path, monkeypatch, capsys)
    path.write_text(damage(path.read_text()))
    fails_cleanly(capsys, ["play", "--resume", path], str(path), needle)
    assert left_in(tmp_path) == ["game.json"]


def test_a_finished_game_a_missing_file_and_a_device_are_refused(tmp_path, capsys, monkeypatch):
    from otrio.cli_play import write_save

    record = tmp_path / "done.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 400))
    assert main(["play", "oceanos", "--seats", "human,random", "--save", str(record)]) == 0
    done = json.loads(record.read_text())
    from otrio.arena.replay import record_actions

    env_id, config, seed, actions = record_actions(done)
    write_save(tmp_path / "over.json", env_id, config, ["human", "random"], seed, None,
               actions, envs.make(env_id).unwrapped.game.info.num_actions)
    fails_cleanly(capsys, ["play", "--resume", tmp_path / "over.json"], "a finished game")
    fails_cleanly(capsys, ["play", "--resume", tmp_path / "none.json"], "none.json")
    fails_cleanly(capsys, ["play", "--resume", "/dev/zero"], "/dev/zero", "regular file")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 << 20))
    fails_cleanly(capsys, ["play", "--resume", big], "over the limit")


@pytest.mark.parametrize("argv, needle", [
    (["play", "oceanos", "--resume", "{save}"], "leave out GAME"),
    (["play", "--seats", "human,random", "--resume", "{save}"], "leave out --seats"),
    (["play", "--seed", "2", "--resume", "{save}"], "leave out --seed"),
    (["play", "oceanos"], "play needs a game and --seats"),
    (["play", "--seats", "human,random"], "play needs a game and --seats"),
    (["play", "chess", "--seats", "human,random"], "unknown env id 'chess'"),
])
def test_resume_and_new_game_arguments_do_not_mix(tmp_path, monkeypatch, capsys, argv, needle):
    path = saved_game(tmp_path, monkeypatch, capsys)
    fails_cleanly(capsys, [a.replace("{save}", str(path)) for a in argv], needle)


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

    from otrio.training.config import TrainConfig
    from otrio.training.selfplay import SelfPlayEnv
    from otrio.training.train import save_checkpoint

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
    (tmp_path / "out").mkdir()  # an export's folder must exist; out/sub is refused
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


# ========================================================= issue 29: bad inputs
# Every input below fails the same way when the command runs in its own process: exit
# code 2, exactly one line on stderr, and nothing created anywhere (checked in the tmp
# folder, and at the paths outside it that a row names).
ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "/proc/otrio-issue29"  # under /proc: never an output place
SEARCH = ["search-bench", "oceanos_v0", "--players", "2", "--budgets", "4", "--games", "1"]

BAD_INPUTS = [  # (row id, argv, what the line says; "{ro}" rows need a read-only folder)
    ("tournament-output-is-a-file", ["tournament", "{t}", "--output", "{file}"], "is a file"),
    ("tournament-output-below-a-file", ["tournament", "{t}", "--output", "{file}/run"],
     "is a file"),
    ("tournament-output-under-proc", ["tournament", "{t}", "--output", SYSTEM], "under /proc"),
    ("tournament-missing-parent", ["tournament", "{t}", "--output", "{tmp}/missing/run"],
     "does not exist"),
    ("tournament-missing-root-parent", ["tournament", "{t}", "--output", "{outside}/run"],
     "does not exist"),
    ("tournament-read-only-output", ["tournament", "{t}", "--output", "{ro}"], "read-only"),
    ("tournament-in-a-read-only-folder", ["tournament", "{t}", "--output", "{ro}/run"],
     "read-only"),
    ("balance-output-is-a-file", ["balance", "{b}", "--output", "{file}"], "is a file"),
    ("balance-output-under-proc", ["balance", "{b}", "--output", SYSTEM], "under /proc"),
    ("balance-missing-root-parent", ["balance", "{b}", "--output", "{outside}/run"],
     "does not exist"),
    ("train-output-is-a-file", ["train", "{train}", "--output", "{file}"], "is a file"),
    ("train-output-under-proc", ["train", "{train}", "--output", SYSTEM], "under /proc"),
    ("train-missing-root-parent", ["train", "{train}", "--output", "{outside}/run"],
     "does not exist"),
    ("train-in-a-read-only-folder", ["train", "{train}", "--output", "{ro}/run"], "read-only"),
    ("demo-output-is-a-file", ["demo", "--output", "{file}"], "is a file"),
    ("demo-missing-root-parent", ["demo", "--output", "{outside}/demo"], "does not exist"),
    ("search-bench-output-is-a-file", [*SEARCH, "--output", "{file}"], "is a file"),
    ("search-bench-missing-root-parent", [*SEARCH, "--output", "{outside}/s"],
     "does not exist"),
    ("search-bench-report-only-no-folder",
     [*SEARCH, "--report-only", "--output", "{tmp}/never_played"], "nothing to report"),
    ("search-bench-report-only-empty-folder",
     [*SEARCH, "--report-only", "--output", "{empty}"], "nothing to report"),
    ("bench-no-steps", ["bench", "--steps", "0", "--json", "{tmp}/b.json"], "--steps"),
    ("bench-steps-not-a-number", ["bench", "--steps", "many", "--json", "{tmp}/b.json"],
     "--steps"),
    ("bench-no-observations", ["bench", "--obs-samples", "0", "--json", "{tmp}/b.json"],
     "--obs-samples"),
    ("bench-no-rounds", ["bench", "--rounds", "0", "--json", "{tmp}/b.json"], "--rounds"),
    ("bench-negative-ppo", ["bench", "--ppo-timesteps", "-1", "--json", "{tmp}/b.json"],
     "--ppo-timesteps"),
    ("bench-negative-tournament", ["bench", "--tournament-games", "-1", "--json",
                                   "{tmp}/b.json"], "--tournament-games"),
    ("bench-json-is-a-folder", ["bench", "--json", "{tmp}"], "is a folder"),
    ("bench-json-under-proc", ["bench", "--json", f"{SYSTEM}.json"], "under /proc"),
    ("bench-json-missing-root-parent", ["bench", "--json", "{outside}/b.json"],
     "does not exist"),
    ("bench-json-read-only", ["bench", "--json", "{ro}/b.json"], "read-only"),
    ("export-under-proc", ["export-checkpoint", "{file}", f"{SYSTEM}/agent.json"],
     "under /proc"),
    ("export-missing-root-parent", ["export-checkpoint", "{file}", "{outside}/agent.json"],
     "does not exist"),
    ("export-target-is-a-folder", ["export-checkpoint", "{file}", "{empty}"], "is a folder"),
    ("export-read-only", ["export-checkpoint", "{file}", "{ro}/agent.json"], "read-only"),
    ("replay-output-is-a-folder", ["replay", "{tmp}/run", "--game", "0", "--output", "{tmp}"],
     "is a folder"),
    ("replay-output-under-proc", ["replay", "{tmp}/run", "--game", "0", "--output",
                                  f"{SYSTEM}.html"], "under /proc"),
    ("replay-missing-root-parent", ["replay", "{tmp}/run", "--game", "0", "--output",
                                    "{outside}/g.html"], "does not exist"),
]


@functools.cache
def _no_override_prefix() -> tuple[str, ...] | None:
    """What runs a command without root's power to write read-only folders: nothing for
    another user; for root, ``setpriv`` dropping CAP_DAC_OVERRIDE where that works
    (else None: the read-only rows are skipped)."""
    if os.geteuid() != 0:
        return ()
    prefix = ("setpriv", "--bounding-set=-dac_override,-dac_read_search",
              "--inh-caps=-dac_override,-dac_read_search")
    probe = [*prefix, sys.executable, "-c",
             "import os, sys, tempfile; d = tempfile.mkdtemp(); os.chmod(d, 0o555); "
             "ok = not os.access(d, os.W_OK); os.chmod(d, 0o755); os.rmdir(d); "
             "sys.exit(0 if ok else 1)"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if done.returncode == 0 else None


def otrio(argv: list[str], cwd: Path, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``otrio ARGV`` in a process of its own, run in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    env.pop("OTRIO_TRUST_CHECKPOINTS", None)
    return subprocess.run([*prefix, sys.executable, "-m", "otrio.cli", *argv], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def places(tmp_path):
    """The tmp folder's fixtures: a working directory, a file, an empty folder, a
    read-only folder, configs of each command, and a path outside every folder."""
    (tmp_path / "cwd").mkdir()
    (tmp_path / "a_file").write_text("not a folder\n")
    (tmp_path / "empty").mkdir()
    read_only = tmp_path / "ro"
    read_only.mkdir()
    out = tmp_path / "unused"
    write_yaml(tmp_path / "t.yaml", TOURNAMENT.format(game_config="{num_players: 2}", seed=0,
                                                      output=out))
    write_yaml(tmp_path / "b.yaml", BALANCE.format(values="values", seed=0, output=out))
    write_yaml(tmp_path / "train.yaml", TRAIN.format(game_config="{num_players: 2}",
                                                     ppo="{n_steps: 32}", output=out))
    outside = Path(f"/nonexistent-otrio-{uuid.uuid4().hex[:12]}")
    names = {"tmp": tmp_path, "file": tmp_path / "a_file", "empty": tmp_path / "empty",
             "ro": read_only, "t": tmp_path / "t.yaml", "b": tmp_path / "b.yaml",
             "train": tmp_path / "train.yaml", "outside": outside}
    read_only.chmod(0o555)
    try:
        yield names
    finally:
        read_only.chmod(0o755)
        if outside.exists():  # made by the code under test: remove it, then fail
            shutil.rmtree(outside)
            pytest.fail(f"{outside} was created")


@pytest.mark.parametrize("argv, needle", [row[1:] for row in BAD_INPUTS],
                         ids=[row[0] for row in BAD_INPUTS])
def test_every_bad_input_is_one_line_and_exit_2_and_makes_nothing(places, argv, needle):
    tmp = places["tmp"]
    prefix: tuple[str, ...] = ()
    if any("{ro}" in a for a in argv):
        prefix = _no_override_prefix()
        if prefix is None:
            pytest.skip("root here, and its power to write read-only folders cannot be dropped")
    before = left_in(tmp)
    done = otrio([a.format(**places) for a in argv], cwd=tmp / "cwd", prefix=prefix)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stderr)
    assert re.match(r"otrio( [a-z-]+)?: error: ", lines[0]) and needle in lines[0], lines[0]
    assert "Traceback" not in done.stderr + done.stdout
    assert left_in(tmp) == before
    assert not places["outside"].exists()


# ------------------------------------------------------------ a full disk
def _disk_full(path) -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def test_a_full_disk_mid_run_is_one_line_and_the_records_written_resume(tmp_path, capsys,
                                                                         monkeypatch):
    from otrio.arena.records import RECORDS_FILE, RecordWriter, read_records

    config = tournament_yaml(tmp_path)  # 2 games, output tmp/out
    assert main(["tournament", str(config), "--quiet", "--output", str(tmp_path / "whole")]) == 0
    capsys.readouterr()
    write = RecordWriter.write

    class FullDisk:
        """The records file once the disk is full: a torn start, then ENOSPC with no
        file name, as a write through a descriptor raises it."""

        def __init__(self, fh):
            self.fh = fh

        def write(self, text):
            self.fh.write(text[:17])
            self.fh.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.fh, name)

    def fills_up(self, record):
        if record["game"] >= 1:  # the disk fills while the second record is written
            self.fh = FullDisk(self.fh)
        write(self, record)

    monkeypatch.setattr(RecordWriter, "write", fills_up)
    err = fails_cleanly(capsys, ["tournament", config, "--quiet"], "no space left on the device",
                        "games.jsonl", "run the command again")
    assert "resumes" in err
    assert [r["game"] for r in read_records(tmp_path / "out" / RECORDS_FILE)] == [0]
    assert not (tmp_path / "out" / "ratings.png").exists()
    monkeypatch.setattr(RecordWriter, "write", write)
    assert main(["tournament", str(config), "--quiet"]) == 0  # resumes: the same records
    def played(folder):
        return [{k: v for k, v in r.items() if k != "wall_time"}
                for r in read_records(tmp_path / folder / RECORDS_FILE)]

    assert played("out") == played("whole")


def test_a_full_disk_while_plotting_leaves_no_empty_picture(tmp_path, capsys, monkeypatch):
    import matplotlib.figure

    config = tournament_yaml(tmp_path)
    folder = tmp_path / "out"

    def fills_up(self, fname, *args, **kwargs):
        # what a full disk leaves of a PNG: the file it was handed (opened without
        # following a link, envs/core/files.py) stays empty
        raise _disk_full(getattr(fname, "name", fname))

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fills_up)
    fails_cleanly(capsys, ["tournament", config, "--quiet"], "no space left on the device")
    assert not (folder / "ratings.png").exists()
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    assert main(["tournament", str(config), "--quiet"]) == 0
    assert (folder / "ratings.png").stat().st_size > 1000
    # a second full disk keeps the pictures that are there
    before = (folder / "ratings.png").read_bytes()
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fills_up)
    fails_cleanly(capsys, ["tournament", config, "--quiet"], "no space left on the device")
    assert (folder / "ratings.png").read_bytes() == before


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs at tmp/disk (root with mount rights only; else skipped)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small disk needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                          capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small disk here: {made.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_a_really_full_disk_is_one_line_and_the_run_resumes_when_there_is_room(
        tmp_path, small_disk):
    from otrio.arena.records import RECORDS_FILE, read_records

    text = TOURNAMENT.format(game_config="{num_players: 2}", seed=0, output=small_disk / "run")
    config = write_yaml(tmp_path / "full.yaml", text.replace("games_per_seating: 1",
                                                             "games_per_seating: 60"))
    done = otrio(["tournament", str(config), "--quiet"], cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "no space left on the device" in done.stderr and "Traceback" not in done.stderr
    kept = read_records(small_disk / "run" / RECORDS_FILE)
    assert 0 < len(kept) < 120
    assert not (small_disk / "run" / "ratings.png").exists()
    subprocess.run(["mount", "-o", "remount,size=512k", str(small_disk)], check=True)
    assert otrio(["tournament", str(config), "--quiet"], cwd=tmp_path).returncode == 0
    whole = otrio(["tournament", str(config), "--quiet", "--output", str(tmp_path / "whole")],
                  cwd=tmp_path)
    assert whole.returncode == 0

    def played(folder):
        return [{k: v for k, v in r.items() if k != "wall_time"}
                for r in read_records(folder / RECORDS_FILE)]

    assert played(small_disk / "run") == played(tmp_path / "whole")
    assert (small_disk / "run" / "ratings.png").stat().st_size > 1000


# ---------------------------------------------------------------- the run lock
@pytest.mark.parametrize("pid", [2**80, 0, -1, True, "1234"], ids=repr)
def test_a_lock_whose_pid_names_no_process_is_taken_over_with_one_warning(tmp_path, pid):
    import json
    import socket

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "run.lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname()}))
    done = otrio(["tournament", str(tournament_yaml(tmp_path)), "--quiet"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("otrio: warning: ") and done.stderr.count("\n") == 1, \
        done.stderr
    assert "corrupt lock" in done.stderr and "names no process" in done.stderr
    assert not (folder / "run.lock").exists()


def test_value_all_takes_one_config_and_refuses_a_bad_one(capsys, tmp_path):
    fails_cleanly(capsys, ["value", "all", "a.yaml", "b.yaml"], "value all takes one")
    path = write_yaml(tmp_path / "v.yaml", "kind: value_data\nenv: otys\nplayers: [2]\n"
                      "games: 10\nmixtur: {greedy: 1.0}\n")
    fails_cleanly(capsys, ["value", "all", str(path), "--output", str(tmp_path / "out")],
                  "mixtur")
    assert not (tmp_path / "out").exists()
