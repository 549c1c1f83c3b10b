"""An opening book built by the project's own deep searches.

From each root (the start position, or the end of each balloted opening) the
builder searches the position with several lines (multi-PV) to a fixed
depth, keeps every move whose score is within ``margin`` centi-men of the
best, and goes on from each kept move until ``plies`` plies past the root,
the likeliest positions first: with a budget of ``positions`` searches the
book goes deep along the lines games will follow and less far elsewhere.
The book maps a position (its FEN, R5, without counters: the opening has
none running) to the kept moves and their scores, and is a JSON file
(``poolcheckers/data/book.json`` ships with the package; the build's
parameters are its ``"#build"`` entry).

Playing from it (:meth:`Book.choose`) picks among the moves within
``margin`` of the best one, the better ones more often, so that games
differ; a position not in the book is searched as usual.  The engine plays
from it at the levels ``BOOK_MIN_LEVEL`` and up; ``$POOLCHECKERS_BOOK``
names another book file, or ``off`` for none.

>>> from poolcheckers import Board
>>> book = Book({Board().fen(): [("11-15", 5), ("9-14", 2), ("10-14", -40)]})
>>> import random
>>> sorted({str(book.choose(Board(), random.Random(s), margin=10)) for s in range(20)})
['11-15', '9-14']
>>> book.choose(Board("B:W18:B14"), random.Random(1)) is None
True
"""

from __future__ import annotations

import heapq
import itertools
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

#: The key of the build's parameters in a book file (no position's FEN starts with "#").
INFO_KEY: Final = "#build"

#: Moves within this many centi-men of the best are played (and kept when building).
DEFAULT_MARGIN: Final = 10


class Book:
    """Positions (FEN) to their book moves (R4 notation) and scores (centi-men,
    side to move's view, from the building search)."""

    def __init__(
        self,
        entries: Mapping[str, Sequence[tuple[str, int]]] | None = None,
        info: Mapping[str, int | str] | None = None,
    ) -> None:
        #: how the book was built (``poolcheckers book``: depth, lines, margin, …)
        self.info: dict[str, int | str] = dict(info or {})
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
        weights = move_weights([best - s for _, s in near], margin)
        return rng.choices([m for m, _ in near], weights=weights)[0]

    def plies(self, roots: Sequence[Board]) -> int:
        """The most plies a game from one of ``roots`` can follow the book
        (forced moves, R11, on the way count: the builder goes past them).

        >>> Book({Board().fen(): [("11-15", 0)]}).plies([Board()])
        1
        """
        most = 0
        queue = [(root.copy(stack=False), 0) for root in roots]
        seen: set[str] = set()
        while queue:
            board, ply = queue.pop()
            fen = board.fen()
            if fen in seen:
                continue
            seen.add(fen)
            moves = [m for m, _ in self.moves(board)]
            if moves:
                most = max(most, ply + 1)
            elif len(board.legal_moves) == 1 and board.outcome() is None:
                moves = list(board.legal_moves)
            for move in moves:
                after = board.copy(stack=False)
                after.push(move)
                queue.append((after, ply + 1))
        return most

    def to_json(self) -> str:
        """One position a line: ``"fen": [[move, score], …]``, after the build's
        parameters (``"#build": {…}``) when known."""
        rows = [f"{json.dumps(INFO_KEY)}: {json.dumps(self.info)}"] if self.info else []
        rows += [
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
        info = data.pop(INFO_KEY, {}) if isinstance(data, dict) else {}
        if not isinstance(info, dict) or not all(isinstance(v, int | str) for v in info.values()):
            raise ValueError(f"book {path}: {INFO_KEY!r} must map names to numbers or text")
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
        return cls({fen: [(m, s) for m, s in v] for fen, v in data.items()}, info)


_DEFAULT: dict[str, Book | None] = {}

#: The environment variable that chooses the book: unset, the shipped one;
#: ``off`` (or ``0``, ``no``), none (a match of the engine with and without
#: it); otherwise the path of a book file.
BOOK_VARIABLE: Final = "POOLCHECKERS_BOOK"


def default_book() -> Book | None:
    """The book engines play from (read once): the shipped one, or as
    ``$POOLCHECKERS_BOOK`` says; ``None`` when there is none.

    >>> import os
    >>> os.environ[BOOK_VARIABLE] = "off"
    >>> default_book() is None
    True
    >>> del os.environ[BOOK_VARIABLE]
    """
    choice = os.environ.get(BOOK_VARIABLE, "")
    if choice not in _DEFAULT:
        if choice.lower() in ("off", "0", "no"):
            _DEFAULT[choice] = None
        elif choice:
            try:
                _DEFAULT[choice] = Book.load(choice)
            except ValueError as exc:
                raise ValueError(f"${BOOK_VARIABLE}: {exc}") from None
        else:
            _DEFAULT[choice] = Book.load(DEFAULT_BOOK) if DEFAULT_BOOK.exists() else None
    return _DEFAULT[choice]


def move_weights(losses: Sequence[int], margin: int) -> list[int]:
    """How likely :meth:`Book.choose` plays each move, by its loss from the best
    (centi-men): ``1 + margin - loss``.

    >>> move_weights([0, 4, 10], 10)
    [11, 7, 1]
    """
    return [1 + margin - loss for loss in losses]


def build(
    roots: Sequence[Board],
    search: Callable[[Board], list[tuple[Move, int]]],
    *,
    plies: int,
    margin: int = DEFAULT_MARGIN,
    positions: int | None = None,
    on_position: Callable[[int], None] | None = None,
) -> Book:
    """The book of ``plies`` plies from the roots.

    ``search(board)`` gives the scored lines of a position (best first); the
    moves within ``margin`` of the best are kept and followed.  Positions are
    searched most likely first: a root is reached with probability ``1 / len
    (roots)``, a kept move passes on its share of its position's probability
    (the weights :meth:`Book.choose` plays by, :func:`move_weights`), the
    probabilities of the paths to a position add up.  With ``positions``, the
    build stops after that many searches: the book then goes deep along the
    likely lines and less far along the unlikely ones; without it, every
    position within ``plies`` plies is searched.  A position reached twice is
    searched once; a forced move (R11) is followed without a search.
    """
    entries: dict[str, list[tuple[str, int]]] = {}
    reach: dict[str, float] = {}
    done: set[str] = set()
    order = itertools.count()
    queue: list[tuple[float, int, int, Board]] = []  # (-probability, order, ply, board)

    def offer(board: Board, ply: int, probability: float) -> None:
        fen = board.fen()
        if ply >= plies or fen in done:
            return
        reach[fen] = reach.get(fen, 0.0) + probability
        heapq.heappush(queue, (-reach[fen], next(order), ply, board))

    for root in roots:
        offer(root.copy(stack=False), 0, 1.0 / len(roots))
    searched = 0
    while queue and (positions is None or searched < positions):
        _, _, ply, board = heapq.heappop(queue)
        fen = board.fen()
        if fen in done:
            continue  # an older, less likely entry of a position already handled
        done.add(fen)
        probability = reach[fen]
        if board.outcome() is not None:
            continue
        if len(board.legal_moves) == 1:  # forced (R11): nothing to choose, go on
            after = board.copy(stack=False)
            after.push(board.legal_moves[0])
            offer(after, ply + 1, probability)
            continue
        lines = search(board)
        searched += 1
        if on_position is not None:
            on_position(searched)
        if not lines:
            continue
        best = lines[0][1]
        kept = [(m, s) for m, s in lines if best - s <= margin]
        entries[fen] = [(board.notation(m), s) for m, s in kept]
        weights = move_weights([best - s for _, s in kept], margin)
        for (move, _), weight in zip(kept, weights, strict=True):
            after = board.copy(stack=False)
            after.push(move)
            offer(after, ply + 1, probability * weight / sum(weights))
    return Book(entries)


def engine_lines(engine: Any, limit: Any, count: int) -> Callable[[Board], list[tuple[Move, int]]]:
    """``search`` for :func:`build`: the engine's best ``count`` lines (multi-PV)."""

    def search(board: Board) -> list[tuple[Move, int]]:
        result = engine.search(board, limit, multipv=count)
        lines = result.lines or (result,)
        return [(line.move, int(line.score)) for line in lines]

    return search


__all__ = [
    "BOOK_VARIABLE",
    "DEFAULT_BOOK",
    "DEFAULT_MARGIN",
    "INFO_KEY",
    "Book",
    "build",
    "default_book",
    "engine_lines",
    "move_weights",
]
