"""The validated PPO training config (YAML -> pydantic; unknown keys rejected)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from otrio.agents.hints import HINT_KINDS
from otrio.envs.core.config import EnvId, StrictModel, apply_sets, load_yaml, validate
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.paths import find_file, rebase_file, rebase_spec, where_looked

Device = Literal["cpu", "cuda", "auto"]  # where a fit runs (data and play stay on the CPU)


def resolve_device(name: str, key: str = "device") -> str:
    """The torch device of a fit: ``cpu``, ``cuda`` (a ConfigError without one), or
    ``auto`` (cuda where torch sees one, else cpu); ``key`` names the setting in errors."""
    import torch  # deferred: torch (~1 s)

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"{key} is cuda, but torch sees no CUDA device here (use cpu or auto)")
    return name


class PPOParams(StrictModel):
    """MaskablePPO hyper-parameters (sb3 names)."""

    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(512, ge=8)  # per env, per rollout
    batch_size: int = Field(256, ge=8)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(0.95, gt=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)


class EvalParams(StrictModel):
    """Periodic evaluation of the learner against fixed agents."""

    interval: int = Field(50_000, ge=1)  # timesteps between evaluations
    games: int = Field(100, ge=2)  # per opponent, seats rotated
    opponents: list[str] = ["random", "greedy"]  # agent specs, each scored separately


class ImitationParams(StrictModel):
    """Behaviour-cloning warm start from a teacher agent before PPO (see training/imitation.py)."""

    teacher: str = "greedy"  # the agent spec cloned
    games: int = Field(1000, ge=2)  # teacher self-play games recorded, every seat
    epochs: int = Field(8, ge=1)  # passes over the recorded decisions
    batch_size: int = Field(256, ge=8)
    learning_rate: float = Field(1e-3, gt=0)  # Adam's, for the clone
    value_weight: float = Field(0.5, ge=0)  # value regression next to the action cross-entropy
    # PPO rollouts with the clone's policy frozen, fitting only the value head on its own
    # returns, before PPO proper: the first policy updates then see sound advantages.
    value_warmup_timesteps: int = Field(0, ge=0)
    # how recorded observations are held in memory: float16 halves the buffer (5,000
    # two-player Otys games take 4.7 GB as float32) and is refused unless exact
    storage: Literal["float32", "float16"] = "float32"


class DistillRound(StrictModel):
    """One round of expert iteration: teacher games, then a network fitted to them."""

    # the agent spec in every seat; "{previous}" stands for the previous round's network
    # (e.g. "mcts:net={previous},rollout=net"), so each round's search uses the last one
    teacher: str = "mcts"
    games: dict[int, int]  # player count -> teacher games this round
    # who plays the round's games: the teacher itself (None, its own games), or an agent
    # spec in every seat whose positions the teacher labels without playing them (DAgger:
    # "net:{previous}" is the previous round's network, so the student is taught at the
    # states it reaches itself and learns to recover from its own mistakes)
    player: str | None = None

    @field_validator("games")
    @classmethod
    def _some_games(cls, v: dict[int, int]) -> dict[int, int]:
        if not v or any(n < 1 for n in v.values()) or any(p < 1 for p in v):
            raise ValueError("games maps player counts to at least one game each")
        return dict(sorted(v.items()))


class DistillParams(StrictModel):
    """Distillation from search (expert iteration, ``training/distill.py``)."""

    rounds: list[DistillRound] = Field(min_length=1)  # the rounds, in order
    window: int = Field(0, ge=0)  # train on the last `window` rounds' games (0: all so far)
    temperature: float = Field(0.1, ge=0)  # policy target: softmax(values / temperature)
    # or one action: the teacher's first candidate (its prior's favourite) unless another's
    # value beats it by more than this, then the best (training/distill_data.py, Targets)
    overrule: float | None = Field(None, ge=0)
    margin: float = Field(0.25, ge=0)  # value target: outcome + margin * squashed score margin
    trunk: list[int] = Field([256, 256], min_length=1)  # the shared MLP both heads read
    # the network's shape: "trunk" (both linear heads read the MLP's output alone) or
    # "hinted" (they read each action's hints beside it, so a logit can follow its own
    # action's hint without the MLP learning to route it; needs `hints`)
    encoder: Literal["trunk", "hinted"] = "trunk"
    # a fresh hinted network's start: the weight each logit gives its own action's hints
    # (greedy's best mark and its closeness), so round 1 starts from greedy's choice and
    # learns where the teacher departs from it; 0 leaves the head as initialised
    hint_start: float = Field(0.0, ge=0, le=100)
    epochs: int = Field(10, ge=1)  # passes over the training games, each round
    batch_size: int = Field(512, ge=8)
    learning_rate: float = Field(1e-3, gt=0)  # AdamW's
    weight_decay: float = Field(1e-4, ge=0)  # AdamW's
    value_weight: float = Field(1.0, ge=0)  # value MSE next to the policy cross-entropy
    # value target: (1 - value_mix) x the game's outcome + value_mix x the search's own
    # value of the position (its best candidate's mean), where it searched
    value_mix: float = Field(0.0, ge=0, le=1)
    # the epoch a round exports: the last, or the one with the lowest held-out loss
    select: Literal["last", "best"] = "last"
    # where the fit runs: cpu, cuda, or auto (cuda where torch sees one); data and play
    # stay on the CPU
    device: Device = "cpu"
    warm: bool = True  # a round's network starts from the previous round's weights
    # round 1's network starts from this exported agent (its .json manifest, e.g. a shipped
    # ppo agent that cloned greedy) instead of fresh weights; it must read the run's
    # observation (the same game and hints). Its architecture replaces `trunk`.
    init: str | None = None
    held_out: float = Field(0.05, ge=0, lt=0.5)  # share of games kept aside to report fit

    @field_validator("trunk")
    @classmethod
    def _positive_layers(cls, v: list[int]) -> list[int]:
        if any(n < 1 for n in v):
            raise ValueError("every trunk layer needs at least one unit")
        return v


# the policy's feature extractor: "mlp" (the flat observation) or a structured encoder
# of agents/encoders.py, by the game it reads
ENCODER_GAMES = {"otys_pairs": "otys_v0", "otys_board": "otys_v0"}
HINTED_ENCODER = "hinted"  # any game; reads an observation with hints (agents/hints.py)


class TrainConfig(StrictModel):
    """Everything a training run needs; defaults live here and nowhere else."""

    game: EnvId  # env id, e.g. oceanos_v0 (or its short name, oceanos)
    game_config: dict[str, Any] = Field(default_factory=dict)  # the env's config keys
    # the learner's opponents, drawn per episode with these weights: random, greedy, and
    # self (frozen snapshots of the learner)
    opponents: dict[str, float] = {"random": 0.2, "greedy": 0.4, "self": 0.4}
    snapshot_interval: int = Field(50_000, ge=1)  # timesteps between frozen snapshots
    max_snapshots: int = Field(5, ge=1)  # self-play draws from the latest ones
    learner_seat: int | None = None  # None: a random seat each episode
    imitation: ImitationParams | None = None  # None: PPO from a random policy
    ppo: PPOParams = PPOParams()
    net_arch: list[int] = [256, 256]  # hidden layers of the policy and value MLPs
    encoder: str = "mlp"  # or a structured encoder of agents/encoders.py (ENCODER_GAMES)
    # one encoder for the policy and the value head (sb3's default), or a copy each, so the
    # value loss cannot move the features the policy reads
    share_features_extractor: bool = True
    # teacher hints appended to the learner's observation (agents/hints.py): None or "greedy"
    hints: str | None = None
    total_timesteps: int = Field(1_000_000, ge=1)  # the learner's decisions (--timesteps)
    num_envs: int = Field(1, ge=1)  # self-play envs collecting rollouts together
    vec_env: Literal["dummy", "subproc"] = "dummy"  # sb3: every env in this process, or one each
    seed: int = Field(0, ge=0)  # master seed of the run
    checkpoint_interval: int = Field(50_000, ge=1)  # timesteps between resumable checkpoints
    eval: EvalParams = EvalParams()
    torch_threads: int = Field(1, ge=1)  # two threads ran ~10x slower on 2 cores
    output: str = "runs/train"  # the run folder (--output)
    # distillation from search instead of PPO (training/distill.py); the PPO keys are unused
    distill: DistillParams | None = None
    # an exported network (X.json) that PPO starts from, e.g. a distilled one
    init_policy: str | None = None

    @field_validator("opponents")
    @classmethod
    def _known_opponents(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = set(v) - {"random", "greedy", "self"}
        if unknown:
            raise ValueError(f"unknown opponent kinds {sorted(unknown)} (use random, greedy, self)")
        if not v or any(w < 0 for w in v.values()) or sum(v.values()) <= 0:
            raise ValueError("opponent weights must be >= 0 with a positive sum")
        return v

    @field_validator("hints")
    @classmethod
    def _known_hints(cls, v: str | None) -> str | None:
        if v is not None and v not in HINT_KINDS:
            raise ValueError(f"unknown hints {v!r} (use {', '.join(HINT_KINDS)}, or leave it out)")
        return v

    @model_validator(mode="after")
    def _one_start(self) -> TrainConfig:
        if self.init_policy is not None and self.imitation is not None:
            raise ValueError("init_policy and imitation are two starts of a PPO run: give one")
        if self.distill is not None and (self.init_policy is not None or self.imitation is not None):
            raise ValueError("a distillation run (distill) starts from its teacher's games; "
                             "init_policy and imitation are for PPO runs")
        return self

    @model_validator(mode="after")
    def _distill_encoder_reads_hints(self) -> TrainConfig:
        d = self.distill
        if d is not None and d.encoder == HINTED_ENCODER and self.hints is None:
            raise ValueError(f"distill.encoder {HINTED_ENCODER!r} reads hints: set hints: greedy")
        if d is not None and d.hint_start > 0 and d.encoder != HINTED_ENCODER:
            raise ValueError(f"distill.hint_start weighs the hints a {HINTED_ENCODER!r} network's "
                             f"heads read: set distill.encoder: {HINTED_ENCODER}")
        return self

    @model_validator(mode="after")
    def _encoder_reads_the_game(self) -> TrainConfig:
        if self.encoder == HINTED_ENCODER:
            if self.hints is None:
                raise ValueError(f"encoder {HINTED_ENCODER!r} reads hints: set hints: greedy")
        elif self.encoder not in ("mlp", "trunk"):
            if self.encoder not in ENCODER_GAMES:
                raise ValueError(f"unknown encoder {self.encoder!r} (use mlp, trunk, {HINTED_ENCODER}, "
                                 f"{', '.join(sorted(ENCODER_GAMES))})")
            if ENCODER_GAMES[self.encoder] != self.game:
                raise ValueError(f"encoder {self.encoder!r} reads {ENCODER_GAMES[self.encoder]} "
                                 f"observations, not {self.game}")
        return self


# --smoke (``otrio train CONFIG --smoke``): the config's run, sized to finish in about a
# minute on two cores while still passing through every stage (warm start, PPO updates,
# snapshots, checkpoints, one evaluation)
SMOKE_TIMESTEPS = 2048  # total_timesteps unless --timesteps says otherwise
SMOKE_IMITATION_GAMES = 20  # at most this many teacher games for a warm start
SMOKE_EVAL_GAMES = 10  # at most this many evaluation games per opponent
SMOKE_SUFFIX = "_smoke"  # the run folder: the config's output + this, unless --output


def smoke_config(cfg: TrainConfig, timesteps: int | None = None,
                 output: str | None = None) -> TrainConfig:
    """``cfg`` sized for a quick end-to-end check (``otrio train --smoke``):

    - ``total_timesteps``: ``timesteps``, else the smaller of the config's and 2,048;
    - ``ppo.n_steps`` at most a quarter of that per env (so at least 4 updates), and
      ``ppo.batch_size`` at most one rollout;
    - an imitation warm start clones the teacher from at most 20 games, for 1 epoch,
      and a value warm-up is at most one rollout;
    - one evaluation at the end (``eval.interval`` = the total), at most 10 games per
      opponent (after a warm start, its evaluation at step 0 too);
    - snapshots and checkpoints every half of the total (so ``evaluate-run`` has one to
      score);
    - the run folder ``output``, else the config's output with ``_smoke`` appended, so a
      smoke run never mixes with (or blocks) the real run's folder.

    Everything else (the game, opponents, network, seed) is the config's own. A
    distillation config (``distill:``) has no smoke size: lower its rounds' games instead.
    """
    if cfg.distill is not None:
        raise ConfigError("--smoke sizes a PPO run; this is a distillation config "
                          "(distill:): lower its rounds' games for a quick run instead")
    total = timesteps if timesteps is not None else min(cfg.total_timesteps, SMOKE_TIMESTEPS)
    n_steps = max(8, min(cfg.ppo.n_steps, total // (4 * cfg.num_envs)))
    half = max(1, total // 2)
    # a value warm-up's timesteps count towards the total, and PPO's evaluations are
    # counted from where it starts
    warmup = min(cfg.imitation.value_warmup_timesteps, n_steps * cfg.num_envs) if (
        cfg.imitation is not None) else 0
    data = cfg.model_dump(mode="json")
    data.update(
        total_timesteps=total,
        ppo={**data["ppo"], "n_steps": n_steps,
             "batch_size": max(8, min(cfg.ppo.batch_size, n_steps * cfg.num_envs))},
        eval={**data["eval"], "interval": max(1, total - warmup),
              "games": min(cfg.eval.games, SMOKE_EVAL_GAMES)},
        snapshot_interval=min(cfg.snapshot_interval, half),
        checkpoint_interval=min(cfg.checkpoint_interval, half),
        output=output if output is not None else cfg.output.rstrip("/") + SMOKE_SUFFIX,
    )
    if cfg.imitation is not None:
        im = cfg.imitation
        data["imitation"] = {
            **data["imitation"], "games": min(im.games, SMOKE_IMITATION_GAMES), "epochs": 1,
            "value_warmup_timesteps": warmup}
    return validate(TrainConfig, data)


def plan(cfg: TrainConfig) -> str:
    """What a PPO run of ``cfg`` will do, in one line (printed when it starts)."""
    parts = [f"{cfg.game}, {cfg.total_timesteps} timesteps "
             f"({cfg.num_envs} env(s) x {cfg.ppo.n_steps} steps a rollout)"]
    if cfg.imitation is not None:
        im = cfg.imitation
        parts.append(f"first a warm start cloning {im.teacher} from {im.games} games "
                     f"({im.epochs} epoch{'' if im.epochs == 1 else 's'})")
        if im.value_warmup_timesteps:
            parts.append(f"a value warm-up of {im.value_warmup_timesteps} timesteps")
    every = cfg.eval.interval
    warmup = cfg.imitation.value_warmup_timesteps if cfg.imitation is not None else 0
    count = max(0, cfg.total_timesteps - warmup) // every
    at = "at step 0 and " if cfg.imitation is not None or cfg.init_policy is not None else ""
    parts.append(f"evaluations ({cfg.eval.games} games vs each of "
                 f"{', '.join(cfg.eval.opponents)}) {at}every {every} timesteps: "
                 f"{count} in this run" + ("" if count else
                                           " after the start (--smoke evaluates at the end)"))
    return "training " + "; ".join(parts)


def load_train_config(path: str | Path, smoke: bool = False,
                      sets: Sequence[str] = (), **overrides: Any) -> TrainConfig:
    """Read a YAML training config; ``overrides`` (not None) replace top-level keys.
    ``smoke``: sized for a quick check (:func:`smoke_config`; a ``total_timesteps`` or
    ``output`` override still decides those).

    ``path`` and the files the config names (the agent specs of ``eval.opponents``,
    ``imitation.teacher`` and the distillation teachers; ``init_policy``) follow
    :mod:`otrio.envs.core.paths`: a relative path beside the config becomes absolute; others
    are looked up in the current folder, then in the installed package, when opened."""
    path = find_file(path)
    data = load_yaml(path, "training config", where_looked(path)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"training config {path} must be a mapping of keys to values, "
                          f"not a {type(data).__name__}")
    data = apply_sets(data, sets, f"training config {path}")  # --set and --seed
    data.update({k: v for k, v in overrides.items() if v is not None})
    cfg = rebase_paths(validate(TrainConfig, data), path.resolve().parent)
    if smoke:
        cfg = smoke_config(cfg, overrides.get("total_timesteps"), overrides.get("output"))
    return cfg


def rebase_paths(cfg: TrainConfig, folder: Path) -> TrainConfig:
    """``cfg`` with every file it names that lies beside its config (in ``folder``) made
    absolute (:func:`otrio.envs.core.paths.rebase_spec`)."""
    update: dict[str, Any] = {"eval": cfg.eval.model_copy(update={
        "opponents": [rebase_spec(spec, folder) for spec in cfg.eval.opponents]})}
    if cfg.imitation is not None:
        update["imitation"] = cfg.imitation.model_copy(
            update={"teacher": rebase_spec(cfg.imitation.teacher, folder)})
    if cfg.distill is not None:
        update["distill"] = cfg.distill.model_copy(update={"rounds": [
            r.model_copy(update={"teacher": rebase_spec(r.teacher, folder)})
            for r in cfg.distill.rounds]})
    if cfg.init_policy is not None:
        update["init_policy"] = rebase_file(cfg.init_policy, folder)
    return cfg.model_copy(update=update)
