"""Search limits: from explicit bounds, or from a level and the game's clock.

:func:`make_limit` checks every bound and names the one it refuses;
:func:`level_limit` is the limit of one game move at a playing level (what
``poolcheckers play``, the Hub loop and the web app's engine games use).

>>> make_limit(time=0.5, depth=6)
Limit(time=0.5, depth=6, nodes=None, clock=None, increment=0.0)
>>> make_limit(depth=0)
Traceback (most recent call last):
...
ValueError: depth must be 1..100, not 0
>>> level_limit(3)
Limit(time=0.3, depth=None, nodes=None, clock=None, increment=0.0)
>>> level_limit(10, clock=60.0, increment=1.0).budget()
1.0
"""

from __future__ import annotations

import math

from .core import MAX_SECONDS, Limit
from .levels import check_level, level_move_time

__all__ = ["MAX_DEPTH", "MAX_NODES", "MAX_SECONDS", "level_limit", "make_limit"]

#: The deepest search the engine takes (``Limit.depth``, plies).
MAX_DEPTH = 100

#: The largest node bound passed to the engine.
MAX_NODES = 2**62


def make_limit(
    *,
    time: float | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    clock: float | None = None,
    increment: float = 0.0,
) -> Limit:
    """A :class:`Limit` with these bounds (none at all: search until stopped).

    ``time`` seconds for this move; ``clock`` and ``increment`` the game clock
    of the side to move (the engine budgets a share of it); ``depth`` plies;
    ``nodes``.  A bound the engine refuses raises ``ValueError`` naming it.

    >>> make_limit(clock=float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: clock must be a finite number of seconds, not nan
    >>> make_limit(nodes=True)
    Traceback (most recent call last):
    ...
    ValueError: nodes must be 1..4611686018427387904, not True
    """
    for name, seconds in (("time", time), ("clock", clock), ("increment", increment)):
        if seconds is None:
            continue
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not math.isfinite(seconds)
            or seconds < 0
        ):
            raise ValueError(f"{name} must be a finite number of seconds, not {seconds}")
        if seconds > MAX_SECONDS:
            raise ValueError(f"{name} must be at most {MAX_SECONDS:.0e} seconds, not {seconds!r}")
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH
    ):
        raise ValueError(f"depth must be 1..{MAX_DEPTH}, not {depth}")
    if nodes is not None and (
        isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES
    ):
        raise ValueError(f"nodes must be 1..{MAX_NODES}, not {nodes}")
    return Limit(time=time, depth=depth, nodes=nodes, clock=clock, increment=increment)


def level_limit(
    level: int | None,
    *,
    move_time: float | None = None,
    clock: float | None = None,
    increment: float = 0.0,
) -> Limit:
    """The limit of one game move at ``level`` (``None``: full strength).

    The engine thinks ``move_time`` seconds, by default 0.1 s per level
    (:func:`~poolcheckers.engine.levels.level_move_time`); with a game clock
    (``clock`` seconds left, ``increment`` per move) never more than its share
    of the clock (:meth:`Limit.budget`).  The depth cap of levels 1-9 is
    applied by the search itself (``Engine.search(..., level=...)``).

    >>> level_limit(5, move_time=2.0).time
    2.0
    >>> level_limit(10, clock=4.0).budget()  # the hard stop: 3 x a thirtieth of 4 s
    0.4
    >>> level_limit(0)
    Traceback (most recent call last):
    ...
    ValueError: level must be an int in 1..10, not 0
    """
    if level is not None:
        check_level(level)
    seconds = level_move_time(level) if move_time is None else move_time
    return make_limit(time=seconds, clock=clock, increment=increment)
