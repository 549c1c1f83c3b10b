"""The balloted openings that matches start from.

A ballot file holds one opening a line: moves from the start in R4 notation
(``poolcheckers/data/ballots.txt``: three plies each).  ``poolcheckers
ballots`` makes it: every legal line of three plies, transpositions kept once,
each position searched to a fixed depth and kept when its score is within a
margin of equality (:func:`sound_openings`).

The held-out openings (``poolcheckers/data/openings_heldout.txt``, five plies
each, positions that no game of the project's matches and no position of the
opening book reached) are kept for the final results of the engine's changes:
tuning, book building and the tests of a change must not see them, or the final
match would measure what they were fitted on.  :func:`load_ballots` refuses a
file with one of their positions unless it is asked for a final result
(``match --held-out``), and the tuner's PDN loader leaves out games that went
through one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
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
#: The openings kept for final results (see the module's text).
HELDOUT_OPENINGS: Final = DEFAULT_BALLOTS.with_name("openings_heldout.txt")

#: Plies of a balloted opening.
BALLOT_PLIES: Final = 3
#: Largest |score| of a sound opening, in centi-men.
DEFAULT_MARGIN: Final = 30


def load_ballots(
    path: str | Path, rules: RuleSet | None = None, *, final: bool = False
) -> list[tuple[str, ...]]:
    """The openings of a ballot file: one line of moves from the start each.

    Blank lines and text after ``#`` are ignored; every move must be legal
    (raises :class:`~poolcheckers.tooling.ToolingError` naming the line).  An
    opening that passes through a held-out position is refused, naming its line,
    unless ``final`` (a final result; see the module's text).
    """
    openings = _read_openings(path, rules)
    if not final:
        held = heldout_positions()
        for number, opening in openings:
            if _passes_through(opening, held, rules):
                raise ToolingError(
                    f"{path}, line {number}: {' '.join(opening)} reaches a held-out opening "
                    f"({HELDOUT_OPENINGS.name}): those are kept for final results "
                    "(match --held-out); no tuning, book or test of a change may use them"
                )
    return [opening for _number, opening in openings]


def _read_openings(path: str | Path, rules: RuleSet | None) -> list[tuple[int, tuple[str, ...]]]:
    """The openings of a ballot file with their line numbers."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolingError(f"cannot read ballot file {path}: {exc.strerror}") from None
    openings: list[tuple[int, tuple[str, ...]]] = []
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
        openings.append((number, tuple(moves)))
    if not openings:
        raise ToolingError(f"ballot file {path} holds no opening")
    return openings


@lru_cache(maxsize=1)
def heldout_positions() -> frozenset[str]:
    """The positions (FEN) at the end of the held-out openings; none when the file
    is missing (a checkout without it has nothing to hold out)."""
    return frozenset(opening_board(o).fen() for o in _heldout_openings())


@lru_cache(maxsize=1)
def _heldout_openings() -> tuple[tuple[str, ...], ...]:
    if not HELDOUT_OPENINGS.exists():
        return ()
    return tuple(opening for _n, opening in _read_openings(HELDOUT_OPENINGS, None))


def _passes_through(
    moves: Iterable[str], held: frozenset[str], rules: RuleSet | None = None
) -> bool:
    """Whether ``moves`` from the start reach a position of ``held`` (looked for only
    as far as the longest held-out opening goes)."""
    deepest = max((len(o) for o in _heldout_openings()), default=0)
    board = Board(rules=rules)
    for ply, text in enumerate(moves, start=1):
        if ply > deepest:
            break
        board.push_notation(text)
        if board.fen() in held:
            return True
    return False


def passes_through_heldout(moves: Iterable[str]) -> bool:
    """Whether a game or a line played from the start (APCA rules) reaches a
    held-out opening's position."""
    held = heldout_positions()
    return bool(held) and _passes_through(moves, held)


#: Draws of a game's random moves before :func:`random_start` gives up on them.
RANDOM_START_ATTEMPTS: Final = 20


def random_start(opening: Sequence[str], rng: random.Random, random_plies: int) -> Board | None:
    """The position after ``opening`` (APCA rules) and up to ``random_plies``
    random legal moves drawn from ``rng``, as the self-play of the tuner and
    of the network's training starts its games.  The moves are drawn again
    when the line reaches a held-out opening (those are kept for final
    results; see the module's text); None when :data:`RANDOM_START_ATTEMPTS`
    draws all reach one.

    >>> import random
    >>> random_start(("11-15",), random.Random(3), 2).ply
    3
    """
    for _attempt in range(RANDOM_START_ATTEMPTS):
        board = opening_board(tuple(opening))
        for _ in range(random_plies):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        if not passes_through_heldout(board_notations(board)):
            return board
    return None


def board_notations(board: Board) -> tuple[str, ...]:
    """The moves of ``board``'s game from its start, in notation."""
    replay = board.copy()
    stack = list(replay.move_stack)
    for _ in stack:
        replay.pop()
    out = []
    for move in stack:
        out.append(replay.notation(move))
        replay.push(move)
    return tuple(out)


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
