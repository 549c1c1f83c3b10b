"""``poolcheckers nnue``: train the network evaluation (``data``, ``train``, ``export``).

``nnue data`` gathers quiet training positions (neither side has a capture, R11):
from ``--games`` self-play games at ``--nodes`` nodes a move from the balloted
openings, each followed by ``--random-plies`` random plies (the search's score of
each position and the game's result); from the games of ``--pdn`` files
(``--pdn-per-game`` positions of each, scored by a search of ``--nodes``; the
held-out openings are left out by the loader, as for ``tune``); and from the
endgame tables of ``--tables`` (``--table-positions`` random positions, labelled
with their exact value).  Everything is reproducible from ``--seed``.

``nnue train`` fits the network to those positions (numpy, Adam over minibatches, a
sigmoid loss of a blend of the search score and the result: ``--blend`` is the
share of the score) and writes the weights file, quantised as the engine computes
it; ``--plot`` draws the training and validation losses.  Bit for bit the same
from the same data and ``--seed``.

``nnue export`` writes a checkpoint of ``train`` (``--checkpoint``) as a weights
file again, and ``nnue check`` reads a weights file as the engine would and says
what is wrong with it, if anything.

The engine plays with a weights file through ``match --eval-a FILE``,
``Engine(evaluation=FILE)`` and ``bench --eval FILE``; the shipped network
(``nnue``) is the engine's default evaluation since it passed its SPRT tests
against the pattern evaluation (docs/ENGINE.md, "NNUE").
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


def _folder_of(option: str, path: str) -> Path:
    target = Path(path)
    if not target.parent.is_dir():
        raise UsageError(f"{option} {target}: the folder {target.parent} does not exist")
    return target


def _evaluation(evaluation: str) -> str:
    """``--eval``, its weights file checked before any game."""
    if evaluation == "pattern":
        return evaluation
    from poolcheckers.engine.nnue import NetworkError, network_path, read_network

    path = network_path(evaluation)
    try:
        read_network(path if path is not None else evaluation)
    except NetworkError as exc:
        raise UsageError(f"--eval: {exc}") from None
    return evaluation


@quiet_broken_pipe
def run_data(args: argparse.Namespace, *, out: Any = None) -> int:
    """Gather the training positions of ``args`` and write them."""
    require_extra("numpy", purpose="training the network")
    from poolcheckers.tooling.nnue.pipeline import DataOptions, gather

    out = out if out is not None else sys.stdout
    for name, value, low in (
        ("--games", args.games, 0),
        ("--nodes", args.nodes, 100),
        ("--concurrency", args.concurrency, 1),
        ("--pdn-per-game", args.pdn_per_game, 1),
        ("--table-positions", args.table_positions, 0),
    ):
        if value < low:
            raise UsageError(f"{name} must be >= {low}, not {value}")
    options = DataOptions(
        output=_folder_of("--output", args.output),
        games=args.games,
        nodes=args.nodes,
        random_plies=args.random_plies,
        seed=args.seed,
        concurrency=args.concurrency,
        pdn=tuple(args.pdn or ()),
        pdn_per_game=args.pdn_per_game,
        pdn_games=args.pdn_games,
        tables=args.tables,
        table_positions=args.table_positions,
        ballots=args.ballots,
        evaluation=_evaluation(args.eval),
    )
    for line in gather(options):
        print(line, file=out)
    return 0


@quiet_broken_pipe
def run_train(args: argparse.Namespace, *, out: Any = None) -> int:
    """Train a network on the positions of ``args`` and write its weights file."""
    require_extra("numpy", purpose="training the network")
    from poolcheckers.tooling.nnue.pipeline import TrainOptions, train_network
    from poolcheckers.tooling.nnue.train import TrainConfig

    out = out if out is not None else sys.stdout
    if not 0.0 <= args.blend <= 1.0:
        raise UsageError(f"--blend must be in [0, 1], not {args.blend}")
    for name, value, low in (
        ("--epochs", args.epochs, 1),
        ("--batch", args.batch, 1),
        ("--hidden", args.hidden, 1),
    ):
        if value < low:
            raise UsageError(f"{name} must be >= {low}, not {value}")
    if args.hidden > 256:
        raise UsageError(f"--hidden must be at most 256, not {args.hidden}")
    options = TrainOptions(
        data=tuple(args.data),
        output=_folder_of("--output", args.output),
        checkpoint=_folder_of("--checkpoint", args.checkpoint) if args.checkpoint else None,
        plot=_folder_of("--plot", args.plot) if args.plot else None,
        config=TrainConfig(
            hidden=args.hidden,
            epochs=args.epochs,
            batch=args.batch,
            learning_rate=args.lr,
            blend=args.blend,
            scale=args.scale,
            validation=args.validation,
            seed=args.seed,
        ),
    )
    for line in train_network(options):
        print(line, file=out)
    return 0


@quiet_broken_pipe
def run_export(args: argparse.Namespace, *, out: Any = None) -> int:
    """Write the weights file of a training checkpoint."""
    require_extra("numpy", purpose="exporting the network")
    from poolcheckers.tooling.nnue.model import load_checkpoint, write_weights

    out = out if out is not None else sys.stdout
    target = _folder_of("--output", args.output)
    try:
        params = load_checkpoint(args.checkpoint)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"--checkpoint {args.checkpoint}: {exc}") from exc
    size = write_weights(params, target)
    print(f"wrote {target} ({size} bytes)", file=out)
    return 0


@quiet_broken_pipe
def run_check(args: argparse.Namespace, *, out: Any = None) -> int:
    """Read a weights file as the engine does; say what is wrong with it."""
    from poolcheckers.engine.nnue import NetworkError, read_network

    out = out if out is not None else sys.stdout
    try:
        net = read_network(args.file)
    except NetworkError as exc:
        print(str(exc), file=out)
        return 1
    print(f"{args.file}: {net.describe()}", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``nnue`` sub-command and its own sub-commands."""
    parser = subparsers.add_parser(
        "nnue",
        help="train the network evaluation: data, train, export, check",
        description=help_description(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="nnue_command", metavar="{data,train,export,check}")
    sub.required = True

    data = sub.add_parser("data", help="gather quiet training positions")
    data.add_argument("--games", type=int, default=2000, help="self-play games (2000)")
    data.add_argument("--nodes", type=int, default=3000, help="nodes a search (3000)")
    data.add_argument("--random-plies", type=int, default=6, help="random plies after a ballot")
    data.add_argument("--seed", type=int, default=1, help="seed of the whole gathering (1)")
    data.add_argument("--concurrency", type=int, default=1, help="processes searching")
    data.add_argument("--pdn", nargs="+", metavar="FILE.pdn", help="also positions of these games")
    data.add_argument("--pdn-per-game", type=int, default=8, help="positions of a PDN game (8)")
    data.add_argument("--pdn-games", type=int, help="at most this many PDN games (by --seed)")
    data.add_argument("--tables", metavar="DIR", help="also positions of these endgame tables")
    data.add_argument(
        "--table-positions", type=int, default=20000, help="positions of the tables (20000)"
    )
    data.add_argument("--ballots", default=str(DEFAULT_BALLOTS), metavar="FILE")
    data.add_argument(
        "--eval",
        default="pattern",
        metavar="EVAL",
        help="the engine's evaluation for the games and scores: pattern (the default), nnue "
        "(the shipped network) or a weights file (the next round of training)",
    )
    data.add_argument("--output", required=True, metavar="OUT.npy", help="the positions")
    data.set_defaults(func=run_data)

    train = sub.add_parser("train", help="fit the network and write its weights file")
    train.add_argument("data", nargs="+", metavar="DATA.npy", help="positions of nnue data")
    train.add_argument("--output", required=True, metavar="OUT.bin", help="the weights file")
    train.add_argument("--checkpoint", metavar="OUT.npz", help="also the float weights")
    train.add_argument("--plot", metavar="OUT.png", help="training and validation losses")
    train.add_argument("--hidden", type=int, default=64, help="accumulator size per side (64)")
    train.add_argument("--epochs", type=int, default=30, help="passes over the data (30)")
    train.add_argument("--batch", type=int, default=1024, help="positions a step (1024)")
    train.add_argument("--lr", type=float, default=2e-3, help="Adam's learning rate (0.002)")
    train.add_argument(
        "--blend", type=float, default=0.5, help="share of the search score in the label (0.5)"
    )
    train.add_argument(
        "--scale",
        type=float,
        default=200.0,
        help="centi-men of the sigmoid's unit: P(win) = 1/(1+exp(-eval/scale)) (200)",
    )
    train.add_argument(
        "--validation", type=float, default=0.1, help="share of the games held for validation"
    )
    train.add_argument("--seed", type=int, default=1, help="seed of the training (1)")
    train.set_defaults(func=run_train)

    export = sub.add_parser("export", help="write the weights file of a training checkpoint")
    export.add_argument("checkpoint", metavar="CHECKPOINT.npz")
    export.add_argument("--output", required=True, metavar="OUT.bin")
    export.set_defaults(func=run_export)

    check = sub.add_parser("check", help="read a weights file as the engine does")
    check.add_argument("file", metavar="FILE.bin")
    check.set_defaults(func=run_check)
