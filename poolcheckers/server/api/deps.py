"""What every router depends on, declared once: the services (``Ctx``), the
signed-in account (``UserId``), and the one way to answer with JSON text."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import Depends, Response
from starlette.requests import HTTPConnection

from poolcheckers.server.i18n import COOKIE, Translator, negotiate, translator
from poolcheckers.server.wiring import Services, get_ctx

Ctx = Annotated[Services, Depends(get_ctx)]


async def account_id(conn: HTTPConnection) -> str | None:
    """The id of the account the session cookie signs in, or None (a dependency)."""
    services: Services = conn.app.state.ctx
    user = await services.accounts.user_of(conn)
    return None if user is None else user.id


UserId = Annotated[str | None, Depends(account_id)]


def request_locale(conn: HTTPConnection) -> str:
    """The language of a request: its ``lang`` cookie, else ``Accept-Language``."""
    return negotiate(conn.headers.get("accept-language"), conn.cookies.get(COOKIE))


def request_words(conn: HTTPConnection) -> Translator:
    """The translator of the request's language (a request's or a socket's)."""
    return translator(request_locale(conn))


async def request_translator(conn: HTTPConnection) -> Translator:
    """The words of the request's language (a dependency)."""
    return request_words(conn)


Lang = Annotated[Translator, Depends(request_translator)]


def json_response(
    body: str | Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON answer: ``body`` already serialised (a model's ``model_dump_json``), or
    plain data serialised compactly."""
    text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
    return Response(text, status, headers=headers, media_type="application/json")
