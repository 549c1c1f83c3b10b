"""Personal API tokens and bot accounts: the account page makes and revokes tokens
(with the password's session), an outside program signs in with one
(``Authorization: Bearer``).  docs/BOTS.md.

A token is shown once, when made; the server keeps its SHA-256 only.  The account
routes refuse a token (a program cannot make itself more tokens); the ``/api/bot``
routes take only a token.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from poolcheckers.server.accounts.tokens import SCOPES
from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import NewApiToken
from poolcheckers.server.errors import ApiError
from poolcheckers.server.i18n import M_

router = APIRouter(tags=["tokens and bots"], route_class=ApiRoute, responses=ERROR_RESPONSES)


@router.get("/api/account/tokens", summary="Your API tokens (never the tokens themselves)")
async def list_tokens(request: Request, ctx: Ctx, words: Lang) -> Response:
    user, _session = await ctx.accounts.require_user(request)
    tokens = await ctx.run(ctx.accounts.tokens.store.of_user, user.id)
    scopes = {scope: words.gettext(meaning) for scope, meaning in SCOPES.items()}
    return json_response(
        {"tokens": [t.public() for t in tokens], "scopes": scopes, "bot": user.bot}
    )


@router.post("/api/account/tokens", summary="Make an API token: shown once, in this answer")
async def create_token(body: NewApiToken, request: Request, ctx: Ctx) -> Response:
    user, _session = await ctx.accounts.require_user(request)
    now = ctx.settings.clock.now_ms() / 1000
    token, stored = await ctx.run(ctx.accounts.tokens.create, user.id, body.label, body.scopes, now)
    return json_response({**stored.public(), "token": token})


@router.delete("/api/account/tokens/{token_id}", status_code=204, summary="Revoke an API token")
async def revoke_token(token_id: str, request: Request, ctx: Ctx) -> Response:
    """At once, in every server process: the streams the token opened end too."""
    user, _session = await ctx.accounts.require_user(request)
    if not await ctx.accounts.revoke_token(user.id, token_id):
        raise ApiError(
            404, "not_found", M_("you have no API token {token_id}", token_id=repr(token_id[:20]))
        )
    return Response(status_code=204)


@router.get("/api/bot/account", summary="The account and scopes of this API token")
async def bot_account(request: Request, ctx: Ctx) -> Response:
    user, token = await ctx.accounts.bearer(request, None)
    return json_response(
        {"username": user.username, "bot": user.bot, "scopes": sorted(token.scopes)}
    )


@router.post(
    "/api/bot/account/upgrade",
    summary="Turn this account into a bot account, for good (token scope bot:play)",
)
async def upgrade_to_bot(request: Request, ctx: Ctx, words: Lang) -> Response:
    """As on lichess: only an account that has played no game, and never back.  A
    bot plays through the bot API, is marked BOT, stays out of the leaderboards and
    the lobby's quick pairing.  Refused (409) while the account is entered in an
    event or has open seeks or challenges: a person who took one meant to play a
    person; the answer's ``holds`` says what to withdraw, cancel or decline."""
    user, _token = await ctx.accounts.bearer(request, "bot:play")
    if not user.bot:
        now = ctx.settings.clock.now_ms()
        holds = await ctx.run(ctx.accounts.users.make_bot, user.id, now)
        if holds.held:
            refused = ApiError(409, "conflict", holds.refusal(user.username)).body(words)
            refused["error"]["holds"] = holds.to_dict()
            return json_response(refused, 409)
    return json_response({"username": user.username, "bot": True})
