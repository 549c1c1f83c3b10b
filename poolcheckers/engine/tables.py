"""The endgame tables as the engine's users see them: what the Hub loop, the
commands and the web app ask of the tables goes through here, so that they depend
on the engine facade alone and the tables' play hooks can change behind it.

The tables module is imported on first use: most callers never have tables on disk,
and importing the facade stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from poolcheckers.board import Board
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet

if TYPE_CHECKING:
    from poolcheckers.egdb import Tablebase


def describe_tables(board: Board) -> str | None:
    """``tablebase: win, conversion in 7 plies`` (or draw, loss) when the engine's tables
    cover ``board``; None otherwise."""
    from poolcheckers.egdb.play import describe

    return describe(board)


def table_hits(board: Board) -> int | None:
    """Table probes of the native search since the engine's last search began (None when
    the engine has no tables for the board's rules)."""
    from poolcheckers.egdb.play import hits_this_search

    return hits_this_search(board)


def tables_view(board: Board) -> dict[str, object] | None:
    """The analysis board's view of the tables: the position's value under its running
    counts, DTZ, fresh value and each legal move's value (None without tables)."""
    from poolcheckers.egdb.play import tablebase_info

    return tablebase_info(board)


def tables_line(board: Board, limit: int = 160) -> tuple[list[str], int | None] | None:
    """The tables' line from ``board``: each side's best move in turn (a win by the
    fastest conversion, a loss by the longest defence) until the game ends or ``limit``
    plies, in R4 notation; and the winner's moves to the end when it ends with a win
    (None for a draw or a line cut at the limit).  None without tables.

    The count is along the tables' line, which converts as fast as the tables know
    (DTZ): the true shortest win may be shorter."""
    from poolcheckers.egdb.play import best, engine_tablebase, move_values

    tables = engine_tablebase(board.rules)
    if tables is None or tables.probe(board) is None:
        return None
    walk = board.copy()
    line: list[str] = []
    while len(line) < limit and walk.outcome() is None:
        values = move_values(tables, walk)
        if not values:
            break
        move = best(values).move
        line.append(walk.notation(move))
        walk.push(move)
    outcome = walk.outcome()
    if outcome is None or outcome.winner is None:
        return line, None
    winner_moves = sum(
        1
        for i in range(len(line))
        if (board.turn if i % 2 == 0 else board.turn.opponent) is outcome.winner
    )
    return line, winner_moves


def tables_directory(rules: RuleSet) -> str | None:
    """The directory of the tables the engine probes under ``rules``, or None."""
    from poolcheckers.egdb.play import engine_tablebase

    tables = engine_tablebase(rules)
    return None if tables is None else str(tables.directory)


def search_table_hits() -> int:
    """Table probes answered inside the native search since the process started."""
    from poolcheckers.egdb import search_hits

    return search_hits()


def open_tables(directory: str | Path, *, build_pieces: int = 0) -> Tablebase | None:
    """The tables of ``directory`` (APCA rules), built there first up to ``build_pieces``
    pieces when they are missing (4 pieces: seconds); None when there are none."""
    from poolcheckers.egdb import Tablebase, TablebaseError, build

    path = Path(directory)
    try:
        tables: Tablebase | None = Tablebase(path)
    except TablebaseError:
        tables = None
    if build_pieces and (tables is None or tables.max_pieces < build_pieces):
        build(build_pieces, path)
        tables = Tablebase(path)
    return tables


def tables_move_values(
    tables: Tablebase, board: Board
) -> list[tuple[Move, str, int | None]] | None:
    """Every legal move with the mover's value after it ("win", "draw", "loss", under
    the running counts) and its plies to conversion; None when the tables do not
    cover the board."""
    from poolcheckers.egdb.play import move_values

    values = move_values(tables, board)
    return None if values is None else [(v.move, v.value, v.dtz) for v in values]


def tables_best_move(
    values: Sequence[tuple[Move, str, int | None]],
) -> tuple[Move, str, int | None]:
    """Of :func:`tables_move_values`' answer, the move keeping the best value: a win by
    the fastest conversion, a loss by the longest (the engine's own choice at the root)."""
    from poolcheckers.egdb.play import MoveValue, best

    chosen = best([MoveValue(m, v, d) for m, v, d in values])  # type: ignore[arg-type]
    return chosen.move, chosen.value, chosen.dtz


def default_tables_directory() -> Path:
    """Where the tables are looked for: ``$POOLCHECKERS_EGDB_DIR``, else the data
    folder's ``egdb`` (docs/EGDB.md)."""
    from poolcheckers.egdb import default_directory

    return default_directory()
