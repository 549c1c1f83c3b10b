"""The session cookie on responses: set at sign-in, cleared at sign-out."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from poolcheckers.server.accounts.sessions import COOKIE_NAME, session_cookie


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
