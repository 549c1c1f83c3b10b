"""``poolcheckers tune``: fit the evaluation weights to the engine's own games (Texel).

The engine plays ``--games`` games against itself from the balloted openings
(each followed by ``--random-plies`` random plies drawn from ``--seed``) at
``--nodes`` nodes a move; the quiet positions of those games (no capture for
the side to move, men on the board, past the opening) are labelled with the
games' results; the weights are fitted by logistic regression of the results
on the evaluation (see :mod:`poolcheckers.tooling.tune`) and written as a JSON
weights file, usable with ``match --weights-a`` for an SPRT test and shipped
once it passes.  Everything is reproducible from the seed.

``--load-games`` (the JSON lines of ``--save-games``) or ``--load-pdn`` (PDN
files, e.g. the games of ``match --pdn``: results of matches between engines)
fit on games played before instead.  ``--holdout`` keeps some openings' games
out of the fit and reports the error on them, with the start weights and the
fitted ones, at the fit's ``K``.

``--patterns quadrants`` (or ``overlap``) also fits a pattern table, the
weights of the men's configurations in 4x4 windows of the board as in Scan's
evaluation (``native/patterns.h``), by the same regression with an L2 pull
(``--pattern-l2``) towards 0, together with the ``--names`` weights (``--names
none``: the table alone, on top of the start weights).  The table is written
to ``--pattern-output`` (JSON); ``scripts/gen_pattern_table.py`` turns it into
the native core's ``native/pattern_table.h``, and the weights file then says
``"patterns": 100`` (the table at full weight).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe
from poolcheckers.tooling import require_extra
from poolcheckers.tooling.openings import DEFAULT_BALLOTS

#: The window sets of ``--patterns`` (poolcheckers.tooling.tune.WINDOW_SETS): named
#: here so that ``--help`` does not import numpy.
WINDOW_SET_NAMES = ("overlap", "quadrants")


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: Any = None) -> int:
    """Run the pipeline of ``args``; print the fit and write the weights file."""
    require_extra("numpy", purpose="tuning")
    from poolcheckers.tooling.tune_pipeline import TuneOptions, run_tuning

    out = out if out is not None else sys.stdout
    for name, value, low in (("--games", args.games, 1), ("--nodes", args.nodes, 100)):
        if value < low:
            raise UsageError(f"{name} must be >= {low}, not {value}")
    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be >= 1, not {args.concurrency}")
    target = Path(args.output)
    if not target.parent.is_dir():
        raise UsageError(f"--output {target}: the folder {target.parent} does not exist")
    if not 0.0 <= args.holdout < 1.0:
        raise UsageError(f"--holdout must be in [0, 1), not {args.holdout}")
    pattern_target = Path(args.pattern_output) if args.pattern_output else None
    if args.patterns and pattern_target is None:
        raise UsageError("--patterns needs --pattern-output FILE.json for the table")
    if pattern_target is not None and not args.patterns:
        raise UsageError("--pattern-output without --patterns: no table is fitted")
    if pattern_target is not None and not pattern_target.parent.is_dir():
        raise UsageError(
            f"--pattern-output {pattern_target}: the folder {pattern_target.parent} does not exist"
        )
    if args.pattern_l2 < 0:
        raise UsageError(f"--pattern-l2 must be >= 0, not {args.pattern_l2}")
    if args.load_games and args.load_pdn:
        raise UsageError("--load-games and --load-pdn: give one source of games, not both")
    names: tuple[str, ...] | None = None
    if args.names == "none":
        names = ()
    elif args.names:
        names = tuple(args.names.split(","))
    if names == () and not args.patterns:
        raise UsageError("--names none: nothing to fit without --patterns")
    options = TuneOptions(
        output=target,
        games=args.games,
        nodes=args.nodes,
        random_plies=args.random_plies,
        skip_plies=args.skip_plies,
        seed=args.seed,
        steps=args.steps,
        concurrency=args.concurrency,
        weights=args.weights,
        names=names,
        l2=args.l2,
        quiet_both_sides=args.quiet_both_sides,
        save_games=args.save_games,
        load_games=args.load_games,
        load_pdn=tuple(args.load_pdn or ()),
        holdout=args.holdout,
        patterns=args.patterns,
        pattern_l2=args.pattern_l2,
        pattern_phases=args.pattern_phases,
        pattern_output=pattern_target,
        ballots=args.ballots,
    )
    for line in run_tuning(options):
        print(line, file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``tune`` sub-command."""
    parser = subparsers.add_parser(
        "tune",
        help="fit the evaluation weights to self-play results (Texel tuning)",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=2000, help="self-play games (2000)")
    parser.add_argument("--nodes", type=int, default=5000, help="nodes a move (5000)")
    parser.add_argument("--random-plies", type=int, default=4, help="random plies after a ballot")
    parser.add_argument("--skip-plies", type=int, default=10, help="plies of opening left out")
    parser.add_argument("--seed", type=int, default=1, help="seed of the whole pipeline (1)")
    parser.add_argument("--steps", type=int, default=3000, help="gradient steps of the fit")
    parser.add_argument("--concurrency", type=int, default=1, help="processes playing games")
    parser.add_argument("--weights", metavar="FILE.json", help="start from these weights")
    parser.add_argument(
        "--names",
        help="comma-separated weights to fit (default: all of tooling.tune.TUNED; "
        "none: only the --patterns table)",
    )
    parser.add_argument("--l2", type=float, default=0.0, help="pull towards the start weights")
    parser.add_argument(
        "--quiet-both-sides",
        action="store_true",
        help="leave out positions where the side not to move has a capture too",
    )
    parser.add_argument("--save-games", metavar="FILE", help="write the games (JSON lines)")
    parser.add_argument("--load-games", metavar="FILE", help="fit on these games, play none")
    parser.add_argument(
        "--load-pdn",
        nargs="+",
        metavar="FILE.pdn",
        help="fit on the games of these PDN files (e.g. match --pdn), play none; games "
        "from a set-up position, unfinished or lost on time are left out",
    )
    parser.add_argument(
        "--holdout",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="hold out this fraction of the openings' games (by --seed) and report the "
        "error on them before and after the fit (0: fit on all)",
    )
    parser.add_argument(
        "--patterns",
        choices=sorted(WINDOW_SET_NAMES),
        help="also fit a pattern table over these 4x4 windows (quadrants: 4, overlap: 9)",
    )
    parser.add_argument(
        "--pattern-l2",
        type=float,
        default=3000.0,
        metavar="N",
        help="pull of each pattern weight towards 0, in positions' worth of evidence (3000)",
    )
    parser.add_argument(
        "--pattern-phases",
        type=int,
        choices=(1, 2),
        default=2,
        help="one table, or two (a full board's and an empty one's) blended by the pieces (2)",
    )
    parser.add_argument(
        "--pattern-output", metavar="OUT.json", help="the fitted pattern table (with --patterns)"
    )
    parser.add_argument("--ballots", default=str(DEFAULT_BALLOTS), metavar="FILE")
    parser.add_argument("--output", required=True, metavar="OUT.json", help="weights file")
    parser.set_defaults(func=run)
