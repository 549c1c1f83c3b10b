"""The community half of the server (issue 8): accounts and sessions over the
database stores, the password-hash slots, who a request is, the cross-site
request check, and the mapping of community errors to API errors.

Argon2id hashes are slow and big on purpose (64 MiB, ~80 ms): they run in worker
threads, at most ``Settings.hash_concurrency`` at once, so a flood of sign-ins
queues instead of taking the cores from the games.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from typing import ParamSpec, TypeVar

import anyio.to_thread
from argon2.profiles import RFC_9106_LOW_MEMORY
from sqlalchemy import Engine
from starlette.requests import HTTPConnection, Request, cookie_parser
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from poolcheckers.community.accounts import Accounts, Passwords, User
from poolcheckers.community.errors import CommunityError, RateLimitedError
from poolcheckers.community.ratelimit import SignInLimiter, SlidingWindow
from poolcheckers.community.sessions import (
    COOKIE_NAME,
    SAFE_METHODS,
    Sessions,
    normalise_origin,
    request_allowed,
    session_cookie,
)

from .community_store import DbSessionStore, DbUserStore
from .errors import ApiError
from .settings import Settings

P = ParamSpec("P")
R = TypeVar("R")

#: HTTP status of each community error code (docs/COMMUNITY.md, "error codes")
STATUS = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "rate_limited": 429,
}


class Community:
    """Accounts, sessions and their limits, shared by the routes (``ctx.community``)."""

    def __init__(self, settings: Settings, db: Engine) -> None:
        self.settings = settings
        self.users = DbUserStore(db)
        clock = settings.clock
        self.accounts = Accounts(
            self.users,
            sessions=Sessions(DbSessionStore(db)),
            passwords=Passwords(settings.password_parameters or RFC_9106_LOW_MEMORY),
            limiter=SignInLimiter(
                address_limit=settings.signin_limit,
                username_failure_limit=settings.signin_failure_limit,
            ),
            signup_limit=SlidingWindow(*settings.signup_limit),
            clock=lambda: clock.now_ms() / 1000,
        )
        self._hash_slots: asyncio.Semaphore | None = None

    async def hashing(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``fn`` (which hashes or verifies a password) in a worker thread, with at
        most ``hash_concurrency`` of them at once."""
        if self._hash_slots is None:
            self._hash_slots = asyncio.Semaphore(self.settings.hash_concurrency)
        async with self._hash_slots:
            return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))

    async def user_of(self, conn: HTTPConnection) -> User | None:
        """The account signed in by the request's session cookie, or None."""
        token = conn.cookies.get(COOKIE_NAME)
        if not token:
            return None
        return await anyio.to_thread.run_sync(self.accounts.authenticate, token)

    async def require_user(self, conn: HTTPConnection) -> tuple[User, str]:
        """The signed-in account and its session token; 401 ``unauthorized`` if none."""
        token = conn.cookies.get(COOKIE_NAME)
        user = await self.user_of(conn)
        if user is None or token is None:
            raise ApiError(401, "unauthorized", "sign in first (no valid session cookie)")
        return user, token


def set_session_cookie(response: Response, token: str, request: Request) -> None:
    """The session cookie: HttpOnly, SameSite=Lax, Secure behind HTTPS."""
    attrs = session_cookie(token, secure=request.url.scheme == "https")
    response.set_cookie(**attrs)  # type: ignore[arg-type]


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE_NAME,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )


def api_error(error: CommunityError) -> ApiError:
    return ApiError(STATUS.get(error.code, 400), error.code, str(error))


async def on_community_error(_request: Request, exc: Exception) -> Response:
    """A community error as ``{"error": {"code", "message"}}``; 429 with the real
    ``Retry-After``."""
    assert isinstance(exc, CommunityError)
    err = api_error(exc)
    headers = None
    if isinstance(exc, RateLimitedError):
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    return JSONResponse(err.body(), status_code=err.status, headers=headers)


# ---------------------------------------------------------------- cross-site requests
def _own_origin(scope: Scope, headers: Mapping[str, str]) -> str | None:
    host = headers.get("host")
    if not host:
        return None
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme"))
    return normalise_origin(f"{scheme}://{host}")


class SameSiteGuard:
    """Refuses (403 ``forbidden``) a state-changing request authenticated by the session
    cookie unless its ``Origin`` is the site's or it carries the session's
    ``X-CSRF-Token`` (security point 8).  Sign-up and sign-in from a foreign
    ``Origin`` are refused too, so no other site can sign a visitor into its account.
    Requests without the cookie (anonymous seats use tokens) pass untouched.
    """

    def __init__(self, app: ASGIApp, site_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.site_origins = site_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        token = cookie_parser(headers.get("cookie", "")).get(COOKIE_NAME) or None
        origin = headers.get("origin")
        sites = {*self.site_origins, *filter(None, [_own_origin(scope, headers)])}
        refused = False
        if token is not None:
            refused = not request_allowed(
                scope["method"],
                origin=origin,
                csrf=headers.get("x-csrf-token"),
                session_token=token,
                site_origins=sites,
            )
        elif origin is not None and str(scope.get("path", "")).startswith("/api/account/"):
            mine = {normalise_origin(o) for o in sites}
            refused = normalise_origin(origin) not in mine
        if refused:
            err = ApiError(
                403,
                "forbidden",
                "cross-site request refused: send it from the site, or with the "
                "X-CSRF-Token header that GET /api/account returns",
            )
            await JSONResponse(err.body(), status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def websocket_origin_ok(conn: HTTPConnection, site_origins: tuple[str, ...]) -> bool:
    """A WebSocket that the session cookie authenticates must come from the site."""
    origin = conn.headers.get("origin")
    if origin is None or COOKIE_NAME not in conn.cookies:
        return True
    headers = {k.lower(): v for k, v in conn.headers.items()}
    sites = {*site_origins, *filter(None, [_own_origin(conn.scope, headers)])}
    mine = {normalise_origin(o) for o in sites}
    return normalise_origin(origin) in mine
