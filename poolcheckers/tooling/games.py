"""Players, game clocks and games: one game between two players.

A player is anything with a ``name`` and ``choose(board, clock)``: the engine
at a level (:class:`EnginePlayer`), an engine in another process
(:class:`~poolcheckers.tooling.hubclient.HubPlayer`), a benchmark's peer.

Game clock (fishtest's ``10+0.1``, :class:`TimeControl`) instead of a bound
per move: the match keeps each side's clock (the wall time of each move, as
the match measures it, is taken off, then the increment is added); the engine
budgets the clock it is given (``make_limit(clock=, increment=)``), and a side
whose clock runs out loses on time (PDN ``Termination`` "time forfeit: …").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from poolcheckers.board import Board
from poolcheckers.engine import EngineLike, make_limit
from poolcheckers.move import Move
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.openings import opening_board

#: PDN results by winner (CONTRACTS.md §1: the first score is Black's).
RESULT_OF_WINNER: Final = {Color.BLACK: "2-0", Color.WHITE: "0-2", None: "1-1"}

#: The reason of a game lost on time (the PDN's Termination tag starts with it).
TIME_FORFEIT: Final = "time forfeit"


@dataclass(frozen=True)
class TimeControl:
    """A game clock: ``clock`` seconds for each side's game, ``increment``
    seconds added after each of its moves (fishtest's ``10+0.1``)."""

    clock: float
    increment: float = 0.0

    def describe(self) -> str:
        """``clock 6+0.06 s``."""
        return f"clock {self.clock:g}+{self.increment:g} s"


def time_control(limit_kwargs: dict[str, Any]) -> TimeControl | None:
    """The game clock of a match's ``limit_kwargs`` (``clock``, ``increment``), if any.

    >>> time_control({"clock": 6.0, "increment": 0.06}), time_control({"depth": 3})
    (TimeControl(clock=6.0, increment=0.06), None)
    """
    if limit_kwargs.get("clock") is None:
        return None
    return TimeControl(float(limit_kwargs["clock"]), float(limit_kwargs.get("increment", 0.0)))


@dataclass(frozen=True)
class ClockReading:
    """What the mover's clock shows as its move begins, and its increment."""

    remaining: float
    increment: float

    def hub_level(self) -> str:
        """The Hub ``level`` line of this clock: the time left rounded down to the
        millisecond (never time the engine does not have).

        >>> ClockReading(1.23456, 0.01).hub_level()
        'level time=1.234 inc=0.01'
        """
        left = math.floor(max(0.0, self.remaining) * 1000) / 1000
        return f"level time={left:.3f} inc={self.increment:g}"


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
    board = opening_board(tuple(opening), rules)
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
                board, RESULT_OF_WINNER[winner], reason, True,
                (left[Color.BLACK], left[Color.WHITE]),
            )  # fmt: skip
        left[mover] += control.increment
        board.push(move)
    clock_left = (left[Color.BLACK], left[Color.WHITE]) if control else None
    return PlayedGame(board, RESULT_OF_WINNER[outcome.winner], outcome.reason(), False, clock_left)


def points_of_a(result: str, a_black: bool) -> float:
    """A's points for a PDN result (``2-0`` Black won, ``0-2`` White won).

    >>> points_of_a("2-0", True), points_of_a("2-0", False), points_of_a("1-1", True)
    (1.0, 0.0, 0.5)
    """
    if result == "1-1":
        return 0.5
    return 1.0 if (result == "2-0") == a_black else 0.0


def pairings(openings: Sequence[tuple[str, ...]], games: int | None) -> list[tuple[int, bool]]:
    """(opening index, A plays Black) for each game: each opening with both colours.

    >>> pairings([("11-15",), ("9-13",)], 3)
    [(0, True), (0, False), (1, True)]
    """
    order = [(i, a_black) for i in range(len(openings)) for a_black in (True, False)]
    return order if games is None else order[:games]
