"""What the practice routes call: the exercises, and a move of the player judged by
the endgame tables with the tables' reply.  Stateless: the page sends the position
and the line played so far; the tables are opened (or built, seconds) on first use."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from poolcheckers.board import Board
from poolcheckers.engine import default_tables_directory, open_tables, tables_move_values
from poolcheckers.errors import PoolCheckersError
from poolcheckers.rules import RuleSet
from poolcheckers.server.i18n import M_
from poolcheckers.server.practice.model import (
    BY_ID,
    EXERCISES,
    MoveValues,
    PracticeError,
    PracticeUnavailable,
    position_value,
    reply,
    verdict,
)

#: the longest line a practice game replays (the R18 count ends it sooner)
MAX_PLIES = 400


class PracticeService:
    def __init__(self, tables_dir: Path | None, build_pieces: int) -> None:
        self.directory = tables_dir or default_tables_directory()
        self.build_pieces = build_pieces
        self._tables: Any = None
        self._lock = threading.Lock()

    def tables(self) -> Any:
        """The tables (opened once; built first when missing and allowed;
        ``POOLCHECKERS_EGDB=off`` turns them off, as for the engine)."""
        if os.environ.get("POOLCHECKERS_EGDB", "").lower() in ("off", "0", "no"):
            raise PracticeUnavailable(M_("the endgame tables are turned off on this server"))
        with self._lock:
            if self._tables is None:
                try:
                    self._tables = open_tables(self.directory, build_pieces=self.build_pieces)
                except Exception as error:  # a folder we cannot write, a full disk
                    raise PracticeUnavailable(
                        M_(
                            "the endgame tables cannot be built in {directory}: {error}",
                            directory=self.directory,
                            error=error,
                        )
                    ) from error
                if self._tables is None:
                    raise PracticeUnavailable(
                        M_("this server has no endgame tables (poolcheckers egdb build --pieces 4)")
                    )
            return self._tables

    def exercises(self) -> list[dict[str, Any]]:
        return [
            {"id": e.id, "title": e.title, "about": e.about, "fen": e.fen, "target": e.target}
            for e in EXERCISES
        ]

    def _values(self, board: Board) -> MoveValues:
        values = tables_move_values(self.tables(), board)
        if values is None:
            raise PracticeError(
                M_(
                    "the endgame tables do not cover {value}: practice positions have at most {max_pieces} pieces, a piece each side (R5)",  # noqa: E501
                    value=board.fen(),
                    max_pieces=self.tables().max_pieces,
                )
            )
        return values

    def start(self, fen: str) -> dict[str, Any]:
        """A position to practise: its value for the side to move (the target)."""
        board = _board(fen, [])
        if board.is_game_over():
            raise PracticeError(M_("{fen}: the game is already over (R16)", fen=fen))
        values = self._values(board)
        return {"fen": board.fen(), "value": position_value(values), "exercise": _exercise(fen)}

    def move(self, fen: str, moves: list[str]) -> dict[str, Any]:
        """Judge the last move of ``moves`` (the player's) against the tables and
        answer with the tables' reply (none once the game is over)."""
        if not moves:
            raise PracticeError(M_("moves must hold at least the move to judge"))
        board = _board(fen, moves[:-1])
        before = self._values(board)
        try:
            played = board.parse_move(moves[-1])
        except PoolCheckersError as error:
            raise PracticeError(
                M_(
                    "move {count} {moves}: {error}",
                    count=len(moves),
                    moves=repr(moves[-1]),
                    error=error,
                )
            ) from error
        judged = verdict(before, played)
        notation = board.notation(played)
        board.push(played)
        answer: dict[str, Any] = {
            "verdict": {
                "before": judged.before, "after": judged.after, "kept": judged.kept,
                "cost": judged.cost, "best": judged.best, "move": notation,
            },
            "reply": None,
        }  # fmt: skip
        if not board.is_game_over():
            values = self._values(board)
            traps = {m: self._losing_replies(board, m) for m, v, _d in values if v == "draw"}
            chosen = reply(values, traps)
            answer["reply"] = board.notation(chosen)
            board.push(chosen)
        outcome = board.outcome()
        answer["over"] = None if outcome is None else {
            "winner": None if outcome.winner is None else outcome.winner.name.lower(),
            "reason": board.outcome_reason(outcome),
        }  # fmt: skip
        if outcome is None:
            answer["value"] = position_value(self._values(board))
        return answer

    def _losing_replies(self, board: Board, move: Any) -> int:
        board.push(move)
        try:
            values = tables_move_values(self.tables(), board) or []
            return sum(v == "loss" for _m, v, _d in values)
        finally:
            board.pop()


def _exercise(fen: str) -> str | None:
    return next((e.id for e in BY_ID.values() if e.fen == fen), None)


def _board(fen: str, moves: list[str]) -> Board:
    if len(moves) > MAX_PLIES:
        raise PracticeError(
            M_("a practice line has at most {MAX_PLIES} moves", MAX_PLIES=MAX_PLIES)
        )
    try:
        board = Board(fen, RuleSet.apca())
    except PoolCheckersError as error:
        raise PracticeError(str(error)) from error
    for i, text in enumerate(moves, start=1):
        if board.is_game_over():
            raise PracticeError(
                M_("move {i} {text}: the game is already over (R16-R21)", i=i, text=repr(text))
            )
        try:
            board.push(board.parse_move(text))
        except PoolCheckersError as error:
            raise PracticeError(
                M_("move {i} {text}: {error}", i=i, text=repr(text), error=error)
            ) from error
    return board
