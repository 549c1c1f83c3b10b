"""The lobby: open challenges ("seeks"), taking one (the game starts for both at
once), and the live list (``WS /ws/lobby``).  docs/CONTRACTS.md §3.2.

Seeks need an account (401 otherwise).  Taking a seek is a compare-and-set in the
database (``DELETE ... RETURNING``): of any number of takers, in any number of
processes, one gets the game and the others ``404 not_found``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from fastapi import APIRouter, Request, Response, WebSocket
from starlette.websockets import WebSocketDisconnect

from poolcheckers.server import errors
from poolcheckers.server.accounts.guard import websocket_origin_ok
from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.service import close_ended
from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.routers.ws import socket_lease
from poolcheckers.server.api.schemas import AcceptedSeek, PlayNow, SeekInfo, SeekRequest
from poolcheckers.server.games.repository import Committed
from poolcheckers.server.games.view import View
from poolcheckers.server.i18n import M_, Message
from poolcheckers.server.lobby.model import Pairing, Seek, SeekSpec
from poolcheckers.server.lobby.service import player_of
from poolcheckers.server.throttle import address_key, client_address

router = APIRouter(tags=["lobby"], route_class=ApiRoute, responses=ERROR_RESPONSES)


def refuse_bots(user: User, words: Message) -> None:
    """The lobby is for people: a bot plays the challenges sent to it (docs/BOTS.md)."""
    if user.bot:
        raise errors.ApiError(403, "forbidden", words)


def seek_dict(seek: Seek) -> dict[str, object]:
    return seek.to_dict()


@router.get("/api/seeks", response_model=list[SeekInfo], summary="The open seeks, oldest first")
async def list_seeks(ctx: Ctx) -> Response:
    seeks = await ctx.run(ctx.lobby.lobby.seeks)
    return json_response([seek_dict(s) for s in seeks])


@router.post("/api/seeks", response_model=SeekInfo, summary="Post a seek (an account is needed)")
async def post_seek(body: SeekRequest, request: Request, ctx: Ctx) -> Response:
    c = ctx.lobby
    user, _token = await ctx.accounts.require_user(request)
    refuse_bots(user, M_("a bot account cannot post seeks in the lobby: players challenge it"))
    spec = SeekSpec.from_dict(body.model_dump())
    perf = await ctx.run(ctx.ratings.perf, user.id, spec.category)
    seek = await ctx.run(c.lobby.post, player_of(user), spec, perf)
    return json_response(seek_dict(seek))


@router.delete("/api/seeks/{seek_id}", status_code=204, summary="Cancel your seek")
async def cancel_seek(seek_id: str, request: Request, ctx: Ctx) -> Response:
    c = ctx.lobby
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(c.lobby.cancel, seek_id, player_of(user))
    return Response(status_code=204)


@router.post(
    "/api/seeks/{seek_id}/accept",
    response_model=AcceptedSeek,
    summary="Take a seek: the game starts for both",
)
async def accept_seek(seek_id: str, request: Request, ctx: Ctx) -> Response:
    token = request.cookies.get(COOKIE_NAME)

    def accept() -> tuple[User, Pairing, Committed]:
        # who asks, read in the accept's own work: on the connection of its reads
        user = ctx.accounts.signed_in(token)
        refuse_bots(user, M_("a bot account cannot take seeks in the lobby: players challenge it"))
        return (user, *ctx.lobby.accept(seek_id, player_of(user)))

    user, pairing, committed = await ctx.run(accept)
    view = _view(pairing, committed, user)
    return json_response(AcceptedSeek(game=view.state()).model_dump_json())


def _view(pairing: Pairing, committed: Committed, user: User) -> View:
    """The started game of a pairing as ``user`` sees it (both players' lobby sockets
    were told in the transaction that stored it)."""
    seat = "black" if pairing.black.id == user.id else "white"
    return View(committed.loaded, committed.now, seat)


@router.post(
    "/api/seeks/play-now",
    response_model=PlayNow,
    summary="Take the oldest matching seek, or post this one",
)
async def play_now(body: SeekRequest, request: Request, ctx: Ctx) -> Response:
    """Same clock, rated flag and rules, compatible colours, within each other's rating
    range (``poolcheckers.server.lobby.model.matches``): the game starts; else the seek
    is posted and the game starts when someone takes it."""
    c = ctx.lobby
    user, _token = await ctx.accounts.require_user(request)
    refuse_bots(user, M_("a bot account cannot use quick pairing: players challenge it"))
    spec = SeekSpec.from_dict(body.model_dump())
    perf = await ctx.run(ctx.ratings.perf, user.id, spec.category)
    got = await ctx.run(c.play_now, player_of(user), spec, perf)
    if isinstance(got, tuple):
        view = _view(*got, user)
        return json_response(PlayNow(game=view.state()).model_dump_json())
    return json_response({"game": None, "seek": seek_dict(got)})


@router.websocket("/ws/lobby")
async def ws_lobby(ws: WebSocket, ctx: Ctx) -> None:
    """``{"type": "seeks", "seeks": [...]}`` on connect, then every change
    (``seek_added``, ``seek_removed``), and ``{"type": "game", "id"}`` to the two
    players of a taken seek.  A signed-in author's clock seeks go when their last
    lobby socket closes.  With ``?batch=1`` the messages waiting when the socket is
    free to send go in one frame, as a JSON array (a busy lobby's hundred changes
    a second cost one frame each otherwise).  ``{"type": "seeks"}`` may come again,
    the whole list: after the server lost the other processes' changes for a while
    (PostgreSQL restarted)."""
    await ws.accept()
    user = (
        await ctx.accounts.user_of(ws)
        if websocket_origin_ok(ws, ctx.settings.site_origins)
        else None
    )
    who = f"user:{user.id}" if user is not None else address_key(client_address(ws))
    limit = ctx.settings.lobby_sockets_per_client
    batch = ws.query_params.get("batch") == "1"
    async with socket_lease(ws, ctx, f"ws-lobby:{who}", limit, "lobby sockets") as held:
        if held:
            await _lobby_socket(ws, ctx, user, batch)


async def _lobby_socket(ws: WebSocket, ctx: Ctx, user: User | None, batch: bool) -> None:
    c = ctx.lobby
    key = user.id if user is not None else f"visitor:{id(ws)}"
    queue = c.join(key)
    forget = ctx.accounts.bind(ws, None if user is None else user.id)
    try:
        seeks = await ctx.run(c.lobby.seeks)
        await ws.send_text(json.dumps({"type": "seeks", "seeks": [seek_dict(s) for s in seeks]}))
        sender = asyncio.create_task(_send_all(ws, queue, batch))
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
                if msg.get("text") and '"ping"' in msg["text"]:
                    if user is not None and not await ctx.accounts.still_signed_in(ws, user.id):
                        await close_ended(ws)  # signed out in another process
                        return
                    queue.put_nowait('{"type":"pong"}')
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
    except WebSocketDisconnect:
        pass
    finally:
        forget()
        if c.leave(key, queue) and user is not None:
            await ctx.run(c.lobby.leave, user.id)


async def _send_all(ws: WebSocket, queue: asyncio.Queue[str], batch: bool) -> None:
    """Send the queued messages in order: one frame each, or (``batch``) the ones
    waiting together as one array frame; one waiting alone goes as itself."""
    while True:
        first = await queue.get()
        if not batch or queue.empty():
            await ws.send_text(first)
            continue
        waiting = [first]
        while not queue.empty():
            waiting.append(queue.get_nowait())
        await ws.send_text("[" + ",".join(waiting) + "]")
