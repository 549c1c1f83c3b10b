"""``poolcheckers analyse``: search a position and print one line per depth.

Each line gives the depth, the score (men, from the side to move's point of
view, or ``win in N`` / ``loss in N`` moves when the search proved an end),
nodes, nodes per second and the principal variation in R4 notation; the last
line is the best move.  Ctrl-C stops the search and prints the best move found
so far.  ``--multipv N`` prints the best N lines at each depth (numbered, best
first); ``--threads N`` searches with N threads.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from poolcheckers.cli import UsageError, add_position_arguments, playable_board_from_args
from poolcheckers.commands.common import (
    EngineLike,
    SearchInfo,
    add_engine_arguments,
    format_nps,
    format_score,
    help_description,
    make_limit,
    open_engine,
    pv_notation,
    quiet_broken_pipe,
    search_interruptibly,
)
from poolcheckers.engine import describe_tables, table_hits

#: Seconds of search when neither --time nor --depth is given.
DEFAULT_TIME = 5.0


def analysis_line(board: Any, info: SearchInfo) -> str:
    """``depth 7  score +0.12  nodes 12345  nps 1.20M  pv 11-15 23-19 …``."""
    pv = " ".join(pv_notation(board, info.pv))
    return (
        f"depth {info.depth:>2}  score {format_score(info.score, info.mate_in):>10}  "
        f"nodes {info.nodes:>11,}  nps {format_nps(info.nodes, info.time):>7}  pv {pv}"
    )


class _Lines:
    """An engine whose searches give the best ``count`` lines (multi-PV)."""

    def __init__(self, engine: EngineLike, count: int) -> None:
        self.engine, self.count = engine, count

    def search(
        self,
        board: Any,
        limit: Any,
        on_info: Any = None,
        level: int | None = None,
    ) -> SearchInfo:
        search: Any = self.engine.search
        result: SearchInfo = search(board, limit, on_info=on_info, level=level, multipv=self.count)
        return result

    def stop(self) -> None:
        self.engine.stop()


@quiet_broken_pipe
def run(
    args: argparse.Namespace,
    *,
    engine: EngineLike | None = None,
    limit: Any = None,
    out: TextIO | None = None,
) -> int:
    """Analyse the position of ``args`` (``--fen``, ``--rules``, ``--time``/``--depth``)."""
    out = out or sys.stdout
    board = playable_board_from_args(args)
    if limit is None:
        if args.depth is not None and args.depth < 1:
            raise UsageError(f"--depth must be >= 1, not {args.depth}")
        if args.time is not None and not args.time > 0:
            raise UsageError(f"--time must be > 0 seconds, not {args.time}")
        seconds = args.time if args.time is not None or args.depth is not None else DEFAULT_TIME
        limit = make_limit(time=seconds, depth=args.depth)
    engine = engine or open_engine(args.hash, board.rules)
    multipv = getattr(args, "multipv", 1) or 1
    if not 1 <= multipv <= 8:
        raise UsageError(f"--multipv must be 1..8, not {multipv}")
    threads = getattr(args, "threads", 1) or 1
    if not 1 <= threads <= 64:
        raise UsageError(f"--threads must be 1..64, not {threads}")
    if threads != 1:
        engine.threads = threads  # type: ignore[attr-defined]
    if multipv > 1:
        engine = _Lines(engine, multipv)
    print(board, file=out)

    table = describe_tables(board)
    if table is not None:
        print(table, file=out)

    def on_info(info: SearchInfo) -> None:
        lines = getattr(info, "lines", ())
        if multipv > 1 and lines:
            for number, line in enumerate(lines, start=1):
                print(f"{number}. {analysis_line(board, line)}", file=out, flush=True)
        else:
            print(analysis_line(board, info), file=out, flush=True)

    result, interrupted = search_interruptibly(engine, board, limit, on_info=on_info)
    if interrupted:
        print(file=out)  # past the ^C the terminal echoed
    if result is not None and result.move is not None:
        print(
            f"best move {board.notation(result.move)}  "
            f"score {format_score(result.score, result.mate_in)}  "
            f"({result.nodes:,} nodes in {result.time:.2f} s)"
            + ("  [interrupted]" if interrupted else ""),
            file=out,
        )
    hits = table_hits(board)
    if hits is not None:
        print(f"tablebase hits: {hits}", file=out)
    return 130 if interrupted else 0


def register(subparsers: Any) -> None:
    """Add the ``analyse`` sub-command."""
    parser = subparsers.add_parser(
        "analyse",
        aliases=["analyze"],
        help="search a position: depth, score, nodes, nps and PV per depth",
        description=help_description(__doc__),
    )
    add_position_arguments(parser)
    parser.add_argument(
        "--time",
        type=float,
        help=f"seconds (default {DEFAULT_TIME:g} unless --depth is given; with --depth: "
        "whichever comes first)",
    )
    parser.add_argument("--depth", type=int, help="search to this depth (plies)")
    parser.add_argument("--multipv", type=int, default=1, help="lines to show (1-8, default 1)")
    parser.add_argument("--threads", type=int, default=1, help="search threads (default 1)")
    add_engine_arguments(parser)
    parser.set_defaults(func=run)
