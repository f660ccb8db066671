"""PPO self-play training: ``otrio train configs/train/GAME_ppo.yaml``.

MaskablePPO (sb3-contrib) on :class:`~otrio.training.selfplay.SelfPlayEnv`, optionally
warm-started by cloning a teacher (:mod:`otrio.training.imitation`: ``imitation.jsonl`` and
the clone ``imitation.json``) and, if configured, a value warm-up with the clone's
policy frozen. The run folder holds

- ``config.json``, TensorBoard logs (``tb/``) and ``eval.jsonl`` (win rates with 95%
  intervals against random and greedy);
- ``checkpoints/resume.json`` + ``resume.safetensors``: the whole training state
  (:mod:`otrio.training.resume`: weights, optimizer, every generator, the games in progress,
  the opponent pool, the counters), saved at a rollout boundary every
  ``checkpoint_interval`` and at the end; a re-run of the same config resumes from it
  and ends with the same weights and evaluations as a run never interrupted;
- ``checkpoints/last.json``, the self-play ``snapshots/step_N.json`` and ``final.json``:
  exported agents (``X.json`` + ``X.safetensors``, ``agents/weights.py``) that play as
  ``ppo:PATH``, score with ``otrio evaluate-run FOLDER`` (``eval_snapshots.jsonl``) and
  ship with ``otrio export-checkpoint``, none of which needs a trust flag.

No pickle is written or read: every file is safetensors or JSON, and loading one runs
nothing. A run trusts only what its own record lists: the pool of self-play opponents
is the snapshots the resume state names, each with its weights' sha256, and a folder
that holds an SB3 ``.zip`` where a run keeps its files (a run of an older otrio, or a
planted file) is refused in one line, with nothing loaded. Zips of the user's own old
runs still play, score and export behind ``--trust-checkpoint``
(``OTRIO_TRUST_CHECKPOINTS=1``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from otrio import agents, envs
from otrio.agents import weights
from otrio.agents.encoders import policy_kwargs
from otrio.agents.hints import HINT_KINDS, hint_size, observation_size
from otrio.agents.ppo import metadata_path, read_metadata, zip_metadata
from otrio.agents.weights import (
    agent_stem,
    is_sb3_zip,
    load_policy,
    load_sb3_zip,
    misfit,
    policy_kwargs_of,
    read_manifest,
    require_trust,
    save_policy,
)
from otrio.arena.play import GameTask, outcome, play_task
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.arena.stats import wilson
from otrio.envs.core.bounded import short_repr
from otrio.envs.core.config import validate
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import (
    exists,
    no_links_under,
    open_append,
    read_bytes,
    read_json,
    read_json_lines,
    real_dir,
    truncate,
    write_text,
)
from otrio.envs.core.paths import find_file
from otrio.envs.core.registry import resolve_env_id
from otrio.envs.core.rng import derive_seed

from . import resume, safe_state
from .config import TrainConfig, plan
from .imitation import clone, collect
from .selfplay import SelfPlayEnv

CHECKPOINT_DIR = "checkpoints"
SNAPSHOT_DIR = "snapshots"
RESUME = "resume"  # checkpoints/resume.{json,safetensors}: the training state
LAST = "last"  # checkpoints/last.{json,safetensors}: the policy at the last checkpoint
FINAL = "final"  # final.{json,safetensors}
IMITATION = "imitation"  # imitation.{json,safetensors}: the clone of a warm start
EVAL_LOG = "eval.jsonl"
SNAPSHOT_EVAL = "eval_snapshots.jsonl"  # otrio evaluate-run's lines
TRAINING = register(RunKind(
    name="training run", command="otrio train (and otrio evaluate-run)", marker="config.json",
    files=(
        RunFile("config.json", "marker", "the run's config"),
        RunFile(f"{CHECKPOINT_DIR}/*", "state", "the training state a resume continues from "
                "(and the policy at the last checkpoint), checked against the config"),
        RunFile(f"{SNAPSHOT_DIR}/*", "record", "the frozen self-play opponents, listed by the "
                "training state"),
        RunFile(EVAL_LOG, "record", "the periodic evaluations, cut back to the checkpoint on a "
                "resume"),
        RunFile("eval_current.*", "state", "the agent the evaluation in progress plays"),
        RunFile(f"{IMITATION}.*", "state", "the clone of a warm start"),
        RunFile(f"{FINAL}.*", "record", "the final agent"),
        RunFile(SNAPSHOT_EVAL, "record", "otrio evaluate-run's scores of the snapshots"),
        RunFile("tb/*", "derived", "TensorBoard's logs")),
    folders=(CHECKPOINT_DIR, SNAPSHOT_DIR, "tb", "tb/*")))
MAX_LOG_BYTES = 64 << 20  # an evaluation log: a few hundred bytes a line
SNAPSHOT_NAME = re.compile(r"step_(\d+)\.json")
# keys that may change between a run and its resume (output: the folder may move)
RESUMABLE_CHANGES = ("total_timesteps", "eval", "output")


def checkpoint_meta(model, cfg: TrainConfig) -> dict:
    """The metadata that ties a model of this run to its game."""

    info = envs.make(cfg.game, **cfg.game_config).unwrapped.game.info
    return {
        "env_id": info.env_id,
        "observation_size": info.observation_size,
        "num_actions": info.num_actions,
        "game_config": cfg.game_config,
        "timesteps": int(model.num_timesteps),
        "seed": cfg.seed,
        "hints": cfg.hints,
    }


def save_checkpoint(model, path: Path, cfg: TrainConfig) -> None:
    """An SB3 zip of ``model`` with its metadata ``.json`` beside it, as runs of older
    versions wrote: training never calls this (its files are safetensors and JSON);
    it makes a user's own zip for the ``--trust-checkpoint`` paths (tests, tools)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(str(tmp))
    tmp.replace(path)  # atomic: an interruption never leaves a torn checkpoint
    meta = checkpoint_meta(model, cfg)
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def save_agent(model, path: Path, cfg: TrainConfig) -> Path:
    """Save the model's policy in the safe format (``PATH.json`` and
    ``PATH.safetensors``, ``agents/weights.py``); return the manifest's path."""

    return save_policy(model.policy, path, checkpoint_meta(model, cfg))


def make_vec_env(cfg: TrainConfig):
    """``num_envs`` self-play envs, each seeded from the run seed."""
    def factory(i: int):
        def build():
            return Monitor(SelfPlayEnv(cfg.game, cfg.game_config, cfg.opponents,
                                       cfg.learner_seat, seed=derive_seed(cfg.seed, "env", i),
                                       hints=cfg.hints))
        return build

    fns = [factory(i) for i in range(cfg.num_envs)]
    return SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)


def evaluate(checkpoint: Path, cfg: TrainConfig, games: int, seed: int) -> dict[str, dict]:
    """Win rate of a checkpoint against each eval opponent, seats rotated."""

    n = envs.make(cfg.game, **cfg.game_config).unwrapped.num_players
    results = {}
    for opponent in cfg.eval.opponents:
        lineup = ["ppo"] + ["opp"] * (n - 1)
        specs = {"ppo": f"ppo:{checkpoint}", "opp": opponent}
        wins = 0
        for g in range(games):
            r = g % n
            seating = tuple(lineup[r:] + lineup[:r])
            env, _ = play_task(GameTask(game=g, env_id=cfg.game, config=dict(cfg.game_config),
                                        seating=seating, specs=specs,
                                        seed=derive_seed(seed, opponent, g)))
            wins += seating.index("ppo") in outcome(env.unwrapped.state_)[1]
        low, high = wilson(wins, games)
        results[opponent] = {"games": games, "win_rate": wins / games, "low": low, "high": high}
    return results


def _callback(cfg: TrainConfig, folder: Path, run: dict | None = None):
    """The training callback; ``run``: the run block of a resume state to go on from."""
    class TrainingCallback(BaseCallback):
        """Checkpoints (at rollout boundaries, the points a run restores exactly),
        self-play snapshots and periodic evaluation."""

        def __init__(self):
            super().__init__()
            self.counters: dict[str, int] | None = dict(run["counters"]) if run and run.get(
                "counters") else None
            # every snapshot this run wrote, in order: {"file": "step_N.json", "sha256": ...}
            self.snapshots: list[dict] = list(run["snapshots"]) if run else []

        def _on_training_start(self) -> None:
            if self.counters is None:
                t = self.model.num_timesteps
                self.counters = {"checkpoint": t + cfg.checkpoint_interval,
                                 "snapshot": t + cfg.snapshot_interval,
                                 "eval": t + cfg.eval.interval}
            self._publish_snapshots()

        def _publish_snapshots(self) -> None:
            pool = self.snapshots[-cfg.max_snapshots:]
            self.training_env.env_method(
                "set_snapshots", [str(folder / SNAPSHOT_DIR / e["file"]) for e in pool],
                [e["sha256"] for e in pool])

        def _on_rollout_start(self) -> None:
            t = self.model.num_timesteps
            if t >= self.counters["checkpoint"]:
                while self.counters["checkpoint"] <= t:
                    self.counters["checkpoint"] += cfg.checkpoint_interval
                write_checkpoint(self.model, cfg, folder, self.run_block())

        def _on_step(self) -> bool:
            t = self.model.num_timesteps
            if t >= self.counters["snapshot"]:
                manifest = save_agent(self.model, folder / SNAPSHOT_DIR / f"step_{t}", cfg)
                digest = read_manifest(manifest).weights.sha256
                self.snapshots = [e for e in self.snapshots if e["file"] != manifest.name]
                self.snapshots.append({"file": manifest.name, "sha256": digest})
                self._publish_snapshots()
                self.counters["snapshot"] += cfg.snapshot_interval
            if t >= self.counters["eval"]:
                self.counters["eval"] += cfg.eval.interval
                _run_eval(self.model, cfg, folder, t, self.logger)
            return True

        def run_block(self) -> dict:
            return _run_block(cfg, folder, self.counters, self.snapshots)

    return TrainingCallback()


def _comparable(config: dict) -> dict:
    """A config as JSON, less the keys a resume may change."""
    return {k: v for k, v in config.items() if k not in RESUMABLE_CHANGES}


def _run_block(cfg: TrainConfig, folder: Path, counters: dict | None, snapshots: list[dict]) -> dict:
    """The run's own part of a resume state: the config it belongs to, the callback's
    counters, every snapshot written (the self-play pool is its tail) and how much of
    ``eval.jsonl`` had been written."""

    log = folder / EVAL_LOG
    data = read_bytes(log, folder, limit=MAX_LOG_BYTES) if exists(log) else b""
    return {"config": _comparable(cfg.model_dump(mode="json")), "counters": counters,
            "snapshots": list(snapshots),
            "eval_log": {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}}


def write_checkpoint(model, cfg: TrainConfig, folder: Path, run: dict) -> None:
    """Save the training state (``checkpoints/resume.*``, :mod:`otrio.training.resume`) and the
    policy as an agent (``checkpoints/last.*``); the state's JSON is written last, so a
    crash leaves the previous checkpoint whole."""

    save_agent(model, folder / CHECKPOINT_DIR / LAST, cfg)
    snapshots = folder / SNAPSHOT_DIR

    def name(path: str) -> str:
        if Path(path).parent != snapshots:
            raise ConfigError(f"self-play snapshot {path} is not in this run's {snapshots}")
        return Path(path).name

    resume.save(folder / CHECKPOINT_DIR / RESUME, model, run, name)


def _run_eval(model, cfg: TrainConfig, folder: Path, timesteps: int, logger=None) -> dict:
    # the safe format: playing it needs no trust, in this process or the workers
    path = save_agent(model, folder / "eval_current.json", cfg)
    results = evaluate(path, cfg, cfg.eval.games, derive_seed(cfg.seed, "eval", timesteps))
    line = {"timesteps": timesteps, **results}
    with open_append(folder / EVAL_LOG, root=folder) as fh:
        fh.write(json.dumps(line, sort_keys=True) + "\n")
    print(f"eval @ {timesteps} steps ({cfg.eval.games} games each): {_win_rates(results)}",
          flush=True)
    if logger is not None:
        for k, v in results.items():
            logger.record(f"eval/win_rate_vs_{k}", v["win_rate"])
    return results


def _win_rates(results: dict[str, dict]) -> str:
    """Evaluation results as one line: each opponent's win rate and 95% interval."""
    return "; ".join(f"vs {k} {v['win_rate']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
                     for k, v in results.items())


def _warm_start(model, cfg: TrainConfig, folder: Path, progress: bool) -> None:
    """Clone the teacher into the fresh policy, save it and evaluate it (timestep 0);
    then the value warm-up, if any, and a checkpoint (a later interruption resumes
    after the warm start)."""
    im = cfg.imitation
    start = time.perf_counter()
    demos = collect(cfg.game, cfg.game_config, im.teacher, im.games,
                    derive_seed(cfg.seed, "demonstrations"), progress=progress,
                    storage=im.storage, hints=cfg.hints)
    collected = time.perf_counter() - start
    history = clone(model.policy, demos, im.epochs, im.batch_size, im.learning_rate,
                    im.value_weight, cfg.seed, progress=progress)
    total = round(time.perf_counter() - start, 1)
    write_text(folder / "imitation.jsonl", "".join(
        json.dumps({"decisions": len(demos), "collect_s": round(collected, 1), "total_s": total,
                    **line}, sort_keys=True) + "\n" for line in history), folder)
    save_agent(model, folder / IMITATION, cfg)
    _run_eval(model, cfg, folder, 0)
    if im.value_warmup_timesteps:
        _value_warmup(model, im.value_warmup_timesteps, progress)
    write_checkpoint(model, cfg, folder, _run_block(cfg, folder, None, []))


def policy_parameters(policy) -> list:
    """The parameters that shape the action distribution: everything but the value path."""
    value_path = ("mlp_extractor.value_net.", "value_net.", "vf_features_extractor.")
    return [p for name, p in policy.named_parameters() if not name.startswith(value_path)]


def _value_warmup(model, timesteps: int, progress: bool) -> None:
    """PPO rollouts that train only the value head (the policy's parameters frozen).

    A frozen parameter gets no gradient, so the optimizer leaves it untouched; the
    policy loss is then constant (every probability ratio is 1) and only the value
    loss moves the network. The steps count towards ``total_timesteps``.
    """
    frozen = policy_parameters(model.policy)
    for p in frozen:
        p.requires_grad_(False)
    try:
        model.learn(timesteps, reset_num_timesteps=False, progress_bar=progress,
                    tb_log_name="value_warmup")
    finally:
        for p in frozen:
            p.requires_grad_(True)


def check_before_start(cfg: TrainConfig) -> None:
    """Every problem of the config that would stop the run, raised before the output
    folder is made: the game and its config, the learner's seat, the agents named."""

    env = envs.make(cfg.game, **cfg.game_config)  # unknown game, bad config, player count
    players = env.unwrapped.num_players
    if cfg.learner_seat is not None and not 0 <= cfg.learner_seat < players:
        raise ConfigError(f"learner_seat {cfg.learner_seat} is not a seat of {cfg.game} with "
                          f"{players} players (0-{players - 1})")
    _initial_policy(cfg)  # a missing, damaged or other game's network fails here
    specs = list(cfg.eval.opponents) + ([cfg.imitation.teacher] if cfg.imitation else [])
    for spec in specs:
        if spec == "human":
            raise ConfigError("human agents cannot evaluate or teach a training run")
        agents.check_spec(spec, env)


def train(cfg: TrainConfig, progress: bool = True) -> Path:
    """Train (or resume) and return the path of the final agent (``final.json``).

    The config is checked before the output folder is made, and the folder is locked
    (:class:`~otrio.arena.run_lock.RunLock`: one run per folder) while the run trains."""
    check_before_start(cfg)
    print(f"{plan(cfg)}; into {cfg.output}", flush=True)
    _check_folder(Path(cfg.output), cfg)  # before the lock: a folder that is no run gets no lock
    with RunFolder(TRAINING, cfg.output):
        return _train_in_locked_folder(cfg, progress)


def _refuse_zips(folder: Path) -> None:
    """A :class:`ConfigError` for an SB3 zip where a run keeps its files: this version
    never writes one, so it is a run of an older otrio or a planted file, and loading
    it would run code stored in it."""
    places = [folder, folder / CHECKPOINT_DIR, folder / SNAPSHOT_DIR]
    zips = sorted(z for place in places if place.is_dir() for z in place.glob("*.zip"))
    if zips:
        more = f" (and {len(zips) - 1} more)" if len(zips) > 1 else ""
        raise ConfigError(
            f"{folder} holds {zips[0].name if zips[0].parent == folder else zips[0].relative_to(folder)}"
            f"{more}, a Stable-Baselines3 zip this run's record does not list (a run of an older "
            "otrio, or a file put there): otrio train loads no zip, since loading one runs code "
            "stored in it; continue an old run with the otrio version that wrote it, score or "
            "export its zips with --trust-checkpoint if you made them, or train into a new "
            "output folder")


def _check_folder(folder: Path, cfg: TrainConfig) -> None:
    """Refuse a folder this config cannot train in: another config's run, files of a run
    with no config.json, or an SB3 zip anywhere a run keeps its files."""

    _refuse_zips(folder)
    config_file = folder / "config.json"
    if exists(config_file):
        raw = read_json(config_file, f"the run's config {config_file}", folder, ConfigError)
        # read through the current schema, so a setting added since (at its default)
        # does not make an older run look like another config
        previous = validate(TrainConfig, raw).model_dump(mode="json")
        if _comparable(previous) != _comparable(cfg.model_dump(mode="json")):
            raise ConfigError(f"{folder} holds a run of another config; use a new output folder")
        return
    leftovers = [name for name in (CHECKPOINT_DIR, EVAL_LOG, f"{FINAL}.json")
                 if (folder / name).exists()]
    if (folder / SNAPSHOT_DIR).is_dir() and any((folder / SNAPSHOT_DIR).iterdir()):
        leftovers.append(SNAPSHOT_DIR)
    if leftovers:
        raise ConfigError(f"{folder} holds training files ({', '.join(leftovers)}) but no "
                          "config.json: not a run this config can continue; use a new output folder")
    RunFolder(TRAINING, folder).check()


def _resume(model, cfg: TrainConfig, folder: Path, stem: Path) -> dict:
    """Restore the training state at ``stem`` into the fresh ``model`` and its envs, after
    checking that it is this run's (its config, the snapshots it lists and the log it
    saw); return its run block. Once it is restored, ``eval.jsonl`` loses the lines
    written after the checkpoint (the resumed run writes them again, identical)."""
    try:
        meta, extra = resume.read(stem, model)
        run = meta["run"]
        if run.get("config") != _comparable(cfg.model_dump(mode="json")):
            raise StateError("it was saved by a run of another config")
        snapshots = run.get("snapshots")
        if not isinstance(snapshots, list) or not all(
                isinstance(e, dict) and isinstance(e.get("file"), str)
                and SNAPSHOT_NAME.fullmatch(e["file"]) and isinstance(e.get("sha256"), str)
                for e in snapshots):
            raise StateError("its list of self-play snapshots is corrupt")
        listed = {e["file"]: e["sha256"] for e in snapshots}
        for file, digest in listed.items():
            _check_snapshot(folder / SNAPSHOT_DIR / file, digest)
        kept = _checked_log(folder / EVAL_LOG, run.get("eval_log"), folder)

        def path(name: str) -> str:
            if name not in listed:
                raise StateError(f"a game in progress draws on snapshot {str(name)[:80]!r}, "
                                 "which the run's record does not list")
            return str(folder / SNAPSHOT_DIR / name)

        resume.apply(model, meta, extra, path)
    except StateError as err:
        raise ConfigError(f"cannot resume the run in {folder} from {stem.name}: {err}"[:500]) from None
    log = folder / EVAL_LOG
    if exists(log) and log.stat().st_size > kept:
        truncate(log, kept, folder)
    return run


def _check_snapshot(path: Path, digest: str) -> None:
    """A :class:`StateError` unless ``path`` is the snapshot the record lists (its
    manifest names weights of sha256 ``digest``, and those weights are there)."""

    if path.is_symlink():
        raise StateError(f"its snapshot {path.name} is a symbolic link: a run reads only its "
                         "own files")
    try:
        manifest = read_manifest(path)
    except ConfigError as err:
        raise StateError(f"its snapshot {path.name} cannot be read: {err}") from None
    if manifest.weights.sha256 != digest:
        raise StateError(f"its snapshot {path.name} has changed since it was written")


def _checked_log(log: Path, saved, folder: Path) -> int:
    """How many bytes of ``eval.jsonl`` the checkpoint saw (a :class:`StateError` if
    that part has changed since)."""

    if not isinstance(saved, dict) or not isinstance(saved.get("bytes"), int):
        raise StateError(f"its record of {log.name} is corrupt")
    kept = read_bytes(log, folder, limit=MAX_LOG_BYTES)[:saved["bytes"]] if exists(log) else b""
    if len(kept) != saved["bytes"] or hashlib.sha256(kept).hexdigest() != saved.get("sha256"):
        raise StateError(f"{log.name} has changed since the checkpoint (its first "
                         f"{saved['bytes']} bytes differ); restore it or train into a new folder")
    return len(kept)


def _new_model(cfg: TrainConfig, vec, tb: str):
    """The MaskablePPO of this config, freshly initialised from its seed."""
    p = cfg.ppo
    init = _initial_policy(cfg)
    model = MaskablePPO(
        "MlpPolicy", vec, learning_rate=p.learning_rate, n_steps=p.n_steps,
        batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda,
        clip_range=p.clip_range, ent_coef=p.ent_coef, vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        policy_kwargs=init[1] if init else policy_kwargs(
            cfg.encoder, cfg.net_arch, _hint_size(cfg), cfg.share_features_extractor),
        seed=cfg.seed, device="cpu", tensorboard_log=tb, verbose=0,
    )
    return model, init


def _train_in_locked_folder(cfg: TrainConfig, progress: bool) -> Path:
    """:func:`train` once its folder is locked."""
    torch.set_num_threads(cfg.torch_threads)
    folder = Path(cfg.output)
    _check_folder(folder, cfg)
    for sub in (CHECKPOINT_DIR, SNAPSHOT_DIR):  # before anything is written in them:
        real_dir(folder / sub, folder)  # no folder of a run is a link to one elsewhere
    no_links_under(folder / "tb", folder)  # SB3's writer reopens tb/ppo_N on a resume
    stem = folder / CHECKPOINT_DIR / RESUME
    vec = make_vec_env(cfg)
    try:
        model, init = _new_model(cfg, vec, str(folder / "tb"))
        run = None
        resuming = safe_state.exists(stem)
        if resuming:
            run = _resume(model, cfg, folder, stem)
        # written once the run is known to go on (the total and eval settings may change)
        write_text(folder / "config.json",
                   json.dumps(cfg.model_dump(mode="json"), indent=2, sort_keys=True) + "\n", folder)
        if resuming:
            print(f"resuming from {stem}.json at {model.num_timesteps} timesteps", flush=True)
        else:
            # a fresh start: an earlier attempt's evaluations (none checkpointed) go, and
            # are written again
            (folder / EVAL_LOG).unlink(missing_ok=True)
            if init:
                model.policy.load_state_dict(init[0].state_dict())
                _run_eval(model, cfg, folder, 0)
            if cfg.imitation is not None:
                _warm_start(model, cfg, folder, progress)
                run = _run_block(cfg, folder, None, [])
        callback = _callback(cfg, folder, run)
        remaining = cfg.total_timesteps - model.num_timesteps
        start = time.perf_counter()
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=False,
                        progress_bar=progress, tb_log_name="ppo")
            write_checkpoint(model, cfg, folder, callback.run_block())
        final = save_agent(model, folder / FINAL, cfg)
    finally:
        vec.close()
    print(f"trained to {model.num_timesteps} timesteps in {time.perf_counter() - start:.0f} s; "
          f"final agent {final} (play it as ppo:{final})", flush=True)
    log = folder / EVAL_LOG
    if log.exists():
        count = len(read_json_lines(log, root=folder, limit=MAX_LOG_BYTES))
        print(f"evaluations: {log} ({count} so far)", flush=True)
    return final


def starting_network(path: str, cfg: TrainConfig, key: str):
    """``(policy, manifest)`` of an exported network a run starts from (``key`` names the
    config key in errors: ``init_policy``, ``distill.init``), refused unless it plays
    this run's game and reads its observation (size and hints)."""

    policy, manifest = load_policy(find_file(path))  # here, else the package
    info = envs.make(cfg.game, **cfg.game_config).unwrapped.game.info
    wrong = misfit(manifest.model_dump(), info, hints=cfg.hints)
    if wrong:
        name, have, value = wrong
        raise ConfigError(f"{key} {path} has {name}={have!r}, this run has {name}={value!r}")
    return policy, manifest


def _initial_policy(cfg: TrainConfig):
    """``(policy, its policy_kwargs)`` of the exported network PPO starts from
    (``init_policy``), checked against the game; None without one."""
    if cfg.init_policy is None:
        return None

    policy, manifest = starting_network(cfg.init_policy, cfg, "init_policy")
    return policy, policy_kwargs_of(manifest)


def _hint_size(cfg: TrainConfig) -> int:
    """How many hint floats end the learner's observation (0: no hints)."""

    if cfg.hints is None:
        return 0
    return hint_size(envs.make(cfg.game, **cfg.game_config).unwrapped.game.info.num_actions)


def _run_config(folder: Path) -> TrainConfig:
    """The config of the PPO training run in ``folder``; a one-line :class:`ConfigError`
    for a folder that is not one."""

    config_file = folder / "config.json"
    if not folder.is_dir() or not (config_file.is_file() or config_file.is_symlink()):
        raise ConfigError(f"{folder} is not a training run folder (it has no config.json)")
    try:
        raw = read_json(config_file, f"its config.json {config_file}", folder, ConfigError)
        cfg = validate(TrainConfig, raw)
    except ValueError as err:  # ConfigError is a ValueError
        why = " ".join(str(err).split())
        raise ConfigError(f"{folder} is not a training run folder: its config.json is not a "
                          f"training config ({why})"[:300]) from None
    if cfg.distill is not None:
        raise ConfigError(f"{folder} is a distillation run: evaluate-run scores the snapshots "
                          "of a PPO run (a distillation evaluates each round itself)")
    return cfg


def _run_checkpoints(folder: Path) -> list[Path]:
    """The agents of a run, in order: the snapshots (exported agents ``step_N.json``;
    SB3 zips ``step_N.zip`` in a run of an older otrio), then the final agent."""
    def step(path: Path) -> int | None:
        match = re.fullmatch(r"step_(\d+)", path.stem)
        return int(match[1]) if match and path.suffix in (".json", ".zip") else None

    found = [p for p in (folder / SNAPSHOT_DIR).glob("step_*") if step(p) is not None
             and not (p.suffix == ".json" and p.with_suffix(".zip").exists())]  # a zip's metadata
    checkpoints = sorted(found, key=lambda p: (step(p), p.suffix))
    checkpoints += [f for f in (folder / f"{FINAL}.json", folder / f"{FINAL}.zip")
                    if f.exists() and not (f.suffix == ".json" and f.with_suffix(".zip").exists())]
    return checkpoints


def _read_done(out: Path, folder: Path) -> set[tuple[str, int]]:
    """``(checkpoint, games)`` of every line of ``eval_snapshots.jsonl`` (read bounded,
    no link followed); a one-line :class:`ConfigError` naming a line that is not such a
    record."""

    done = set()
    if not exists(out):
        return done
    rows = read_json_lines(out, root=folder, error=ConfigError, limit=MAX_LOG_BYTES)
    for number, row in enumerate(rows, 1):
        try:
            done.add((str(row["checkpoint"]), int(row["games"]) if "games" in row
                      else int(next(v["games"] for v in row.values() if isinstance(v, dict)))))
        except (ValueError, KeyError, TypeError, StopIteration, RecursionError):
            raise ConfigError(f"{out} line {number} is not an evaluation record; move the file "
                              "aside to evaluate afresh") from None
    return done


def evaluate_snapshots(folder: Path, games: int | None = None,
                       trust: bool | None = None) -> list[dict]:
    """Evaluate every frozen snapshot of a run (and its final agent) afresh.

    Each is played against the run's evaluation opponents with the seeds the periodic
    evaluation uses at that timestep; one line per checkpoint and game count is
    appended to ``eval_snapshots.jsonl`` (one already there is skipped, so an
    interrupted call resumes). The folder is locked while it runs
    (:class:`~otrio.arena.run_lock.RunLock`: not while another evaluate-run or a training run
    writes there). Returns every line of the file.

    A run's agents are exported agents (safetensors + JSON): they load without running
    anything. SB3 zips of runs of older versions are loaded only if trusted (``trust``,
    or ``OTRIO_TRUST_CHECKPOINTS=1``), each once, here, and played from a safe copy.
    """
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise ConfigError(f"--games must be a whole number >= 1, got {games!r}")
    _run_config(folder)  # before the lock: a folder that is no run gets no run.lock
    with RunFolder(TRAINING, folder, "run folder"):
        cfg = _run_config(folder)
        games = games or cfg.eval.games
        real_dir(folder / SNAPSHOT_DIR, folder, make=False)  # its agents, not a link's
        out = folder / SNAPSHOT_EVAL
        done = _read_done(out, folder)
        todo = [path for path in _run_checkpoints(folder) if (path.name, games) not in done]
        zips = [path for path in todo if is_sb3_zip(path)]
        if zips:
            require_trust(zips[0], trust)
        with tempfile.TemporaryDirectory() as tmp:
            for path in todo:
                if path.is_symlink():  # a run's agents are its own files, never links
                    raise ConfigError(f"{path} is a symbolic link: evaluate-run reads a run's "
                                      "own files only; replace it with the file itself")
                if is_sb3_zip(path):
                    meta = checkpoint_metadata(path)
                    policy = load_sb3_zip(path, trust=True, device="cpu").policy  # trust checked above
                    # a safe copy, with the metadata that ties it to its game
                    agent = save_policy(policy, Path(tmp) / path.stem, meta)
                else:
                    meta, agent = read_manifest(path).model_dump(), path
                timesteps = int(meta["timesteps"] or 0)
                results = evaluate(agent, cfg, games, derive_seed(cfg.seed, "eval", timesteps))
                line = {"checkpoint": path.name, "timesteps": timesteps, **results}
                with open_append(out, root=folder) as fh:
                    fh.write(json.dumps(line, sort_keys=True) + "\n")
                print(f"{path.name} ({timesteps} steps, {games} games each): "
                      f"{_win_rates(results)}", flush=True)
        return read_json_lines(out, root=folder, error=ConfigError, limit=MAX_LOG_BYTES) \
            if exists(out) else []


def checkpoint_metadata(path: Path) -> dict:
    """The metadata that ties an SB3 zip of an older run to its game: the ``.json``
    beside it, or, for a self-play snapshot (``RUN/snapshots/step_N.zip``, saved without
    one), the run's last checkpoint's with ``timesteps`` N."""

    beside = metadata_path(path)
    if beside.exists():
        return read_metadata(path)
    run_last = path.parent.parent / CHECKPOINT_DIR / "last.zip"
    if path.parent.name == SNAPSHOT_DIR and path.stem.startswith("step_") and run_last.exists():
        return {**read_metadata(run_last), "timesteps": int(path.stem.split("_")[1])}
    raise ConfigError(f"{path} has no metadata ({beside.name}) and is not a snapshot of a "
                      "training run: it cannot be tied to a game")


def export_checkpoint(source: Path, target: Path, trust: bool | None = None,
                      game: str | None = None, players: int | None = None) -> Path:
    """A shippable, safe copy of a checkpoint: its policy's weights as safetensors and a
    JSON manifest (``TARGET.safetensors`` and ``TARGET.json``; ``agents/weights.py``).

    The copy plays exactly as the source and loads without running anything; only the
    policy goes (no optimizer state, no training settings). The source is an agent a
    run wrote (``final.json``, ``snapshots/step_N.json``, ``checkpoints/last.json``:
    exported agents already, copied with the metadata that ties them to their game), or
    an SB3 zip, loaded only if trusted (``trust``, or ``OTRIO_TRUST_CHECKPOINTS=1``).
    A zip's game is its metadata's (the ``.json`` beside it, ``agents/ppo.py``; a
    snapshot's is taken from its run), or ``game`` at ``players`` seats (the game's
    default count if None) for a zip with none, such as one Stable-Baselines3 saved
    itself; given with metadata, they must agree with it. A zip whose network does not
    read the game's observation or choose among its actions is refused.
    Returns the manifest's path.
    """

    stem = agent_stem(target)
    if is_sb3_zip(source):
        if not source.exists():
            raise ConfigError(f"no checkpoint at {source}")
        meta, named_by = _zip_meta(source, game, players)  # plain JSON: the zip is not read yet
        model = load_sb3_zip(source, trust, device="cpu")
        policy = model.policy
        _check_zip_fits(source, policy, meta, named_by)
        if meta.get("timesteps") is None:
            meta["timesteps"] = int(model.num_timesteps)
    elif game is not None or players is not None:
        raise ConfigError(f"{source}: --game and --players name the game of an SB3 zip with no "
                          "metadata; an exported agent's manifest names its own game")
    elif source.suffix in (weights.MANIFEST_SUFFIX, weights.WEIGHTS_SUFFIX):
        policy, manifest = load_policy(source)
        meta = manifest.model_dump()
    else:
        raise ConfigError(f"{source}: export-checkpoint reads an agent a training run wrote "
                          "(X.json) or an SB3 zip (.zip)")
    if not meta.get("exported_from"):  # a re-export keeps the weights' origin
        meta["exported_from"] = str(source)
    manifest = save_policy(policy, stem, meta)
    copy, _ = load_policy(manifest)  # it reads back, weight for weight
    for name, tensor in copy.state_dict().items():
        if not tensor.equal(policy.state_dict()[name]):
            raise ConfigError(f"the export of {source} does not read back: tensor {name} differs")
    return manifest


def _has_metadata(source: Path) -> bool:
    """Whether :func:`checkpoint_metadata` finds metadata for the zip ``source``."""
    return metadata_path(source).exists() or (
        source.parent.name == SNAPSHOT_DIR and source.stem.startswith("step_")
        and (source.parent.parent / CHECKPOINT_DIR / "last.zip").exists())


def _zip_meta(source: Path, game: str | None, players: int | None) -> tuple[dict, str]:
    """The metadata an export of the zip ``source`` writes (see :func:`export_checkpoint`),
    and what named it (for the errors)."""
    if not _has_metadata(source):
        if game is None:
            raise ConfigError(f"{source} has no metadata beside it ({metadata_path(source).name}) "
                              "and is not a snapshot of a training run, so it cannot be tied to "
                              "a game: name the game and player count it was trained on, e.g. "
                              "--game oceanos --players 2")
        return (zip_metadata(game, {} if players is None else {"num_players": players}),
                "--game and --players")
    meta = checkpoint_metadata(source)
    beside = metadata_path(source)
    named_by = (f"its metadata ({beside.name})" if beside.exists() else
                 f"its run's metadata ({CHECKPOINT_DIR}/last.json)")
    env = _metadata_env(source, meta, named_by)
    if game is not None and resolve_env_id(game) != env.unwrapped.game.info.env_id:
        raise ConfigError(f"{source}: {named_by} says env_id="
                          f"{short_repr(meta.get('env_id'))}, --game says "
                          f"{resolve_env_id(game)}; drop --game and --players (the "
                          "metadata names the game) or correct the metadata")
    if players is not None and env.unwrapped.num_players != players:
        raise ConfigError(f"{source}: {named_by} says {env.unwrapped.num_players} "
                          f"players, --players says {players}; drop --game and --players (the "
                          "metadata names the game) or correct the metadata")
    return meta, named_by


def _metadata_env(source: Path, meta: dict, named_by: str):
    """The game a zip's metadata names, at its config; a :class:`ConfigError` naming the
    zip where the metadata names none."""
    game_config = meta.get("game_config") or {}
    if not isinstance(meta.get("env_id"), str) or not isinstance(game_config, dict):
        raise ConfigError(f"{source}: {named_by} needs env_id (text) and game_config "
                          f"(a mapping), got {short_repr(meta.get('env_id'))} and "
                          f"{short_repr(game_config)}")
    try:
        return envs.make(meta["env_id"], **game_config)
    except ConfigError as err:
        raise ConfigError(f"{source}: {named_by}: {err}") from None


def _check_zip_fits(source: Path, policy, meta: dict, named_by: str) -> None:
    """A :class:`ConfigError` unless the zip's network reads the observation and chooses
    among the actions of the game ``meta`` names (``named_by``: where it came from)."""
    env = _metadata_env(source, meta, named_by)
    info = env.unwrapped.game.info
    wrong = misfit(meta, info)
    if wrong:
        key, have, value = wrong
        raise ConfigError(f"{source}: {named_by} says {key}={short_repr(have)}, {info.env_id} "
                          f"has {key}={value!r}")
    hints = meta.get("hints")
    if hints is not None and hints not in HINT_KINDS:
        raise ConfigError(f"{source}: {named_by} names unknown hints {short_repr(hints)} "
                          f"(known: {', '.join(HINT_KINDS)}, or null)")
    size = observation_size(env, hints)
    reads = getattr(policy.observation_space, "shape", None)
    actions = getattr(policy.action_space, "n", None)
    if reads != (size,) or actions != info.num_actions:
        fix = ("name the game and player count it was trained on (--game, --players)"
               if named_by.startswith("--") else f"correct {named_by}")
        raise ConfigError(f"{source} does not fit {info.env_id} at {env.unwrapped.num_players} "
                          f"players (named by {named_by}): its network reads observations of "
                          f"shape {reads} and chooses among {actions} actions, the game's are "
                          f"({size},) and {info.num_actions}; {fix}")
