"""No code runs from a checkpoint.

An SB3 zip stores its settings as cloudpickle payloads, so loading one runs whatever
the file carries. ``evil_zip`` builds such a file whose ``observation_space`` touches a
marker file when unpickled; the first test shows that a plain ``MaskablePPO.load`` does
run it (so the refusals below are not vacuous), then every way into the suite --
``otrio.agents.make``, ``otrio tournament``, ``otrio play``, ``otrio export-checkpoint``,
``otrio evaluate-run`` -- refuses the file without the trust flag and the marker never
appears. The safe format (safetensors + JSON manifest, ``agents/weights.py``) loads
with every unpickler disabled, and each way it can be damaged is a clear error.
"""

from __future__ import annotations

import base64
import json
import pathlib
import pickle
import zipfile

import pytest

from otrio import agents, envs
from otrio.cli import main
from otrio.envs.core.errors import ConfigError

OCEANOS_META = {"env_id": "oceanos_v0", "observation_size": 2549, "num_actions": 34,
                "game_config": {"num_players": 2}, "timesteps": 64, "seed": 0, "hints": None}


class _Touch:
    """Unpickles as ``pathlib.Path(marker).touch()``."""

    def __init__(self, marker: pathlib.Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def evil_zip(path: pathlib.Path, marker: pathlib.Path) -> pathlib.Path:
    """An SB3-shaped zip whose ``data`` field ``observation_space`` carries a payload
    that creates ``marker``, with the metadata beside it that ties it to Oceanos."""
    payload = base64.b64encode(pickle.dumps(_Touch(marker))).decode()
    data = {"observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>",
                                  ":serialized:": payload},
            "policy_kwargs": {"net_arch": [32]}}
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    path.with_suffix(".json").write_text(json.dumps(OCEANOS_META))
    return path


@pytest.fixture
def evil(tmp_path):
    marker = tmp_path / "PWNED"
    return evil_zip(tmp_path / "evil" / "model.zip", marker), marker


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch):
    monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)


def test_the_payload_runs_under_a_plain_sb3_load(evil):
    """The control: what ``ppo:PATH`` did before it refused zips."""
    from sb3_contrib import MaskablePPO

    path, marker = evil
    with pytest.raises(Exception):  # noqa: B017 -- the payload ran; what sb3 does next is its business
        MaskablePPO.load(str(path), device="cpu")
    assert marker.exists()


def test_the_zip_loader_unpickles_nothing_without_explicit_trust(evil, monkeypatch):
    """``load_sb3_zip``, the one unpickling load: refused (the payload not run) unless trust
    is given by its argument or the environment variable, not by a falsy setting."""
    from otrio.agents.weights import load_sb3_zip

    path, marker = evil
    for trust, env in ((None, None), (False, None), (None, "0"), (None, "yes")):
        if env is None:
            monkeypatch.delenv("OTRIO_TRUST_CHECKPOINTS", raising=False)
        else:
            monkeypatch.setenv("OTRIO_TRUST_CHECKPOINTS", env)
        with pytest.raises(ConfigError, match="OTRIO_TRUST_CHECKPOINTS=1"):
            load_sb3_zip(path, trust, device="cpu")
        assert not marker.exists(), (trust, env)


def test_agents_make_refuses_an_sb3_zip_without_trust(evil):
    path, marker = evil
    with pytest.raises(ConfigError, match="OTRIO_TRUST_CHECKPOINTS=1") as err:
        agents.make(f"ppo:{path}", envs.make("oceanos_v0", num_players=2))
    assert "--trust-checkpoint" in str(err.value) and "export-checkpoint" in str(err.value)
    assert not marker.exists()


def _run_folder(tmp_path: pathlib.Path, marker: pathlib.Path) -> pathlib.Path:
    """A training run folder whose every checkpoint carries the payload."""
    from otrio.training.config import TrainConfig

    run = tmp_path / "run"
    cfg = TrainConfig(game="oceanos_v0", game_config={"num_players": 2}, output=str(run),
                      eval={"games": 2, "opponents": ["random"]})
    run.mkdir()
    (run / "config.json").write_text(json.dumps(cfg.model_dump(mode="json")))
    for name in ("checkpoints/last.zip", "snapshots/step_64.zip", "final.zip"):
        evil_zip(run / name, marker)
    (run / "snapshots" / "step_64.json").unlink()  # snapshots are saved bare
    return run


def _commands(tmp_path: pathlib.Path, path: pathlib.Path, marker: pathlib.Path) -> dict:
    tournament = tmp_path / "tournament.yaml"
    tournament.write_text(json.dumps({
        "game": "oceanos_v0", "game_config": {"num_players": 2},
        "agents": {"ppo": f"ppo:{path}", "random": "random"}, "lineup": ["ppo", "random"],
        "games_per_seating": 1, "seed": 0, "workers": 1, "output": str(tmp_path / "tour")}))
    (tmp_path / "out").mkdir()  # an export's folder must exist (issue 29)
    return {
        "tournament": ["tournament", str(tournament), "--quiet"],
        "play": ["play", "oceanos", "--seats", f"ppo:{path},random"],
        "export-checkpoint": ["export-checkpoint", str(path), str(tmp_path / "out" / "agent.json")],
        "evaluate-run": ["evaluate-run", str(_run_folder(tmp_path, marker))],
    }


@pytest.mark.parametrize("command", ["tournament", "play", "export-checkpoint", "evaluate-run"])
def test_the_cli_refuses_an_sb3_zip_without_trust(tmp_path, evil, capsys, command):
    path, marker = evil
    argv = _commands(tmp_path, path, marker)[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "OTRIO_TRUST_CHECKPOINTS=1" in err and "--trust-checkpoint" in err, err
    assert not marker.exists()
    assert not any((tmp_path / "out").iterdir())  # export wrote nothing


# ----------------------------------------------------------------- the safe format
PLAYERS = {"oceanos_v0": 2, "otys_v0": 2, "otontin_v0": 3}


def own_zip(tmp_path: pathlib.Path, game: str = "oceanos_v0", encoder: str = "mlp",
            net_arch=(32,), hints: str | None = None, share: bool = True) -> pathlib.Path:
    """A user's own SB3 zip (an untrained MaskablePPO) with the metadata beside it."""
    from sb3_contrib import MaskablePPO

    from otrio.agents.encoders import policy_kwargs
    from otrio.agents.hints import hint_size
    from otrio.training.selfplay import SelfPlayEnv

    env = SelfPlayEnv(game, {"num_players": PLAYERS[game]}, {"random": 1.0}, hints=hints)
    info = env.game.info
    kwargs = policy_kwargs(encoder, list(net_arch), hint_size(info.num_actions) if hints else 0,
                           share)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, n_steps=64, batch_size=32,
                        seed=0, device="cpu")
    path = tmp_path / "run" / f"{game}_{encoder}_{share}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    path.with_suffix(".json").write_text(json.dumps({
        "env_id": game, "observation_size": info.observation_size, "num_actions": info.num_actions,
        "game_config": {"num_players": PLAYERS[game]}, "timesteps": 0, "seed": 0, "hints": hints}))
    return path


def observations(game: str, seed: int, count: int):
    """``count`` observation dicts of seeded games between random players."""
    import numpy as np

    env = envs.make(game, num_players=PLAYERS[game])
    rng = np.random.default_rng(seed)
    out, g = [], 0
    while len(out) < count:
        env.reset(seed=seed + g)
        g += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            out.append(obs)
            if len(out) == count:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env, out


def logits(agent, obs):
    """The masked action logits an agent's policy computes for one observation dict."""
    import torch

    if agent.hints is not None:
        obs = agent.hints.augment(obs)
    with torch.no_grad():
        dist = agent.policy.get_distribution(
            torch.as_tensor(obs["observation"])[None],
            action_masks=obs["action_mask"].astype(bool)[None])
    return dist.distribution.logits[0]


@pytest.mark.parametrize("game,encoder,hints,share", [
    ("oceanos_v0", "mlp", None, True),
    ("otontin_v0", "hinted", "greedy", True),
    ("otontin_v0", "hinted", "greedy", False),
    ("otys_v0", "otys_pairs", None, True),
], ids=["mlp", "hinted", "hinted-split", "otys_pairs"])
def test_an_export_plays_as_its_zip_did(tmp_path, monkeypatch, game, encoder, hints, share):
    """Same actions and bit-identical logits, one network shape per row (a shared
    feature extractor is stored once and loaded under all three of its names)."""
    import torch

    source = own_zip(tmp_path, game, encoder, [] if hints else (32,), hints, share)
    (tmp_path / "ship").mkdir()  # an export's folder must exist (issue 29)
    assert main(["export-checkpoint", "--trust-checkpoint", str(source),
                 str(tmp_path / "ship" / "agent.json")]) == 0
    assert "OTRIO_TRUST_CHECKPOINTS" not in __import__("os").environ  # the flag ends with the command
    manifest = json.loads((tmp_path / "ship" / "agent.json").read_text())
    assert manifest["policy"]["encoder"] == encoder and manifest["hints"] == hints
    assert manifest["policy"]["share_features_extractor"] is share
    env, seen = observations(game, 7, 60)
    safe = agents.make(f"ppo:{tmp_path / 'ship' / 'agent.json'}", env)
    monkeypatch.setenv("OTRIO_TRUST_CHECKPOINTS", "1")
    old = agents.make(f"ppo:{source}", env)
    for agent in (safe, old):
        agent.reset(3)
    for obs in seen:
        assert torch.equal(logits(safe, obs), logits(old, obs))
        assert safe.act(obs) == old.act(obs)


@pytest.fixture
def exported(tmp_path):
    """A small exported Oceanos agent: its manifest path."""
    from otrio.training.train import export_checkpoint

    return export_checkpoint(own_zip(tmp_path), tmp_path / "ship" / "agent.json", trust=True)


def test_a_safe_agent_loads_with_every_unpickler_disabled(exported, monkeypatch):
    import pickle as pickle_module

    import cloudpickle
    import torch

    def refuse(*args, **kwargs):
        raise AssertionError("an unpickler was called")

    for owner, name in ((pickle_module, "load"), (pickle_module, "loads"),
                        (pickle_module, "Unpickler"), (cloudpickle, "load"),
                        (cloudpickle, "loads"), (torch, "load")):
        monkeypatch.setattr(owner, name, refuse)
    env, seen = observations("oceanos_v0", 1, 5)
    for spec in (f"ppo:{exported}", f"ppo:{exported.with_suffix('.safetensors')}"):
        agent = agents.make(spec, env)
        assert all(obs["action_mask"][agent.act(obs)] == 1 for obs in seen)


def _rewrite_weights(manifest_file: pathlib.Path, edit) -> None:
    """Replace the weights by ``edit(tensors)`` and give the manifest their new hash (the
    damage a hash cannot catch: a file made wrong, not one damaged on the way)."""
    import hashlib

    import safetensors.torch

    manifest = json.loads(manifest_file.read_text())
    weights = manifest_file.parent / manifest["weights"]["file"]
    data = edit(safetensors.torch.load(weights.read_bytes()))
    data = data if isinstance(data, bytes) else safetensors.torch.save(data)
    weights.write_bytes(data)
    manifest["weights"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    manifest_file.write_text(json.dumps(manifest))


def _edit_manifest(manifest_file: pathlib.Path, edit) -> None:
    manifest = json.loads(manifest_file.read_text())
    edit(manifest)
    manifest_file.write_text(json.dumps(manifest))


def _drop(tensors, name):
    del tensors[name]
    return tensors


DAMAGE = {
    "manifest not json": (lambda m: m.write_text("{not json"), "is corrupt \\(not JSON\\)"),
    "manifest key missing": (lambda m: _edit_manifest(m, lambda d: d.pop("weights")),
                             "bad value for 'weights'"),
    "a zip's metadata": (lambda m: _edit_manifest(m, lambda d: d.pop("format")),
                         "not an exported agent"),
    "weights flipped": (lambda m: m.with_suffix(".safetensors").write_bytes(
        bytes(b ^ 1 for b in m.with_suffix(".safetensors").read_bytes())), "sha256"),
    "weights missing": (lambda m: m.with_suffix(".safetensors").unlink(), "cannot be read"),
    "weights truncated": (lambda m: _rewrite_weights(
        m, lambda t: __import__("safetensors.torch").torch.save(t)[:-100]), "are corrupt"),
    "tensor missing": (lambda m: _rewrite_weights(m, lambda t: _drop(t, "action_net.bias")),
                       "missing tensors \\['action_net.bias'\\]"),
    "tensor extra": (lambda m: _rewrite_weights(m, lambda t: {**t, "extra": t["action_net.bias"].clone()}),
                     "unexpected tensors \\['extra'\\]"),
    "tensor misshapen": (lambda m: _rewrite_weights(
        m, lambda t: {**t, "action_net.bias": t["action_net.bias"][:-1].clone()}),
        "tensor action_net.bias is \\(33,\\)"),
    "tensor float64": (lambda m: _rewrite_weights(
        m, lambda t: {**t, "action_net.bias": t["action_net.bias"].double()}), "torch.float64"),
    "weights outside": (lambda m: _edit_manifest(
        m, lambda d: d["weights"].update(file="../agent.safetensors")), "bare .safetensors file name"),
    "encoder unknown": (lambda m: _edit_manifest(
        m, lambda d: d["policy"].update(encoder="os.system")), "unknown encoder 'os.system'"),
    "activation unknown": (lambda m: _edit_manifest(
        m, lambda d: d["policy"].update(activation_fn="builtins.eval")), "unknown activation"),
    "other game": (lambda m: _edit_manifest(m, lambda d: d.update(env_id="otys_v0")),
                   "trained for env_id='otys_v0'"),
    "wider network": (lambda m: _edit_manifest(
        m, lambda d: d["policy"].update(net_arch=[64])), "tensor .* is"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_agent_is_a_clear_error(exported, damage):
    break_it, message = DAMAGE[damage]
    break_it(exported)
    with pytest.raises(ConfigError, match=message):
        agents.make(f"ppo:{exported}", envs.make("oceanos_v0", num_players=2))


def test_export_writes_the_safe_format_only(tmp_path, exported, capsys):
    source = exported.parent.parent / "run" / "oceanos_v0_mlp_True.zip"
    assert main(["export-checkpoint", "--trust-checkpoint", str(source),
                 str(tmp_path / "x.zip")]) == 2
    assert "not a zip" in capsys.readouterr().err
    # an exported agent (what a training run writes) is copied, with no trust needed
    assert main(["export-checkpoint", str(exported), str(tmp_path / "again.json")]) == 0
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["weights"]["sha256"] == json.loads(exported.read_text())["weights"]["sha256"]
    assert again["exported_from"] == json.loads(exported.read_text())["exported_from"]
    assert main(["export-checkpoint", "--trust-checkpoint", str(source),
                 str(tmp_path / "bare")]) == 0  # a bare stem: bare.json and bare.safetensors
    assert (tmp_path / "bare.json").exists() and (tmp_path / "bare.safetensors").exists()
    assert "play it as ppo:" in capsys.readouterr().out
