"""Errors raised by the library.  Every message names the offending token and,
where one applies, the rule (R-id of docs/RULES.md) that was broken."""

from __future__ import annotations


class PoolCheckersError(ValueError):
    """Base class of every error raised for bad input."""


class MoveError(PoolCheckersError):
    """A move given as text or as a :class:`~poolcheckers.Move` cannot be played."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


class MalformedMoveError(MoveError):
    """The text is not move notation (R4) at all."""


class InvalidSquareError(MoveError):
    """A square outside 1–32 (R2)."""


class NotYourPieceError(MoveError):
    """The origin square is empty or holds an opposing piece."""


class IllegalMoveError(MoveError):
    """Well-formed, but not a legal move in this position; the message names the rule."""


class AmbiguousMoveError(MoveError):
    """Shorthand that matches several legal moves; ``candidates`` lists their full paths."""

    def __init__(self, message: str, token: str, candidates: list[str]) -> None:
        super().__init__(message, token)
        self.candidates = candidates


class FenError(PoolCheckersError):
    """A malformed or impossible position (R5).  ``token`` is the offending part and
    ``position`` its character offset in the input."""

    def __init__(self, message: str, token: str = "", position: int = 0) -> None:
        super().__init__(message)
        self.token = token
        self.position = position


class RuleSetError(PoolCheckersError):
    """An unknown rule option or a value it does not take (docs/RULES.md §9)."""


class PdnError(PoolCheckersError):
    """A PDN file that cannot be read: names the game (1-based), line, column and token."""

    def __init__(self, message: str, game: int, line: int, column: int, token: str = "") -> None:
        super().__init__(f"game {game}, line {line}, column {column}: {message}")
        self.reason = message
        self.game = game
        self.line = line
        self.column = column
        self.token = token


class PdnInputError(PdnError):
    """What was given to the PDN reader is not PDN text at all (not a ``str``, not a
    path), or a reading option is wrong; ``game``, ``line`` and ``column`` are 0
    (no game was read)."""

    def __init__(self, message: str) -> None:
        PoolCheckersError.__init__(self, message)
        self.reason = message
        self.game = self.line = self.column = 0
        self.token = ""


class PdnTreeError(PoolCheckersError):
    """A move tree given as data (:func:`poolcheckers.pdn.tree_to_game`) that does not
    hold: ``path`` says where (``moves[3].variations[0].moves[1]``), ``token`` what."""

    def __init__(self, message: str, path: str, token: str = "") -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.reason = message
        self.path = path
        self.token = token


class PerftError(PoolCheckersError):
    """A perft request that cannot be answered: a depth out of range or not a whole
    number, or something that is not a board."""
