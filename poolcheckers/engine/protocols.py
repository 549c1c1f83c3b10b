"""The engine as structural types, so that a fake engine can stand in for it.

:class:`SearchInfo` is what a search reports (one finished depth, or the final
answer: :class:`~poolcheckers.engine.SearchResult` is one); :class:`EngineLike`
is what the Hub loop, the commands and the web app use of
:class:`~poolcheckers.engine.Engine`.

>>> from poolcheckers import Board
>>> from poolcheckers.engine import Engine, Limit
>>> engine: EngineLike = Engine(hash_mb=1)
>>> info: SearchInfo = engine.search(Board(), Limit(depth=2))
>>> info.depth
2
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from poolcheckers.board import Board
from poolcheckers.move import Move

__all__ = ["EngineLike", "SearchInfo"]


class SearchInfo(Protocol):
    """One finished depth or the final answer of a search."""

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
        """Plies to a proven win (positive) or loss (negative) of the side to move.

        People are shown moves, not plies: see
        :func:`~poolcheckers.engine.format.mate_in_moves`.
        """


class EngineLike(Protocol):
    """What the Hub loop, the commands and the web app use of ``Engine``."""

    def search(
        self,
        board: Board,
        limit: Any,
        on_info: Callable[[SearchInfo], None] | None = ...,
        level: int | None = ...,
    ) -> SearchInfo:
        """Search ``board`` within ``limit`` (a :class:`~poolcheckers.engine.Limit`)."""

    def stop(self) -> None:
        """Ask a running search (in another thread) to return its best move now."""
