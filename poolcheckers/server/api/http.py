"""HTTP plumbing shared by the routers: body limits, safe JSON, the error shape,
and where a seat token comes from.

Every JSON body is read by :class:`ApiRoute`: at most 64 KiB (1 MiB where a route
says so with :func:`body_limit`), parsed by :func:`poolcheckers.server.api.schemas.loads`
(refusing text nested too deeply), and only then validated by the route's schema.
Every error, including validation errors, an unreachable database and an
unexpected failure, is answered as ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Coroutine, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from poolcheckers.server import errors
from poolcheckers.server.api.deps import request_words
from poolcheckers.server.api.schemas import ErrorBody, error_code, loads
from poolcheckers.server.errors import ApiError
from poolcheckers.server.i18n import M_, Message
from poolcheckers.server.text import clean_text

log = logging.getLogger("poolcheckers.server")

MAX_BODY = 64 * 1024
MAX_PDN = 1024 * 1024
F = TypeVar("F", bound=Callable[..., Any])

#: the error answers every route may give, for the OpenAPI description
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": words}
    for status, words in [
        (400, "malformed or invalid request"),
        (403, "the token holds no seat for this"),
        (404, "no such game"),
        (409, "stale ply, game over or conflict"),
        (413, "body too large"),
        (429, "too many requests from this address"),
        (503, "the engine or the database is unavailable"),
    ]
}


def body_limit(limit: int) -> Callable[[F], F]:
    """Let a route read bodies of up to ``limit`` bytes (default :data:`MAX_BODY`)."""

    def mark(fn: F) -> F:
        fn.max_body = limit  # type: ignore[attr-defined]
        return fn

    return mark


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) beyond ``limit`` bytes without reading it all."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise errors.bad_request(M_("invalid Content-Length header"))
        if int(length) > limit:
            raise errors.too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise errors.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def is_json(request: Request) -> bool:
    ctype = request.headers.get("content-type", "")
    return not ctype or ctype.split(";")[0].strip().lower().endswith(("/json", "+json"))


class ApiRoute(APIRoute):
    """Reads the body within its limit and parses JSON safely before FastAPI
    validates it against the route's schema."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        limit: int = getattr(self.endpoint, "max_body", MAX_BODY)
        wants_body = self.body_field is not None

        async def read_then_handle(request: Request) -> Response:
            if request.method in ("POST", "PUT", "PATCH"):
                body = await read_body(request, limit)
                request._body = body
                if wants_body and is_json(request):
                    if not body:
                        raise errors.malformed(M_("a JSON object body is required"))
                    data = loads(body)
                    if not isinstance(data, dict):
                        raise errors.malformed(M_("the payload must be a JSON object"))
                    request._json = data
            return await handler(request)

        return read_then_handle


async def seat_token(
    x_seat_token: Annotated[str | None, Header(description="a seat token")] = None,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>")] = None,
) -> str | None:
    """The seat token of a request: ``X-Seat-Token`` or ``Authorization: Bearer``."""
    if x_seat_token:
        return x_seat_token
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


async def no_token_in_url(request: Request) -> None:
    """Seat tokens never travel in a URL (it would be logged): refuse ``?token=``."""
    if "token" in request.query_params:
        raise errors.bad_request(
            M_("send the seat token in the X-Seat-Token header, not in the URL (URLs are logged)")
        )


def error_response(
    exc: ApiError, headers: dict[str, str] | None = None, request: Request | None = None
) -> JSONResponse:
    """The error shape; with ``request``, the message in the request's language."""
    words = None if request is None else request_words(request)
    return JSONResponse(exc.body(words), status_code=exc.status, headers=headers)


# ---------------------------------------------------------------- exception handlers
async def on_api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    headers = {"Retry-After": "60"} if exc.status == 429 else None
    if exc.retry_after is not None:
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    return error_response(exc, headers, request)


def problem_words(problem: Mapping[str, Any]) -> Message:
    """One of pydantic's problems with a request: its English as pydantic says it,
    and for the common kinds words in the player's language (the field keeps its
    JSON name)."""
    loc = ".".join(str(x) for x in problem.get("loc", ()) if x not in ("body", "query"))
    english = f"{loc}: {problem.get('msg', 'invalid')}" if loc else str(problem.get("msg"))
    kind = str(problem.get("type", ""))
    ctx = problem.get("ctx") or {}
    field = loc or "body"
    if kind == "missing":
        return Message.beside(english, "{field}: this field is needed", field=field)
    if kind == "string_too_long":
        limit = ctx.get("max_length")
        return Message.beside(
            english, "{field}: at most {limit} characters", field=field, limit=limit
        )
    if kind == "string_too_short":
        limit = ctx.get("min_length")
        return Message.beside(
            english, "{field}: at least {limit} characters", field=field, limit=limit
        )
    if kind == "too_long":
        limit = ctx.get("max_length")
        return Message.beside(english, "{field}: at most {limit} items", field=field, limit=limit)
    if kind in ("greater_than_equal", "greater_than"):
        limit = ctx.get("ge", ctx.get("gt"))
        return Message.beside(
            english, "{field}: too small (the least is {limit})", field=field, limit=limit
        )
    if kind in ("less_than_equal", "less_than"):
        limit = ctx.get("le", ctx.get("lt"))
        return Message.beside(
            english, "{field}: too large (the most is {limit})", field=field, limit=limit
        )
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return Message.beside(english, "{field}: must be a whole number", field=field)
    if kind in ("string_type", "string_unicode"):
        return Message.beside(english, "{field}: must be text", field=field)
    if kind in ("bool_type", "bool_parsing"):
        return Message.beside(english, "{field}: must be true or false", field=field)
    if kind == "literal_error":
        choices = ctx.get("expected", "")
        return Message.beside(
            english, "{field}: must be one of {choices}", field=field, choices=choices
        )
    return Message.beside(english, "{problem}", problem=english)


async def on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = [problem_words(e) for e in exc.errors()]
    english = clean_text("; ".join(problems) or "invalid request")
    # each problem said in the player's language, joined as the English is
    message = Message.beside(english, "{problems}", problems=problems) if problems else english
    return error_response(ApiError(400, error_code(exc.errors()), message), request=request)


DATABASE_DOWN = (OperationalError, InterfaceError, DisconnectionError)


def database_error(exc: Exception) -> ApiError:
    """The answer to an exception outside the API's own errors: 503 when the
    database cannot be reached, else 500 (logged with its traceback)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, DATABASE_DOWN):
        log.error("database error: %s", exc)
        orig = exc.orig if isinstance(exc, DBAPIError) else None
        return errors.database_unavailable(str(orig or exc).splitlines()[0][:200])
    log.error("unexpected error", exc_info=exc)
    return ApiError(500, "internal", M_("internal server error"))


async def on_database_error(_request: Request, exc: Exception) -> Response:
    return error_response(database_error(exc))


async def on_unexpected(_request: Request, exc: Exception) -> Response:
    return error_response(database_error(exc))


async def on_client_disconnect(request: Request, _exc: Exception) -> Response:
    """A client that went away before sending its whole request: a normal event
    (a closed tab, a lost network, a body past its deadline), not an error.  The
    answer goes nowhere."""
    log.info(
        "%s %s: the client went away before its request ended", request.method, request.url.path
    )
    return Response(status_code=400)


def http_error_handler(page: Callable[[int, Request], Response]) -> Callable[..., Any]:
    """Starlette's HTTP errors (unknown route, wrong method) in the error shape; a
    person's unknown page gets the app shell (``page``) with 404."""

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        path = request.url.path
        wants_page = "text/html" in request.headers.get("accept", "")
        if exc.status_code == 404 and wants_page and not path.startswith(("/api/", "/ws/")):
            return page(404, request)
        code = "not_found" if exc.status_code == 404 else "bad_request"
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code
        )

    return on_http_error


EXCEPTION_HANDLERS: dict[type[Exception], Callable[..., Any]] = {
    ApiError: on_api_error,
    RequestValidationError: on_validation_error,
    OperationalError: on_database_error,
    InterfaceError: on_database_error,
    DisconnectionError: on_database_error,
    ClientDisconnect: on_client_disconnect,
    Exception: on_unexpected,
}
