"""``poolcheckers match``: the engine against itself at two settings.

Two players (two strength levels, or two evaluation weight files) play every
balloted opening (``poolcheckers/data/ballots.txt`` by default: three plies
from the start, one line each) twice, once with each colour, at a fixed time
(or depth, or nodes) per move.  The command prints wins, draws and losses of player A,
its score and the Elo difference with a 95 % interval; it can save the games
as PDN and plot the running score.

How the Elo difference is computed (:func:`elo_estimate`): the score of A is
``p = (W + D/2) / N``; the Elo difference that a logistic model gives for it
is ``-400·log10(1/p - 1)``.  The standard error of ``p`` is ``sqrt(v / N)``,
where ``v`` is the variance of the per-game scores (1, ½, 0) about ``p``
(draws lower it); the 95 % interval of the Elo difference is the same
formula applied to ``p ± 1.96·SE`` (infinite when a bound reaches 0 % or 100 %).

SPRT mode (``--sprt ELO0 ELO1``), as fishtest tests a change: the games are
played in pairs (an opening with each colour; the openings are cycled), the
pairs are counted by A's points (pentanomial: 0, ½, 1, 1½, 2) and the match
stops as soon as the generalised log-likelihood ratio of H1 (``elo1``) over H0
(``elo0``) leaves Wald's bounds for ``--alpha`` and ``--beta`` (see
:mod:`poolcheckers.engine.sprt`; ``--elo-model`` logistic or normalized).
Pairs run in ``--concurrency`` processes.

Game clock (``--clock SECONDS --increment SECONDS``, fishtest's ``10+0.1``)
instead of a bound per move: the match keeps each side's clock (the wall time
of each move, as the match measures it, is taken off, then the increment is
added); the engine budgets the clock it is given (``make_limit(clock=,
increment=)``, a Hub engine ``level time=<left> inc=<increment>``), and a
side whose clock runs out loses on time (PDN ``Termination`` "time forfeit:
…"; the summary counts the time losses and the clock left at the end).

Either player may be a Hub engine (``--hub-a`` / ``--hub-b``: a command line
that starts an engine speaking the Hub protocol on its standard input and
output, e.g. a frozen build).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import (
    MAX_LEVEL,
    MIN_LEVEL,
    EngineLike,
    add_engine_arguments,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
)
from poolcheckers.engine import MAX_SECONDS
from poolcheckers.engine.sprt import (
    ELO_MODELS,
    Pentanomial,
    Sprt,
    SprtState,
    bounds,
    estimate,
    logistic_score,
)
from poolcheckers.errors import PoolCheckersError
from poolcheckers.hub import format_line, hub_move, hub_position, parse_hub_move, parse_line
from poolcheckers.move import Move
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet

#: The balloted openings shipped with the package.
DEFAULT_BALLOTS: Final = Path(__file__).resolve().parent.parent / "data" / "ballots.txt"

#: Seconds per move when neither --time, --depth, --nodes nor --clock is given.
DEFAULT_MOVE_TIME: Final = 0.1

#: Normal quantile of a two-sided 95 % interval.
Z_95: Final = 1.959963984540054

#: PDN results by winner (CONTRACTS.md §1: the first score is Black's).
_RESULT_OF_WINNER: Final = {Color.BLACK: "2-0", Color.WHITE: "0-2", None: "1-1"}


# ----------------------------------------------------------------- Elo
@dataclass(frozen=True)
class EloEstimate:
    """Player A's score over ``games`` games and the Elo difference it implies."""

    games: int
    score: float  # fraction of the points, 0..1
    stderr: float  # standard error of ``score``
    elo: float  # A minus B; ±inf at 100 % / 0 %
    low: float  # 95 % interval of ``elo``
    high: float

    def describe(self) -> str:
        """``Elo +35 (95% interval -10 .. +81)``."""
        return (
            f"Elo {_fmt_elo(self.elo)} (95% interval {_fmt_elo(self.low)} .. {_fmt_elo(self.high)})"
        )


def _fmt_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of a score fraction: ``-400·log10(1/p - 1)``.

    >>> elo_from_score(0.5), round(elo_from_score(0.75), 1), elo_from_score(1.0)
    (0.0, 190.8, inf)
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Score, its standard error and the Elo difference with a 95 % interval.

    >>> e = elo_estimate(6, 8, 2)
    >>> e.score, round(e.elo), round(e.low), round(e.high)
    (0.625, 89, -26, 227)
    """
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games: the Elo difference is undefined")
    score = (wins + 0.5 * draws) / games
    variance = (
        wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * (0.0 - score) ** 2
    ) / games
    stderr = math.sqrt(variance / games)
    return EloEstimate(
        games=games,
        score=score,
        stderr=stderr,
        elo=elo_from_score(score),
        low=elo_from_score(score - Z_95 * stderr),
        high=elo_from_score(score + Z_95 * stderr),
    )


def wilson_bound(games: int) -> float:
    """Wilson's 95 % lower bound on the score after winning all ``games`` games.

    The normal interval of :func:`elo_estimate` collapses to a point at a
    perfect score; Wilson's score interval does not: its lower end for a
    score of 100 % is ``n / (n + z²)``.

    >>> round(wilson_bound(100), 4), round(elo_from_score(wilson_bound(100)))
    (0.963, 566)
    """
    return games / (games + Z_95 * Z_95)


# ----------------------------------------------------------------- openings
def load_ballots(path: str | Path, rules: RuleSet | None = None) -> list[tuple[str, ...]]:
    """The openings of a ballot file: one line of moves from the start each.

    Blank lines and text after ``#`` are ignored; every move must be legal
    (raises :class:`UsageError` naming the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read ballot file {path}: {exc.strerror}") from None
    openings: list[tuple[str, ...]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        board = Board(rules=rules)
        moves: list[str] = []
        for token in line.split():
            try:
                moves.append(board.notation(board.push_notation(token)))
            except PoolCheckersError as exc:
                raise UsageError(f"{path}, line {number}: {exc}") from None
        openings.append(tuple(moves))
    if not openings:
        raise UsageError(f"ballot file {path} holds no opening")
    return openings


# ----------------------------------------------------------------- players and games
@dataclass(frozen=True)
class TimeControl:
    """A game clock: ``clock`` seconds for each side's game, ``increment``
    seconds added after each of its moves (fishtest's ``10+0.1``)."""

    clock: float
    increment: float = 0.0

    def describe(self) -> str:
        """``clock 6+0.06 s``."""
        return f"clock {self.clock:g}+{self.increment:g} s"


@dataclass(frozen=True)
class ClockReading:
    """What the mover's clock shows as its move begins, and its increment."""

    remaining: float
    increment: float


class Player(Protocol):
    """One side of a match."""

    @property
    def name(self) -> str:
        """The name written in the PDN roster."""

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move:
        """The move to play on ``board`` (one of its legal moves); ``clock``:
        the mover's clock in a game with a :class:`TimeControl`."""


@dataclass
class EnginePlayer:
    """The engine at a level (and its own table) with a fixed limit per move."""

    engine: EngineLike
    limit: Any
    level: int | None
    name: str

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move:
        """The engine's move; an engine that returns no legal move is an error.

        With a ``clock`` the engine budgets it (``make_limit(clock=, increment=)``)
        instead of its fixed limit."""
        limit = self.limit
        if clock is not None:
            limit = make_limit(clock=max(0.0, clock.remaining), increment=clock.increment)
        result = self.engine.search(board, limit, level=self.level)
        legal = board.legal_moves
        if result.move is None or result.move not in legal:
            raise RuntimeError(f"{self.name} returned {result.move!r}, not a legal move")
        return legal[legal.index(result.move)]


class HubPlayer:
    """An engine in another process, spoken to in the Hub protocol.

    ``command`` starts it (its standard input and output carry the protocol);
    every move sends the game from its start (``pos … moves=…``, so that the
    engine sees repetitions), the per-move bound (``level move-time=``,
    ``depth=`` or ``nodes=``) and ``go think``, and reads the ``done`` line.

    In a game with a clock the bound is ``level time=<left> inc=<increment>``:
    as in Scan's Hub protocol (and :mod:`poolcheckers.hub`), ``time`` is the
    remaining clock of the side to move and ``inc`` what each move adds.  The
    match credits the increment after a move (as fishtest and cutechess do),
    so ``time`` is the clock as it stands, rounded down to the millisecond:
    never time the engine does not have.  (Scan's text says a GUI adds the
    increment before each move; an engine reading it that way is sent one
    increment less than it would be by such a GUI.)
    """

    def __init__(
        self,
        command: Sequence[str],
        name: str,
        *,
        move_time: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        hash_mb: int | None = None,
        params: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.name = name
        self.command = list(command)
        if depth is not None:
            self._level = f"level depth={depth}"
        elif nodes is not None:
            self._level = f"level nodes={nodes}"
        elif move_time is None:  # a game clock: the level line is sent before each move
            self._level = "level move-time=0.1"
        else:
            self._level = f"level move-time={move_time:g}"
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise UsageError(f"cannot start the Hub engine {shlex.join(command)}: {exc}") from None
        self._send("hub")
        self._read_until("wait")
        settings = list(params)
        if hash_mb is not None:
            settings.append(("hash", str(hash_mb)))
        for key, value in settings:
            self._send(format_line("set-param", ("name", key), ("value", value)))
        self._send("init")
        self._read_until("ready")

    def _send(self, line: str) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RuntimeError(f"the Hub engine {self.name} has exited") from None

    def _read_until(self, command: str) -> str:
        assert self._proc.stdout is not None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the Hub engine {self.name} exited before {command!r}")
            text = line.strip()
            if not text:
                continue
            head = text.split(None, 1)[0]
            if head == command:
                return text
            if head == "error":
                raise RuntimeError(f"the Hub engine {self.name} answered: {text}")

    def new_game(self) -> None:
        self._send("new-game")

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move:
        """The engine's move for ``board`` (its whole game is sent); with a
        ``clock``, its remaining time and increment are the bound."""
        start = board.copy()
        stack = list(start.move_stack)
        for _ in stack:
            start.pop()
        moves = [hub_move(move) for move in stack]
        self._send(format_line("pos", ("pos", hub_position(start)), ("moves", " ".join(moves))))
        if clock is not None:
            left = math.floor(max(0.0, clock.remaining) * 1000) / 1000
            self._send(f"level time={left:.3f} inc={clock.increment:g}")
        else:
            self._send(self._level)
        self._send("go think")
        done = parse_line(self._read_until("done"))
        text = done.args.get("move")
        if not text:
            raise RuntimeError(f"the Hub engine {self.name} gave no move in {board.fen()}")
        try:
            return parse_hub_move(board, text)
        except PoolCheckersError as exc:
            raise RuntimeError(f"the Hub engine {self.name} played {text}: {exc}") from None

    def close(self) -> None:
        """Ask the engine to quit (and end it if it does not)."""
        with contextlib.suppress(RuntimeError):
            self._send("quit")
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


@dataclass
class GameRecord:
    """A finished game of a match, with player A's points."""

    opening: tuple[str, ...]
    board: Board
    black: str
    white: str
    result: str
    reason: str
    a_is_black: bool
    a_points: float
    seconds: float
    #: the loser's clock ran out (a game with a :class:`TimeControl`)
    time_loss: bool = False
    #: (Black's, White's) clock at the end, with a :class:`TimeControl`
    clock_left: tuple[float, float] | None = None


#: The reason of a game lost on time (the PDN's Termination tag starts with it).
TIME_FORFEIT: Final = "time forfeit"


@dataclass
class PlayedGame:
    """A game played to its end: the board, PDN result and reason, whether it
    was lost on time and (Black's, White's) clock at the end (with a clock)."""

    board: Board
    result: str
    reason: str
    time_loss: bool = False
    clock_left: tuple[float, float] | None = None


def play_game(
    black: Player,
    white: Player,
    opening: Sequence[str],
    rules: RuleSet | None = None,
) -> tuple[Board, str, str]:
    """Play ``opening`` from the start, then the players until the rules end it.

    Returns the board (with its move stack), the PDN result and the reason.
    """
    game = play_clock_game(black, white, opening, rules)
    return game.board, game.result, game.reason


def play_clock_game(
    black: Player,
    white: Player,
    opening: Sequence[str],
    rules: RuleSet | None = None,
    control: TimeControl | None = None,
    timer: Callable[[], float] = time.perf_counter,
) -> PlayedGame:
    """:func:`play_game`, on a clock when ``control`` is given.

    The match keeps each side's clock: the wall time of a move (``timer``
    around the player's ``choose``, so a Hub engine's protocol time counts
    too) is taken off the mover's clock, then the increment is added.  A
    player whose clock falls below zero loses on time (its late move is not
    played; the reason starts with :data:`TIME_FORFEIT`).
    """
    board = Board(rules=rules)
    for text in opening:
        board.push_notation(text)
    left = {Color.BLACK: control.clock, Color.WHITE: control.clock} if control else {}
    while (outcome := board.outcome()) is None:
        mover = board.turn
        player = black if mover is Color.BLACK else white
        if control is None:
            board.push(player.choose(board.copy()))
            continue
        start = timer()
        move = player.choose(board.copy(), ClockReading(left[mover], control.increment))
        left[mover] -= timer() - start
        if left[mover] < 0:
            side = "Black" if mover is Color.BLACK else "White"
            winner = Color.WHITE if mover is Color.BLACK else Color.BLACK
            reason = (
                f"{TIME_FORFEIT}: {side}'s clock ran out on move {len(board.move_stack) // 2 + 1} "
                f"({control.describe()}, {-left[mover]:.3f} s over)"
            )
            return PlayedGame(
                board, _RESULT_OF_WINNER[winner], reason, True,
                (left[Color.BLACK], left[Color.WHITE]),
            )  # fmt: skip
        left[mover] += control.increment
        board.push(move)
    clock_left = (left[Color.BLACK], left[Color.WHITE]) if control else None
    return PlayedGame(board, _RESULT_OF_WINNER[outcome.winner], outcome.reason(), False, clock_left)


def points_of_a(result: str, a_black: bool) -> float:
    """A's points for a PDN result (``2-0`` Black won, ``0-2`` White won).

    >>> points_of_a("2-0", True), points_of_a("2-0", False), points_of_a("1-1", True)
    (1.0, 0.0, 0.5)
    """
    if result == "1-1":
        return 0.5
    return 1.0 if (result == "2-0") == a_black else 0.0


@dataclass
class MatchResult:
    """The games of a match, from player A's point of view."""

    name_a: str
    name_b: str
    games: list[GameRecord] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(1 for g in self.games if g.a_points == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.a_points == 0.5)

    @property
    def losses(self) -> int:
        return sum(1 for g in self.games if g.a_points == 0.0)

    def estimate(self) -> EloEstimate:
        return elo_estimate(self.wins, self.draws, self.losses)

    def clock_lines(self) -> list[str]:
        """Time losses of each player and the mean clock left at the end of
        the games it did not lose on time (nothing without a clock)."""
        timed = [g for g in self.games if g.clock_left is not None]
        if not timed:
            return []
        lost = {self.name_a: 0, self.name_b: 0}
        left: dict[str, list[float]] = {self.name_a: [], self.name_b: []}
        for g in timed:
            assert g.clock_left is not None
            a_left, b_left = g.clock_left if g.a_is_black else g.clock_left[::-1]
            loser = None
            if g.time_loss:
                loser = self.name_a if g.a_points == 0.0 else self.name_b
                lost[loser] += 1
            for name, seconds in ((self.name_a, a_left), (self.name_b, b_left)):
                if name != loser:
                    left[name].append(seconds)

        def mean(values: list[float]) -> str:
            return f"{sum(values) / len(values):.2f} s" if values else "-"

        return [
            f"  time losses: {self.name_a} {lost[self.name_a]}, {self.name_b} {lost[self.name_b]}"
            f"; mean clock left at the end: {self.name_a} {mean(left[self.name_a])}, "
            f"{self.name_b} {mean(left[self.name_b])}"
        ]

    def summary(self) -> str:
        """W/D/L, score and Elo of A, in a few lines."""
        if not self.games:
            return "no games played"
        e = self.estimate()
        lines = [
            f"{self.name_a} vs {self.name_b}: {_games(len(self.games))}",
            f"  +{self.wins} ={self.draws} -{self.losses} (W/D/L of {self.name_a})",
            f"  score {100 * e.score:.1f}% ± {100 * Z_95 * e.stderr:.1f}% (95%)",
            f"  {e.describe()}",
        ]
        lines.extend(self.clock_lines())
        if e.stderr == 0.0 and e.score in (0.0, 1.0):
            bound = wilson_bound(len(self.games))
            if e.score == 1.0:
                lines.append(
                    f"  (a perfect score has no spread: Wilson's 95% bound puts the score "
                    f"above {100 * bound:.1f}%, Elo above {_fmt_elo(elo_from_score(bound))})"
                )
            else:
                lines.append(
                    f"  (a null score has no spread: Wilson's 95% bound puts the score "
                    f"below {100 * (1 - bound):.1f}%, Elo below "
                    f"{_fmt_elo(elo_from_score(1 - bound))})"
                )
        return "\n".join(lines)


def pairings(openings: Sequence[tuple[str, ...]], games: int | None) -> list[tuple[int, bool]]:
    """(opening index, A plays Black) for each game: each opening with both colours.

    >>> pairings([("11-15",), ("9-13",)], 3)
    [(0, True), (0, False), (1, True)]
    """
    order = [(i, a_black) for i in range(len(openings)) for a_black in (True, False)]
    return order if games is None else order[:games]


def run_match(
    player_a: Player,
    player_b: Player,
    openings: Sequence[tuple[str, ...]],
    *,
    games: int | None = None,
    rules: RuleSet | None = None,
    on_game: Callable[[GameRecord, MatchResult], None] | None = None,
    control: TimeControl | None = None,
) -> MatchResult:
    """Play the pairings of :func:`pairings` (on ``control``'s clock if given);
    ``on_game`` after each game."""
    match = MatchResult(player_a.name, player_b.name)
    for index, a_black in pairings(openings, games):
        black, white = (player_a, player_b) if a_black else (player_b, player_a)
        start = time.perf_counter()
        game = play_clock_game(black, white, openings[index], rules, control)
        points = points_of_a(game.result, a_black)
        record = GameRecord(
            opening=openings[index],
            board=game.board,
            black=black.name,
            white=white.name,
            result=game.result,
            reason=game.reason,
            a_is_black=a_black,
            a_points=points,
            seconds=time.perf_counter() - start,
            time_loss=game.time_loss,
            clock_left=game.clock_left,
        )
        match.games.append(record)
        if on_game is not None:
            on_game(record, match)
    return match


# ----------------------------------------------------------------- pairs in processes
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


def make_player(
    spec: PlayerSpec,
    rules: RuleSet,
    limit_kwargs: dict[str, Any],
    factory: Callable[[int, RuleSet, str | None], EngineLike] | None = None,
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
        )
    engine = (factory or open_engine)(spec.hash_mb, rules, spec.weights)
    if spec.threads != 1:
        engine.threads = spec.threads  # type: ignore[attr-defined]
    return EnginePlayer(engine, make_limit(**limit_kwargs), spec.level, spec.name)


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
            PairGame(_notations(game.board), game.result, game.reason, a_black,
                     time.perf_counter() - start, game.time_loss, game.clock_left)
        )  # fmt: skip
    return games


def time_control(limit_kwargs: dict[str, Any]) -> TimeControl | None:
    """The game clock of a match's ``limit_kwargs`` (``clock``, ``increment``), if any.

    >>> time_control({"clock": 6.0, "increment": 0.06}), time_control({"depth": 3})
    (TimeControl(clock=6.0, increment=0.06), None)
    """
    if limit_kwargs.get("clock") is None:
        return None
    return TimeControl(float(limit_kwargs["clock"]), float(limit_kwargs.get("increment", 0.0)))


def _notations(board: Board) -> tuple[str, ...]:
    replay = board.copy()
    stack = list(replay.move_stack)
    for _ in stack:
        replay.pop()
    out = []
    for move in stack:
        out.append(replay.notation(move))
        replay.push(move)
    return tuple(out)


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
) -> None:
    """Play ``pairs`` pairs, cycling ``openings``; ``on_pair`` after each (in
    the order they finish) returns True to stop.  ``concurrency`` > 1 plays
    pairs in that many processes (each with its own two players);
    ``players`` (in-process only) replaces the players made from the specs.
    A ``clock`` in ``limit_kwargs`` plays every game on that clock."""
    control = time_control(limit_kwargs)
    tasks = [(n, tuple(openings[n % len(openings)])) for n in range(pairs)]
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
            if on_pair(number, tasks[number][1], games):
                break
    finally:
        pool.terminate()
        pool.join()


@dataclass
class SprtRun:
    """The pairs of an SPRT match so far, from A's point of view, and the LLR after each."""

    sprt: Sprt | None
    name_a: str
    name_b: str
    pair_points: list[float] = field(default_factory=list)
    llrs: list[float] = field(default_factory=list)
    match: MatchResult | None = None

    @property
    def pentanomial(self) -> Pentanomial:
        return Pentanomial.from_pairs(self.pair_points)

    def add(self, points: float) -> SprtState | None:
        """Count a pair; the test's state after it (None without a test)."""
        self.pair_points.append(points)
        if self.sprt is None:
            return None
        state = self.sprt.state(self.pentanomial)
        self.llrs.append(state.llr)
        return state

    def summary(self) -> str:
        if not self.pair_points:
            return "no game pair finished"
        p = self.pentanomial
        w = d = lo = 0
        if self.match is not None:
            w, d, lo = self.match.wins, self.match.draws, self.match.losses
        lines = [
            f"{self.name_a} vs {self.name_b}: {_games(p.games)} ({p.pairs} pairs)",
            f"  {self.sprt.describe() if self.sprt else 'fixed number of games'}",
            f"  +{w} ={d} -{lo} (W/D/L of {self.name_a}), "
            f"pentanomial {p} (pairs scoring 0, 1/2, 1, 3/2, 2)",
            f"  score {100 * p.score:.1f}%, {estimate(p).describe()}",
        ]
        if self.match is not None:
            lines.extend(self.match.clock_lines())
        if self.sprt is not None:
            lines.append(f"  {self.sprt.state(p).describe()}")
        return "\n".join(lines)


def plot_sprt(run: SprtRun, path: str | Path, title: str) -> None:
    """A PNG of A's running score (with its 95 % band, from pairs) and the LLR
    against its bounds, over the games."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, scores, lows, highs = [], [], [], []
    for n in range(1, len(run.pair_points) + 1):
        e = estimate(Pentanomial.from_pairs(run.pair_points[:n]))
        se = (e.score - _score_of_elo(e.elo_low)) if n > 1 else 0.0
        xs.append(2 * n)
        scores.append(100 * e.score)
        lows.append(100 * max(0.0, e.score - se))
        highs.append(100 * min(1.0, e.score + se))
    if run.sprt is not None:
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), dpi=100, sharex=True)
    else:  # pairs without a test: the score only
        fig, top = plt.subplots(figsize=(8, 4.5), dpi=100)
        bottom = None
    top.fill_between(xs, lows, highs, color="tab:blue", alpha=0.2, label="95% interval")
    top.plot(xs, scores, color="tab:blue", label=f"score of {run.name_a}")
    top.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylabel("score (%)")
    top.legend(loc="lower right")
    if run.sprt is not None and bottom is not None:
        lower, upper = bounds(run.sprt.alpha, run.sprt.beta)
        bottom.plot(xs, run.llrs, color="tab:green", label="LLR")
        bottom.axhline(upper, color="tab:green", linestyle="--", linewidth=0.8, label="accept H1")
        bottom.axhline(lower, color="tab:red", linestyle="--", linewidth=0.8, label="accept H0")
        bottom.set_xlabel("games")
        bottom.set_ylabel("log-likelihood ratio")
        bottom.legend(loc="upper left")
    else:
        top.set_xlabel("games")
    final = run.summary().splitlines()
    top.set_title(f"{title}\n{final[3].strip() if len(final) > 3 else ''}", fontsize=9)
    if run.sprt is not None and bottom is not None:
        bottom.set_title(final[-1].strip(), fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _score_of_elo(elo: float) -> float:
    if math.isinf(elo):
        return 0.0 if elo < 0 else 1.0
    return logistic_score(elo)


# ----------------------------------------------------------------- output
def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"


def write_pdn(match: MatchResult, path: str | Path, event: str) -> None:
    """Save every game of ``match`` as PDN (tags: event, round, players, ballot)."""
    from poolcheckers.pdn import game_from_board, write_game

    texts = []
    for number, game in enumerate(match.games, start=1):
        tags = {
            "Event": event,
            "Round": str(number),
            "Black": game.black,
            "White": game.white,
            "Ballot": " ".join(game.opening),
            "Termination": game.reason,
        }
        texts.append(write_game(game_from_board(game.board, tags, game.result)))
    Path(path).write_text("\n".join(texts), encoding="utf-8")


def plot_match(match: MatchResult, path: str | Path, title: str) -> None:
    """A PNG of A's running score (%) over the games, with its 95 % band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    xs: list[int] = []
    scores: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    w = d = lo = 0
    for n, game in enumerate(match.games, start=1):
        w += game.a_points == 1.0
        d += game.a_points == 0.5
        lo += game.a_points == 0.0
        e = elo_estimate(w, d, lo)
        xs.append(n)
        scores.append(100 * e.score)
        lows.append(max(0.0, 100 * (e.score - Z_95 * e.stderr)))
        highs.append(min(100.0, 100 * (e.score + Z_95 * e.stderr)))
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.fill_between(xs, lows, highs, color="tab:blue", alpha=0.2, label="95% interval")
    ax.plot(xs, scores, color="tab:blue", marker="." if len(xs) <= 60 else None,
            label=f"score of {match.name_a}")  # fmt: skip
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(-3, 103)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("games")
    ax.set_ylabel("score (%)")
    final = (
        f"+{match.wins} ={match.draws} -{match.losses}, {match.estimate().describe()}"
        if match.games
        else "no games"
    )
    ax.set_title(f"{title}\n{final}", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ----------------------------------------------------------------- the command
def _per_move(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The per-move bound of the match (``make_limit`` keywords) and its
    description; with ``--clock``, the game clock (``clock``, ``increment``)."""
    if args.depth is not None and args.nodes is not None:
        raise UsageError("--depth and --nodes exclude each other: give one bound per move")
    if args.clock is not None:
        for option, given in (("--depth", args.depth), ("--nodes", args.nodes),
                              ("--time", args.time)):  # fmt: skip
            if given is not None:
                raise UsageError(
                    f"--clock and {option} exclude each other: a game clock or a bound per move"
                )
        for option, seconds in (("--clock", args.clock), ("--increment", args.increment)):
            if not math.isfinite(seconds) or seconds < 0 or seconds > MAX_SECONDS:
                raise UsageError(
                    f"{option} must be a number of seconds in 0..{MAX_SECONDS:g}, not {seconds}"
                )
        if not args.clock > 0:
            raise UsageError(f"--clock must be > 0 seconds, not {args.clock}")
        control = TimeControl(args.clock, args.increment)
        return {"clock": control.clock, "increment": control.increment}, control.describe()
    if args.increment:
        raise UsageError("--increment needs --clock (the seconds added after each move)")
    if args.depth is not None:
        if args.depth < 1:
            raise UsageError(f"--depth must be >= 1, not {args.depth}")
        return {"depth": args.depth}, f"depth {args.depth}"
    if args.nodes is not None:
        if args.nodes < 1:
            raise UsageError(f"--nodes must be >= 1, not {args.nodes}")
        return {"nodes": args.nodes}, f"{args.nodes} nodes/move"
    seconds = DEFAULT_MOVE_TIME if args.time is None else args.time
    if not seconds > 0:
        raise UsageError(f"--time must be > 0 seconds, not {seconds}")
    return {"time": seconds}, f"{seconds:g} s/move"


def _check_level(name: str, level: int) -> int:
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise UsageError(f"{name} must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level


def _player_name(level: int, weights: str | None, hub: tuple[str, ...] | None = None) -> str:
    if hub is not None:
        return f"hub {Path(hub[0]).name}"
    return f"poolcheckers L{level}" + (f" ({Path(weights).name})" if weights else "")


def _hub_command(option: str, text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"{option} {text!r}: {exc}") from None
    if not words:
        raise UsageError(f"{option} needs a command line")
    return words


def _run_sprt(
    args: argparse.Namespace,
    spec_a: PlayerSpec,
    spec_b: PlayerSpec,
    openings: Sequence[tuple[str, ...]],
    rules: RuleSet,
    limit_kwargs: dict[str, Any],
    out: Any,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None,
    limit: Any,
    per_move: str,
) -> int:
    """Game pairs in processes (``--concurrency``), with ``--sprt`` until the LLR
    leaves its bounds, else for ``--games`` (default: every ballot twice)."""
    sprt: Sprt | None = None
    if args.sprt is not None:
        elo0, elo1 = args.sprt
        try:
            sprt = Sprt(elo0, elo1, args.alpha, args.beta, args.elo_model)
        except ValueError as exc:
            raise UsageError(f"--sprt: {exc}") from None
    default_games = 20_000 if sprt is not None else 2 * len(openings)
    max_games = args.games if args.games is not None else default_games
    pairs = max(1, max_games // 2)
    run_state = SprtRun(sprt, spec_a.name, spec_b.name)
    match = MatchResult(spec_a.name, spec_b.name)
    run_state.match = match
    print(
        f"{spec_a.name} vs {spec_b.name}: {sprt.describe() if sprt else 'game pairs'}, "
        f"at most {_games(2 * pairs)}, "
        f"{per_move}, concurrency {args.concurrency}, rules {rules.name}",
        file=out,
    )
    players: tuple[Player, Player] | None = None
    if engine_factory is not None:  # tests: engines made here, in this process
        players = (
            EnginePlayer(engine_factory(spec_a.hash_mb, rules, spec_a.weights), limit,
                         spec_a.level, spec_a.name),
            EnginePlayer(engine_factory(spec_b.hash_mb, rules, spec_b.weights), limit,
                         spec_b.level, spec_b.name),
        )  # fmt: skip

    from tqdm import tqdm

    decision: SprtState | None = None
    interrupted = False
    with tqdm(total=2 * pairs, desc="sprt", unit="game", file=sys.stderr, disable=None) as bar:

        def on_pair(number: int, opening: tuple[str, ...], games: list[PairGame]) -> bool:
            nonlocal decision
            points = 0.0
            for game in games:
                board = Board(rules=rules)
                for text in game.moves:
                    board.push_notation(text)
                a_points = points_of_a(game.result, game.a_black)
                points += a_points
                match.games.append(
                    GameRecord(
                        opening=opening,
                        board=board,
                        black=spec_a.name if game.a_black else spec_b.name,
                        white=spec_b.name if game.a_black else spec_a.name,
                        result=game.result,
                        reason=game.reason,
                        a_is_black=game.a_black,
                        a_points=a_points,
                        seconds=game.seconds,
                        time_loss=game.time_loss,
                        clock_left=game.clock_left,
                    )
                )
            state = run_state.add(points)
            bar.update(len(games))
            record = f"+{match.wins} ={match.draws} -{match.losses}"
            if bar.disable and len(run_state.pair_points) % 25 == 0:  # no bar: a line now and then
                llr_text = f", LLR {state.llr:+.2f}" if state is not None else ""
                print(f"sprt: {len(match.games)} games, {record}{llr_text}", file=sys.stderr)
            if state is None:
                bar.set_postfix_str(record)
                return False
            bar.set_postfix_str(
                f"LLR {state.llr:+.2f} [{state.lower:+.2f},{state.upper:+.2f}] {record}"
            )
            if state.decision is not None:
                decision = state
                return True
            return False

        try:
            run_pairs(spec_a, spec_b, openings, pairs=pairs, rules=rules,
                      limit_kwargs=limit_kwargs, concurrency=args.concurrency,
                      on_pair=on_pair, players=players)  # fmt: skip
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        print(f"interrupted: the {_games(len(match.games))} finished so far count", file=out)
    elif decision is None and sprt is not None:
        print(f"undecided after {_games(len(match.games))} (the --games bound)", file=out)
    print(run_state.summary(), file=out)
    status = 0
    event = f"poolcheckers match {spec_a.name} vs {spec_b.name}" + (
        f" ({sprt.describe()})" if sprt else ""
    )
    if args.pdn and match.games:
        try:
            write_pdn(match, args.pdn, event)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {args.pdn}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"games saved to {args.pdn}", file=out)
    if args.plot and run_state.pair_points:
        try:
            plot_sprt(run_state, args.plot, event)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {args.plot}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"plot saved to {args.plot}", file=out)
    return 130 if interrupted else status


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While the match runs, SIGTERM (``kill PID``) ends it as Ctrl-C does:
    the games finished so far are counted and saved (a match started in the
    background of a script ignores SIGINT)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@quiet_broken_pipe
def run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None = None,
    limit: Any = None,
    out: Any = None,
) -> int:
    """Play the match of ``args``; print the result (and save PDN / plot).
    Ctrl-C or SIGTERM ends it early, the finished games counted (status 130)."""
    with _terminate_as_interrupt():
        return _run(args, engine_factory=engine_factory, limit=limit, out=out)


def _run(
    args: argparse.Namespace,
    *,
    engine_factory: Callable[[int, RuleSet, str | None], EngineLike] | None,
    limit: Any,
    out: Any,
) -> int:
    out = out if out is not None else sys.stdout
    rules = RuleSet.from_options(args.rules)
    level_a = _check_level("--level-a", args.level_a)
    level_b = _check_level("--level-b", args.level_b)
    if args.games is not None and args.games < 1:
        raise UsageError(f"--games must be >= 1, not {args.games}")
    openings = load_ballots(args.ballots, rules)
    for option, path in (("--pdn", args.pdn), ("--plot", args.plot)):
        if path:
            _check_writable(option, path)  # before the games, not after them
    factory = engine_factory or open_engine
    limit_kwargs, per_move = _per_move(args)  # parsed and checked once
    limit = limit if limit is not None else make_limit(**limit_kwargs)
    hub_a, hub_b = _hub_command("--hub-a", args.hub_a), _hub_command("--hub-b", args.hub_b)
    name_a = args.name_a or _player_name(level_a, args.weights_a, hub_a)
    name_b = args.name_b or _player_name(level_b, args.weights_b, hub_b)
    if name_a == name_b:
        name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
    for option, threads in (("--threads-a", args.threads_a), ("--threads-b", args.threads_b)):
        if not 1 <= threads <= 64:
            raise UsageError(f"{option} must be 1..64, not {threads}")
    spec_a = PlayerSpec(name_a, level_a, args.weights_a, args.hash, args.threads_a, hub_a)
    spec_b = PlayerSpec(name_b, level_b, args.weights_b, args.hash, args.threads_b, hub_b)
    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be >= 1, not {args.concurrency}")
    if args.sprt is not None or args.concurrency > 1:
        return _run_sprt(args, spec_a, spec_b, openings, rules, limit_kwargs, out,
                         engine_factory=engine_factory, limit=limit,
                         per_move=per_move)  # fmt: skip

    def player(spec: PlayerSpec) -> Player:
        if spec.hub is not None:
            return make_player(spec, rules, limit_kwargs)
        engine = factory(spec.hash_mb, rules, spec.weights)
        if spec.threads != 1:
            engine.threads = spec.threads  # type: ignore[attr-defined]
        return EnginePlayer(engine, limit, spec.level, spec.name)

    player_a, player_b = player(spec_a), player(spec_b)
    total = len(pairings(openings, args.games))
    print(f"{name_a} vs {name_b}: {_games(total)}, {per_move}, rules {rules.name}", file=out)

    from tqdm import tqdm

    so_far = MatchResult(name_a, name_b)  # the games finished, kept if Ctrl-C comes
    interrupted = False
    with tqdm(total=total, desc="match", unit="game", file=sys.stderr, disable=None) as bar:

        def on_game(record: GameRecord, match: MatchResult) -> None:
            nonlocal so_far
            so_far = match
            bar.update(1)
            bar.set_postfix_str(f"+{match.wins} ={match.draws} -{match.losses}")

        try:
            match = run_match(
                player_a, player_b, openings, games=args.games, rules=rules, on_game=on_game,
                control=time_control(limit_kwargs),
            )  # fmt: skip
        except KeyboardInterrupt:
            match, interrupted = so_far, True
    if interrupted and not match.games:
        print("interrupted before the first game ended: nothing to count", file=out)
        return 130
    if interrupted:
        print(f"interrupted: the {_games(len(match.games))} finished so far count", file=out)
    print(match.summary(), file=out)
    print(
        "  (Elo from the score p: -400*log10(1/p - 1); interval from p ± 1.96 standard "
        "errors of the per-game scores)",
        file=out,
    )
    event = f"poolcheckers match {name_a} vs {name_b}"
    status = 0
    for path, save, what in ((args.pdn, write_pdn, "games"), (args.plot, plot_match, "plot")):
        if not path:
            continue
        try:
            save(match, path, event)
        except OSError as exc:
            print(f"poolcheckers match: error: cannot write {path}: {exc}", file=sys.stderr)
            status = 1
        else:
            print(f"{what} saved to {path}", file=out)
    return 130 if interrupted else status


def _check_writable(option: str, path: str) -> None:
    """Raise :class:`UsageError` when ``path`` cannot be written (a missing
    folder, a folder in its place, no permission)."""
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise UsageError(f"{option} {path}: no permission to write there")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level-a", type=int, default=MAX_LEVEL, help="level of A (1-10)")
    parser.add_argument("--level-b", type=int, default=MAX_LEVEL, help="level of B (1-10)")
    parser.add_argument("--weights-a", metavar="FILE.json", help="evaluation weights of A")
    parser.add_argument("--weights-b", metavar="FILE.json", help="evaluation weights of B")
    parser.add_argument(
        "--ballots",
        default=str(DEFAULT_BALLOTS),
        metavar="FILE",
        help="openings, one line of moves each (default: the shipped 3-move ballots)",
    )
    parser.add_argument(
        "--time", type=float, help=f"seconds per move (default {DEFAULT_MOVE_TIME:g})"
    )
    parser.add_argument(
        "--clock",
        type=float,
        metavar="SECONDS",
        help="a game clock instead of a bound per move: each side's seconds for the game "
        "(a side whose clock runs out loses on time)",
    )
    parser.add_argument(
        "--increment",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --clock: seconds added after each move (--clock 6 --increment 0.06 is 6+0.06)",
    )
    parser.add_argument("--depth", type=int, help="fixed depth per move instead of --time")
    parser.add_argument(
        "--nodes",
        type=int,
        help="fixed nodes per move instead of --time (results independent of the machine's load)",
    )
    parser.add_argument(
        "--games", type=int, help="stop after this many games (SPRT: at most; default 20000)"
    )
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        help="SPRT mode: game pairs until H0 (elo0) or H1 (elo1) is accepted",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT false positive rate")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT false negative rate")
    parser.add_argument(
        "--elo-model",
        choices=ELO_MODELS,
        default="logistic",
        help="Elo of the SPRT hypotheses: logistic (default) or normalized (fishtest)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=1, help="game pairs played at once (SPRT mode)"
    )
    parser.add_argument("--hub-a", metavar="COMMAND", help="A is the Hub engine this starts")
    parser.add_argument("--hub-b", metavar="COMMAND", help="B is the Hub engine this starts")
    parser.add_argument("--name-a", help="A's name in the results and PDN")
    parser.add_argument("--name-b", help="B's name in the results and PDN")
    parser.add_argument("--threads-a", type=int, default=1, help="search threads of A")
    parser.add_argument("--threads-b", type=int, default=1, help="search threads of B")
    parser.add_argument("--pdn", metavar="OUT.pdn", help="save the games as PDN")
    parser.add_argument("--plot", metavar="OUT.png", help="plot the running score")
    parser.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="OPTION=VALUE",
        help="rule options of RULES.md §9",
    )
    add_engine_arguments(parser)


def register(subparsers: Any) -> None:
    """Add the ``match`` sub-command."""
    parser = subparsers.add_parser(
        "match",
        help="engine against engine over balloted openings: W/D/L, Elo, PDN, plot",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    parser.set_defaults(func=run)
