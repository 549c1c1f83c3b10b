"""The cross-site guard: a request or WebSocket that the session cookie
authenticates must come from the site (its ``Origin``) or carry the session's
CSRF token, so no other site can act with a visitor's cookie."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import HTTPConnection, cookie_parser
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from poolcheckers.server.accounts.sessions import (
    COOKIE_NAME,
    SAFE_METHODS,
    normalise_origin,
    request_allowed,
)
from poolcheckers.server.errors import ApiError
from poolcheckers.server.i18n import M_


def _own_origin(scope: Scope, headers: Mapping[str, str]) -> str | None:
    host = headers.get("host")
    if not host:
        return None
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme"))
    return normalise_origin(f"{scheme}://{host}")


class SameSiteGuard:
    """Refuses (403 ``forbidden``) a state-changing request authenticated by the session
    cookie unless its ``Origin`` is the site's or it carries the session's
    ``X-CSRF-Token``.  Sign-up and sign-in from a foreign
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
                M_(
                    "cross-site request refused: send it from the site, or with the "
                    "X-CSRF-Token header that GET /api/account returns"
                ),
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
