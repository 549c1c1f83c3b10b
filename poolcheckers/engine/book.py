"""An opening book built by the project's own deep searches.

From each root (the start position, or the end of each balloted opening) the
builder searches the position with several lines (multi-PV) to a fixed
depth, keeps every move whose score is within ``margin`` centi-men of the
best, and goes on from each kept move until ``plies`` plies past the root.
The book maps a position (its FEN, R5, without counters: the opening has
none running) to the kept moves and their scores, and is a JSON file
(``poolcheckers/data/book.json`` ships with the package).

Playing from it (:meth:`Book.choose`) picks among the moves within
``margin`` of the best one, the better ones more often, so that games
differ; a position not in the book is searched as usual.

>>> from poolcheckers import Board
>>> book = Book({Board().fen(): [("11-15", 5), ("9-14", 2), ("10-14", -40)]})
>>> import random
>>> sorted({str(book.choose(Board(), random.Random(s), margin=10)) for s in range(20)})
['11-15', '9-14']
>>> book.choose(Board("B:W18:B14"), random.Random(1)) is None
True
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.move import Move

#: The book shipped with the package.
DEFAULT_BOOK: Final = Path(__file__).resolve().parent.parent / "data" / "book.json"

#: Moves within this many centi-men of the best are played (and kept when building).
DEFAULT_MARGIN: Final = 10


class Book:
    """Positions (FEN) to their book moves (R4 notation) and scores (centi-men,
    side to move's view, from the building search)."""

    def __init__(self, entries: Mapping[str, Sequence[tuple[str, int]]] | None = None) -> None:
        self.entries: dict[str, list[tuple[str, int]]] = {
            fen: sorted(((m, int(s)) for m, s in moves), key=lambda e: -e[1])
            for fen, moves in (entries or {}).items()
        }

    def __len__(self) -> int:
        return len(self.entries)

    def moves(self, board: Board) -> list[tuple[Move, int]]:
        """The book moves of ``board`` that are legal in it, best first."""
        out = []
        for text, score in self.entries.get(board.fen(), []):
            try:
                out.append((board.parse_move(text), score))
            except PoolCheckersError:
                continue  # a book made under other rules (§9): that move is not offered
        return out

    def choose(self, board: Board, rng: random.Random, margin: int = DEFAULT_MARGIN) -> Move | None:
        """A book move for ``board`` (within ``margin`` of the best, the better
        ones more likely: weight ``1 + margin - loss``), or ``None``."""
        moves = self.moves(board)
        if not moves:
            return None
        best = moves[0][1]
        near = [(m, s) for m, s in moves if best - s <= margin]
        weights = [1 + margin - (best - s) for _, s in near]
        return rng.choices([m for m, _ in near], weights=weights)[0]

    def to_json(self) -> str:
        """One position a line: ``"fen": [[move, score], …]``."""
        rows = [
            f"{json.dumps(fen)}: {json.dumps([[m, s] for m, s in moves])}"
            for fen, moves in sorted(self.entries.items())
        ]
        return "{\n" + ",\n".join(rows) + "\n}"

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Book:
        """Read a book file; ``ValueError`` naming the file when it is not one."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"cannot read book {path}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"book {path} is not JSON: {exc}") from None
        if not isinstance(data, dict) or not all(
            isinstance(v, list)
            and all(
                isinstance(e, list)
                and len(e) == 2
                and isinstance(e[0], str)
                and isinstance(e[1], int)
                for e in v
            )
            for v in data.values()
        ):
            raise ValueError(f"book {path} must map positions to [move, score] pairs")
        return cls({fen: [(m, s) for m, s in v] for fen, v in data.items()})


_DEFAULT: list[Book | None] = []


def default_book() -> Book | None:
    """The shipped book (read once), or ``None`` when the package has none."""
    if not _DEFAULT:
        _DEFAULT.append(Book.load(DEFAULT_BOOK) if DEFAULT_BOOK.exists() else None)
    return _DEFAULT[0]


def build(
    roots: Sequence[Board],
    search: Callable[[Board], list[tuple[Move, int]]],
    *,
    plies: int,
    margin: int = DEFAULT_MARGIN,
    on_position: Callable[[int], None] | None = None,
) -> Book:
    """The book of ``plies`` plies from each root: ``search(board)`` gives the
    scored lines of a position (best first); moves within ``margin`` of the best
    are kept and followed.  Positions reached twice are searched once."""
    entries: dict[str, list[tuple[str, int]]] = {}
    frontier: list[Board] = [r.copy(stack=False) for r in roots]
    for _ in range(plies):
        following: list[Board] = []
        for board in frontier:
            fen = board.fen()
            if fen in entries or board.outcome() is not None:
                continue
            if len(board.legal_moves) == 1:  # forced (R11): nothing to choose, go on
                after = board.copy(stack=False)
                after.push(board.legal_moves[0])
                following.append(after)
                continue
            lines = search(board)
            if on_position is not None:
                on_position(len(entries) + 1)
            if not lines:
                continue
            best = lines[0][1]
            kept = [(m, s) for m, s in lines if best - s <= margin]
            entries[fen] = [(board.notation(m), s) for m, s in kept]
            for move, _ in kept:
                after = board.copy(stack=False)
                after.push(move)
                following.append(after)
        frontier = following
    return Book(entries)


def engine_lines(engine: Any, limit: Any, count: int) -> Callable[[Board], list[tuple[Move, int]]]:
    """``search`` for :func:`build`: the engine's best ``count`` lines (multi-PV)."""

    def search(board: Board) -> list[tuple[Move, int]]:
        result = engine.search(board, limit, multipv=count)
        lines = result.lines or (result,)
        return [(line.move, int(line.score)) for line in lines]

    return search


__all__ = ["DEFAULT_BOOK", "DEFAULT_MARGIN", "Book", "build", "default_book", "engine_lines"]
