"""The bot API: a program plays through these routes with a personal API token
(``Authorization: Bearer``, scope ``bot:play``, a bot account).  docs/BOTS.md.

Streams are newline-delimited JSON (``application/x-ndjson``), one object per line,
an empty line every few seconds to keep idle connections open.  A client that
loses one reconnects and gets the current state again: every stream starts with
what is going on (running games, open challenges, the full game).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.tokens import ApiToken
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.routers.challenges import ChallengeRequest
from poolcheckers.server.api.routers.ws import kept
from poolcheckers.server.api.schemas import ACTIONS
from poolcheckers.server.errors import ApiError
from poolcheckers.server.i18n import M_
from poolcheckers.server.throttle import client_address
from poolcheckers.server.wiring import Services

router = APIRouter(tags=["bot"], route_class=ApiRoute, responses=ERROR_RESPONSES)

#: seconds between keep-alive lines on an idle stream
KEEPALIVE_S = 6.0
NDJSON = "application/x-ndjson"
#: a ply in a URL: ASCII digits only (``str.isdigit`` also takes ``²``, which ``int``
#: refuses) and few enough that ``int`` reads them (no game lasts a billion plies)
PLY = re.compile("[0-9]{1,9}")
#: streams one bot may hold open at once, counted in the database (every process):
#: event streams of the account, and streams of one of its games
EVENT_STREAMS = 4
GAME_STREAMS = 2
#: a stream's place is held this long and renewed while it is open (a process that
#: dies gives its places back when they lapse)
LEASE_S = 60.0


async def _lease(ctx: Services, name: str, limit: int, what: str) -> str:
    """One of ``limit`` places of ``name``; 429 ``rate_limited`` when all are held."""
    lease = await ctx.run(ctx.quotas.slots.take, name, limit, LEASE_S)
    if lease is None:
        raise ApiError(
            429,
            "rate_limited",
            M_("at most {limit} {what} open at once: close one first", limit=limit, what=what),
            LEASE_S,
        )
    return lease


async def _held(
    ctx: Services, lease: str, stream: AsyncGenerator[bytes, None]
) -> AsyncIterator[bytes]:
    """``stream``, its place renewed while it runs and given back when it ends (the
    stream closed first, so that its own cleanup has run)."""
    async with kept(ctx, lease, LEASE_S):
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()


async def _until_revoked(
    ctx: Services, token: ApiToken, stream: AsyncGenerator[bytes, None]
) -> AsyncGenerator[bytes, None]:
    """``stream`` until it ends or ``token`` is revoked, in any server process (the
    account page, a password change, "sign out everywhere"): a program whose token
    is gone hears nothing more from the site, not even on a stream opened before."""
    revoked = asyncio.ensure_future(ctx.accounts.token_revoked(token))
    chunk: asyncio.Future[bytes] | None = None
    try:
        while True:
            chunk = asyncio.ensure_future(anext(stream))
            await asyncio.wait((chunk, revoked), return_when=asyncio.FIRST_COMPLETED)
            if revoked.done():
                return
            try:
                line = chunk.result()
            except StopAsyncIteration:
                return
            yield line
    finally:
        for task in (revoked, chunk):
            if task is not None:
                task.cancel()  # nothing if done; then awaited for its outcome, read
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await task
        await stream.aclose()


def _line(event: dict[str, object]) -> bytes:
    return (json.dumps(event, separators=(",", ":")) + "\n").encode()


async def _bot(request: Request, ctx: Services) -> User:
    """The bot account of the request's token (scope ``bot:play``)."""
    user, _token = await _bot_token(request, ctx)
    return user


async def _bot_token(request: Request, ctx: Services) -> tuple[User, ApiToken]:
    """The bot account of the request's token (scope ``bot:play``), and the token."""
    user, token = await ctx.accounts.bearer(request, "bot:play")
    if not user.bot:
        raise ApiError(
            403,
            "forbidden",
            M_(
                "{username} is not a bot account: POST /api/bot/account/upgrade first",
                username=user.username,
            ),
        )
    return user, token


@router.get("/api/stream/event", summary="The bot's events: challenges and game starts (NDJSON)")
async def event_stream(request: Request, ctx: Ctx) -> Response:
    """``{"type": "gameStart", "game": {"id"}}`` for every game of the account (those
    running when the stream opens first), ``{"type": "challenge", "challenge"}`` for
    every challenge to it (the open ones first), ``{"type": "challengeCanceled" |
    "challengeDeclined", "challenge"}`` when one goes.  The stream ends when its
    token is revoked."""
    user, token = await _bot_token(request, ctx)
    lease = await _lease(ctx, f"bot-events:{user.id}", EVENT_STREAMS, "event streams")
    lobby = ctx.lobby

    async def events() -> AsyncGenerator[bytes, None]:
        started: set[str] = set()
        told = _Challenges(user.username)

        def game(gid: object) -> bytes | None:
            if not isinstance(gid, str) or gid in started:
                return None
            started.add(gid)
            return _line({"type": "gameStart", "game": {"id": gid}})

        async def challenges() -> list[bytes]:
            now = ctx.settings.clock.now_ms()
            listed = await ctx.run(ctx.challenges.listed, user)
            return told.listed([c.to_dict(now) for c in listed])

        # joined inside the stream, so that only a stream that runs holds a queue;
        # joined before reading what is going on, so that nothing falls between
        queue = lobby.join(user.id)
        try:
            for gid in await ctx.run(ctx.games.store.running_of_player, user.id):
                if (line := game(gid)) is not None:
                    yield line
            for line in await challenges():
                yield line
            while True:
                try:
                    raw = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield b"\n"
                    continue
                lines, read_again = _events_of(raw, game, told)
                for line in lines:
                    yield line
                if read_again:  # this process may have missed some: read them
                    for line in await challenges():
                        yield line
        finally:
            if lobby.leave(user.id, queue):
                await ctx.run(lobby.lobby.leave, user.id)

    stream = _until_revoked(ctx, token, events())
    return StreamingResponse(_held(ctx, lease, stream), media_type=NDJSON)


class _Challenges:
    """The challenges an event stream knows open (sent to the bot, or by it), so that a
    challenge is told once, and a list read again (after the server missed notices)
    tells only what the stream has not: the new challenges to the bot, and the end of
    those it knew open."""

    def __init__(self, username: str) -> None:
        self.username = username
        self.known: set[str] = set()
        self.open: set[str] = set()

    def opened(self, challenge: dict[str, object]) -> bytes | None:
        cid = challenge.get("id")
        if not isinstance(cid, str) or cid in self.known:
            return None
        self.known.add(cid)
        self.open.add(cid)
        if challenge.get("challenged") != self.username:
            return None
        return _line({"type": "challenge", "challenge": challenge})

    def ended(self, kind: str, challenge: object) -> bytes:
        if isinstance(challenge, dict):
            self.known.add(str(challenge.get("id")))
            self.open.discard(str(challenge.get("id")))
        name = "challengeDeclined" if kind == "challenge_declined" else "challengeCanceled"
        return _line({"type": name, "challenge": challenge})

    def listed(self, challenges: list[dict[str, object]]) -> list[bytes]:
        """The lines for the account's challenges as listed now."""
        out: list[bytes] = []
        for c in challenges:
            status = c.get("status")
            if status == "open":
                line = self.opened(c)
            elif status in ("declined", "cancelled") and c.get("id") in self.open:
                line = self.ended(f"challenge_{status}", c)
            else:
                line = None
            if line is not None:
                out.append(line)
        return out


def _events_of(
    raw: str, game: Callable[[object], bytes | None], told: _Challenges
) -> tuple[list[bytes], bool]:
    """The bot's events in one lobby message (seeks and others' news are not its), and
    whether its challenges are to be read again (the server may have missed some);
    ``game`` makes a game's ``gameStart`` line (None for a game already told)."""
    try:
        message = json.loads(raw)
    except ValueError:
        return [], False
    frames = message if isinstance(message, list) else [message]
    out: list[bytes] = []
    read_again = False
    for m in frames:
        kind = m.get("type") if isinstance(m, dict) else None
        challenge = m.get("challenge") if isinstance(m, dict) else None
        line: bytes | None = None
        if kind == "game":
            line = game(m.get("id"))
        elif kind == "challenge_accepted" and isinstance(challenge, dict):
            told.open.discard(str(challenge.get("id")))
            line = game(challenge.get("game"))
        elif kind == "challenge" and isinstance(challenge, dict):
            line = told.opened(challenge)
        elif kind in ("challenge_declined", "challenge_cancelled"):
            line = told.ended(kind, challenge)
        elif kind == "challenges_changed":
            read_again = True
        if line is not None:
            out.append(line)
    return out, read_again


@router.get("/api/bot/game/stream/{game_id}", summary="One game of the bot, live (NDJSON)")
async def game_stream(game_id: str, request: Request, ctx: Ctx) -> Response:
    """``{"type": "gameFull", "game": GameState}`` first (``your_color`` is the
    bot's), then ``{"type": "gameState", "game": GameState}`` after every change;
    the stream ends after the state that finishes the game, or when its token is
    revoked."""
    user, token = await _bot_token(request, ctx)
    view = await ctx.run(ctx.games.view, game_id, None, user.id)
    if view.seat is None:
        raise ApiError(
            403,
            "forbidden",
            M_("{username} does not play game {game_id}", username=user.username, game_id=game_id),
        )
    name = f"bot-game:{user.id}:{game_id[:64]}"
    lease = await _lease(ctx, name, GAME_STREAMS, "streams of one game")
    fanout = ctx.fanout

    async def states() -> AsyncGenerator[bytes, None]:
        # subscribed inside the stream (only a stream that runs holds a subscriber),
        # then the state read again: no change falls between the two
        sub = fanout.subscribe(game_id, None)
        try:
            view = await ctx.run(ctx.games.view, game_id, None, user.id)
            sub.color, sub.ready, sub.version = view.seat, True, view.loaded.game.version
            first = json.loads(view.json())
            yield _line({"type": "gameFull", "game": first})
            if first["status"] != "running":
                return
            while True:
                try:
                    raw = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield b"\n"
                    continue
                if raw is None:
                    return  # too far behind: reconnect for the current state
                state = json.loads(raw)["game"]
                yield _line({"type": "gameState", "game": state})
                if state["status"] != "running":
                    return
        finally:
            fanout.unsubscribe(sub)

    stream = _until_revoked(ctx, token, states())
    return StreamingResponse(_held(ctx, lease, stream), media_type=NDJSON)


@router.post("/api/bot/game/{game_id}/move/{move}", summary="Play a move (R4 notation)")
async def bot_move(game_id: str, move: str, request: Request, ctx: Ctx) -> Response:
    """The move at the game's current ply; the answer is the new state.  A move
    refused by the rules is 400 naming the rule, the game unchanged."""
    user = await _bot(request, ctx)
    ply_text = request.query_params.get("ply")
    if ply_text is None:
        state = await ctx.run(ctx.games.view, game_id, None, user.id)
        ply = state.loaded.game.ply
    elif PLY.fullmatch(ply_text):
        ply = int(ply_text)
    else:
        raise ApiError(
            400,
            "malformed",
            M_(
                "ply must be a whole number from 0 to 999999999, not {ply_text}",
                ply_text=repr(ply_text[:20]),
            ),
        )
    view, _played = await ctx.run(ctx.games.move, game_id, None, move, ply, user.id)
    return json_response(view.json())


@router.post("/api/bot/game/{game_id}/{action}", summary="Resign, offer or answer a draw…")
async def bot_action(game_id: str, action: str, request: Request, ctx: Ctx) -> Response:
    """``resign``, ``draw-offer``, ``draw-accept``, ``draw-decline``, ``abort``, as on
    the game page."""
    user = await _bot(request, ctx)
    allowed = [a for a in ACTIONS if a in ("resign", "draw-offer", "draw-accept",
                                           "draw-decline", "abort")]  # fmt: skip
    chosen = next((a for a in allowed if a == action), None)
    if chosen is None:
        raise ApiError(
            404,
            "not_found",
            M_(
                "no bot action {action}: {value}",
                action=repr(action[:30]),
                value=", ".join(allowed),
            ),
        )
    view = await ctx.act(game_id, chosen, None, user.id, client_address(request))
    return json_response(view.json())


@router.post("/api/bot/challenge", summary="Challenge a player (or another bot)")
async def bot_challenge(body: ChallengeRequest, request: Request, ctx: Ctx) -> Response:
    user = await _bot(request, ctx)
    c = await ctx.run(ctx.challenges.create, user, body.model_dump())
    return json_response(c.to_dict(ctx.settings.clock.now_ms()))


@router.post("/api/bot/challenge/{cid}/{answer}", summary="Accept or decline a challenge")
async def bot_answer(cid: str, answer: str, request: Request, ctx: Ctx) -> Response:
    """``accept``: the game starts (a ``gameStart`` event follows); ``decline``
    (optional JSON ``{"reason"}``, as the site's challenges)."""
    user = await _bot(request, ctx)
    if answer == "accept":
        committed = await ctx.run(ctx.challenges.accept, user, cid)
        return json_response({"game": {"id": committed.loaded.game.id}})
    if answer == "decline":
        reason = "generic"
        if await request.body():
            try:
                reason = str(json.loads(await request.body()).get("reason", "generic"))
            except (ValueError, AttributeError):
                raise ApiError(400, "malformed", M_('the body must be {"reason": …}')) from None
        c = await ctx.run(ctx.challenges.decline, user, cid, reason)
        return json_response(c.to_dict(ctx.settings.clock.now_ms()))
    raise ApiError(
        404,
        "not_found",
        M_("answer a challenge with accept or decline, not {answer}", answer=repr(answer)),
    )
