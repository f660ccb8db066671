"""Nothing an agent file says can exhaust the machine (issue 29, "bounded loading").

An exported agent (manifest + safetensors), a training state (``training/safe_state.py``)
and a checkpoint's metadata are files handed around. Each bomb below -- a manifest that
declares a gigantic network, weights that are a symbolic link to ``/dev/zero`` or an
8 GB sparse file, a manifest nested 200,000 deep, a 200 MB ``env_id``, NaN weights --
is refused with one short :class:`ConfigError` (or :class:`StateError`) line, in well
under a second on an idle core (asserted loosely: :func:`within`) and under 100 MB
(:func:`within` measures both: the peak of Python's
allocations and any rise of the process' peak resident size), before any network is
built from it. A hypothesis fuzz puts random JSON values into every manifest field:
nothing but ``ConfigError`` comes out.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
import json
import os
import resource
import struct
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otrio import agents, envs
from otrio.agents import weights
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, StateError

PRETRAINED = Path(agents.__file__).parent / "pretrained"
SHIPPED = PRETRAINED / "oceanos_ppo.json"


@contextlib.contextmanager
def within(seconds: float = 10.0, megabytes: float = 100.0):
    """The block runs in ``seconds`` and allocates under ``megabytes`` (Python's
    allocations traced; C allocations seen as growth of the process' peak RSS). The
    time limit guards against the tens of seconds to minutes the bombs took before
    (a refusal takes well under a second on an idle core, with tracing on); it is loose
    so that a busy machine does not fail it, and says nothing of speed."""
    gc.collect()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    tracemalloc.start()
    start = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert elapsed < seconds, f"took {elapsed:.2f} s"
    assert peak < megabytes * 2**20, f"Python allocations peaked at {peak / 2**20:.0f} MB"
    assert grown < megabytes, f"peak resident size grew by {grown:.0f} MB"


def one_line(err: pytest.ExceptionInfo, limit: int = 1000) -> str:
    text = str(err.value)
    assert "\n" not in text and len(text) < limit, (len(text), text[:300])
    return text


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Imports and first builds before anything is timed (torch, sb3, safetensors)."""
    weights.load_policy(SHIPPED)
    weights.network_shapes(weights.read_manifest(SHIPPED))


@pytest.fixture
def agent(tmp_path) -> Path:
    """A small exported Oceanos agent (net_arch [8]): its manifest."""
    return tiny_agent(tmp_path / "ship")


def tiny_agent(folder: Path, net_arch=(8,)) -> Path:
    shipped = json.loads(SHIPPED.read_text())
    shipped["policy"]["net_arch"] = list(net_arch)
    shipped["weights"] = {"file": "x.safetensors", "sha256": "0" * 64, "bytes": 0}
    policy = weights.build_policy(validate(weights.Manifest, shipped))
    return weights.save_policy(policy, folder / "agent.json", {
        "env_id": "oceanos_v0", "observation_size": 2549, "num_actions": 34,
        "game_config": {"num_players": 2}})


def edit(manifest: Path, change) -> dict:
    doc = json.loads(manifest.read_text())
    change(doc)
    manifest.write_text(json.dumps(doc))
    return doc


def refused(manifest: Path, match: str, error=ConfigError) -> str:
    """Loading ``manifest`` (as ``ppo:`` does) is one ``error`` line naming ``match``,
    within a second and 100 MB."""
    env = envs.make("oceanos_v0", num_players=2)
    with within(), pytest.raises(error, match=match) as err:
        agents.make(f"ppo:{manifest}", env)
    return one_line(err)


def rewrite_weights(manifest: Path, change) -> None:
    """Weights ``change(tensors)`` written back with a manifest that matches them."""
    import safetensors.torch

    doc = json.loads(manifest.read_text())
    file = manifest.parent / doc["weights"]["file"]
    tensors = change(safetensors.torch.load(file.read_bytes()))
    data = tensors if isinstance(tensors, bytes) else safetensors.torch.save(tensors)
    file.write_bytes(data)
    doc["weights"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    manifest.write_text(json.dumps(doc))


# --------------------------------------------------------------- the network
def test_the_shipped_agents_load_and_a_tiny_one_plays(agent):
    for manifest in sorted(PRETRAINED.glob("*_ppo.json")):
        policy, loaded = weights.load_policy(manifest)
        assert loaded.weights.bytes == (manifest.with_suffix(".safetensors")).stat().st_size
    env = envs.make("oceanos_v0", num_players=2)
    env.reset(seed=0)
    obs = env.last()[0]
    assert obs["action_mask"][agents.make(f"ppo:{agent}", env).act(obs)] == 1


def test_a_huge_policy_observation_size_is_refused_before_any_network_is_built(agent):
    # today: a 5.1 GB network, 38 s, then a raw MemoryError
    edit(agent, lambda d: d.update(policy_observation_size=10**9))
    refused(agent, "policy_observation_size.*less than or equal to 1048576")


def test_a_large_network_the_weights_do_not_hold_is_measured_not_built(agent):
    # within the ceilings, but not what the weights hold: shapes from the meta device
    edit(agent, lambda d: d.update(policy_observation_size=2**20))
    refused(agent, r"tensor mlp_extractor.policy_net.0.weight is \(8, 2549\).*needs \(8, 1048576\)")
    edit(agent, lambda d: d.update(policy_observation_size=2549))
    edit(agent, lambda d: d["policy"].update(net_arch=[65536] * 32))  # 137 G weights
    refused(agent, r"do not fit .*missing tensors \['mlp_extractor.policy_net.10.bias'")
    edit(agent, lambda d: d["policy"].update(net_arch=[65536]))
    refused(agent, r"tensor .* is \(.*\) torch.float32, .* needs \(.*65536.*\)")


def test_a_huge_net_arch_is_refused(agent):
    # today: 95 s and 1.9 GB
    edit(agent, lambda d: d["policy"].update(net_arch=[1] * 100_000))
    refused(agent, "holds more than 10000 values")
    edit(agent, lambda d: d["policy"].update(net_arch=[1] * 1000))
    refused(agent, "at most 32 layers a head")
    edit(agent, lambda d: d["policy"].update(net_arch={"pi": [10**12], "vf": [8]}))
    refused(agent, "every layer needs 1..65536 units")


def test_huge_encoder_arguments_are_refused(agent):
    edit(agent, lambda d: d["policy"].update(encoder="trunk", encoder_kwargs={"hidden": [1] * 1000}))
    refused(agent, "hidden: at most 32 values")
    edit(agent, lambda d: d["policy"].update(encoder_kwargs={"hidden": [10**9]}))
    refused(agent, "every number must be within")
    edit(agent, lambda d: d["policy"].update(encoder_kwargs={"hidden": [64], "nope": 1}))
    refused(agent, "cannot be built")


@pytest.mark.parametrize("encoder,kwargs,game", [
    ("mlp", {}, "oceanos_v0"), ("trunk", {"hidden": [16, 8]}, "oceanos_v0"),
    ("otys_pairs", {}, "otys_v0"), ("otys_board", {}, "otys_v0")])
def test_the_meta_device_measures_every_encoder_as_built(encoder, kwargs, game):
    """What :func:`network_shapes` measures without storage is what a real build holds."""
    info = envs.make(game).unwrapped.game.info
    manifest = validate(weights.Manifest, {
        "format": "otrio-policy", "format_version": 1, "env_id": game,
        "observation_size": info.observation_size, "num_actions": info.num_actions,
        "policy_observation_size": info.observation_size,
        "policy": {"class": "MaskableActorCriticPolicy", "net_arch": [8], "activation_fn": "Tanh",
                   "encoder": encoder, "encoder_kwargs": kwargs},
        "weights": {"file": "x.safetensors", "sha256": "0" * 64, "bytes": 0}})
    policy = weights.build_policy(manifest)
    aliases = weights.tensor_aliases(policy)
    built = {k: (tuple(t.shape), t.dtype) for k, t in policy.state_dict().items() if k not in aliases}
    assert weights.network_shapes(manifest) == built


# ------------------------------------------------------------ the weights file
def test_weights_of_another_size_than_the_manifest_says_are_refused_unread(agent):
    doc = edit(agent, lambda d: d["weights"].update(bytes=d["weights"]["bytes"] + 1))
    assert refused(agent, "bytes on disk, its record says").count(str(doc["weights"]["bytes"]))


def test_weights_linked_to_dev_zero_are_refused(agent):
    # today: read whole (MemoryError); a link is refused whatever it points to
    file = agent.with_suffix(".safetensors")
    file.unlink()
    file.symlink_to("/dev/zero")
    refused(agent, "symbolic link")
    edit(agent, lambda d: d["weights"].update(bytes=weights.MAX_WEIGHTS_BYTES + 1))
    refused(agent, "weights.bytes.*less than or equal to")


def test_weights_that_are_a_fifo_or_a_folder_are_refused_without_blocking(agent):
    file = agent.with_suffix(".safetensors")
    file.unlink()
    os.mkfifo(file)  # opening it for reading would wait for a writer
    refused(agent, "is a FIFO, not a regular file")
    file.unlink()
    file.mkdir()
    refused(agent, "is a folder, not a regular file")


def test_a_sparse_8_gb_weights_file_is_refused_from_its_size(agent):
    file = agent.with_suffix(".safetensors")
    os.truncate(file, 8 << 30)  # sparse: no disk used
    refused(agent, f"{8 << 30} bytes on disk, its record says")
    edit(agent, lambda d: d["weights"].update(bytes=8 << 30))
    refused(agent, "weights.bytes.*less than or equal to")


@pytest.mark.parametrize("header,match", [
    (lambda h, n: struct.pack("<Q", 2**63) + h, "a header of 9223372036854775808 bytes"),
    (lambda h, n: struct.pack("<Q", len(b"[1, 2]")) + b"[1, 2]" + h[8 + n:], "not a JSON object"),
    (lambda h, n: struct.pack("<Q", 40) + b"[" * 40 + h[8 + n:], "nested deeper|not JSON"),
], ids=["huge length", "not an object", "deep"])
def test_a_lying_header_is_refused_before_anything_is_read(agent, header, match):
    def damage(data: bytes) -> bytes:
        (n,) = struct.unpack("<Q", data[:8])
        return header(data, n)

    rewrite_weights(agent, lambda t: damage(__import__("safetensors.torch").torch.save(t)))
    refused(agent, match)


def test_a_header_whose_tensors_overrun_the_data_is_refused(agent):
    def overrun(tensors) -> bytes:
        import safetensors.torch

        data = safetensors.torch.save(tensors)
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + n])
        header["action_net.bias"]["shape"] = [10**12]
        text = json.dumps(header).encode()
        return struct.pack("<Q", len(text)) + text + data[8 + n:]

    rewrite_weights(agent, overrun)
    refused(agent, "are corrupt.*action_net.bias")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_or_infinite_weights_are_refused_at_load(agent, value):
    # today: they load, and the game crashes mid-way with a 59-line traceback
    def poison(tensors):
        tensors["action_net.bias"][3] = value
        return tensors

    rewrite_weights(agent, poison)
    refused(agent, "NaN or infinite values \\(tensor action_net.bias\\)")


# --------------------------------------------------------------- the manifest
def test_a_deep_manifest_is_refused_not_a_recursion_error(agent):
    # today: RecursionError
    original = agent.read_text()
    text = json.dumps(json.loads(original))[:-1] + ', "game_config": {"x": ' + "[" * 200_000 \
        + "]" * 200_000 + "}}"
    agent.write_text(text)
    refused(agent, "nested deeper than 16 levels")
    agent.write_text(original)
    deep: object = 0
    for _ in range(40):  # parses, then measured
        deep = [deep]
    edit(agent, lambda d: d.update(game_config={"x": deep}))
    refused(agent, "nested deeper than 16 levels")


def test_a_huge_env_id_is_refused_in_a_readable_message(agent):
    # today: a 200 MB env_id becomes a 200-million-character message
    doc = json.loads(agent.read_text())
    with agent.open("w") as fh:
        fh.write(json.dumps(doc)[:-1] + ', "env_id": "')
        fh.truncate(200 << 20)  # the rest of 200 MB, sparse
    assert len(refused(agent, "over the limit of 1048576")) < 300
    edit_text = json.dumps({**doc, "env_id": "x" * 900_000})
    agent.write_text(edit_text)
    assert len(refused(agent, "env_id.*at most 256 characters")) < 1000


def test_a_manifest_that_is_not_utf8_or_has_nan_is_refused(agent):
    original = agent.read_bytes()
    agent.write_bytes(original.replace(b'"oceanos_v0"', b'"oceanos_\xff0"'))
    refused(agent, "not UTF-8 text \\(byte 0xff at offset")
    assert b'"seed": null' in original
    agent.write_bytes(original.replace(b'"seed": null', b'"seed": NaN'))
    refused(agent, "NaN is not a JSON number")


def test_a_checkpoints_metadata_is_read_within_the_same_limits(tmp_path):
    ckpt = tmp_path / "model.zip"
    ckpt.write_bytes(b"not read")
    meta = ckpt.with_suffix(".json")
    meta.write_text('{"env_id": ' + "[" * 100_000 + "]" * 100_000 + "}")
    refused(ckpt, "metadata .* is nested deeper than 16 levels")
    meta.write_text(json.dumps({"env_id": "y" * 900_000, "observation_size": 1, "num_actions": 1}))
    assert len(refused(ckpt, "trained for env_id='yyy")) < 400
    meta.unlink()
    meta.symlink_to("/dev/zero")
    refused(ckpt, "metadata .* is a device, not a regular file")


# -------------------------------------------------------------------- fuzz
def json_values():
    scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
               | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


FIELDS = [("format",), ("format_version",), ("env_id",), ("observation_size",), ("num_actions",),
          ("hints",), ("policy_observation_size",), ("game_config",), ("timesteps",), ("seed",),
          ("exported_from",), ("versions",), ("policy",), ("weights",),
          ("policy", "class"), ("policy", "net_arch"), ("policy", "activation_fn"),
          ("policy", "encoder"), ("policy", "encoder_kwargs"),
          ("policy", "share_features_extractor"), ("policy", "normalize_images"),
          ("weights", "file"), ("weights", "sha256"), ("weights", "bytes")]
# values a fuzzer rarely finds alone: sizes near and past the ceilings, known names
SHARP = st.sampled_from([0, 1, -1, 8, 34, 2549, 2**20, 2**20 + 1, 10**9, 2**63, [8], [8, 8],
                         [65536], {"pi": [8], "vf": [8]}, {"pi": []}, "trunk", "hinted",
                         "otys_board", "mlp", "ReLU", {"hidden": [4]}, {"hint_size": 3},
                         "agent.safetensors", "../x.safetensors", True, False, 1.5])


@pytest.fixture(scope="module")
def fuzz_agent(tmp_path_factory) -> Path:
    return tiny_agent(tmp_path_factory.mktemp("fuzz"))


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_values_in_any_manifest_field_are_a_config_error(fuzz_agent, data):
    doc = json.loads(fuzz_agent.read_text())
    original = json.dumps(doc)
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        path = data.draw(st.sampled_from(FIELDS), label="field")
        # a copy: SHARP's dicts are shared across examples, and one drawn twice would nest in itself
        value = copy.deepcopy(data.draw(json_values() | SHARP, label="value"))
        target = doc
        for key in path[:-1]:
            target = target[key] if isinstance(target.get(key), dict) else target.setdefault(key, {})
            if not isinstance(target, dict):
                break
        else:
            target[path[-1]] = value
    text = json.dumps(doc, allow_nan=True)
    try:
        fuzz_agent.write_text(text)
        try:
            weights.load_policy(fuzz_agent)
        except ConfigError as err:
            assert "\n" not in str(err) and len(str(err)) < 2000
    finally:
        fuzz_agent.write_text(original)


SIZES = st.sampled_from([1, 8, 34, 68, 2549, 2617, 994, 2**20, 2**20 + 1]) | st.integers(-3, 3000)
LAYERS = st.lists(st.sampled_from([1, 8, 64, 65536]) | st.integers(-2, 70), max_size=4)
NETWORKS = st.fixed_dictionaries({
    "policy_observation_size": SIZES, "num_actions": SIZES, "observation_size": SIZES,
    "net_arch": LAYERS | st.fixed_dictionaries({"pi": LAYERS, "vf": LAYERS}),
    "encoder": st.sampled_from(["mlp", "trunk", "hinted", "otys_pairs", "otys_board", "nope"]),
    "encoder_kwargs": st.dictionaries(
        st.sampled_from(["hidden", "hint_size", "pair_features", "level_hidden", "x"]),
        SIZES | LAYERS | st.booleans() | st.text(max_size=3), max_size=2),
    "share_features_extractor": st.booleans(),
})


@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(network=NETWORKS)
def test_random_networks_are_measured_and_refused_or_loaded(fuzz_agent, network):
    """Networks near the ceilings and encoders given odd arguments reach the meta
    device and the header comparison: a ConfigError there too, never anything else."""
    original = fuzz_agent.read_text()
    doc = json.loads(original)
    policy = doc["policy"]
    for key in ("net_arch", "encoder", "encoder_kwargs", "share_features_extractor"):
        policy[key] = network.pop(key)
    doc.update(network)
    try:
        fuzz_agent.write_text(json.dumps(doc))
        try:
            weights.load_policy(fuzz_agent)
        except ConfigError as err:
            assert "\n" not in str(err) and len(str(err)) < 2000
    finally:
        fuzz_agent.write_text(original)


@settings(max_examples=100, deadline=None, database=None)
@given(value=json_values())
def test_a_manifest_that_is_any_json_value_is_a_config_error(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("any") / "agent.json"
    path.write_text(json.dumps(value, allow_nan=True))
    with pytest.raises(ConfigError):
        weights.load_policy(path)


# ---------------------------------------------------------- training states
def small_run():
    import torch

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-3)
    module(torch.ones(3, 6)).sum().backward()
    optimizer.step()
    return module, optimizer


@pytest.fixture
def state(tmp_path) -> Path:
    from otrio.training import safe_state

    module, optimizer = small_run()
    stem = tmp_path / "state" / "state"
    safe_state.save_state(stem, module, optimizer, {"lines": [{"epoch": 0, "loss": 1.5}]})
    return stem


def state_refused(stem: Path, match: str, module=None) -> str:
    from otrio.training import safe_state

    fresh, optimizer = small_run()
    with within(), pytest.raises(StateError, match=match) as err:
        safe_state.load_state(stem, module or fresh, optimizer)
    return one_line(err)


def test_a_training_state_round_trips(state):
    import torch

    from otrio.training import safe_state

    module, optimizer = small_run()
    saved = module.state_dict()
    with torch.no_grad():
        for p in module.parameters():
            p.add_(1.0)
    assert safe_state.load_state(state, module, optimizer) == {"lines": [{"epoch": 0, "loss": 1.5}]}
    assert all(torch.equal(saved[k], v) for k, v in module.state_dict().items())


def test_training_state_bombs_are_refused(state):
    import safetensors.torch
    import torch

    doc_file = state.with_suffix(".json")
    doc = json.loads(doc_file.read_text())
    data_file = state.parent / doc["file"]  # STEM.<hash>.safetensors
    # a size other than the record's, then an 8 GB sparse file
    os.truncate(data_file, doc["bytes"] + 1)
    state_refused(state, "bytes on disk, its record says")
    os.truncate(data_file, 8 << 30)
    state_refused(state, "bytes on disk, its record says")
    doc_file.write_text(json.dumps({**doc, "bytes": 8 << 30}))
    state_refused(state, "not a number of bytes in 0..")
    # a link to /dev/zero, then a FIFO
    data_file.unlink()
    data_file.symlink_to("/dev/zero")
    state_refused(state, "symbolic link")
    data_file.unlink()
    os.mkfifo(data_file)
    doc_file.write_text(json.dumps(doc))
    state_refused(state, "is a FIFO")
    data_file.unlink()
    # NaN weights (a consistent record: the hash cannot catch it)
    module, optimizer = small_run()
    tensors = {f"module.{k}": v.clone() for k, v in module.state_dict().items()}
    tensors["module.0.bias"][1] = float("nan")
    data = safetensors.torch.save(tensors)
    data_file.write_bytes(data)
    doc_file.write_text(json.dumps({**doc, "sha256": hashlib.sha256(data).hexdigest(),
                                    "bytes": len(data), "plain_state": {}}))
    state_refused(state, "NaN or infinite values \\(tensor module.0.bias\\)")
    # a deep record
    doc_file.write_text('{"format": "otrio-training-state", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}")
    state_refused(state, "nested deeper than 32 levels")
    # a network of another shape: refused from the header, before the tensors are read
    del torch


def test_a_training_state_for_another_network_is_refused_from_its_header(state):
    import torch

    other = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    state_refused(state, r"tensor module.0.(weight|bias) is \(4,.*needs \(5,", module=other)


def test_a_training_state_of_a_policy_with_a_shared_trunk_round_trips(tmp_path):
    """The distillation's network (a trunk the heads share, stored once) and AdamW."""
    import torch

    from otrio.training import safe_state

    doc = json.loads(SHIPPED.read_text())
    doc["policy"].update(net_arch=[], encoder="trunk", encoder_kwargs={"hidden": [16]})
    manifest = validate(weights.Manifest, doc)

    def run():
        torch.manual_seed(1)
        policy = weights.build_policy(manifest)
        optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-2)
        return policy, optimizer

    policy, optimizer = run()
    policy.set_training_mode(True)
    values = policy.predict_values(torch.ones(2, 2549))
    values.sum().backward()
    optimizer.step()
    safe_state.save_state(tmp_path / "s", policy, optimizer, {"lines": [1, 2]})
    again, again_optimizer = run()
    with within():
        assert safe_state.load_state(tmp_path / "s", again, again_optimizer) == {"lines": [1, 2]}
    for (name, a), b in zip(policy.state_dict().items(), again.state_dict().values()):
        assert torch.equal(a, b), name
    saved, loaded = optimizer.state_dict(), again_optimizer.state_dict()
    assert json.loads(json.dumps(saved["param_groups"])) == loaded["param_groups"]  # betas: a list
    assert saved["state"].keys() == loaded["state"].keys()
    for index, entry in saved["state"].items():
        assert entry.keys() == loaded["state"][index].keys()
        assert all(torch.equal(v, loaded["state"][index][k]) for k, v in entry.items())


@pytest.mark.parametrize("game_config, why", [
    ({"num_players": 99}, r"bad value for 'num_players': Input should be less than or equal "
                          r"to 5 \(got 99\)"),
    ({"num_players": 2, "sharks": True}, r"unknown key 'sharks'"),
    ({"num_players": "2"}, r"bad value for 'num_players': must be an integer, got str"),
])
def test_a_game_config_the_game_refuses_is_refused(agent, game_config, why):
    """Issue 38, point 8: a manifest's game_config is a config of its game."""
    edit(agent, lambda d: d.update(game_config=game_config))
    match = rf"bad value for 'game_config': not a config of oceanos_v0 \({why}"
    assert len(refused(agent, rf"agent manifest {agent}: invalid Manifest: {match}")) < 1000
    with pytest.raises(ConfigError, match=match):
        weights.read_manifest(agent)
    edit(agent, lambda d: d.update(game_config={"num_players": 3}))  # another count: fine
    assert weights.read_manifest(agent).game_config == {"num_players": 3}
