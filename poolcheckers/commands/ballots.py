"""``poolcheckers ballots``: make the balloted 3-move openings for matches.

Every legal line of three plies from the start is enumerated (302 lines,
``perft 3``); lines that transpose into the same position are kept once (the
first in notation order).  Each resulting position is searched by the engine
to a fixed depth with a fresh table, and the line is *sound* when the score
lies within ``--margin`` centi-men of equality (neither side has given away
material that the search can see).  The sound lines are written one per line
in R4 notation, after a comment header that says how they were made.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import (
    EngineLike,
    add_engine_arguments,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
)
from poolcheckers.commands.match import DEFAULT_BALLOTS
from poolcheckers.pieces import Color
from poolcheckers.rules import RuleSet

#: Plies of a balloted opening.
BALLOT_PLIES: Final = 3
#: Search depth used to judge an opening (plies).
DEFAULT_DEPTH: Final = 12
#: Largest |score| of a sound opening, in centi-men.
DEFAULT_MARGIN: Final = 30


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
        board = Board(rules=rules)
        for text in line:
            board.push_notation(text)
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


@quiet_broken_pipe
def run(args: argparse.Namespace, *, engine: EngineLike | None = None, limit: Any = None) -> int:
    """Write the ballot file of ``args``."""
    if args.depth < 1:
        raise UsageError(f"--depth must be >= 1, not {args.depth}")
    if args.margin < 0:
        raise UsageError(f"--margin must be >= 0 centi-men, not {args.margin}")
    if Path(args.output).is_dir():
        raise UsageError(f"--output {args.output} is a folder")
    engine = engine or open_engine(args.hash, RuleSet.apca())
    limit = limit if limit is not None else make_limit(depth=args.depth)

    from tqdm import tqdm

    with tqdm(desc="ballots", unit="line", file=sys.stderr, disable=None) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        openings = sound_openings(engine, limit, margin=args.margin, progress=progress)
    output = Path(args.output)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(ballot_text(openings, args.depth, args.margin), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"{len(openings)} sound openings written to {args.output}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``ballots`` sub-command."""
    parser = subparsers.add_parser(
        "ballots",
        help="make the balloted 3-move openings used by match",
        description=help_description(__doc__),
    )
    parser.add_argument(
        "--depth", type=int, default=DEFAULT_DEPTH, help="search depth (plies; default %(default)s)"
    )
    parser.add_argument(
        "--margin",
        type=int,
        default=DEFAULT_MARGIN,
        help="largest |score| kept, centi-men (default %(default)s)",
    )
    parser.add_argument(
        "--output",
        default=str(DEFAULT_BALLOTS),
        help="file to write (default: the shipped ballots)",
    )
    add_engine_arguments(parser)
    parser.set_defaults(func=run)
