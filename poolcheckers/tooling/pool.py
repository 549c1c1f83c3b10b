"""Game pairs, played in this process or in a pool of worker processes.

A pair is one opening played twice, once with each colour: what an SPRT test
counts (:mod:`poolcheckers.tooling.sprt`).  Each worker process makes its own
two players from their :class:`PlayerSpec` (an engine and its table cannot
cross processes) and sends back each pair's games as notation
(:class:`PairGame`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from poolcheckers.engine import (
    DEFAULT_EVALUATION,
    MAX_LEVEL,
    EngineLike,
    load_weights,
    make_limit,
    open_engine,
)
from poolcheckers.rules import RuleSet
from poolcheckers.tooling import ToolingError
from poolcheckers.tooling.games import (
    EnginePlayer,
    Player,
    TimeControl,
    play_clock_game,
    points_of_a,
    time_control,
)
from poolcheckers.tooling.hubclient import HubPlayer
from poolcheckers.tooling.match import GameRecord
from poolcheckers.tooling.openings import board_notations, opening_board

#: How a match makes an engine: (table MiB, rules, weights file or None).
EngineFactory = Callable[[int, RuleSet, str | None], EngineLike]


@dataclass(frozen=True)
class PlayerSpec:
    """How to make a player in any process: the engine at a level (weights,
    table, threads), or a Hub engine's command line."""

    name: str
    level: int = MAX_LEVEL
    weights: str | None = None
    hash_mb: int = 64
    threads: int = 1
    hub: tuple[str, ...] | None = None
    #: a Hub engine is sent the position alone, not the game's moves
    hub_position_only: bool = False
    #: the evaluation: "nnue" (the shipped network), "pattern" or a network weights
    #: file; None: the engine's own (the network, or the pattern evaluation when
    #: ``weights`` are its weights)
    evaluation: str | None = None


def open_weighted_engine(hash_mb: int, rules: RuleSet, weights: str | None = None) -> EngineLike:
    """A new engine with ``weights`` (a JSON weights file, or the shipped weights);
    a file or table size the engine refuses is a :class:`~poolcheckers.tooling.ToolingError`."""
    try:
        values = None if weights is None else load_weights(weights)
        return open_engine(hash_mb, rules, weights=values)
    except ValueError as exc:
        raise ToolingError(str(exc)) from None


def make_player(
    spec: PlayerSpec,
    rules: RuleSet,
    limit_kwargs: dict[str, Any],
    factory: EngineFactory | None = None,
) -> Player:
    """The player of ``spec`` with the per-move bound ``limit_kwargs`` (time,
    depth or nodes; with a game clock, ``clock`` and ``increment``: the player
    then takes the clock of each move from the game)."""
    if spec.hub is not None:
        return HubPlayer(
            spec.hub,
            spec.name,
            move_time=limit_kwargs.get("time"),
            depth=limit_kwargs.get("depth"),
            nodes=limit_kwargs.get("nodes"),
            hash_mb=spec.hash_mb,
            params=[("threads", str(spec.threads))] if spec.threads != 1 else (),
            position_only=spec.hub_position_only,
        )
    engine = (factory or open_weighted_engine)(spec.hash_mb, rules, spec.weights)
    if spec.threads != 1:
        engine.threads = spec.threads  # type: ignore[attr-defined]
    set_evaluation(engine, spec.evaluation)
    return EnginePlayer(engine, make_limit(**limit_kwargs), spec.level, spec.name)


def set_evaluation(engine: EngineLike, evaluation: str | None) -> None:
    """Make ``engine`` evaluate with ``evaluation`` (nothing to do for None or when it
    already does); a weights file the engine refuses is a
    :class:`~poolcheckers.tooling.ToolingError` naming it and the problem."""
    if evaluation is None or getattr(engine, "evaluation", DEFAULT_EVALUATION) == evaluation:
        return
    from poolcheckers.engine.nnue import NetworkError

    try:
        engine.set_evaluation(evaluation)  # type: ignore[attr-defined]
    except NetworkError as exc:
        raise ToolingError(str(exc)) from None


#: One finished game of a pair: moves (notation), result, reason, A plays Black, seconds.
GameData = tuple[tuple[str, ...], str, str, bool, float]


@dataclass(frozen=True)
class PairGame:
    """One finished game of a pair, as it travels back from a worker process."""

    moves: tuple[str, ...]
    result: str
    reason: str
    a_black: bool
    seconds: float
    time_loss: bool = False
    clock_left: tuple[float, float] | None = None

    @property
    def data(self) -> GameData:
        return (self.moves, self.result, self.reason, self.a_black, self.seconds)


def play_pair(
    player_a: Player, player_b: Player, opening: Sequence[str], rules: RuleSet
) -> list[GameData]:
    """The two games of ``opening``: A with Black, then A with White."""
    return [game.data for game in play_pair_games(player_a, player_b, opening, rules)]


def play_pair_games(
    player_a: Player,
    player_b: Player,
    opening: Sequence[str],
    rules: RuleSet,
    control: TimeControl | None = None,
) -> list[PairGame]:
    """:func:`play_pair`, on ``control``'s clock if given, with the clocks' results."""
    games: list[PairGame] = []
    for a_black in (True, False):
        black, white = (player_a, player_b) if a_black else (player_b, player_a)
        for player in (black, white):
            new_game = getattr(player, "new_game", None)
            if callable(new_game):
                new_game()
        start = time.perf_counter()
        game = play_clock_game(black, white, opening, rules, control)
        games.append(
            PairGame(board_notations(game.board), game.result, game.reason, a_black,
                     time.perf_counter() - start, game.time_loss, game.clock_left)
        )  # fmt: skip
    return games


def pair_records(
    games: Sequence[PairGame],
    opening: tuple[str, ...],
    rules: RuleSet,
    name_a: str,
    name_b: str,
) -> list[GameRecord]:
    """The games of a pair as a match records them (the boards replayed)."""
    records = []
    for game in games:
        board = opening_board((), rules)
        for text in game.moves:
            board.push_notation(text)
        records.append(
            GameRecord(
                opening=opening,
                board=board,
                black=name_a if game.a_black else name_b,
                white=name_b if game.a_black else name_a,
                result=game.result,
                reason=game.reason,
                a_is_black=game.a_black,
                a_points=points_of_a(game.result, game.a_black),
                seconds=game.seconds,
                time_loss=game.time_loss,
                clock_left=game.clock_left,
            )
        )
    return records


_WORKER: dict[str, Any] = {}


def _init_worker(
    spec_a: PlayerSpec, spec_b: PlayerSpec, rules: dict[str, Any], limit_kwargs: dict[str, Any]
) -> None:
    ruleset = RuleSet.from_dict(rules)
    _WORKER["rules"] = ruleset
    _WORKER["control"] = time_control(limit_kwargs)
    _WORKER["a"] = make_player(spec_a, ruleset, limit_kwargs)
    _WORKER["b"] = make_player(spec_b, ruleset, limit_kwargs)


def _pair_task(task: tuple[int, tuple[str, ...]]) -> tuple[int, list[PairGame]]:
    number, opening = task
    games = play_pair_games(
        _WORKER["a"], _WORKER["b"], opening, _WORKER["rules"], _WORKER["control"]
    )
    return number, games


def run_pairs(
    spec_a: PlayerSpec,
    spec_b: PlayerSpec,
    openings: Sequence[tuple[str, ...]],
    *,
    pairs: int,
    rules: RuleSet,
    limit_kwargs: dict[str, Any],
    concurrency: int = 1,
    on_pair: Callable[[int, tuple[str, ...], list[PairGame]], bool],
    players: tuple[Player, Player] | None = None,
    done: Collection[int] = frozenset(),
) -> None:
    """Play ``pairs`` pairs, cycling ``openings``; ``on_pair`` after each (in
    the order they finish) returns True to stop.  ``concurrency`` > 1 plays
    pairs in that many processes (each with its own two players);
    ``players`` (in-process only) replaces the players made from the specs.
    A ``clock`` in ``limit_kwargs`` plays every game on that clock.  The pair
    numbers in ``done`` (a match resumed) are not played."""
    control = time_control(limit_kwargs)
    tasks = [(n, tuple(openings[n % len(openings)])) for n in range(pairs) if n not in done]
    if not tasks:
        return
    if concurrency <= 1:
        a, b = players if players is not None else (
            make_player(spec_a, rules, limit_kwargs),
            make_player(spec_b, rules, limit_kwargs),
        )  # fmt: skip
        try:
            for number, opening in tasks:
                if on_pair(number, opening, play_pair_games(a, b, opening, rules, control)):
                    return
        finally:
            for player in (a, b):
                close = getattr(player, "close", None)
                if players is None and callable(close):
                    close()
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    pool = context.Pool(
        concurrency, _init_worker, (spec_a, spec_b, rules.to_dict(), dict(limit_kwargs))
    )
    try:
        for number, games in pool.imap_unordered(_pair_task, tasks, chunksize=1):
            if on_pair(number, tuple(openings[number % len(openings)]), games):
                break
    finally:
        pool.terminate()
        pool.join()
