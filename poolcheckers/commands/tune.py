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
import json
import sys
from pathlib import Path
from typing import Any

from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe
from poolcheckers.tooling import require_extra
from poolcheckers.tooling.openings import DEFAULT_BALLOTS, load_ballots

#: The window sets of ``--patterns`` (poolcheckers.tooling.tune.WINDOW_SETS): named
#: here so that ``--help`` does not import numpy.
WINDOW_SET_NAMES = ("overlap", "quadrants")


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: Any = None) -> int:
    """Run the pipeline of ``args``; print the fit and write the weights file."""
    require_extra("numpy", purpose="tuning")
    import numpy as np
    from tqdm import tqdm

    from poolcheckers.engine import open_engine
    from poolcheckers.tooling import tune as texel

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
    left_out: dict[str, int] = {}
    if args.load_games:
        try:
            games = texel.load_games(args.load_games)
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError(f"--load-games {args.load_games}: {exc}") from None
    elif args.load_pdn:
        from poolcheckers.errors import PdnError

        try:
            load = texel.games_from_pdn(args.load_pdn)
        except (OSError, PdnError) as exc:
            raise UsageError(f"--load-pdn: {exc}") from None
        games, left_out = load.games, load.left_out
    else:
        openings = load_ballots(args.ballots)
        tasks = texel.game_tasks(openings, args.games, args.seed, args.nodes, args.random_plies)
        with tqdm(
            total=len(tasks), desc="games", unit="game", file=sys.stderr, disable=None
        ) as bar:

            def on_game(game: texel.SelfPlayGame) -> None:
                bar.update()

            games = texel.play_games(tasks, concurrency=args.concurrency, on_game=on_game)
    if args.save_games:
        texel.save_games(games, args.save_games)
    fit_games, held_games = texel.holdout_split(games, args.holdout, args.seed)
    positions = texel.quiet_positions(
        fit_games, skip_plies=args.skip_plies, both_sides=args.quiet_both_sides
    )
    held = texel.quiet_positions(
        held_games, skip_plies=args.skip_plies, both_sides=args.quiet_both_sides
    )
    if len(positions) < 100:
        raise UsageError(f"only {len(positions)} quiet positions: play more games")
    boards = [b for b, _ in positions + held]
    results = np.array([r for _, r in positions], dtype=np.float64)
    held_results = np.array([r for _, r in held], dtype=np.float64)
    engine = open_engine(1, weights=args.weights)
    start_weights = engine.weights
    if args.names == "none":
        names: tuple[str, ...] = ()
    else:
        names = tuple(args.names.split(",")) if args.names else texel.TUNED
    unknown = [n for n in names if n not in start_weights]
    if unknown:
        raise UsageError(f"--names: unknown weight(s) {', '.join(unknown)}")
    if args.patterns:
        # the table is fitted from 0: the start is the evaluation without patterns
        engine.set_weights({"patterns": 0})
        start_weights = engine.weights
    elif not names:
        raise UsageError("--names none: nothing to fit without --patterns")
    with tqdm(total=len(names), desc="features", file=sys.stderr, disable=None) as bar:

        def on_column(name: str) -> None:
            bar.update()

        x_all, base = texel.feature_matrix(engine, boards, names, on_column=on_column)
    start = np.array([start_weights[n] for n in names], dtype=np.float64)
    offset_all = base - x_all @ start  # the part of the evaluation that is not tuned (the men)
    n_fit = len(positions)
    x, offset = x_all[:n_fit], offset_all[:n_fit]
    windows = texel.WINDOW_SETS[args.patterns] if args.patterns else ()
    size = len(windows) * texel.PATTERN_CONFIGS
    phases = args.pattern_phases
    plus, minus, coef = texel.phased(
        *texel.pattern_features(boards, windows), texel.piece_counts(boards), phases
    )
    size *= phases
    with tqdm(total=args.steps, desc="fit", file=sys.stderr, disable=None) as bar:

        def on_step(step: int, loss: float) -> None:
            bar.n = step
            bar.set_postfix_str(f"error {loss:.6f}")
            bar.refresh()

        if args.patterns:
            result: texel.FitResult | texel.PatternFit = texel.fit_patterns(
                x, results, offset, start, plus[:n_fit], minus[:n_fit], size,
                steps=args.steps, l2=args.l2, pattern_l2=args.pattern_l2,
                coef=None if coef is None else coef[:n_fit], on_step=on_step,
            )  # fmt: skip
        else:
            result = texel.fit(
                x, results, offset, start, steps=args.steps, l2=args.l2, on_step=on_step
            )
    table = result.table if isinstance(result, texel.PatternFit) else np.zeros(0)
    fitted = {n: int(v) for n, v in zip(names, result.weights, strict=True)}
    scores = [r for _, r in positions]
    if args.load_games:
        origin = f"from {args.load_games}"
    elif args.load_pdn:
        origin = f"from {len(args.load_pdn)} PDN file(s)"
        if left_out:
            reasons = ", ".join(f"{n} {why}" for why, n in sorted(left_out.items()))
            origin += f" ({reasons} left out)"
    else:
        origin = f"(seed {args.seed}, {args.nodes} nodes a move)"
    print(
        f"{len(games)} games {origin}, {len(fit_games)} fitted on: "
        f"{len(positions)} quiet positions, mean result {sum(scores) / len(scores):.3f}",
        file=out,
    )
    print(
        f"K = {result.k:.3f}; error {result.loss_before:.6f} -> {result.loss_after:.6f}",
        file=out,
    )
    held_text = ""
    if held:
        x_held, offset_held = x_all[n_fit:], offset_all[n_fit:]
        before = texel.mse(offset_held + x_held @ start, held_results, result.k)
        held_coef = None if coef is None else coef[n_fit:]
        held_patterns = texel.pattern_scores(table, plus[n_fit:], minus[n_fit:], held_coef)
        after = texel.mse(
            offset_held + x_held @ result.weights + held_patterns, held_results, result.k
        )
        held_text = (
            f"held out: {len(held_games)} games, {len(held)} quiet positions; "
            f"error {before:.6f} -> {after:.6f}"
        )
        print(held_text, file=out)
    for name in names:
        print(f"  {name:<14} {start_weights[name]:>5} -> {fitted[name]:>5}", file=out)
    if args.patterns:
        entries = table.reshape(phases, len(windows), texel.PATTERN_CONFIGS).sum(axis=0)
        print(
            f"  patterns: {len(windows)} windows ({args.patterns}), {phases} phase(s), "
            f"{int(np.count_nonzero(table))} of {size} weights not 0, "
            f"largest {int(np.abs(table).max())}; by window: "
            + " ".join(
                f"{r},{k}:{int(np.abs(e).sum())}"
                for (r, k), e in zip(windows, entries, strict=True)
            ),
            file=out,
        )
        fitted["patterns"] = 100
        options = [
            f"--seed {args.seed}",
            f"--skip-plies {args.skip_plies}",
            f"--holdout {args.holdout:g}",
            *(["--quiet-both-sides"] if args.quiet_both_sides else []),
            f"--names {','.join(names) if names else 'none'}",
            f"--l2 {args.l2:g}",
            f"--steps {args.steps}",
            f"--patterns {args.patterns}",
            f"--pattern-phases {phases}",
            f"--pattern-l2 {args.pattern_l2:g}",
        ]
        about = (
            f"poolcheckers tune {' '.join(options)}: {len(positions)} positions {origin}; "
            f"K = {result.k:.3f}, error {result.loss_before:.6f} -> {result.loss_after:.6f}"
        )
        if held_text:
            about += f"; {held_text}"
        texel.save_pattern_table(str(pattern_target), windows, table, about, phases)
        print(f"pattern table saved to {pattern_target}", file=out)
    target.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
    print(f"weights saved to {target}", file=out)
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
