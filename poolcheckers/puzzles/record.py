"""A puzzle as stored and shipped: a position with the solver to move, the solution
(R4 moves: the solver's first, then the replies and the solver's moves in turn), the
goal, a starting rating, themes and where it came from; read and written as JSON
lines, and checked move by move by the rules library.

>>> p = Puzzle("abc123", "W:W22,27:B18,11", ("22x8",), "material", 1200, ("multi_jump",))
>>> [str(m) for m in replay(p)[1]]
['22x8']
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.move import Move

Goal = Literal["material", "win", "draw"]
GOALS: tuple[Goal, ...] = get_args(Goal)
#: the file of the puzzles the package ships (built by ``poolcheckers puzzles generate``)
SHIPPED = "puzzles.jsonl.gz"
MIN_RATING, MAX_RATING = 400, 3000
MAX_SOLUTION = 40


class PuzzleError(ValueError):
    """A puzzle that is not one: the error names the puzzle, the move and the rule."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    id: str
    fen: str
    solution: tuple[str, ...]
    goal: Goal
    rating: int
    themes: tuple[str, ...] = ()
    #: where it was found: {"game": a game id or a file's game number, "ply": n} or None
    source: Mapping[str, Any] | None = None

    @property
    def solver_moves(self) -> int:
        return (len(self.solution) + 1) // 2

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "fen": self.fen,
            "solution": list(self.solution),
            "goal": self.goal,
            "rating": self.rating,
            "themes": list(self.themes),
            "source": None if self.source is None else dict(self.source),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "puzzle") -> Puzzle:
        """From a JSON object; a bad field raises :class:`PuzzleError` naming it."""
        if not isinstance(data, Mapping):
            raise PuzzleError(f"{where}: a puzzle must be a JSON object")
        fen, solution, goal = data.get("fen"), data.get("solution"), data.get("goal")
        if not isinstance(fen, str) or not fen:
            raise PuzzleError(f"{where}: 'fen' must be a FEN string (R5)")
        if (
            not isinstance(solution, list)
            or not 1 <= len(solution) <= MAX_SOLUTION
            or not all(isinstance(m, str) for m in solution)
            or len(solution) % 2 == 0
        ):
            raise PuzzleError(
                f"{where}: 'solution' must be 1 to {MAX_SOLUTION} moves (R4), an odd number: "
                "it ends on the solver's move"
            )
        if goal not in GOALS:
            raise PuzzleError(f"{where}: 'goal' must be one of {list(GOALS)}, not {goal!r}")
        rating = data.get("rating", 1500)
        if not isinstance(rating, int) or isinstance(rating, bool):
            raise PuzzleError(f"{where}: 'rating' must be a whole number")
        themes = data.get("themes") or []
        if not isinstance(themes, list) or not all(isinstance(t, str) for t in themes):
            raise PuzzleError(f"{where}: 'themes' must be a list of words")
        source = data.get("source")
        if source is not None and not isinstance(source, Mapping):
            raise PuzzleError(f"{where}: 'source' must be an object or null")
        pid = data.get("id") or puzzle_id(fen, solution)
        if not isinstance(pid, str) or not 1 <= len(pid) <= 16 or not pid.isalnum():
            raise PuzzleError(f"{where}: 'id' must be 1 to 16 letters and digits")
        return cls(
            pid,
            fen,
            tuple(solution),
            goal,
            max(MIN_RATING, min(MAX_RATING, rating)),
            tuple(themes),
            None if source is None else dict(source),
        )


def puzzle_id(fen: str, solution: Iterable[str]) -> str:
    """A short id from the position and the solution (the same puzzle, the same id)."""
    digest = hashlib.sha256((fen + " " + " ".join(solution)).encode()).hexdigest()
    return digest[:8]


def replay(puzzle: Puzzle) -> tuple[Board, list[Move]]:
    """The start position and the solution's moves, each checked by the rules library
    (legal in its position, R4-R15; the game not over before the line ends, R16-R21).

    >>> replay(Puzzle("x1", "W:W22,27:B18,11", ("27-23",), "material", 1200))
    Traceback (most recent call last):
    ...
    poolcheckers.puzzles.record.PuzzleError: puzzle x1, move 1 '27-23': ...
    """
    try:
        board = Board(puzzle.fen)
    except PoolCheckersError as error:
        raise PuzzleError(f"puzzle {puzzle.id}: {error}") from error
    start = board.copy(stack=False)
    moves: list[Move] = []
    for i, text in enumerate(puzzle.solution, start=1):
        if board.is_game_over():
            raise PuzzleError(
                f"puzzle {puzzle.id}, move {i} {text!r}: the game is already over (R16-R21)"
            )
        try:
            move = board.parse_move(text)
        except PoolCheckersError as error:
            raise PuzzleError(f"puzzle {puzzle.id}, move {i} {text!r}: {error}") from error
        board.push(move)
        moves.append(move)
    return start, moves


def read_puzzles(path: str | Path) -> Iterator[Puzzle]:
    """The puzzles of a JSON-lines file (``.gz`` read as gzip); a bad line raises
    :class:`PuzzleError` naming its line number."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt", encoding="utf-8") as lines:
        yield from _parse(lines, str(p))


def _parse(lines: Iterable[str], name: str) -> Iterator[Puzzle]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise PuzzleError(f"{name} line {number}: not JSON ({error.msg})") from error
        yield Puzzle.from_json(data, f"{name} line {number}")


def parse_puzzles(text: str, name: str = "puzzles") -> list[Puzzle]:
    """The puzzles of a JSON-lines text (an upload)."""
    return list(_parse(text.splitlines(), name))


def write_puzzles(path: str | Path, puzzles: Iterable[Puzzle], *, append: bool = False) -> int:
    """Write (or append) puzzles as JSON lines; how many."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    n = 0
    with opener(p, "at" if append else "wt", encoding="utf-8") as out:
        for puzzle in puzzles:
            out.write(json.dumps(puzzle.to_json(), separators=(",", ":")) + "\n")
            n += 1
    return n


def shipped_puzzles() -> list[Puzzle]:
    """The puzzles shipped in the package (empty if the file is missing)."""
    source = resources.files("poolcheckers").joinpath("data", SHIPPED)
    if not source.is_file():
        return []
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return list(_parse(lines, SHIPPED))
