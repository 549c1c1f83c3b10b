"""The ``poolcheckers`` command: one sub-command each.

Library commands live here (``moves``, ``perft``); the engine's and the web
app's commands are registered from their own modules (``COMMAND_MODULES``),
each exposing ``register(subparsers)`` that sets ``func`` on its parser.
Bad input exits with status 2 and one clear line on stderr; a command that
needs the native engine when it is not built, or a library of the ``tooling``
extra that is not installed, exits with status 3 and says so.

Only this module imports :mod:`poolcheckers.commands`; the Hub loop and the
web app use the engine through its facade, :mod:`poolcheckers.engine`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn

from poolcheckers import engine
from poolcheckers.board import STARTING_FEN, Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.move import Move
from poolcheckers.perft import MAX_PERFT_DEPTH, perft, perft_divide
from poolcheckers.rules import RuleSet

#: Exit status of a command that needs the native engine when it is not built.
EXIT_ENGINE_UNAVAILABLE = 3
#: Exit status of a command that needs a library of the ``tooling`` extra that is
#: not installed: as for the engine, something to install, not bad input.
EXIT_MISSING_EXTRA = 3

#: Modules that add sub-commands (each has ``register(subparsers) -> None``).
COMMAND_MODULES: tuple[str, ...] = (
    "poolcheckers.commands.play",
    "poolcheckers.commands.analyse",
    "poolcheckers.commands.bench",
    "poolcheckers.commands.match",
    "poolcheckers.commands.ballots",
    "poolcheckers.commands.hub_cmd",
    "poolcheckers.commands.egdb",
    "poolcheckers.commands.tune",
    "poolcheckers.commands.nnue",
    "poolcheckers.commands.book",
    "poolcheckers.commands.puzzles",
    "poolcheckers.commands.bot",
)


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr, exit status 2."""


def add_rules_argument(
    parser: argparse.ArgumentParser,
    help: str = "rule options of docs/RULES.md §9, e.g. crown_during_capture=stop",
) -> None:
    """``--rules OPTION=VALUE …``, every command's: given more than once, the options
    add up (a repeat does not replace the earlier ones; one option given twice with
    two values is refused by :meth:`RuleSet.from_options`)."""
    parser.add_argument(
        "--rules",
        nargs="*",
        action="extend",
        default=[],
        metavar="OPTION=VALUE",
        help=f"{help} (repeatable: the options add up)",
    )


def add_position_arguments(parser: argparse.ArgumentParser) -> None:
    """``--fen`` and ``--rules OPTION=VALUE …``, shared by the commands that take a position."""
    parser.add_argument("--fen", default=STARTING_FEN, help="position in FEN (R5); default: start")
    add_rules_argument(parser)


def board_from_args(args: argparse.Namespace) -> Board:
    """The board of ``--fen`` under ``--rules`` (raises on bad input)."""
    rules = RuleSet.from_options(args.rules)
    return Board.from_fen(args.fen, rules=rules)


def playable_board_from_args(args: argparse.Namespace) -> Board:
    """:func:`board_from_args` for the commands that search or play on from the
    position: one where the game is over is bad input."""
    board = board_from_args(args)
    outcome = board.outcome()
    if outcome is not None:
        raise UsageError(f"the game is over in this position: {outcome.reason()}")
    return board


def _cmd_moves(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    for move in sorted(board.legal_moves, key=lambda m: (m.origin, m.destination, str(m))):
        print(move)
    return 0


def _native_perft() -> (
    tuple[Callable[[Board, int], int], Callable[[Board, int], list[tuple[Move, int]]]] | None
):
    if not engine.native_available():
        return None  # the library's generator counts the same, only slower
    return engine.perft_native, engine.perft_divide_native


def _cmd_perft(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    depth: int = args.depth
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise UsageError(f"--depth must be in 0..{MAX_PERFT_DEPTH}, not {depth}")
    if args.divide and depth < 1:
        raise UsageError("--divide needs --depth >= 1")
    native = None if args.python else _native_perft()
    generator = "native" if native else "python"
    start = time.perf_counter()
    rows: list[tuple[str, int]] = []
    if native and args.divide:
        rows = [(board.notation(m), n) for m, n in native[1](board, depth)]
        total = sum(n for _, n in rows)
    elif native:
        total = native[0](board, depth)
    elif depth == 0:
        total = perft(board, 0)
    else:
        # the library's perft, root move by root move behind a progress bar
        from tqdm import tqdm

        with tqdm(
            total=len(board.legal_moves),
            desc=f"perft {depth}",
            unit="move",
            disable=None,
            file=sys.stderr,
            leave=False,
        ) as bar:
            rows = [
                (board.notation(m), n)
                for m, n in perft_divide(board, depth, lambda i, total: bar.update(1))
            ]
        total = sum(n for _, n in rows)
    if args.divide:
        for text, n in rows:
            print(f"{text}: {n}")
        print(f"total: {total}")
    else:
        print(total)
    elapsed = time.perf_counter() - start
    rate = total / elapsed if elapsed > 0 else float("inf")
    print(
        f"perft {depth}: {total} leaves in {elapsed:.3f} s, {rate:,.0f} leaves/s ({generator})",
        file=sys.stderr,
    )
    return 0


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one clear line on stderr (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("poolcheckers")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="poolcheckers", description="American Pool Checkers: rules, engine and web app."
    )
    parser.add_argument("--version", action="version", version=f"poolcheckers {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("moves", help="print every legal move in R4 notation, one per line")
    add_position_arguments(p)
    p.set_defaults(func=_cmd_moves)

    p = sub.add_parser("perft", help="count the leaves of the move tree to a depth")
    add_position_arguments(p)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="one line per root move, then the total")
    p.add_argument("--python", action="store_true", help="use the library's generator")
    p.set_defaults(func=_cmd_perft)

    p = sub.add_parser("serve", help="start the web app (serve --help for its options)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_web_args)

    p = sub.add_parser(
        "reset-password", help="print a one-time code to set a forgotten password (site admin)"
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_web_args)

    p = sub.add_parser("db", help="back up or restore the site's database (site admin)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_web_args)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


#: what the web app needs beyond the library (the extra "web" of pyproject.toml)
WEB_MODULES = ("fastapi", "uvicorn", "sqlalchemy", "alembic", "argon2", "limits")


def _web_missing(command: str) -> int | None:
    """None when the web app's libraries import; else say which extra to install
    (a library-only install has none of them) and give the exit status."""
    for module in WEB_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            print(
                f"poolcheckers {command}: the web app needs {module}, of the web extra: "
                "pip install 'poolcheckers[web]'",
                file=sys.stderr,
            )
            return EXIT_MISSING_EXTRA
    return None


#: the web app's commands and their entry points in poolcheckers.server.cli (each
#: parses its own options)
WEB_COMMANDS: dict[str, str] = {
    "serve": "serve_main",
    "reset-password": "reset_main",
    "db": "db_main",
}


def _cmd_web(command: str, rest: list[str]) -> int:
    """Run a web app command, or name the extra it needs."""
    missing = _web_missing(command)
    if missing is not None:
        return missing
    entry: Callable[[list[str]], int] = getattr(
        importlib.import_module("poolcheckers.server.cli"), WEB_COMMANDS[command]
    )
    return entry(rest)


def _cmd_web_args(args: argparse.Namespace) -> int:
    return _cmd_web(args.command, list(args.rest))


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] and arguments[0] in WEB_COMMANDS:
        # the web app parses its own options (--host, --port, --database-url)
        return _cmd_web(arguments[0], arguments[1:])
    # here, after serve: the web app never loads the tools (the commands below do)
    from poolcheckers.tooling import MissingExtraError

    parser = build_parser()
    if not arguments:
        # a bare `poolcheckers`: what it can do, not an error
        parser.print_help()
        return 0
    args = parser.parse_args(arguments)
    try:
        result: int = args.func(args)
    except (PoolCheckersError, UsageError) as exc:
        print(f"poolcheckers {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except engine.EngineUnavailable as exc:
        print(f"poolcheckers {args.command}: {exc}", file=sys.stderr)
        return EXIT_ENGINE_UNAVAILABLE
    except MissingExtraError as exc:
        print(f"poolcheckers {args.command}: {exc}", file=sys.stderr)
        return EXIT_MISSING_EXTRA
    except KeyboardInterrupt:
        print(f"poolcheckers {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``| head``): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return result


if __name__ == "__main__":
    # ``python -m poolcheckers.cli`` runs this file as ``__main__``, a second copy of
    # the module: the commands raise ``poolcheckers.cli.UsageError``, which this copy's
    # ``except`` would not catch.  Run the one module the commands import.
    from poolcheckers.cli import main as _main

    sys.exit(_main())
