"""``otrio play``: one game at the terminal, humans against agents, saved mid-game and
resumed.

At a human's prompt, ``save [FILE]`` writes the game so far (:func:`write_save`) and the
game goes on; ``otrio play --resume FILE`` continues it (:func:`load_save`). A save holds
the env id, its config, the seats (agent specs), the seed, the finished game's record
file (``--save``) and every move so far, with a digest of the whole. Resuming re-plays
the moves from the seed, and every agent seat thinks its own moves again, so each agent
goes on with the state it had (its generator, its search): the resumed game is the one
that would have been played without the break.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
import warnings
from collections import deque
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from otrio.arena.games import MAX_SEATS, game_record
from otrio.arena.outputs import check_output_file, os_error_message, prepare_output_file
from otrio.arena.records import RecordModel, ReplayField
from otrio.arena.replay import ReplayError, decode_actions, replay_field
from otrio.envs.core.bounded import read_json
from otrio.envs.core.errors import ConfigError, OtrioError, StateError
from otrio.envs.core.files import write_text_atomic
from otrio.envs.core.registry import game_name

from .cli_args import GAME_HELP, game_arg, seed_arg, trust_flag

SAVE_KIND = "otrio play save"
SAVE_FORMAT = 1
MAX_PLAY_SAVE_BYTES = 4 << 20  # a saved game (the longest games save in under 10 kB)
SLOW_TO_LOAD = ("ppo", "net", "mcts")  # agent kinds that load a network or torch: seconds

DESCRIPTION = (
    "Play one game at the terminal: human seats type their moves, agent seats play "
    "theirs. At a human's prompt, `save [FILE]` writes the game so far and play goes on; "
    "`otrio play --resume FILE` continues it with the same seats, seed and --save file. "
    "--save FILE writes the finished game as a record for `otrio replay`.\n\n"
    "A saved game is the whole game, not one seat's view: its seed and moves give every "
    "hand and the order of every deck. Hand it only to whoever may see the whole table.")


class PlaySave(RecordModel):
    """A game saved mid-play, as :func:`write_save` writes it."""

    kind: Literal["otrio play save"]
    format: Literal[1]
    seats: list[Annotated[str, Field(min_length=1, max_length=1000)]] = Field(
        min_length=1, max_length=MAX_SEATS)
    seed: int = Field(ge=0)
    record: Annotated[str, Field(min_length=1, max_length=4096)] | None  # the --save file
    replay: ReplayField  # env id, config and the moves so far
    digest: str  # sha256 of everything else (:func:`_digest`)


def add_parser(sub) -> None:
    """The ``play`` subcommand."""
    play = sub.add_parser("play", help="play a game at the terminal against agents; save "
                          "and resume it", description=DESCRIPTION)
    play.add_argument("game", nargs="?", type=game_arg, metavar="GAME",
                      help=f"{GAME_HELP}; not with --resume")
    play.add_argument("--seats",
                      help="comma-separated specs, one a seat in seat order, e.g. "
                      "human,greedy,mcts:iterations=64,top=4 (human: you type the moves); no "
                      "default: needed unless --resume")
    play.add_argument("--seed", type=seed_arg,
                      help="the game's seed (default 0; with --resume, the save's)")
    play.add_argument("--save", metavar="FILE",
                      help="write the finished game to FILE as a replayable record (one "
                      "JSON line, as a tournament's games.jsonl holds); watch it with "
                      "`otrio replay FILE` (default: not saved; with --resume, the file "
                      "the saved game named)")
    play.add_argument("--resume", metavar="FILE",
                      help="continue a game saved with `save` at a human's prompt: its game, "
                      "seats, seed and --save file; the moves so far are played again first "
                      "(default: a new game)")
    trust_flag(play)
    play.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``otrio play``: a new game, or (``--resume``) a saved one continued."""
    from otrio import agents  # deferred: start-up

    if args.resume is not None:
        given = [name for name, value in (("GAME", args.game), ("--seats", args.seats),
                                          ("--seed", args.seed)) if value is not None]
        if given:
            raise OtrioError(f"--resume continues the saved game with its own game, seats "
                             f"and seed: leave out {', '.join(given)}")
        saved = load_save(args.resume)
        env_id, seats, seed = saved.replay.env_id, list(saved.seats), saved.seed
        record = args.save if args.save is not None else saved.record
        moves = decode_actions(saved.replay.actions, saved.replay.width)
    else:
        if args.game is None or args.seats is None:
            raise OtrioError("play needs a game and --seats, e.g. otrio play oceanos --seats "
                             "human,greedy (or --resume FILE to continue a saved game)")
        env_id, seats, seed = args.game, agents.split_specs(args.seats), args.seed or 0
        record, moves = args.save, []
    if record is not None:
        check_output_file(record, "--save file")  # before the game, not after it
    play_in_terminal(env_id, seats, seed, record=record, moves=moves, save_file=args.resume)
    return 0


def play_in_terminal(env_id: str, seats: list[str], seed: int, record: str | None = None,
                     moves: list[int] | None = None, save_file: str | None = None):
    """One game at the terminal between the agents of ``seats`` (specs; ``human`` seats
    type their moves), announcing every agent's move and printing the final table.

    ``moves`` (a resumed game's) are played first, each agent seat choosing its own
    again (a different choice is warned of; the saved move stands). A human's ``save``
    writes the game so far to the file typed, else ``save_file``, else
    ``GAME_seedSEED.save.json``. With ``record``, the finished game's record (as a
    tournament writes it, game 0) is written there as one JSON line, which
    ``otrio replay FILE`` replays. Returns that record, or None when a human quit."""
    from otrio import agents, envs  # deferred: start-up
    from otrio.agents.human import QuitGame  # deferred: start-up
    from otrio.arena.play import play_seated  # deferred: start-up
    from otrio.envs.core.rng import derive_seed  # deferred: start-up

    config = {"num_players": len(seats)}
    env = envs.make(env_id, **config)
    players, actions = [], []
    last_save = {"file": save_file, "written": False}

    def saver(path: str | None) -> str:
        path = path or last_save["file"] or f"{game_name(env_id)}_seed{seed}.save.json"
        try:
            write_save(path, env_id, config, seats, seed, record, actions,
                       env.unwrapped.game.info.num_actions)
        except OtrioError as err:
            return f"not saved: {err}; the game goes on"
        except OSError as err:
            return f"not saved: {os_error_message(err)}; the game goes on"
        last_save.update(file=path, written=True)
        return (f"saved the game so far ({len(actions)} moves) to {path}; continue it later "
                f"with: otrio play --resume {path} (the file holds every hand: keep it to "
                "yourself)")

    for seat, spec in enumerate(seats):
        slow = spec.partition(":")[0] in SLOW_TO_LOAD
        if slow:
            print(f"loading agent {spec} for player_{seat} ...", end=" ", flush=True)
            begun = time.perf_counter()
        players.append(agents.make(spec, env))
        if slow:
            print(f"ready ({time.perf_counter() - begun:.1f} s)", flush=True)
        if spec == "human":
            players[-1].saver = saver
    env.reset(seed=seed)
    for seat, agent in enumerate(players):
        agent.reset(derive_seed(seed, "agent", seat))
    index = {a: k for k, a in enumerate(env.possible_agents)}
    replayed = len(moves or [])
    if replayed:
        print(f"replaying the {replayed} saved moves (each agent chooses its own again) ...",
              flush=True)
        saved = deque(moves)
        players = [_Resumed(player, saved, seats[k] == "human", f"player_{k} ({seats[k]})")
                   for k, player in enumerate(players)]

    def announce(agent: str, action: int) -> None:
        actions.append(int(action))
        if len(actions) == replayed:
            print("the saved game is where it was left; play goes on", flush=True)
        if len(actions) > replayed and seats[index[agent]] != "human":
            print(f"{agent} ({seats[index[agent]]}): {env.unwrapped.action_name(action)}")

    start = time.perf_counter()
    try:
        play_seated(env, players, on_action=announce)
    except (EOFError, QuitGame) as err:
        kept = (f" (the game so far is in {last_save['file']}: otrio play --resume "
                f"{last_save['file']} continues it)" if last_save["written"]
                else " (nothing saved)" if record else "")
        if isinstance(err, EOFError):  # a human seat's input ended
            raise OtrioError(f"{err or 'input closed'}; the game is abandoned{kept}") from None
        print(f"\n{err}: the game is abandoned{kept}")
        return None
    result = game_record(env, 0, seed, seats, env_id, config, actions,
                         time.perf_counter() - start)
    print(env.unwrapped.game.render(env.unwrapped.state_))
    if record is not None:
        prepare_output_file(record, "--save file")
        write_text_atomic(record, json.dumps(result, sort_keys=True) + "\n")
        print(f"saved the game to {record} (watch it: otrio replay {record})")
    return result


class _Resumed:
    """A seat of a resumed game: the saved moves first (an agent seat chooses its own
    again, so that its generator and search go on as they would have), then its own."""

    def __init__(self, agent, saved: deque, human: bool, who: str):
        self.agent, self.saved, self.human, self.who = agent, saved, human, who

    def act(self, observation) -> int:
        if not self.saved:
            return self.agent.act(observation)
        move = self.saved.popleft()
        if not self.human:
            mine = int(self.agent.act(observation))
            if mine != move:
                warnings.warn(f"{self.who} now chooses action {mine} where the save has "
                              f"{move} (did the agent change since?); the saved move "
                              "stands, and the game may go on otherwise than it would have",
                              stacklevel=2)
        return move


# ------------------------------------------------------------------ save files
def _digest(save: dict[str, Any]) -> str:
    """The sha256 of a save's content (all but its digest), as canonical JSON."""
    body = {key: value for key, value in save.items() if key != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def _canonical_seat(spec: str) -> str:
    """A seat's spec with each file it names beside the current folder made absolute,
    so that a save resumes from any folder."""
    from otrio.envs.core.paths import rebase_spec  # deferred: start-up

    return rebase_spec(spec, Path.cwd())


def write_save(path: str | Path, env_id: str, config: dict[str, Any], seats: list[str],
               seed: int, record: str | None, actions: list[int], num_actions: int) -> None:
    """Write the game so far to ``path``, atomically (a failure leaves the old file)."""
    check_output_file(path, "save file")
    save = {"kind": SAVE_KIND, "format": SAVE_FORMAT,
            "seats": [_canonical_seat(spec) for spec in seats], "seed": seed,
            "record": None if record is None else str(Path(record).absolute()),
            "replay": replay_field(env_id, config, num_actions, actions)}
    save["digest"] = _digest(save)
    prepare_output_file(path, "save file")
    write_text_atomic(path, json.dumps(save, indent=1, sort_keys=True) + "\n")


def load_save(path: str | Path) -> PlaySave:
    """The game saved at ``path``, checked whole: one :class:`StateError` line for a file
    that is missing, too large, not JSON, another kind of file, damaged (its digest),
    or whose moves do not replay (an illegal move, a game already over)."""
    from pydantic import ValidationError  # deferred: start-up

    from otrio.envs.core.config import format_validation_error  # deferred: start-up

    what = f"the saved game {path}"
    data = read_json(path, MAX_PLAY_SAVE_BYTES, what, StateError)
    if not isinstance(data, dict) or data.get("kind") != SAVE_KIND:
        raise StateError(f"{path} is not a game saved by otrio play (a save says "
                         f"\"kind\": \"{SAVE_KIND}\"; `save` at a human's prompt writes one)")
    if data.get("format") != SAVE_FORMAT:
        raise StateError(f"{what} is in another format ({str(data.get('format'))[:20]}, not "
                         f"{SAVE_FORMAT}): another version of otrio wrote it")
    if data.get("digest") != _digest(data):
        raise StateError(f"{what} is damaged: its content does not match its digest (the "
                         "file was changed after it was saved)")
    try:
        saved = PlaySave.model_validate(data)
    except ValidationError as err:
        raise StateError(f"{what} is corrupt: {format_validation_error(PlaySave, err)}") from None
    _check_moves(saved, what)
    return saved


def _check_moves(saved: PlaySave, what: str) -> None:
    """That the saved moves replay from the seed, every one legal, and leave the game
    on (a bare env: no agent is loaded for it)."""
    from otrio import envs  # deferred: start-up

    replay = saved.replay
    try:
        env = envs.make(replay.env_id, **replay.config)
    except ConfigError as err:
        raise StateError(f"{what} is corrupt: cannot build {replay.env_id!r}: {err}") from None
    if env.unwrapped.num_players != len(saved.seats):
        raise StateError(f"{what} is corrupt: {len(saved.seats)} seats for a game of "
                         f"{env.unwrapped.num_players} players")
    try:
        moves = decode_actions(replay.actions, replay.width)
    except ReplayError as err:
        raise StateError(f"{what} is corrupt: {err}") from None
    env.reset(seed=saved.seed)
    for step, move in enumerate(moves):
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            raise StateError(f"{what} is corrupt: the game is over after {step} moves, but "
                             f"it holds {len(moves)}")
        if move not in env.unwrapped.legal_actions():
            raise StateError(f"{what} is corrupt: move {step} (action {move}) is not legal "
                             f"for {env.agent_selection} there")
        env.step(move)
    _, _, term, trunc, _ = env.last(observe=False)
    if term or trunc:
        raise StateError(f"{what} holds a finished game ({len(moves)} moves): nothing is "
                         "left to play")
