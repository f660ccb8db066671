"""Distillation from search (expert iteration): ``otrio train`` with a ``distill:`` section.

Anthony, Tian and Barber (2017) and AlphaZero: a network learns to imitate a search
(policy) and to predict the game's outcome (value); the next round's search uses the
network, and so on. Each round ``k`` of ``distill.rounds``:

1. **teacher games** (:mod:`otrio.training.distill_data`): ``games`` seeded games per player
   count with the round's ``teacher`` in every seat, whose ``{previous}`` is the previous
   round's network (``mcts:net={previous},rollout=net`` searches with it); played on
   ``--workers N`` processes or on Ray (``--backend ray``), the same records either way;
2. **fit**: a policy-value network (a shared ``trunk`` MLP, linear policy and value
   heads: sb3's ``MaskableActorCriticPolicy`` with the ``trunk`` encoder) is trained by
   soft cross-entropy to the search's root statistics and mean squared error to the
   outcome, on the games of the last ``window`` rounds; it starts from the previous
   round's weights (``warm``), round 1 from ``init`` (an exported agent) or fresh ones;
3. **export and evaluate**: the network is written in the safe format
   (``round_K/net.json`` + ``net.safetensors``; play it as ``net:PATH``) and plays
   ``eval.games`` games against each ``eval.opponents`` agent, seats rotated.

The run folder: ``config.json``; per round ``round_K/`` with ``run.json`` and
``games.jsonl`` (the teacher games, resumable like a tournament's), ``fit/`` (the
network and optimizer after each epoch, safetensors + JSON: a run stopped mid-fit
resumes at the next epoch and ends with the same weights), ``fit.jsonl`` (losses per
epoch), ``net.json``/``net.safetensors``, ``eval.json`` and ``round.json``, the
round's record binding those four by sha256 (:mod:`otrio.training.distill_record`: a file it
names that has changed is refused, one it does not name is computed again);
``rounds.jsonl`` (one line per round: data, compute, strength; recomputed on every
call), ``report.md`` and ``strength.png`` (:mod:`otrio.training.distill_report`), and
TensorBoard logs in ``tb/``. Every file and folder is opened through
:mod:`otrio.envs.core.files` (no link followed, bounded reads). Nothing in the folder is
unpickled; every record is re-played and its labels audited
(:func:`otrio.training.distill_data.audit`) before it is learned from.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from otrio import agents, envs
from otrio.agents.encoders import policy_kwargs
from otrio.agents.hints import BLOCKS, block_offset, hint_size, observation_size
from otrio.agents.weights import load_policy, save_policy
from otrio.arena.parallel import run_ordered
from otrio.arena.records import RECORDS_FILE, REJECTED_FILE, RecordWriter, open_run
from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.config import apply_sets, validate
from otrio.envs.core.errors import ConfigError, StateError
from otrio.envs.core.files import exists, read_json, read_json_lines, real_dir, write_text
from otrio.envs.core.rng import derive_seed, make_rng

from . import safe_state
from .config import DistillParams, TrainConfig, resolve_device
from .distill_data import Examples, TeacherTask, audit, examples, teacher_game, teacher_schema
from .distill_record import ROUND_FILE, bound, digest, read_round, write_round
from .distill_report import write_report
from .train import evaluate, starting_network

PREVIOUS = "{previous}"
NET = "net.json"
CONFIG_FILE = "config.json"
ROUNDS_FILE = "rounds.jsonl"
FIT_LOG = "fit.jsonl"
EVAL_FILE = "eval.json"
DISTILLATION = register(RunKind(
    name="distillation run", command="otrio train (a distill: section)", marker=CONFIG_FILE,
    files=(
        RunFile(CONFIG_FILE, "marker", "the run's config (rounds may be appended)"),
        RunFile("round_*/run.json", "marker", "a round's teacher games' identity"),
        RunFile(f"round_*/{RECORDS_FILE}", "record", "the teacher games with their labels, "
                "re-played and audited before a network learns from them"),
        RunFile(f"round_*/{REJECTED_FILE}", "aside", "lines a repair moved aside"),
        RunFile("round_*/fit/*", "state", "the fit after each epoch (a stopped fit resumes)"),
        RunFile(f"round_*/{ROUND_FILE}", "record", "the round's record: the sha256 of its "
                "network, weights, fit log and evaluation"),
        RunFile(f"round_*/{NET}", "record", "the round's network (named by its record)"),
        RunFile("round_*/net.safetensors", "record", "its weights (named by its record)"),
        RunFile(f"round_*/{FIT_LOG}", "record", "the fit's losses (named by its record)"),
        RunFile(f"round_*/{EVAL_FILE}", "record", "the network against the evaluation "
                "opponents (named by its record)"),
        RunFile(ROUNDS_FILE, "derived", "one line a round, recomputed on every call"),
        RunFile("report.md", "derived", "the report"),
        RunFile("strength.png", "derived", "strength by round"),
        RunFile("tb/*", "derived", "TensorBoard's logs")),
    folders=("round_*", "round_*/fit", "tb", "tb/*")))
# config keys that may change when a run is resumed (rounds may also be appended)
RESUMABLE = ("eval", "total_timesteps", "output")


def round_dir(folder: Path, k: int) -> Path:
    """The folder of round ``k`` (from 1)."""
    return folder / f"round_{k}"


def teacher_spec(template: str, previous: Path | None, k: int) -> str:
    """Round ``k``'s teacher spec: ``{previous}`` replaced by the previous network."""
    if PREVIOUS in template:
        if previous is None:
            raise ConfigError(f"distill round {k}: {template!r} uses {PREVIOUS}, but "
                              "round 1 has no previous network")
        return template.replace(PREVIOUS, str(previous))
    return template


def round_specs(cfg: TrainConfig, k: int, previous: Path | None) -> tuple[str, str | None]:
    """Round ``k``'s teacher spec and its player's (None: the teacher plays), ``{previous}``
    replaced by the previous round's network."""
    rnd = cfg.distill.rounds[k - 1]
    player = None if rnd.player is None else teacher_spec(rnd.player, previous, k)
    return teacher_spec(rnd.teacher, previous, k), player


def check_distill(cfg: TrainConfig) -> None:
    """The config's problems that would stop the run, before any folder is made."""

    params = cfg.distill
    for k, rnd in enumerate(params.rounds, 1):
        for players in rnd.games:
            env = envs.make(cfg.game, **{**cfg.game_config, "num_players": players})
            for spec in (rnd.teacher, rnd.player):
                if spec is None:
                    continue
                if PREVIOUS not in spec:
                    agents.check_spec(spec, env)
                elif k == 1:
                    teacher_spec(spec, None, 1)
                if spec == "human":
                    raise ConfigError("a human cannot teach or play a distillation run")
    env = envs.make(cfg.game, **cfg.game_config)
    for spec in cfg.eval.opponents:
        agents.check_spec(spec, env)
    if params.init is not None:
        initial_network(cfg)


def run_config(folder: Path, sets: Sequence[str] = ()) -> TrainConfig:
    """The config saved in a distillation run's ``folder``, read as untrusted data
    (:func:`otrio.envs.core.files.read_json`), with ``sets`` (``KEY=VALUE``) applied."""
    raw = read_json(folder / CONFIG_FILE, f"the run's config {folder / CONFIG_FILE}", folder,
                    ConfigError)
    return validate(TrainConfig, apply_sets(raw, sets, "run's config"))


def _compare_config(folder: Path, cfg: TrainConfig) -> None:
    """Refuse a folder that holds a run of another config; rounds may be appended. The
    saved config is read as untrusted data (:func:`otrio.envs.core.files.read_json`)."""

    config_file = folder / CONFIG_FILE
    saved = cfg.model_dump(mode="json")
    if exists(config_file):
        previous = run_config(folder).model_dump(mode="json")
        if previous.get("distill") is None:
            raise ConfigError(f"{folder} holds a PPO training run, not a distillation run; use "
                              "a new output folder")
        old_rounds, new_rounds = previous["distill"]["rounds"], saved["distill"]["rounds"]
        same = ({k: v for k, v in previous.items() if k not in RESUMABLE + ("distill",)}
                == {k: v for k, v in saved.items() if k not in RESUMABLE + ("distill",)}
                and {k: v for k, v in previous["distill"].items() if k != "rounds"}
                == {k: v for k, v in saved["distill"].items() if k != "rounds"}
                and new_rounds[:len(old_rounds)] == old_rounds)
        if not same:
            raise ConfigError(f"{folder} holds a distillation run of another config (only "
                              "eval may change, and rounds be added at the end); use a new "
                              "output folder")
    write_text(config_file, json.dumps(saved, indent=2, sort_keys=True) + "\n", folder)


def distill(cfg: TrainConfig, workers: int = 1, backend: str = "local",
            ray_address: str | None = None, progress: bool = True) -> Path:
    """Run (or resume) every round; return the last round's network (its manifest)."""

    if cfg.distill is None:
        raise ConfigError("this training config has no distill section")

    check_distill(cfg)
    resolve_device(cfg.distill.device, "distill.device")
    folder = Path(cfg.output)
    with RunFolder(DISTILLATION, folder):
        _compare_config(folder, cfg)
        return _rounds(cfg, folder, workers, backend, ray_address, progress)


def _rounds(cfg, folder, workers, backend, ray_address, progress) -> Path:
    torch.set_num_threads(cfg.torch_threads)
    params: DistillParams = cfg.distill
    previous: Path | None = None
    lines = []
    played: dict[int, list[dict]] = {}  # each round's records, checked by generate()
    for k in range(1, len(params.rounds) + 1):
        here = real_dir(round_dir(folder, k), folder)
        spec, player = round_specs(cfg, k, previous)
        start = time.perf_counter()
        records = played[k] = generate(cfg, k, spec, here, workers, backend, ray_address,
                                       progress, player)
        window = range(max(1, k - params.window + 1) if params.window else 1, k + 1)
        net, fit_lines = fit_round(cfg, k, [played[j] for j in window], here,
                                   previous if params.warm else None, progress)
        results = evaluate_round(cfg, k, net, here)
        line = {"round": k, "teacher": spec, **({} if player is None else {"player": player}),
                "games": len(records), "decisions": sum(len(r["labels"]) for r in records),
                "teacher_seconds": round(sum(r["wall_time"] for r in records), 1),
                "fit_seconds": fit_lines[-1].get("fit_seconds") if fit_lines else None,
                "fit": fit_lines[-1] if fit_lines else None, "eval": results,
                "wall_seconds_this_call": round(time.perf_counter() - start, 1)}
        lines.append(line)
        previous = net
        if progress:
            shown = "; ".join(f"vs {o} {v['win_rate']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
                              for o, v in results.items())
            print(f"round {k}: {line['decisions']} decisions from {line['games']} games; "
                  f"network alone {shown}", flush=True)
    # recomputed on every call from what was checked above, never read back
    write_text(folder / ROUNDS_FILE, "".join(json.dumps(line, sort_keys=True) + "\n"
                                             for line in lines), folder)
    write_report(cfg, folder, lines)
    return previous


# ------------------------------------------------------------- teacher games
def round_tasks(cfg: TrainConfig, k: int, spec: str, player: str | None = None
                ) -> list[TeacherTask]:
    """Round ``k``'s teacher games, in order: every player count's games, counts ascending
    (``player``: who plays them, the teacher labelling; None: the teacher plays)."""
    tasks = []
    for players, count in cfg.distill.rounds[k - 1].games.items():
        for _ in range(count):
            g = len(tasks)
            tasks.append(TeacherTask(game=g, env_id=cfg.game,
                                     config={**cfg.game_config, "num_players": players},
                                     teacher=spec, seed=derive_seed(cfg.seed, "distill", k, g),
                                     player=player))
    return tasks


def _open_round(cfg: TrainConfig, k: int, spec: str, here: Path, progress: bool,
                player: str | None) -> tuple[list[TeacherTask], list[dict]]:
    """Round ``k``'s tasks and the records already in ``here``, every one re-played."""
    tasks = round_tasks(cfg, k, spec, player)
    identity = {"round": k, "env_id": cfg.game, "teacher": spec, "seed": cfg.seed,
                "games": [[t.config["num_players"], t.seed] for t in tasks],
                **({} if player is None else {"player": player})}
    num_actions = envs.make(cfg.game, **cfg.game_config).unwrapped.game.info.num_actions
    done = open_run(here, identity, schema=teacher_schema(tasks, num_actions),
                    progress=progress)  # every recorded game re-played (verify="all")
    if progress and done:
        print(f"round {k}: {done.verification.describe()}", flush=True)
    return tasks, done


def generate(cfg: TrainConfig, k: int, spec: str, here: Path, workers: int, backend: str,
             ray_address: str | None, progress: bool, player: str | None = None) -> list[dict]:
    """Play (or finish) round ``k``'s teacher games into ``here/games.jsonl`` (played by
    ``player`` and labelled by the teacher, where a player is named); return every
    record, in game order."""
    tasks, done = _open_round(cfg, k, spec, here, progress, player)
    have = {r["game"] for r in done}
    todo = [t for t in tasks if t.game not in have]
    records = list(done)
    if todo:
        bar = None
        if progress:
            bar = tqdm(total=len(tasks), initial=len(have), unit="game",
                       desc=f"round {k} teacher games")
        with RecordWriter(here / RECORDS_FILE) as writer:
            for record in run_ordered(teacher_game, todo, workers, backend, ray_address,
                                      chunksize=1):
                writer.write(record)
                records.append(record)
                if bar:
                    bar.update(1)
        if bar:
            bar.close()
    by_game = {r["game"]: r for r in records}
    return [by_game[t.game] for t in tasks]


def recorded_round(run: Path, cfg: TrainConfig, k: int, progress: bool = False) -> list[dict]:
    """Every record of round ``k`` of the run in ``run`` (config ``cfg``), re-played and
    checked as a resumed run checks them, in game order; a :class:`ConfigError` if the
    round's games are not all recorded (no game is played: for tools that read a round)."""
    rounds = len(cfg.distill.rounds)
    if not 1 <= k <= rounds:
        raise ConfigError(f"no round {k}: the run has {rounds} round{'s' * (rounds > 1)}")
    if not (round_dir(run, k) / RECORDS_FILE).is_file():
        raise ConfigError(f"round {k} of {run} has no teacher games")
    spec, player = round_specs(cfg, k, round_dir(run, k - 1) / NET if k > 1 else None)
    tasks, done = _open_round(cfg, k, spec, round_dir(run, k), progress, player)
    if len(done) < len(tasks):
        raise ConfigError(f"round {k} of {run} holds {len(done)} of its {len(tasks)} games")
    by_game = {r["game"]: r for r in done}
    return [by_game[t.game] for t in tasks]


# -------------------------------------------------------------------- fit
def new_network(cfg: TrainConfig, seed: int):
    """A fresh policy-value network (an MLP encoder, linear heads) for ``cfg.game``: the
    ``trunk`` encoder, or the ``hinted`` one whose heads also read the hints, its policy
    head then started at ``distill.hint_start`` (:func:`start_from_hints`)."""
    env = envs.make(cfg.game, **cfg.game_config)
    size = observation_size(env, cfg.hints)  # with greedy's hints appended, if it reads them
    info = env.unwrapped.game.info
    space = gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32)
    params = cfg.distill
    kwargs = policy_kwargs(params.encoder, [], hint_size=hint_size(info.num_actions),
                           trunk=list(params.trunk))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        policy = MaskableActorCriticPolicy(space, gymnasium.spaces.Discrete(info.num_actions),
                                           lambda _: 0.0, activation_fn=torch.nn.ReLU, **kwargs)
    if params.hint_start:
        start_from_hints(policy, params.hint_start, info.num_actions)
    return policy


def start_from_hints(policy, weight: float, num_actions: int) -> None:
    """Give each action's logit ``weight`` x each of its own hints (greedy's best mark and
    its closeness, :mod:`otrio.agents.hints`) in a hinted network's policy head, whose
    inputs end with the hints: the fresh network then plays greedy's choice (its other
    inputs start near zero), and the fit learns where the teacher departs from it."""
    head = policy.action_net.weight  # (actions, features + hints)
    hints_at = head.shape[1] - hint_size(num_actions)
    actions = torch.arange(num_actions)
    with torch.no_grad():
        for block in BLOCKS:
            head[actions, hints_at + block_offset(block, num_actions) + actions] = weight


def initial_network(cfg: TrainConfig):
    """Round 1's network loaded from ``distill.init``, refused unless it plays the run's
    game and reads its observation (:func:`otrio.training.train.starting_network`)."""

    return starting_network(cfg.distill.init, cfg, "distill.init")[0]


def net_meta(cfg: TrainConfig, k: int) -> dict:
    """The manifest facts of round ``k``'s exported network (its game, observation, seed
    and hints, and where it came from)."""
    info = envs.make(cfg.game, **cfg.game_config).unwrapped.game.info
    return {"env_id": info.env_id, "observation_size": info.observation_size,
            "num_actions": info.num_actions, "game_config": cfg.game_config,
            "seed": cfg.seed, "hints": cfg.hints,
            "exported_from": f"{cfg.output} (distillation round {k})"}


def held_out_games(games: int, held: int) -> np.ndarray:
    """Which of ``games`` teacher games (by game index) are kept aside: ``held`` of them,
    spread evenly over the game order, so that every player count and round is in both
    sets. (The last games alone, as before, are the largest player count's: a held-out
    loss of five-player Otontin games chose the epoch for a three-player network.)"""
    g = np.arange(games)
    return (g + 1) * held // games > g * held // games


def fit_round(cfg: TrainConfig, k: int, data: list[list[dict]], here: Path,
              previous: Path | None, progress: bool) -> tuple[Path, list[dict]]:
    """Fit round ``k``'s network to its window's teacher games (resuming a stopped fit)
    and export it; return ``(its manifest, the fit's lines)``. A network and fit log
    already there are used only if the round's record names them with their sha256
    (:mod:`otrio.training.distill_record`); others are exported again from the fit state."""
    root = Path(cfg.output)
    net, fit_file = here / NET, here / FIT_LOG
    weights = net.with_suffix(".safetensors")
    record = read_round(here, root)
    named = [bound(path, root, record.get(key))  # each checked: a changed one is refused
             for path, key in ((net, "net"), (weights, "weights"), (fit_file, "fit"))]
    if all(named):
        return net, read_json_lines(fit_file, root=root)
    stray = [path.name for path, ok in zip((net, weights, fit_file), named)
             if exists(path) and not ok]
    if stray:
        warnings.warn(f"{here}: {', '.join(stray)} not named by the round's record "
                      f"({ROUND_FILE}): not used; the round's network is exported again from "
                      "its fit state", stacklevel=2)
    params = cfg.distill
    start = time.perf_counter()
    audit([record for records in data for record in records])  # labels checked, a sample re-run
    rows = Examples.concatenate([examples(records, params.temperature, params.margin,
                                          progress, params.value_mix, cfg.hints,
                                          params.overrule)
                                 for records in data])
    games = int(rows.game_index.max()) + 1
    aside = held_out_games(games, int(round(games * params.held_out)))[rows.game_index]
    train_rows = rows.subset(~aside)
    test_rows = rows.subset(aside) if aside.any() else None
    if previous is not None:
        policy, _ = load_policy(previous)
    elif params.init is not None:
        policy = initial_network(cfg)
    else:
        policy = new_network(cfg, derive_seed(cfg.seed, "distill-net"))
    lines = fit(policy, train_rows, test_rows, params, derive_seed(cfg.seed, "distill-fit", k),
                real_dir(here / "fit", root), progress,
                log_dir=real_dir(root / "tb" / f"round_{k}", root))
    lines[-1]["fit_seconds"] = round(time.perf_counter() - start, 1)
    lines[-1]["rows"] = len(train_rows)
    text = "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)
    write_text(fit_file, text, root)
    save_policy(policy, net, net_meta(cfg, k))
    # the record last: it names what was just written (an evaluation is of another network)
    write_round(here, root, {"fit": hashlib.sha256(text.encode()).hexdigest(),
                             "net": digest(net, root), "weights": digest(weights, root)})
    return net, lines


def _forward(policy, obs, masks):
    """(log-probabilities over actions with illegal ones masked, values) of a batch."""

    features = policy.extract_features(obs, policy.features_extractor)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    logits = policy.action_net(latent_pi).masked_fill(~masks, -1e9)
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf).flatten()


def fit(policy, train: Examples, test: Examples | None, params: DistillParams, seed: int,
        state_dir: Path, progress: bool = False, log_dir: Path | None = None) -> list[dict]:
    """Train ``policy`` in place: soft cross-entropy to the policy targets plus
    ``value_weight`` x the value MSE, AdamW, ``epochs`` passes in an order drawn per
    epoch from ``seed``. After each epoch the network, the optimizer and the lines so
    far are saved in ``state_dir`` (:mod:`otrio.training.safe_state`); a call that finds them
    resumes after the last saved epoch. With ``select: best`` the network of the epoch
    with the lowest held-out loss (cross-entropy + ``value_weight`` x value MSE) is
    kept beside it and is what ``policy`` holds at the end (``selected_epoch`` in the
    last line). Returns one line per epoch."""
    if not len(train):
        raise ConfigError("a fit with no training rows: every game is held out (give it more "
                          "games or a smaller distill.held_out)")
    device = torch.device(resolve_device(params.device, "distill.device"))
    policy.to(device)  # before the optimizer, so that its state lives beside the weights
    optimizer = torch.optim.AdamW(policy.parameters(), lr=params.learning_rate,
                                  weight_decay=params.weight_decay)
    stem = state_dir / "state"
    lines: list[dict] = []
    if safe_state.exists(stem):
        lines = _fit_lines(stem, safe_state.load_state(stem, policy, optimizer), params.epochs)
    tensors = [torch.as_tensor(a) for a in (train.observations, train.masks, train.policy,
                                            train.value)]
    writer = None
    if log_dir is not None:
        writer = SummaryWriter(str(log_dir))
    for epoch in range(len(lines), params.epochs):
        policy.set_training_mode(True)
        order = torch.as_tensor(make_rng(derive_seed(seed, epoch)).permutation(len(train)))
        sums = np.zeros(3)
        for first in tqdm(range(0, len(order), params.batch_size), disable=not progress,
                          desc=f"fit epoch {epoch + 1}/{params.epochs}", leave=False):
            idx = order[first:first + params.batch_size]
            obs, masks, target, value = (t[idx].to(device) for t in tensors)
            logp, predicted = _forward(policy, obs, masks)
            cross_entropy = -(target * logp).sum(dim=1).mean()
            value_mse = torch.mean((predicted - value) ** 2)
            loss = cross_entropy + params.value_weight * value_mse
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            sums += np.array([loss.item(), cross_entropy.item(), value_mse.item()]) * len(idx)
        line = {"epoch": epoch + 1, "loss": sums[0] / len(train),
                "cross_entropy": sums[1] / len(train), "value_mse": sums[2] / len(train)}
        if test is not None and len(test):
            line.update({f"held_out_{k}": v for k, v in assess(policy, test, device).items()})
            line["held_out_loss"] = (line["held_out_cross_entropy"]
                                     + params.value_weight * line["held_out_value_rmse"] ** 2)
        lines.append(line)
        if params.select == "best" and "held_out_loss" in line and line["held_out_loss"] <= min(
                x["held_out_loss"] for x in lines):
            safe_state.save_state(state_dir / "best", policy, optimizer, {"epoch": epoch + 1})
        safe_state.save_state(stem, policy, optimizer, {"lines": lines})
        if writer is not None:
            for key, value in line.items():
                if key != "epoch":
                    writer.add_scalar(f"fit/{key}", value, epoch + 1)
        if progress:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in line.items() if k != "epoch")
            print(f"fit epoch {epoch + 1}: {shown}", flush=True)
    if writer is not None:
        writer.close()
    if params.select == "best" and safe_state.exists(state_dir / "best"):
        best = safe_state.load_state(state_dir / "best", policy, optimizer).get("epoch")
        if type(best) is not int or not 1 <= best <= len(lines):
            raise StateError(f"{state_dir / 'best'}.json names no epoch of the fit")
        lines[-1]["selected_epoch"] = best
    policy.to("cpu")  # exported and played on the CPU
    policy.set_training_mode(False)
    return lines


def _fit_lines(stem: Path, meta: dict, epochs: int) -> list[dict]:
    """The log lines a fit state keeps (one an epoch done, numbers only), checked: a
    :class:`StateError` naming the state if they are not what :func:`fit` wrote."""
    lines = meta.get("lines")  # never absent: a state without it would fit its epochs again
    if not (isinstance(lines, list) and len(lines) <= epochs and all(
            isinstance(line, dict) and line.get("epoch") == n + 1 and all(
                type(v) in (int, float) for v in line.values())
            for n, line in enumerate(lines))):
        raise StateError(f"{stem}.json does not hold a fit's epochs (1 to at most {epochs}, "
                         "numbers each): remove the round's fit folder to fit it again")
    return lines


def assess(policy, rows: Examples, device="cpu", batch: int = 4096) -> dict[str, float]:
    """On ``rows``: cross-entropy to the targets, how often the network's favourite is
    the target's, and the value RMSE."""

    policy.set_training_mode(False)
    ce = agree = se = 0.0
    with torch.no_grad():
        for first in range(0, len(rows), batch):
            obs, masks, target, value = (torch.as_tensor(a[first:first + batch]).to(device) for a in
                                         (rows.observations, rows.masks, rows.policy, rows.value))
            logp, predicted = _forward(policy, obs, masks)
            ce += float(-(target * logp).sum())
            agree += float((logp.argmax(1) == target.argmax(1)).sum())
            se += float(((predicted - value) ** 2).sum())
    n = max(len(rows), 1)
    return {"cross_entropy": ce / n, "agreement": agree / n, "value_rmse": (se / n) ** 0.5}


# --------------------------------------------------------------- evaluate
def evaluate_round(cfg: TrainConfig, k: int, net: Path, here: Path) -> dict:
    """The network alone against each evaluation opponent (``here/eval.json``, kept
    once measured for this number of games and believed only while the round's record
    names it with its sha256: :mod:`otrio.training.distill_record`)."""
    root = Path(cfg.output)
    out = here / EVAL_FILE
    record = read_round(here, root)
    saved = record.get("eval") or {}
    if (saved.get("games") == cfg.eval.games and saved.get("opponents") == list(cfg.eval.opponents)
            and bound(out, root, saved.get("sha256"))):
        results = read_json(out, root=root).get("results")
        if isinstance(results, dict):
            return results
    results = evaluate(net, cfg, cfg.eval.games, derive_seed(cfg.seed, "distill-eval", k))
    text = json.dumps({"games": cfg.eval.games, "opponents": list(cfg.eval.opponents),
                       "results": results}, indent=2, sort_keys=True) + "\n"
    write_text(out, text, root)
    record["eval"] = {"sha256": hashlib.sha256(text.encode()).hexdigest(),
                      "games": cfg.eval.games, "opponents": list(cfg.eval.opponents)}
    write_round(here, root, record)
    return results


__all__ = ["assess", "distill", "fit", "fit_round", "generate", "new_network", "round_dir",
           "round_tasks", "teacher_spec"]
