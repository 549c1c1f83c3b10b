"""What the engine's sub-commands share.

The engine (``poolcheckers.engine``, CONTRACTS.md §2) is used through the
structural types :class:`SearchInfo` and :class:`EngineLike`, so that every
command and the Hub loop can be driven by a fake engine in tests.

>>> from poolcheckers import Board
>>> format_score(35, None), format_score(-120, None), format_score(9990, 5)
('+0.35', '-1.20', 'win in 3')
>>> format_score(-9990, -4)
'loss in 2'
>>> board = Board()
>>> pv_notation(board, [board.parse_move("11-15"), Move.from_notation("22-18")])
['11-15', '22-18']
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, Protocol

from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.move import Move
from poolcheckers.rules import RuleSet

P = ParamSpec("P")

#: Default and largest size of the engine's transposition table (MiB).
DEFAULT_HASH_MB = 64
MAX_HASH_MB = 16384

#: The deepest search the engine takes (``Limit.depth``, plies).
MAX_DEPTH = 100

#: Levels of the engine (CONTRACTS.md §2): 1 is a beginner, 10 full strength.
MIN_LEVEL, MAX_LEVEL = 1, 10

#: A man is worth 100 in the engine's scores (centi-men).
CENTI_MEN_PER_MAN = 100


class SearchInfo(Protocol):
    """One finished depth or the final answer of a search (``SearchResult``)."""

    @property
    def move(self) -> Move | None:
        """The best move found (``None`` only when the side to move has none)."""

    @property
    def score(self) -> int:
        """Centi-men from the side to move's point of view (a man is 100)."""

    @property
    def pv(self) -> Sequence[Move]:
        """The principal variation, starting with :attr:`move`."""

    @property
    def depth(self) -> int:
        """The nominal depth in plies."""

    @property
    def nodes(self) -> int:
        """Nodes searched so far."""

    @property
    def time(self) -> float:
        """Seconds spent so far."""

    @property
    def mate_in(self) -> int | None:
        """Moves to a won (positive) or lost (negative) end, when the search proved one."""


class EngineLike(Protocol):
    """What the commands use of ``poolcheckers.engine.Engine``."""

    def search(
        self,
        board: Board,
        limit: Any,
        on_info: Callable[[SearchInfo], None] | None = ...,
        level: int | None = ...,
    ) -> SearchInfo:
        """Search ``board`` within ``limit`` (a ``poolcheckers.engine.Limit``)."""

    def stop(self) -> None:
        """Ask a running search (in another thread) to return its best move now."""


class EngineUnavailableError(UsageError):
    """The engine package or its native core cannot be loaded (exit status 2)."""


def _engine_module() -> Any:
    try:
        return importlib.import_module("poolcheckers.engine")
    except ImportError as exc:
        raise EngineUnavailableError(f"the engine cannot be loaded: {exc}") from exc


def make_limit(
    *,
    time: float | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    clock: float | None = None,
    increment: float = 0.0,
) -> Any:
    """A ``poolcheckers.engine.Limit`` with these bounds (none: search until stopped).

    Bounds the engine refuses raise :class:`UsageError` naming the option.
    """
    for name, seconds in (("time", time), ("clock", clock), ("increment", increment)):
        if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
            raise UsageError(f"--{name} must be a finite number of seconds, not {seconds}")
    if depth is not None and not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be 1..{MAX_DEPTH}, not {depth}")
    limit_class = _engine_module().Limit
    try:
        return limit_class(time=time, depth=depth, nodes=nodes, clock=clock, increment=increment)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def open_engine(hash_mb: int, rules: RuleSet, weights: str | None = None) -> EngineLike:
    """A new engine with a ``hash_mb`` MiB table playing under ``rules``.

    ``weights`` is a JSON file of evaluation weights (an object of weight
    names to centi-men, see ``poolcheckers.engine.default_weights``).
    """
    module = _engine_module()
    if not module.native_available():
        raise EngineUnavailableError("the engine's native core is not built (run: make setup)")
    values = None if weights is None else load_weights(weights)
    try:
        engine: EngineLike = module.Engine(hash_mb=hash_mb, rules=rules, weights=values)
    except ValueError as exc:  # e.g. a table size or weight the engine refuses
        raise UsageError(str(exc)) from None
    return engine


def load_weights(path: str) -> dict[str, int]:
    """Evaluation weights from a JSON object file (raises :class:`UsageError`)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read weights file {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"weights file {path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in data.items()
    ):
        raise UsageError(f"weights file {path} must hold an object of names to whole numbers")
    return data


def native_available() -> bool:
    """Whether the engine's native core is built and loads."""
    try:
        return bool(_engine_module().native_available())
    except EngineUnavailableError:
        return False


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--hash MB``, shared by the commands that run the engine."""
    parser.add_argument(
        "--hash",
        type=_hash_size,
        default=DEFAULT_HASH_MB,
        metavar="MB",
        help=f"transposition table size in MiB, 1-{MAX_HASH_MB} (default {DEFAULT_HASH_MB})",
    )


def _hash_size(text: str) -> int:
    """``--hash``: a whole number of MiB the engine takes (argparse reports the error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of MiB: {text!r}") from None
    if not 1 <= value <= MAX_HASH_MB:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_HASH_MB} MiB, not {value}")
    return value


def format_score(score: int, mate_in: int | None) -> str:
    """A score for people: ``+0.35`` men, or ``win in N`` / ``loss in N`` moves.

    ``mate_in`` counts plies (positive: the side to move wins); a side's
    moves to the end are half of them, rounded up.
    """
    if mate_in is not None:
        moves = (abs(mate_in) + 1) // 2
        return f"win in {moves}" if mate_in > 0 else f"loss in {moves}"
    return f"{score / CENTI_MEN_PER_MAN:+.2f}"


def pv_notation(board: Board, pv: Sequence[Move]) -> list[str]:
    """The R4 notation of each move of ``pv`` played from ``board`` (unchanged).

    Stops at the first move that is not legal where it is played.
    """
    return [str(move) for move in board.legal_prefix(pv)]


def search_interruptibly(
    engine: EngineLike,
    board: Board,
    limit: Any,
    *,
    on_info: Callable[[SearchInfo], None] | None = None,
    level: int | None = None,
) -> tuple[SearchInfo | None, bool]:
    """``engine.search`` in a thread, so that Ctrl-C is noticed at once.

    Returns ``(result, interrupted)``.  On Ctrl-C the search is stopped and
    its best move so far is returned with ``interrupted`` true (the result is
    ``None`` only if the search did not answer the stop within 5 seconds).
    An exception of the search is raised again here.
    """
    box: dict[str, Any] = {}
    finished = threading.Event()  # not Thread.join: a join cut short by Ctrl-C misreports

    def work() -> None:
        try:
            box["result"] = engine.search(board, limit, on_info=on_info, level=level)
        except BaseException as exc:  # handed to the calling thread
            box["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=work, name="search", daemon=True).start()
    interrupted = False
    try:
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        interrupted = True
        engine.stop()
        finished.wait(5.0)
    if "error" in box:
        raise box["error"]
    return box.get("result"), interrupted


def quiet_broken_pipe(run: Callable[P, int]) -> Callable[P, int]:
    """Wrap a command's ``run``: when the reader of its output goes away
    (``poolcheckers analyse | head -3``), stop quietly with status 0 instead
    of a ``BrokenPipeError`` traceback."""

    @functools.wraps(run)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return run(*args, **kwargs)
        except BrokenPipeError:
            # nothing more can be written; keep the flush at exit from failing too
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0

    return wrapper


def tolerate_bad_bytes() -> None:
    """Let bytes that are not text in the locale's encoding through as U+FFFD
    (``?`` on output) instead of ending the program: input from a GUI or a
    pipe may hold anything, and a strict UTF-8 locale would raise on it."""
    for stream in (sys.stdin, sys.stdout):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            reconfigure(errors="replace")


def help_description(doc: str | None) -> str | None:
    """A command's ``--help`` description: its module docstring after the first
    paragraph, without reStructuredText markup.

    >>> print(help_description("Title.\\n\\nSee :func:`elo`, ``ballots.txt``, *sound*, 2*3*4."))
    See elo, ballots.txt, sound, 2*3*4.
    """
    if not doc or "\n\n" not in doc:
        return None
    body = doc.split("\n\n", 1)[1]
    body = re.sub(r":[a-z]+:`~?([^`]*)`", r"\1", body)
    return re.sub(r"\*(\w[^*\n]*\w)\*", r"\1", body.replace("``", ""))


def format_nps(nodes: int, seconds: float) -> str:
    """Nodes per second, scaled: ``812``, ``45.2k``, ``3.10M``.

    >>> format_nps(3_100_000, 1.0), format_nps(45_200, 1.0), format_nps(10, 0.0)
    ('3.10M', '45.2k', '-')
    """
    if seconds <= 0:
        return "-"
    rate = nodes / seconds
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"
