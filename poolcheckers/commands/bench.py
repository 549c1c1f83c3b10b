"""``poolcheckers bench``: the engine's fixed benchmark.

Every bench position is searched to a fixed depth with a fresh table.  The
total node count is the search's signature (it changes only when the search
or the evaluation changes, never between runs or machines); nodes per second
measure this machine.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from poolcheckers import engine
from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe
from poolcheckers.engine import search_table_hits, tables_directory


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run the bench at ``--depth`` (the engine's default when absent).

    Without the native engine: :class:`~poolcheckers.engine.EngineUnavailable`
    (``poolcheckers`` exits with status 3 and says so).
    """
    out = out or sys.stdout
    engine.require_native()
    if args.depth is not None and not 1 <= args.depth <= 40:
        raise UsageError(f"--depth must be 1..40, not {args.depth}")
    from poolcheckers.rules import RuleSet

    # endgame tables, when present (docs/EGDB.md)
    tables = tables_directory(RuleSet.apca())
    hits = search_table_hits()
    result = engine.bench(args.depth)
    print(f"depth: {result.depth}", file=out)
    print(f"nodes: {result.nodes}", file=out)
    print(f"time: {result.time:.3f} s", file=out)
    print(f"nps: {result.nps:,.0f}", file=out)
    if tables is not None:
        print(f"tablebase hits: {search_table_hits() - hits} ({tables})", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``bench`` sub-command."""
    parser = subparsers.add_parser(
        "bench",
        help="search the bench positions: total nodes (the signature) and nodes per second",
        description=help_description(__doc__),
    )
    parser.add_argument("--depth", type=int, help="depth in plies (default: the engine's)")
    parser.set_defaults(func=run)
