"""The site's language: the menu at the foot of every page sets it.

The choice is kept in the ``lang`` cookie (a year; it decides the language of the
app's frame and of the server's words) and, for a signed-in player, on the account,
so that signing in on another browser brings it back (the sign-in routes set the
cookie from it)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from poolcheckers.server.accounts.cookies import set_language_cookie
from poolcheckers.server.api.deps import Ctx
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import LanguageChoice
from poolcheckers.server.errors import bad_request
from poolcheckers.server.i18n import LOCALES, M_, parse_locale, tag

router = APIRouter(tags=["language"], route_class=ApiRoute, responses=ERROR_RESPONSES)


@router.post("/api/language", status_code=204, summary="Choose the site's language")
async def choose_language(body: LanguageChoice, request: Request, ctx: Ctx) -> Response:
    """Remember ``locale`` (``en``, ``pt-BR``, ``es``) for this browser, and for the
    signed-in account."""
    locale = parse_locale(body.locale)
    if locale is None or tag(locale).lower() != body.locale.replace("_", "-").lower():
        offered = ", ".join(tag(code) for code in LOCALES)
        raise bad_request(
            M_(
                "no language {locale}: the site speaks {offered}",
                locale=repr(body.locale),
                offered=offered,
            )
        )
    user = await ctx.accounts.user_of(request)
    if user is not None:
        await ctx.run(ctx.accounts.users.set_locale, user.id, locale)
    response = Response(status_code=204)
    set_language_cookie(response, locale, request)
    return response
