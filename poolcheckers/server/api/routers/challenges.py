"""Direct challenges and blocks (docs/TOURNAMENTS.md, "Direct challenges").  All need
an account.  The challenged player hears of a challenge on their lobby socket (in
every server process), and both players hear of its answer; an accepted challenge's
game starts for both at once.  A player chooses whom they take challenges from
(everyone, the players they have played, nobody).

A program may use the challenge routes with a personal API token instead of the
session (``Authorization: Bearer``, docs/BOTS.md): listing, and reading whom the
account takes challenges from, need the scope ``challenge:read``; sending, answering
and choosing whom ``challenge:write``.  Blocks need the session."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from pydantic import Field

from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import AcceptedSeek, Rules, Text
from poolcheckers.server.api.schemas import Request as Body
from poolcheckers.server.games.view import View
from poolcheckers.server.wiring import Services

router = APIRouter(tags=["challenges"], route_class=ApiRoute, responses=ERROR_RESPONSES)


#: the decline's words, said in the reader's language
REASON = frozenset({"reason"})


async def _player(request: Request, ctx: Services, scope: str) -> User:
    """The account of the session cookie, or (without one) of an API token with
    ``scope``; 401 with neither."""
    if COOKIE_NAME not in request.cookies and "authorization" in request.headers:
        user, _token = await ctx.accounts.bearer(request, scope)
        return user
    user, _session = await ctx.accounts.require_user(request)
    return user


class ChallengeRequest(Body):
    """``POST /api/challenges``: a game asked of a named player."""

    username: Text
    clock: dict[Text, Any] | None = Field(
        description='{"initial", "increment"} in seconds, {"days"} per move, or null (no clock)'
    )
    color: Literal["black", "white", "random"] = Field("random", description="the challenger's")
    rated: bool = False
    rules: Rules | None = Field(None, description="docs/RULES.md §9 options; rated games use APCA")


class DeclineRequest(Body):
    reason: Text = Field("generic", description="generic, later, too_fast, too_slow, ...")


class BlockRequest(Body):
    username: Text


class ChallengePolicy(Body):
    """Whom the player takes challenges from."""

    accept_from: Literal["everyone", "played", "nobody"] = Field(
        description="everyone; played: the players you have played a game with; nobody"
    )


@router.post("/api/challenges", summary="Challenge a named player")
async def create(body: ChallengeRequest, request: Request, ctx: Ctx) -> Response:
    user = await _player(request, ctx, "challenge:write")
    c = await ctx.run(ctx.challenges.create, user, body.model_dump())
    return json_response(c.to_dict(ctx.settings.clock.now_ms()))


@router.get("/api/challenges", summary="Your challenges, sent and received")
async def listed(request: Request, ctx: Ctx, words: Lang) -> Response:
    user = await _player(request, ctx, "challenge:read")
    now = ctx.settings.clock.now_ms()
    mine = await ctx.run(ctx.challenges.listed, user)
    answer = {
        "in": [c.to_dict(now) for c in mine if c.challenged_id == user.id],
        "out": [c.to_dict(now) for c in mine if c.challenger_id == user.id],
    }
    return json_response(words.localize(answer, REASON))


@router.post(
    "/api/challenges/{cid}/accept",
    response_model=AcceptedSeek,
    summary="Accept: the game starts for both",
)
async def accept(cid: str, request: Request, ctx: Ctx) -> Response:
    user = await _player(request, ctx, "challenge:write")
    committed = await ctx.run(ctx.challenges.accept, user, cid)
    game = committed.loaded.game
    seat = "black" if game.black_user_id == user.id else "white"
    state = View(committed.loaded, committed.now, seat).state()
    return json_response(AcceptedSeek(game=state).model_dump_json())


@router.post("/api/challenges/{cid}/decline", summary="Decline, with a reason")
async def decline(
    cid: str, request: Request, ctx: Ctx, words: Lang, body: DeclineRequest | None = None
) -> Response:
    user = await _player(request, ctx, "challenge:write")
    reason = "generic" if body is None else body.reason
    c = await ctx.run(ctx.challenges.decline, user, cid, reason)
    return json_response(words.localize(c.to_dict(ctx.settings.clock.now_ms()), REASON))


@router.post("/api/challenges/{cid}/cancel", summary="Cancel your challenge")
async def cancel(cid: str, request: Request, ctx: Ctx) -> Response:
    user = await _player(request, ctx, "challenge:write")
    c = await ctx.run(ctx.challenges.cancel, user, cid)
    return json_response(c.to_dict(ctx.settings.clock.now_ms()))


@router.get("/api/challenges/policy", summary="Whom you take challenges from")
async def policy(request: Request, ctx: Ctx) -> Response:
    user = await _player(request, ctx, "challenge:read")
    accept_from = await ctx.run(ctx.challenges.policy, user)
    return json_response(ChallengePolicy(accept_from=accept_from).model_dump())


@router.post("/api/challenges/policy", summary="Choose whom you take challenges from")
async def set_policy(body: ChallengePolicy, request: Request, ctx: Ctx) -> Response:
    user = await _player(request, ctx, "challenge:write")
    accept_from = await ctx.run(ctx.challenges.set_policy, user, body.accept_from)
    return json_response(ChallengePolicy(accept_from=accept_from).model_dump())


@router.get("/api/blocks", summary="The players you block")
async def blocks(request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    return json_response(await ctx.run(ctx.challenges.blocked, user))


@router.post("/api/blocks", summary="Block a player: their challenges stop")
async def block(body: BlockRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.challenges.block, user, body.username)
    return json_response(await ctx.run(ctx.challenges.blocked, user))


@router.delete("/api/blocks/{username}", summary="Unblock a player")
async def unblock(username: str, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.challenges.unblock, user, username)
    return json_response(await ctx.run(ctx.challenges.blocked, user))
