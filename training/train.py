"""PPO self-play training: ``otrio train configs/train/GAME_ppo.yaml``.

MaskablePPO (sb3-contrib) on :class:`~training.selfplay.SelfPlayEnv`, optionally
warm-started by cloning a teacher (:mod:`training.imitation`: ``imitation.jsonl``,
``imitation.zip``) and, if configured, a value warm-up with the clone's policy frozen.
The run folder holds ``config.json``, TensorBoard logs (``tb/``),
``checkpoints/last.zip`` (saved every ``checkpoint_interval``; a re-run with the same
config resumes from it),
frozen self-play ``snapshots/``, ``eval.jsonl`` (win rates with 95% intervals against
random and greedy) and ``final.zip``; ``otrio evaluate-run FOLDER`` scores every snapshot
afresh (``eval_snapshots.jsonl``). Every checkpoint has a ``.json`` beside it that
names the game it fits, so ``ppo:PATH`` refuses to play another game.

The zips are sb3's own format, which runs code stored in the file when loaded
(``agents/weights.py``): a run resumes from its own ``checkpoints/last.zip`` without
asking (the suite wrote it, into the folder of the same config), but playing a zip,
``evaluate-run`` and ``export-checkpoint`` need ``--trust-checkpoint`` (or
``OTRIO_TRUST_CHECKPOINTS=1``). The periodic evaluation plays the policy from the safe
format (``eval_current.json``), and ``export-checkpoint`` writes it for sharing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from envs.core.config import validate
from envs.core.errors import ConfigError
from envs.core.rng import derive_seed

from .config import TrainConfig

CHECKPOINT_DIR = "checkpoints"
SNAPSHOT_DIR = "snapshots"
LAST = "last.zip"


def checkpoint_meta(model, cfg: TrainConfig) -> dict:
    """The metadata that ties a model of this run to its game."""
    import envs

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
    """Save the model and the metadata that ties it to its game."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(str(tmp))
    tmp.replace(path)  # atomic: an interruption never leaves a torn checkpoint
    meta = checkpoint_meta(model, cfg)
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def save_agent(model, path: Path, cfg: TrainConfig) -> Path:
    """Save the model's policy in the safe format (``PATH.json`` and
    ``PATH.safetensors``, ``agents/weights.py``); return the manifest's path."""
    from agents.weights import save_policy

    return save_policy(model.policy, path, checkpoint_meta(model, cfg))


def make_vec_env(cfg: TrainConfig):
    """``num_envs`` self-play envs, each seeded from the run seed."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from .selfplay import SelfPlayEnv

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
    import envs
    from agents.arena import GameTask, outcome, play_task
    from agents.stats import wilson

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


def _callback(cfg: TrainConfig, folder: Path):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Checkpoints, self-play snapshots and periodic evaluation."""

        def __init__(self):
            super().__init__()
            self.next_checkpoint = self.next_snapshot = self.next_eval = 0

        def _on_training_start(self) -> None:
            t = self.model.num_timesteps
            self.next_checkpoint = t + cfg.checkpoint_interval
            self.next_snapshot = t + cfg.snapshot_interval
            self.next_eval = t + cfg.eval.interval
            self._publish_snapshots()

        def _publish_snapshots(self) -> None:
            snaps = sorted((folder / SNAPSHOT_DIR).glob("step_*.zip"),
                           key=lambda p: int(p.stem.split("_")[1]))[-cfg.max_snapshots:]
            self.training_env.env_method("set_snapshots", [str(p) for p in snaps])

        def _on_step(self) -> bool:
            t = self.model.num_timesteps
            if t >= self.next_checkpoint:
                save_checkpoint(self.model, folder / CHECKPOINT_DIR / LAST, cfg)
                self.next_checkpoint += cfg.checkpoint_interval
            if t >= self.next_snapshot:
                self.model.save(str(folder / SNAPSHOT_DIR / f"step_{t}.zip"))
                self._publish_snapshots()
                self.next_snapshot += cfg.snapshot_interval
            if t >= self.next_eval:
                self.next_eval += cfg.eval.interval
                _run_eval(self.model, cfg, folder, t, self.logger)
            return True

    return TrainingCallback()


def _run_eval(model, cfg: TrainConfig, folder: Path, timesteps: int, logger=None) -> dict:
    # the safe format: playing it needs no trust, in this process or the workers
    path = save_agent(model, folder / "eval_current.json", cfg)
    results = evaluate(path, cfg, cfg.eval.games, derive_seed(cfg.seed, "eval", timesteps))
    line = {"timesteps": timesteps, **results}
    with (folder / "eval.jsonl").open("a") as fh:
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
    """Clone the teacher into the fresh policy, save it and evaluate it (timestep 0)."""
    from .imitation import clone, collect

    im = cfg.imitation
    start = time.perf_counter()
    demos = collect(cfg.game, cfg.game_config, im.teacher, im.games,
                    derive_seed(cfg.seed, "demonstrations"), progress=progress,
                    storage=im.storage, hints=cfg.hints)
    collected = time.perf_counter() - start
    history = clone(model.policy, demos, im.epochs, im.batch_size, im.learning_rate,
                    im.value_weight, cfg.seed, progress=progress)
    with (folder / "imitation.jsonl").open("w") as fh:
        for line in history:
            fh.write(json.dumps({"decisions": len(demos), "collect_s": round(collected, 1),
                                 "total_s": round(time.perf_counter() - start, 1), **line},
                                sort_keys=True) + "\n")
    save_checkpoint(model, folder / "imitation.zip", cfg)
    _run_eval(model, cfg, folder, 0)
    if im.value_warmup_timesteps:
        _value_warmup(model, im.value_warmup_timesteps, progress)
        save_checkpoint(model, folder / CHECKPOINT_DIR / LAST, cfg)


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
    import agents
    import envs

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
    """Train (or resume) and return the path of the final checkpoint.

    The config is checked before the output folder is made, and the folder is locked
    (:class:`~agents.run_lock.RunLock`: one run per folder) while the run trains."""
    from agents.run_lock import RunLock

    check_before_start(cfg)
    with RunLock(Path(cfg.output)):
        return _train_in_locked_folder(cfg, progress)


def _train_in_locked_folder(cfg: TrainConfig, progress: bool) -> Path:
    """:func:`train` once its folder is locked."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.encoders import policy_kwargs
    from agents.weights import load_sb3_zip

    torch.set_num_threads(cfg.torch_threads)
    folder = Path(cfg.output)
    (folder / SNAPSHOT_DIR).mkdir(parents=True, exist_ok=True)
    config_file = folder / "config.json"
    saved_cfg = cfg.model_dump(mode="json")
    if config_file.exists():
        # read through the current schema, so a setting added since (at its default)
        # does not make an older run look like another config
        previous = validate(TrainConfig, json.loads(config_file.read_text())).model_dump(mode="json")
        keep = ("total_timesteps", "eval")  # may grow or change on resume
        if {k: v for k, v in previous.items() if k not in keep} != {
                k: v for k, v in saved_cfg.items() if k not in keep}:
            raise ConfigError(f"{folder} holds a run of another config; use a new output folder")
    config_file.write_text(json.dumps(saved_cfg, indent=2, sort_keys=True) + "\n")
    vec = make_vec_env(cfg)
    last = folder / CHECKPOINT_DIR / LAST
    tb = str(folder / "tb")
    if last.exists():
        # trusted without asking: this run's own checkpoint, in the folder of this very
        # config (config.json was compared above), written by the suite
        model = load_sb3_zip(last, trust=True, env=vec, device="cpu", tensorboard_log=tb)
        print(f"resuming from {last} at {model.num_timesteps} timesteps", flush=True)
    else:
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
        if init:
            model.policy.load_state_dict(init[0].state_dict())
            _run_eval(model, cfg, folder, 0)
        if cfg.imitation is not None:
            _warm_start(model, cfg, folder, progress)
    remaining = cfg.total_timesteps - model.num_timesteps
    start = time.perf_counter()
    if remaining > 0:
        model.learn(remaining, callback=_callback(cfg, folder), reset_num_timesteps=False,
                    progress_bar=progress, tb_log_name="ppo")
        save_checkpoint(model, last, cfg)
    final = folder / "final.zip"
    save_checkpoint(model, final, cfg)
    vec.close()
    print(f"trained to {model.num_timesteps} timesteps in {time.perf_counter() - start:.0f} s; "
          f"final checkpoint {final}", flush=True)
    return final


def _initial_policy(cfg: TrainConfig):
    """``(policy, its policy_kwargs)`` of the exported network PPO starts from
    (``init_policy``), checked against the game; None without one."""
    if cfg.init_policy is None:
        return None
    import envs
    from agents.weights import load_policy, policy_kwargs_of

    policy, manifest = load_policy(cfg.init_policy)
    info = envs.make(cfg.game, **cfg.game_config).unwrapped.game.info
    for key, value in (("env_id", info.env_id), ("observation_size", info.observation_size),
                       ("num_actions", info.num_actions), ("hints", cfg.hints)):
        if getattr(manifest, key) != value:
            raise ConfigError(f"init_policy {cfg.init_policy} has {key}={getattr(manifest, key)!r}, "
                              f"this run has {key}={value!r}")
    return policy, policy_kwargs_of(manifest)


def _hint_size(cfg: TrainConfig) -> int:
    """How many hint floats end the learner's observation (0: no hints)."""
    import envs
    from agents.hints import hint_size

    if cfg.hints is None:
        return 0
    return hint_size(envs.make(cfg.game, **cfg.game_config).unwrapped.game.info.num_actions)


def evaluate_snapshots(folder: Path, games: int | None = None,
                       trust: bool | None = None) -> list[dict]:
    """Evaluate every frozen snapshot of a run (and its final checkpoint) afresh.

    Each is played against the run's evaluation opponents with the seeds the periodic
    evaluation uses at that timestep; one line per checkpoint is appended to
    ``eval_snapshots.jsonl`` (a checkpoint already there is skipped, so an interrupted
    call resumes). Returns every line of the file.

    The checkpoints are sb3 zips: they are loaded only if trusted (``trust``, or
    ``OTRIO_TRUST_CHECKPOINTS=1``), each once, here, and played from a safe copy.
    """
    import tempfile

    from agents.weights import load_sb3_zip, require_trust, save_policy

    config_file = folder / "config.json"
    if not config_file.exists():
        raise ConfigError(f"{folder} is not a training run folder (it has no config.json)")
    cfg = validate(TrainConfig, json.loads(config_file.read_text()))
    games = games or cfg.eval.games
    out = folder / "eval_snapshots.jsonl"
    lines = out.read_text().splitlines() if out.exists() else []
    done = {json.loads(line)["checkpoint"] for line in lines}
    checkpoints = sorted((folder / SNAPSHOT_DIR).glob("step_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
    if (folder / "final.zip").exists():
        checkpoints.append(folder / "final.zip")
    todo = [path for path in checkpoints if path.name not in done]
    if todo:
        require_trust(todo[0], trust)
    with tempfile.TemporaryDirectory() as tmp:
        for path in todo:
            meta = checkpoint_metadata(path)
            timesteps = meta["timesteps"]
            policy = load_sb3_zip(path, trust=True, device="cpu").policy  # trust checked above
            # a safe copy, with the metadata that ties it to its game
            copy = save_policy(policy, Path(tmp) / path.stem, meta)
            results = evaluate(copy, cfg, games, derive_seed(cfg.seed, "eval", timesteps))
            line = {"checkpoint": path.name, "timesteps": timesteps, **results}
            with out.open("a") as fh:
                fh.write(json.dumps(line, sort_keys=True) + "\n")
            print(f"{path.name} ({timesteps} steps, {games} games each): {_win_rates(results)}",
                  flush=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


def checkpoint_metadata(path: Path) -> dict:
    """The metadata that ties a checkpoint to its game: the ``.json`` beside it, or, for
    a self-play snapshot (``RUN/snapshots/step_N.zip``, saved without one), the run's
    last checkpoint's with ``timesteps`` N."""
    from agents.ppo import metadata_path, read_metadata

    beside = metadata_path(path)
    if beside.exists():
        return read_metadata(path)
    run_last = path.parent.parent / CHECKPOINT_DIR / LAST
    if path.parent.name == SNAPSHOT_DIR and path.stem.startswith("step_") and run_last.exists():
        return {**read_metadata(run_last), "timesteps": int(path.stem.split("_")[1])}
    raise ConfigError(f"{path} has no metadata ({beside.name}) and is not a snapshot of a "
                      "training run: it cannot be tied to a game")


def export_checkpoint(source: Path, target: Path, trust: bool | None = None) -> Path:
    """A shippable, safe copy of a checkpoint: its policy's weights as safetensors and a
    JSON manifest (``TARGET.safetensors`` and ``TARGET.json``; ``agents/weights.py``).

    The copy plays exactly as the source and loads without running anything; only the
    policy goes (no optimizer state, no training settings). The manifest carries the
    metadata that ties it to its game (a snapshot's is taken from its run). The source
    is an sb3 zip, loaded only if trusted (``trust``, or ``OTRIO_TRUST_CHECKPOINTS=1``).
    Returns the manifest's path.
    """
    from agents.weights import agent_stem, is_sb3_zip, load_policy, load_sb3_zip, save_policy

    if not is_sb3_zip(source):
        raise ConfigError(f"{source}: export-checkpoint reads a training checkpoint (.zip); "
                          "an exported agent (.json/.safetensors) is already in the safe format")
    stem = agent_stem(target)
    meta = checkpoint_metadata(source)
    if not source.exists():
        raise ConfigError(f"no checkpoint at {source}")
    policy = load_sb3_zip(source, trust, device="cpu").policy
    meta.setdefault("exported_from", str(source))  # a re-export keeps the weights' origin
    manifest = save_policy(policy, stem, meta)
    copy, _ = load_policy(manifest)  # it reads back, weight for weight
    for name, tensor in copy.state_dict().items():
        if not tensor.equal(policy.state_dict()[name]):
            raise ConfigError(f"the export of {source} does not read back: tensor {name} differs")
    return manifest
