"""Opening an engine: table size, rules, evaluation weights, and a clear refusal
when the native core is not built.

>>> from poolcheckers import Board, RuleSet
>>> engine = open_engine(hash_mb=4, rules=RuleSet.apca())
>>> engine.search(Board(), make_limit(depth=2)).depth
2
>>> open_engine(hash_mb=0)
Traceback (most recent call last):
...
ValueError: the hash table size must be 1..16384 MiB, not 0
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from poolcheckers.rules import RuleSet

from .core import NOT_BUILT_MESSAGE, Engine, EngineUnavailable, native_available
from .limits import make_limit

__all__ = [
    "DEFAULT_HASH_MB",
    "MAX_HASH_MB",
    "check_hash_mb",
    "load_weights",
    "make_limit",
    "open_engine",
    "require_native",
]

#: Default and largest size of the engine's transposition table (MiB).
DEFAULT_HASH_MB = 64
MAX_HASH_MB = 16384


def require_native() -> None:
    """Raise :class:`EngineUnavailable` (saying how to get it) unless the native core loads."""
    if not native_available():
        raise EngineUnavailable(NOT_BUILT_MESSAGE)


def check_hash_mb(hash_mb: object) -> int:
    """``hash_mb`` when it is a table size the engine takes, else ``ValueError``.

    >>> check_hash_mb(32)
    32
    """
    if isinstance(hash_mb, bool) or not isinstance(hash_mb, int) or not 1 <= hash_mb <= MAX_HASH_MB:
        raise ValueError(f"the hash table size must be 1..{MAX_HASH_MB} MiB, not {hash_mb!r}")
    return hash_mb


def load_weights(path: str | os.PathLike[str]) -> dict[str, int]:
    """Evaluation weights from a JSON file holding an object of names to centi-men.

    Raises ``ValueError`` naming the file when it cannot be read or is not such
    an object (unknown weight names are refused by the engine itself).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read weights file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"weights file {path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in data.items()
    ):
        raise ValueError(f"weights file {path} must hold an object of names to whole numbers")
    return data


def open_engine(
    hash_mb: int = DEFAULT_HASH_MB,
    rules: RuleSet | None = None,
    *,
    weights: Mapping[str, int] | str | os.PathLike[str] | None = None,
    seed: int | None = None,
    evaluation: str | os.PathLike[str] | None = None,
) -> Engine:
    """A new :class:`Engine` with a ``hash_mb`` MiB table.

    ``rules``: the rule set every searched board must use (``None``: each
    board's own).  ``weights``: evaluation weights to change, as a mapping or
    the path of a JSON file (:func:`load_weights`).  ``seed`` makes the weaker
    levels' choices reproducible.  ``evaluation``: see :class:`Engine`.

    Raises :class:`EngineUnavailable` when the native core is not built, and
    ``ValueError`` for a table size or weights the engine refuses.
    """
    require_native()
    check_hash_mb(hash_mb)
    values = load_weights(weights) if isinstance(weights, (str, os.PathLike)) else weights
    try:
        return Engine(
            hash_mb=hash_mb, rules=rules, weights=values, seed=seed, evaluation=evaluation
        )
    except TypeError as exc:  # a weight value of the wrong type (names: ValueError)
        raise ValueError(f"bad evaluation weights: {exc}") from None
