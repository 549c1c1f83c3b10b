"""API errors: HTTP status, a machine-readable code (docs/CONTRACTS.md §3) and a message."""

from __future__ import annotations

from typing import Any

from poolcheckers.server.i18n import M_, Translator
from poolcheckers.server.text import clean_text

CODES = frozenset(
    {
        "malformed",
        "illegal_move",
        "stale_ply",
        "unauthorized",
        "forbidden",
        "not_found",
        "game_over",
        "too_large",
        "conflict",
        "bad_request",
        "engine_unavailable",
        "tables_unavailable",
        "database_unavailable",
        "rate_limited",
        "overloaded",
        "internal",
        "busy",
        "stopping",
    }
)


class ApiError(Exception):
    """An error answered to the client as ``{"error": {"code", "message"}}``.

    >>> e = ApiError(404, "not_found", "no game 'x'")
    >>> e.body()
    {'error': {'code': 'not_found', 'message': "no game 'x'"}}
    """

    def __init__(
        self, status: int, code: str, message: str, retry_after: float | None = None
    ) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        #: seconds for ``Retry-After`` (None: the answer carries none, or 429's default)
        self.retry_after = retry_after

    def body(self, words: Translator | None = None) -> dict[str, Any]:
        """The answer's body; ``words``: the language the message is said in."""
        message = self.message if words is None else words.say(self.message)
        # a message may quote the input, which may hold a lone surrogate (not UTF-8)
        return {"error": {"code": self.code, "message": clean_text(message)}}


def not_found(game_id: str) -> ApiError:
    return ApiError(404, "not_found", M_("no game with id {game_id}", game_id=repr(game_id)))


def bad_request(message: str) -> ApiError:
    return ApiError(400, "bad_request", message)


def malformed(message: str) -> ApiError:
    return ApiError(400, "malformed", message)


def unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message)


def forbidden(message: str) -> ApiError:
    return ApiError(403, "forbidden", message)


def conflict(message: str) -> ApiError:
    return ApiError(409, "conflict", message)


def game_over(message: str) -> ApiError:
    return ApiError(409, "game_over", message)


def stale_ply(message: str) -> ApiError:
    return ApiError(409, "stale_ply", message)


def too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", M_("payload larger than {limit} bytes", limit=limit))


def rate_limited(message: str, retry_after: float | None = None) -> ApiError:
    """429 ``rate_limited``; ``retry_after``: seconds until the limit lets one more in."""
    return ApiError(429, "rate_limited", message, retry_after)


def limit_reached(what: str, retry_after: float) -> ApiError:
    """429 ``rate_limited`` for a rate ``what`` whose next place comes in ``retry_after``
    seconds, said in the message too."""
    return rate_limited(
        M_("{what}; try again in {value} s", what=what, value=int(retry_after) + 1), retry_after
    )


def engine_unavailable() -> ApiError:
    return ApiError(503, "engine_unavailable", M_("the engine (native core) is not available"))


def database_unavailable(message: str) -> ApiError:
    return ApiError(
        503, "database_unavailable", M_("the database is unreachable: {message}", message=message)
    )


def stopping() -> ApiError:
    """503 ``stopping``: this process is about to stop (its health check)."""
    return ApiError(
        503, "stopping", M_("this server process is stopping: requests go to another one")
    )


def busy(message: str, retry_after: float) -> ApiError:
    """503 ``busy``: a queue of this process is full; ``Retry-After`` says when to retry."""
    return ApiError(503, "busy", message, retry_after)
