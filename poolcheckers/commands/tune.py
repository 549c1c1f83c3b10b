"""``poolcheckers tune``: fit the evaluation weights to the engine's own games (Texel).

The engine plays ``--games`` games against itself from the balloted openings
(each followed by ``--random-plies`` random plies drawn from ``--seed``) at
``--nodes`` nodes a move; the quiet positions of those games (no capture for
the side to move, men on the board, past the opening) are labelled with the
games' results; the weights are fitted by logistic regression of the results
on the evaluation (see :mod:`poolcheckers.engine.tune`) and written as a JSON
weights file, usable with ``match --weights-a`` for an SPRT test and shipped
once it passes.  Everything is reproducible from the seed.

``--load-games`` (the JSON lines of ``--save-games``) or ``--load-pdn`` (PDN
files, e.g. the games of ``match --pdn``: results of matches between engines)
fit on games played before instead.  ``--holdout`` keeps some openings' games
out of the fit and reports the error on them, with the start weights and the
fitted ones, at the fit's ``K``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from poolcheckers.cli import UsageError
from poolcheckers.commands.common import help_description, quiet_broken_pipe

DEFAULT_BALLOTS = Path(__file__).resolve().parent.parent / "data" / "ballots.txt"


@quiet_broken_pipe
def run(args: argparse.Namespace, *, out: Any = None) -> int:
    """Run the pipeline of ``args``; print the fit and write the weights file."""
    import numpy as np
    from tqdm import tqdm

    from poolcheckers.commands.match import load_ballots
    from poolcheckers.engine import open_engine
    from poolcheckers.engine import tune as texel

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
    names = tuple(args.names.split(",")) if args.names else texel.TUNED
    unknown = [n for n in names if n not in start_weights]
    if unknown:
        raise UsageError(f"--names: unknown weight(s) {', '.join(unknown)}")
    with tqdm(total=len(names), desc="features", file=sys.stderr, disable=None) as bar:

        def on_column(name: str) -> None:
            bar.update()

        x_all, base = texel.feature_matrix(engine, boards, names, on_column=on_column)
    start = np.array([start_weights[n] for n in names], dtype=np.float64)
    offset_all = base - x_all @ start  # the part of the evaluation that is not tuned (the men)
    n_fit = len(positions)
    x, offset = x_all[:n_fit], offset_all[:n_fit]
    with tqdm(total=args.steps, desc="fit", file=sys.stderr, disable=None) as bar:

        def on_step(step: int, loss: float) -> None:
            bar.n = step
            bar.set_postfix_str(f"error {loss:.6f}")
            bar.refresh()

        result = texel.fit(x, results, offset, start, steps=args.steps, l2=args.l2, on_step=on_step)
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
    if held:
        x_held, offset_held = x_all[n_fit:], offset_all[n_fit:]
        before = texel.mse(offset_held + x_held @ start, held_results, result.k)
        after = texel.mse(offset_held + x_held @ result.weights, held_results, result.k)
        print(
            f"held out: {len(held_games)} games, {len(held)} quiet positions; "
            f"error {before:.6f} -> {after:.6f}",
            file=out,
        )
    for name in names:
        print(f"  {name:<14} {start_weights[name]:>5} -> {fitted[name]:>5}", file=out)
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
        "--names", help="comma-separated weights to fit (default: all of engine.tune.TUNED)"
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
    parser.add_argument("--ballots", default=str(DEFAULT_BALLOTS), metavar="FILE")
    parser.add_argument("--output", required=True, metavar="OUT.json", help="weights file")
    parser.set_defaults(func=run)
