"""Playing levels 1..10 of the engine.

A weaker level searches less deeply, sees a slightly noisy evaluation, and
picks among the moves close to its best by a softmax over their scores: it
makes human-like inaccuracies, never a random blunder (a move scoring more
than ``margin`` centi-men below its best is never chosen).  Each level names
the evaluation its row was measured with (the ladder, docs/ENGINE.md): the
shipped levels all search with the engine's own, the network unless the engine
was given another; a level on the pattern evaluation keeps it whatever the
engine's.  Level 10 is the engine.

>>> LEVELS[10].full_strength
True
>>> LEVELS[1].depth < LEVELS[5].depth < LEVELS[9].depth
True
>>> import random
>>> choose_index([0, -500, -20], LEVELS[3], random.Random(1)) in (0, 2)
True

This module is the one definition of the level range: the Hub parameter, the
commands' ``--level`` options, the web app's new-game form and the engine
itself all use :data:`MIN_LEVEL`, :data:`MAX_LEVEL` and :func:`check_level`.

>>> MIN_LEVEL, MAX_LEVEL, DEFAULT_LEVEL
(1, 10, 5)
>>> level_move_time(3)
0.3
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "SECONDS_PER_LEVEL",
    "Level",
    "check_level",
    "choose_index",
    "level_move_time",
]


@dataclass(frozen=True)
class Level:
    """How one level plays.

    ``depth``: search depth in plies; ``noise``: amplitude of the evaluation
    noise in centi-men; ``temperature``: softmax temperature in centi-men;
    ``margin``: moves worse than the best by more than this are never played;
    ``network``: search with the engine's own evaluation (the network by
    default) instead of the pattern evaluation.
    """

    level: int
    depth: int
    noise: int
    temperature: float
    margin: int
    network: bool = False

    @property
    def full_strength(self) -> bool:
        """Level 10 is the full engine: no depth cap, no noise, the best move."""
        return self.level >= 10


#: Spaced by measurement (``benchmarks/ladder.py``; docs/ENGINE.md, "Levels: the
#: ladder"): each level against the one below, over the balloted openings.  Level 1
#: looks two plies ahead (and through the captures after them) through a loud
#: noise, and may let a man go, never a move it scores two men below its best
#: (margin: 1.5 men); level 9 is the engine's search to depth 15 without noise or
#: endgame tables (it stops deepening once half its 0.9 s is gone); level 10 is the
#: full engine.  With the network a ply matters more than it did with the pattern
#: evaluation: level 1 at depth 1 lost to level 2 by +350 to +400 at every noise tried.
LEVELS: dict[int, Level] = {
    1: Level(1, depth=2, noise=120, temperature=70.0, margin=150, network=True),
    2: Level(2, depth=2, noise=40, temperature=28.0, margin=100, network=True),
    3: Level(3, depth=3, noise=40, temperature=28.0, margin=100, network=True),
    4: Level(4, depth=4, noise=25, temperature=18.0, margin=70, network=True),
    5: Level(5, depth=5, noise=18, temperature=13.0, margin=55, network=True),
    6: Level(6, depth=7, noise=16, temperature=12.0, margin=45, network=True),
    7: Level(7, depth=9, noise=8, temperature=5.0, margin=24, network=True),
    8: Level(8, depth=11, noise=3, temperature=2.0, margin=12, network=True),
    9: Level(9, depth=15, noise=0, temperature=1.0, margin=5, network=True),
    10: Level(10, depth=0, noise=0, temperature=0.0, margin=0),
}


#: The weakest and the strongest level (level 10 is the full engine).
MIN_LEVEL: int = min(LEVELS)
MAX_LEVEL: int = max(LEVELS)

#: The level a new game against the engine gets when none is asked for (the web app's).
DEFAULT_LEVEL: int = 5

#: Seconds per move a level thinks when no move time is given: 0.1 s x level.
SECONDS_PER_LEVEL: float = 0.1


def check_level(level: object) -> int:
    """``level`` when it is a playing level, else ``ValueError`` naming the range.

    >>> check_level(7)
    7
    >>> check_level(11)
    Traceback (most recent call last):
    ...
    ValueError: level must be an int in 1..10, not 11
    >>> check_level(True)
    Traceback (most recent call last):
    ...
    ValueError: level must be an int in 1..10, not True
    """
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise ValueError(f"level must be an int in {MIN_LEVEL}..{MAX_LEVEL}, not {level!r}")
    return level


def level_move_time(level: int | None) -> float:
    """Seconds per move of a level when no move time is given (``None``: full strength).

    Levels 1-9 also cap the search depth (:attr:`Level.depth`), so they usually
    answer well within this time.

    >>> level_move_time(1), level_move_time(None)
    (0.1, 1.0)
    """
    return round(SECONDS_PER_LEVEL * (MAX_LEVEL if level is None else check_level(level)), 6)


def choose_index(scores: Sequence[int], level: Level, rng: random.Random) -> int:
    """Pick a move index: a softmax over the scores within ``level.margin`` of the best.

    >>> choose_index([10, 300, 5], LEVELS[1], random.Random(0))
    1
    >>> choose_index([7], LEVELS[2], random.Random(0))
    0
    """
    if not scores:
        raise ValueError("choose_index needs at least one scored move")
    best = max(scores)
    candidates = [i for i, s in enumerate(scores) if s >= best - level.margin]
    if level.temperature <= 0 or len(candidates) == 1:
        return max(candidates, key=lambda i: scores[i])
    weights = [math.exp((scores[i] - best) / level.temperature) for i in candidates]
    return rng.choices(candidates, weights=weights, k=1)[0]
