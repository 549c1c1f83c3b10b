"""What the engine's sub-commands share, over the engine facade.

Levels, limits, opening an engine, score formatting and the structural types
:class:`SearchInfo` / :class:`EngineLike` (so that a command can be driven by a
fake engine in tests) are the facade's, :mod:`poolcheckers.engine`; this module
turns its ``ValueError`` into the command line's :class:`UsageError` naming the
option, and holds what only the command line needs (``--hash``, Ctrl-C while
searching, broken pipes, ``--help`` text).

>>> from poolcheckers import Board
>>> format_score(35, None), format_score(-120, None), format_score(9990, 5)
('+0.35', '-1.20', 'win in 3')
>>> format_score(-9990, -4)
'loss in 2'
>>> make_limit(depth=0)
Traceback (most recent call last):
...
poolcheckers.cli.UsageError: --depth must be 1..100, not 0
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from poolcheckers import engine as facade
from poolcheckers.board import Board
from poolcheckers.cli import UsageError
from poolcheckers.engine import (
    CENTI_MEN_PER_MAN,
    DEFAULT_HASH_MB,
    MAX_DEPTH,
    MAX_HASH_MB,
    MAX_LEVEL,
    MIN_LEVEL,
    EngineLike,
    EngineUnavailable,
    SearchInfo,
    format_nps,
    format_score,
    native_available,
    pv_notation,
)
from poolcheckers.rules import RuleSet

__all__ = [
    "CENTI_MEN_PER_MAN",
    "DEFAULT_HASH_MB",
    "MAX_DEPTH",
    "MAX_HASH_MB",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "EngineLike",
    "EngineUnavailable",
    "SearchInfo",
    "add_engine_arguments",
    "check_level_option",
    "format_nps",
    "format_score",
    "help_description",
    "load_weights",
    "make_limit",
    "native_available",
    "open_engine",
    "pv_notation",
    "quiet_broken_pipe",
    "search_interruptibly",
    "tolerate_bad_bytes",
]

P = ParamSpec("P")
R = TypeVar("R")


def _usage_errors(refusal: Callable[P, R], doc: str, prefix: str = "") -> Callable[P, R]:
    """``refusal`` (a facade function) with its ``ValueError`` raised as a
    :class:`UsageError`, ``prefix`` before the message: with ``--``, the facade's
    ``depth must be ...`` names the option ``--depth``."""

    @functools.wraps(refusal)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return refusal(*args, **kwargs)
        except ValueError as exc:
            raise UsageError(f"{prefix}{exc}") from None

    wrapper.__doc__ = doc  # not the facade's: its examples show the ValueError
    return wrapper


make_limit = _usage_errors(
    facade.make_limit,
    """The facade's :func:`~poolcheckers.engine.make_limit`; a refused bound is a
    :class:`UsageError` naming its option (``--depth``).""",
    "--",
)

load_weights = _usage_errors(
    facade.load_weights,
    """Evaluation weights from a JSON object file (raises :class:`UsageError`).""",
)


def check_level_option(option: str, level: int) -> int:
    """``level`` if it is a playing level, else a :class:`UsageError` naming ``option``.

    >>> check_level_option("--level", 0)
    Traceback (most recent call last):
    ...
    poolcheckers.cli.UsageError: --level must be 1..10, not 0
    """
    if isinstance(level, bool) or not MIN_LEVEL <= level <= MAX_LEVEL:
        raise UsageError(f"{option} must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level


def open_engine(hash_mb: int, rules: RuleSet, weights: str | None = None) -> EngineLike:
    """A new engine with a ``hash_mb`` MiB table playing under ``rules``.

    ``weights`` is a JSON file of evaluation weights (an object of weight
    names to centi-men, see ``poolcheckers.engine.default_weights``).  Raises
    :class:`~poolcheckers.engine.EngineUnavailable` when the native engine is not built and
    :class:`UsageError` for a table size or weights the engine refuses.
    """
    values = None if weights is None else load_weights(weights)
    try:
        return facade.open_engine(hash_mb, rules, weights=values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


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
