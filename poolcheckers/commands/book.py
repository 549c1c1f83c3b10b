"""``poolcheckers book``: build the opening book from deep searches.

From the roots (``--roots start``: the initial position, where every game
against the engine begins; ``ballots``: the end of every balloted opening)
the engine searches each position with ``--lines`` lines to ``--depth``
plies, keeps the moves within ``--margin`` centi-men of the best and follows
them for up to ``--plies`` plies, the positions games are likelier to reach
first, until ``--positions`` positions are searched (0: all of them within
``--plies``).  The book (see :mod:`poolcheckers.engine.book`) is written as
JSON.  The engine plays from ``poolcheckers/data/book.json`` at level 10,
choosing among the near-best moves so that games differ.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots, opening_board


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: Any = None) -> int:
    """Build the book of ``args`` and write it."""
    from tqdm import tqdm

    from poolcheckers.engine import book as opening_book
    from poolcheckers.engine import make_limit, open_engine

    out = out if out is not None else sys.stdout
    for name, value, low in (("--depth", args.depth, 1), ("--plies", args.plies, 1),
                             ("--lines", args.lines, 1), ("--margin", args.margin, 0),
                             ("--positions", args.positions, 0)):  # fmt: skip
        if value < low:
            raise UsageError(f"{name} must be >= {low}, not {value}")
    if args.lines > 8:
        raise UsageError(f"--lines must be at most 8, not {args.lines}")
    target = Path(args.output)
    if not target.parent.is_dir():
        raise UsageError(f"--output {target}: the folder {target.parent} does not exist")
    roots: list[Board] = []
    if args.roots == "start":
        roots.append(Board())
    else:
        roots.extend(opening_board(opening) for opening in load_ballots(args.ballots))
    engine = open_engine(args.hash)
    limit = make_limit(depth=args.depth)
    search = opening_book.engine_lines(engine, limit, args.lines)
    budget = args.positions or None
    wall, cpu = time.perf_counter(), time.process_time()
    with tqdm(total=budget, desc="positions", unit="pos", file=sys.stderr, disable=None) as bar:

        def on_position(count: int) -> None:
            bar.update()

        built = opening_book.build(
            roots,
            search,
            plies=args.plies,
            margin=args.margin,
            positions=budget,
            on_position=on_position,
        )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    built.info = {"roots": args.roots, "depth": args.depth, "lines": args.lines,
                  "margin": args.margin, "plies": args.plies, "positions": args.positions,
                  "hash": args.hash}  # fmt: skip
    built.save(target)
    moves = sum(len(v) for v in built.entries.values())
    print(
        f"{len(built)} positions, {moves} moves (depth {args.depth}, {args.lines} lines, "
        f"margin {args.margin}, up to {args.plies} plies from {len(roots)} roots, "
        f"book moves to ply {built.plies(roots)}); {wall:.0f} s, CPU {cpu:.0f} s; "
        f"saved to {target}",
        file=out,
    )
    return 0


def register(subparsers: Any) -> None:
    """Add the ``book`` sub-command."""
    parser = subparsers.add_parser(
        "book",
        help="build the opening book from deep multi-line searches",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--roots", choices=("start", "ballots"), default="start", help="where lines begin (start)"
    )
    parser.add_argument("--ballots", default=str(DEFAULT_BALLOTS), metavar="FILE")
    parser.add_argument("--depth", type=int, default=16, help="search depth (16)")
    parser.add_argument("--plies", type=int, default=12, help="plies of book past a root (12)")
    parser.add_argument("--lines", type=int, default=2, help="lines searched a position (2)")
    parser.add_argument("--margin", type=int, default=10, help="centi-men from the best (10)")
    parser.add_argument("--positions", type=int, default=0,
                        help="search at most this many positions, the likeliest first "
                             "(0: every position within --plies)")  # fmt: skip
    parser.add_argument("--hash", type=int, default=256, help="table size, MiB (256)")
    parser.add_argument("--output", required=True, metavar="OUT.json", help="the book file")
    parser.set_defaults(func=run)
