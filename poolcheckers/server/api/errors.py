"""The API's face of the domains' errors: a :class:`CommunityError` as the error
shape of docs/CONTRACTS.md, with its HTTP status (and ``Retry-After``)."""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response

from poolcheckers.server.api.http import error_response
from poolcheckers.server.domain_errors import CommunityError, RateLimitedError
from poolcheckers.server.errors import ApiError

#: HTTP status of each community error code (docs/COMMUNITY.md, "error codes")
STATUS = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "rate_limited": 429,
    "tables_unavailable": 503,
    "engine_unavailable": 503,
}


def api_error(error: CommunityError) -> ApiError:
    # the error's own words object (a Message keeps its template for translation)
    words = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else None
    return ApiError(STATUS.get(error.code, 400), error.code, words or str(error))


async def on_community_error(request: Request, exc: Exception) -> Response:
    """A community error as ``{"error": {"code", "message"}}``; 429 with the real
    ``Retry-After``."""
    assert isinstance(exc, CommunityError)
    err = api_error(exc)
    headers = None
    if isinstance(exc, RateLimitedError):
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    return error_response(err, headers, request)
