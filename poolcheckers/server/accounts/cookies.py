"""The cookies on responses: the session (set at sign-in, cleared at sign-out) and
the site's language (set by the language menu, and at sign-in from the account)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from poolcheckers.server.accounts.sessions import COOKIE_NAME, session_cookie
from poolcheckers.server.i18n import COOKIE as LANGUAGE_COOKIE
from poolcheckers.server.i18n import tag

#: how long a browser keeps the language chosen
LANGUAGE_SECONDS = 365 * 24 * 3600


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


def set_language_cookie(response: Response, locale: str, request: Request) -> None:
    """The ``lang`` cookie: no secret (the page may read it), SameSite=Lax, a year."""
    response.set_cookie(
        LANGUAGE_COOKIE,
        tag(locale),
        max_age=LANGUAGE_SECONDS,
        path="/",
        secure=request.url.scheme == "https",
        httponly=False,
        samesite="lax",
    )
