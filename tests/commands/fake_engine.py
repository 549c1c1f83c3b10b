"""A deterministic engine conforming to CONTRACTS.md §2, for command tests.

At every depth its best move is the first legal move in notation order (or
``prefer`` when it is legal), its score is ``score`` and its PV is that move
and the opponent's first reply.  With no depth, time or node bound it searches
until :meth:`FakeEngine.stop` (one depth each ``step`` seconds), like the real
engine; ``stop`` before ``search`` has begun is forgotten, as in a real engine
that clears its stop flag when a search starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from poolcheckers import Board, Move, RuleSet
from poolcheckers.engine import SearchInfo

#: Depth reached under a time or node bound (the fake does not measure time).
BOUNDED_DEPTH = 3


class LimitLike(Protocol):
    """The bounds the fake reads: :class:`FakeLimit` or the engine's ``Limit``."""

    @property
    def time(self) -> float | None:
        """Seconds for this move."""

    @property
    def depth(self) -> int | None:
        """Plies."""

    @property
    def nodes(self) -> int | None:
        """Nodes."""

    @property
    def clock(self) -> float | None:
        """The side to move's clock, in seconds."""

    @property
    def increment(self) -> float:
        """Its increment, in seconds."""


@dataclass(frozen=True)
class FakeLimit:
    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    clock: float | None = None
    increment: float = 0.0


@dataclass(frozen=True)
class FakeResult:
    move: Move | None
    score: int
    pv: list[Move]
    depth: int
    nodes: int
    time: float
    mate_in: int | None = None


@dataclass
class FakeEngine:
    hash_mb: int = 1
    rules: RuleSet = field(default_factory=RuleSet.apca)
    score: int = 0
    mate_in: int | None = None
    prefer: str | None = None
    step: float = 0.01
    searches: list[tuple[str, LimitLike, int | None]] = field(default_factory=list)
    _stopped: threading.Event = field(default_factory=threading.Event)

    def search(
        self,
        board: Board,
        limit: LimitLike,
        on_info: Callable[[SearchInfo], None] | None = None,
        level: int | None = None,
    ) -> FakeResult:
        self._stopped.clear()
        self.searches.append((board.fen(), limit, level))
        legal = sorted(board.legal_moves, key=board.notation)
        if not legal:
            return FakeResult(None, -10_000, [], 0, 0, 0.0, None)
        move = legal[0]
        if self.prefer is not None:
            move = next((m for m in legal if board.notation(m) == self.prefer), move)
        after = board.copy(stack=False)
        after.push(move)
        replies = sorted(after.legal_moves, key=after.notation)
        pv = [move, *replies[:1]]
        bounded = any(getattr(limit, k) is not None for k in ("time", "nodes", "clock"))
        max_depth = limit.depth or (BOUNDED_DEPTH if bounded else None)
        result = FakeResult(move, self.score, pv, 0, 0, 0.0, self.mate_in)
        depth = 0
        while max_depth is None or depth < max_depth:
            depth += 1
            result = FakeResult(
                move, self.score, pv, depth, 100 * depth, 0.001 * depth, self.mate_in
            )
            if on_info is not None:
                on_info(result)
            if self._stopped.is_set():
                break
            if max_depth is None:
                self._stopped.wait(self.step)
        return result

    def stop(self) -> None:
        self._stopped.set()


def fake_engine_factory(hash_mb: int, rules: RuleSet) -> FakeEngine:
    return FakeEngine(hash_mb=hash_mb, rules=rules)
