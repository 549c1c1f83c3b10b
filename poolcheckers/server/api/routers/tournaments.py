"""Tournaments: round robins of one- or two-game matches, Swiss events and arenas
(docs/TOURNAMENTS.md).  Making, joining and directing an event need an account;
reading one does not.  Every game of an event is an ordinary game of the site
(``/game/{id}``, its clocks, PDN and ratings).  ``WS /ws/tournaments/{id}`` tells an
event's page, in any server process, that the event changed."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response, WebSocket
from pydantic import Field
from starlette.websockets import WebSocketDisconnect

from poolcheckers.server.accounts.model import username_key
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute, body_limit
from poolcheckers.server.api.routers.ws import socket_lease
from poolcheckers.server.api.schemas import Request as Body
from poolcheckers.server.api.schemas import Text
from poolcheckers.server.games import pdn as stored_pdn
from poolcheckers.server.throttle import address_key, client_address
from poolcheckers.server.tournaments import trf, view

router = APIRouter(tags=["tournaments"], route_class=ApiRoute, responses=ERROR_RESPONSES)
PDN_TYPE = "application/x-pdn; charset=utf-8"


class TournamentRequest(Body):
    """``POST /api/tournaments``: a new event (docs/TOURNAMENTS.md)."""

    name: Text
    system: Literal["round_robin", "swiss", "arena"]
    clock: dict[Text, Any] = Field(description='{"initial", "increment"} seconds or {"days"}')
    rated: bool = True
    rules: dict[Text, Any] | None = Field(
        None, description="docs/RULES.md §9 options (casual only)"
    )
    rounds: int | None = Field(None, description="Swiss: the number of rounds")
    games_per_pairing: int = Field(1, description="1, or 2: a match with colours swapped")
    double: bool = Field(False, description="round robin: every pair meets twice")
    duration_minutes: int | None = Field(None, description="arena: how long it runs")
    starts_at: int | None = Field(None, description="epoch seconds; null: started by hand")
    max_players: int | None = None
    rating_range: list[int] | None = None
    password: Text | None = Field(None, description="a club event: needed to join")
    forfeit_minutes: int | None = Field(
        None, description="a side that has not moved this long after its game began loses it"
    )
    round_minutes: int | None = Field(
        None, description="round n starts no sooner than (n - 1) × this after the start"
    )
    forbidden: list[list[Text]] | None = Field(
        None, description="Swiss: [[username, username], ...] pairs who must not meet"
    )


class JoinRequest(Body):
    password: Text | None = None


class RemoveRequest(Body):
    username: Text


class GameRequest(Body):
    game: Text


class PauseRequest(Body):
    paused: bool


@router.post("/api/tournaments", summary="Create an event (an account is needed)")
async def create(body: TournamentRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    data = body.model_dump(exclude_none=True)
    digest = await ctx.event_passwords.digest(data.get("password"))
    t = await ctx.run(ctx.tournaments.create, user, data, digest)
    return json_response(view.summary(t, 0))


class ImportRequest(Body):
    """``POST /api/tournaments/import``: a Swiss event from a FIDE TRF16 file; the
    accounts it names are invited (each accepts on the event's page)."""

    trf: Text = Field(description="the TRF16 file's text; its 001 names are usernames, invited")
    clock: dict[Text, Any] = Field(description='{"initial", "increment"} seconds or {"days"}')
    name: Text | None = Field(None, description="default: the file's 012 line")
    rounds: int | None = Field(None, description="default: the file's XXR line")
    rated: bool = True
    rules: dict[Text, Any] | None = None
    games_per_pairing: int = 1
    starts_at: int | None = None
    max_players: int | None = None
    rating_range: list[int] | None = None
    password: Text | None = None
    forfeit_minutes: int | None = None
    round_minutes: int | None = None
    forbidden: list[list[Text]] | None = None


@router.post("/api/tournaments/import", summary="Import a Swiss event from FIDE TRF16 (an account)")
@body_limit(trf.MAX_TRF_BYTES + 16_000)
async def import_trf(body: ImportRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    data = body.model_dump(exclude_none=True)
    t = await ctx.tournament_imports.import_trf(user, data, ctx.event_passwords.digest)
    return json_response(view.summary(t, 0))


@router.get("/api/tournaments", summary="Events: created (upcoming), running or finished")
async def listed(
    ctx: Ctx, status: Literal["created", "running", "finished"] | None = Query(None)
) -> Response:
    events = await ctx.run(ctx.tournaments.store.listed, status)
    counts = await ctx.run(ctx.tournaments.store.player_counts, [t.id for t in events])
    return json_response([view.summary(t, counts.get(t.id, 0)) for t in events])


@router.get("/api/tournaments/invitations", summary="The events that invite you, unanswered")
async def invitations(request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    events = await ctx.run(ctx.invitations.pending, user)
    return json_response([view.summary(t, 0) for t in events])


@router.get("/api/tournaments/{tid}", summary="An event: standings, pairings, crosstable")
async def event(tid: str, request: Request, ctx: Ctx) -> Response:
    user = await ctx.accounts.user_of(request)
    (t, players, games), shared = await ctx.run(ctx.tournaments.event_view, tid)
    if user is None:
        return json_response(shared)
    if t.status == "running" and any(p.user_id == user.id for p in players):
        await ctx.run(ctx.tournaments.touch, tid, user.id)
    # the shared part is serialised once per read; the viewer's part is added to it
    you = json.dumps(view.your_part(t, players, games, user.id), separators=(",", ":"))
    return json_response(f'{shared[:-1]},"you":{you}}}')


async def _event_after(ctx: Ctx, tid: str, viewer: str) -> Response:
    t, players, games = await ctx.run(ctx.tournaments.event, tid)
    return json_response(view.event_json(t, players, games, viewer))


@router.post("/api/tournaments/{tid}/join", summary="Join an event")
async def join(tid: str, request: Request, ctx: Ctx, body: JoinRequest | None = None) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    password = None if body is None else body.password
    await ctx.event_passwords.admit(tid, password)
    await ctx.run(ctx.tournaments.join, tid, user, admitted=True)
    return await _event_after(ctx, tid, user.id)


@router.post(
    "/api/tournaments/{tid}/accept",
    summary="Accept an invitation (the checks of a join; a finished event: confirm it)",
)
async def accept(tid: str, request: Request, ctx: Ctx, body: JoinRequest | None = None) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.event_passwords.admit(tid, None if body is None else body.password)
    await ctx.run(ctx.invitations.accept, tid, user, admitted=True)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/decline", summary="Decline an invitation")
async def decline(tid: str, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.invitations.decline, tid, user)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/withdraw", summary="Leave an event")
async def withdraw(tid: str, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.withdraw, tid, user.id)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/start", summary="Start the event now (its creator)")
async def start(tid: str, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.start, tid, user.id)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/pause", summary="Pause or resume the event (its creator)")
async def pause(tid: str, body: PauseRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.pause, tid, user.id, body.paused)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/remove", summary="Remove a player (the creator)")
async def remove(tid: str, body: RemoveRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.remove, tid, user.id, body.username)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/forfeit", summary="Forfeit a game nobody started (creator)")
async def forfeit(tid: str, body: GameRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.forfeit, tid, user.id, body.game)
    return await _event_after(ctx, tid, user.id)


@router.post("/api/tournaments/{tid}/berserk", summary="Arena: halve your clock for a bonus")
async def berserk(tid: str, body: GameRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    await ctx.run(ctx.tournaments.berserk, tid, user.id, body.game)
    return await _event_after(ctx, tid, user.id)


@router.get("/api/tournaments/{tid}/pdn", summary="Every game of the event as one PDN")
async def pdn(tid: str, ctx: Ctx) -> Response:
    _t, _players, games = await ctx.run(ctx.tournaments.event, tid)
    ids = [g.game_id for g in games if g.game_id is not None]

    def export() -> str:
        return "\n".join(stored_pdn.export_game(ctx.games, game_id) for game_id in ids)

    text = await ctx.run(export)
    headers = {"Content-Disposition": f'attachment; filename="tournament-{tid}.pdn"'}
    return Response(text, media_type=PDN_TYPE, headers=headers)


@router.get("/api/tournaments/{tid}/csv", summary="The standings as CSV")
async def standings_csv(tid: str, ctx: Ctx) -> Response:
    t, players, games = await ctx.run(ctx.tournaments.event, tid)
    headers = {"Content-Disposition": f'attachment; filename="tournament-{tid}.csv"'}
    return Response(
        view.standings_csv(t, players, games), media_type="text/csv; charset=utf-8", headers=headers
    )


@router.get("/api/tournaments/{tid}/trf", summary="The event as FIDE TRF16")
async def trf_file(tid: str, ctx: Ctx) -> Response:
    t, players, games = await ctx.run(ctx.tournaments.event, tid)
    headers = {"Content-Disposition": f'attachment; filename="tournament-{tid}.trf"'}
    return Response(
        trf.write(t, players, games), media_type="text/plain; charset=utf-8", headers=headers
    )


@router.get("/api/users/{username}/tournaments", summary="The events a player joined")
async def of_player(username: str, ctx: Ctx) -> Response:
    user = await ctx.run(ctx.accounts.users.by_key, username_key(username))
    events = [] if user is None else await ctx.run(ctx.tournaments.store.events_of, user.id)
    return json_response([view.summary(t, 0) for t in events])


#: the most notices an event page gets a second (a round's start is many commits)
NOTICE_INTERVAL_S = 0.5


@router.websocket("/ws/tournaments/{tid}")
async def live(ws: WebSocket, tid: str, ctx: Ctx) -> None:
    """``{"type": "update"}`` whenever the event's standings or pairings changed (in
    any server process), at most twice a second; the page then reads
    ``GET /api/tournaments/{id}``."""
    await ws.accept()
    who = address_key(client_address(ws))
    limit = ctx.settings.lobby_sockets_per_client
    async with socket_lease(ws, ctx, f"ws-tournament:{who}", limit, "event sockets") as held:
        if held:
            await _event_socket(ws, ctx, tid)


async def _event_socket(ws: WebSocket, ctx: Ctx, tid: str) -> None:
    topic = f"tournament:{tid}"
    queue = ctx.topics.subscribe(topic)

    async def send_notices() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # the page left
            while True:
                await queue.get()
                await ws.send_text('{"type":"update"}')
                await asyncio.sleep(NOTICE_INTERVAL_S)

    sender = asyncio.create_task(send_notices())
    try:
        while True:  # the client says nothing that matters: read until it leaves
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
    except WebSocketDisconnect:
        pass
    finally:
        sender.cancel()
        ctx.topics.unsubscribe(topic, queue)
