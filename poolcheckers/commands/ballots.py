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
from pathlib import Path
from typing import Any, Final

from poolcheckers.cli import UsageError
from poolcheckers.commands.common import (
    EngineLike,
    add_engine_arguments,
    help_description,
    make_limit,
    open_engine,
    quiet_broken_pipe,
)
from poolcheckers.rules import RuleSet
from poolcheckers.tooling.openings import (
    DEFAULT_BALLOTS,
    DEFAULT_MARGIN,
    ballot_text,
    sound_openings,
)

#: Search depth used to judge an opening (plies).
DEFAULT_DEPTH: Final = 12


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
