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
    if args.repeat < 1:
        raise UsageError(f"--repeat must be >= 1, not {args.repeat}")
    evaluations = args.eval or [engine.DEFAULT_EVALUATION]
    if len(evaluations) == 1 and args.repeat == 1:
        result = _bench(args.depth, evaluations[0])
        print(f"depth: {result.depth}", file=out)
        print(f"nodes: {result.nodes}", file=out)
        print(f"time: {result.time:.3f} s", file=out)
        print(f"nps: {result.nps:,.0f}", file=out)
    else:
        _compare(args.depth, evaluations, args.repeat, out)
    if tables is not None:
        print(f"tablebase hits: {search_table_hits() - hits} ({tables})", file=out)
    return 0


def _bench(depth: int | None, evaluation: str) -> engine.BenchResult:
    from poolcheckers.engine.nnue import NetworkError

    try:
        return engine.bench(depth, evaluation)
    except NetworkError as exc:
        raise UsageError(f"--eval {evaluation}: {exc}") from None


def _compare(depth: int | None, evaluations: list[str], repeat: int, out: TextIO) -> None:
    """Each evaluation's bench, taken in turn ``repeat`` times (the machine's load
    changes alike for all), the best speed of each, and its ratio to the first's."""
    best: dict[str, engine.BenchResult] = {}
    for _ in range(repeat):
        for name in evaluations:
            result = _bench(depth, name)
            if name not in best or result.nps > best[name].nps:
                best[name] = result
    first = best[evaluations[0]].nps
    for name in evaluations:
        r = best[name]
        ratio = r.nps / first if first > 0 else 0.0
        print(
            f"{name}: depth {r.depth}, nodes {r.nodes}, best time {r.time:.3f} s, "
            f"nps {r.nps:,.0f} ({ratio:.2f} x {evaluations[0]})",
            file=out,
        )


def register(subparsers: Any) -> None:
    """Add the ``bench`` sub-command."""
    parser = subparsers.add_parser(
        "bench",
        help="search the bench positions: total nodes (the signature) and nodes per second",
        description=help_description(__doc__),
    )
    parser.add_argument("--depth", type=int, help="depth in plies (default: the engine's)")
    parser.add_argument(
        "--eval",
        nargs="+",
        metavar="EVAL",
        help="evaluation(s): nnue (the shipped network, the default), pattern or a weights "
        "file; with several, each is benched in turn and compared with the first",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each evaluation; the best counts (1)"
    )
    parser.set_defaults(func=run)
