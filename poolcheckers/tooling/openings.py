"""The balloted openings that matches start from.

A ballot file holds one opening a line: moves from the start in R4 notation
(``poolcheckers/data/ballots.txt``: three plies each).  ``poolcheckers
ballots`` makes it: every legal line of three plies, transpositions kept once,
each position searched to a fixed depth and kept when its score is within a
margin of equality (:func:`sound_openings`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from poolcheckers.board import Board
from poolcheckers.engine import EngineLike
from poolcheckers.errors import PoolCheckersError
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet
from poolcheckers.tooling import ToolingError

#: The balloted openings shipped with the package.
DEFAULT_BALLOTS: Final = Path(__file__).resolve().parent.parent / "data" / "ballots.txt"

#: Plies of a balloted opening.
BALLOT_PLIES: Final = 3
#: Largest |score| of a sound opening, in centi-men.
DEFAULT_MARGIN: Final = 30


def load_ballots(path: str | Path, rules: RuleSet | None = None) -> list[tuple[str, ...]]:
    """The openings of a ballot file: one line of moves from the start each.

    Blank lines and text after ``#`` are ignored; every move must be legal
    (raises :class:`~poolcheckers.tooling.ToolingError` naming the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolingError(f"cannot read ballot file {path}: {exc.strerror}") from None
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
                raise ToolingError(f"{path}, line {number}: {exc}") from None
        openings.append(tuple(moves))
    if not openings:
        raise ToolingError(f"ballot file {path} holds no opening")
    return openings


def opening_board(opening: tuple[str, ...], rules: RuleSet | None = None) -> Board:
    """The position at the end of ``opening``, played from the start."""
    board = Board(rules=rules)
    for text in opening:
        board.push_notation(text)
    return board


def enumerate_lines(plies: int, rules: RuleSet | None = None) -> list[tuple[str, ...]]:
    """Every legal line of ``plies`` plies from the start, in notation order.

    >>> lines = enumerate_lines(2)
    >>> len(lines), lines[0]
    (49, ('9-13', '21-17'))
    """
    lines: list[tuple[str, ...]] = []

    def walk(board: Board, path: tuple[str, ...]) -> None:
        if len(path) == plies:
            lines.append(path)
            return
        moves = sorted(board.legal_moves, key=lambda m: _sort_key(board.notation(m)))
        for move in moves:
            text = board.notation(move)
            board.push(move)
            walk(board, (*path, text))
            board.pop()

    walk(Board(rules=rules), ())
    return lines


def _sort_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.replace("x", "-").split("-"))


def sound_openings(
    engine: EngineLike,
    limit: Any,
    *,
    margin: int = DEFAULT_MARGIN,
    plies: int = BALLOT_PLIES,
    rules: RuleSet | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[tuple[str, ...], int]]:
    """The distinct lines whose searched score (Black's view) is within ``margin``.

    Returns ``(line, score)`` pairs in notation order.
    """
    seen: set[str] = set()
    kept: list[tuple[tuple[str, ...], int]] = []
    lines = enumerate_lines(plies, rules)
    clear = getattr(engine, "clear", None)
    for number, line in enumerate(lines, start=1):
        board = opening_board(line, rules)
        key = board.fen()
        if key not in seen and board.outcome() is None:
            seen.add(key)
            if callable(clear):
                clear()
            result = engine.search(board, limit)
            black_view = result.score if board.turn is Color.BLACK else -result.score
            if abs(black_view) <= margin and result.mate_in is None:
                kept.append((line, black_view))
        if progress is not None:
            progress(number, len(lines))
    return kept


def ballot_text(openings: list[tuple[tuple[str, ...], int]], depth: int, margin: int) -> str:
    """The ballot file: a header saying how it was made, then one opening a line."""
    header = [
        f"# {len(openings)} balloted {BALLOT_PLIES}-ply openings of American Pool Checkers "
        "(APCA rules), one per line.",
        "# Made by `poolcheckers ballots`: every legal 3-ply line from the start, distinct",
        f"# resulting positions only, kept when a depth-{depth} search scores it within "
        f"±{margin / 100:.2f} men.",
    ]
    return "\n".join(header + [" ".join(line) for line, _score in openings]) + "\n"
