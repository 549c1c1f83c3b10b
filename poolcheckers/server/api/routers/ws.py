"""WebSockets: a game's live state and moves, and the analysis board's searches.

A seat token is never part of the URL: a browser offers it as a WebSocket
sub-protocol (``["poolcheckers", "seat-token.<token>"]``; the server answers with
``poolcheckers``), other clients may send the ``X-Seat-Token`` header instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect, WebSocketState

from poolcheckers import Board
from poolcheckers.engine import SearchResult, info_fields
from poolcheckers.server import errors
from poolcheckers.server.accounts.guard import websocket_origin_ok
from poolcheckers.server.api.deps import Ctx, account_id, request_words
from poolcheckers.server.api.http import DATABASE_DOWN, MAX_BODY, database_error
from poolcheckers.server.api.routers.analysis import analysis_board
from poolcheckers.server.api.schemas import (
    CLIENT_ANALYSIS_MESSAGE,
    CLIENT_GAME_MESSAGE,
    AnalysisLine,
    AnalysisReport,
    ErrorDetail,
    ErrorMessage,
    WsAnalyse,
    WsMove,
    WsPing,
    loads,
    parse_ws,
)
from poolcheckers.server.errors import ApiError
from poolcheckers.server.games.model import parse_rules
from poolcheckers.server.i18n import M_
from poolcheckers.server.realtime.fanout import Subscriber, state_message
from poolcheckers.server.text import clean_text
from poolcheckers.server.throttle import address_key, client_address
from poolcheckers.server.wiring import Services

log = logging.getLogger("poolcheckers.server")
router = APIRouter()
WS_PROTOCOL = "poolcheckers"
TOKEN_PROTOCOL = "seat-token."
#: ``info`` messages an analysis socket may have waiting before more are dropped
MAX_PENDING = 64


def error_message(
    exc: ApiError, req_id: str | int | None = None, conn: HTTPConnection | None = None
) -> str:
    """An ``error`` message; with ``conn``, its words in the socket's language."""
    words = None if conn is None else request_words(conn)
    detail = ErrorDetail.model_validate(exc.body(words)["error"])
    return ErrorMessage(error=detail, id=req_id).model_dump_json(exclude_none=True)


def offered_token(ws: WebSocket) -> tuple[str | None, str | None]:
    """(the seat token the client offered, the sub-protocol to answer with)."""
    offered: list[str] = list(ws.scope.get("subprotocols") or [])
    token = next((p[len(TOKEN_PROTOCOL) :] for p in offered if p.startswith(TOKEN_PROTOCOL)), None)
    token = token or ws.headers.get("x-seat-token") or None
    return token, WS_PROTOCOL if WS_PROTOCOL in offered else None


async def refuse(ws: WebSocket, exc: ApiError) -> None:
    await ws.send_text(error_message(exc, conn=ws))
    await ws.close(code=4000 + exc.status)


# ---------------------------------------------------------------- socket leases
#: an analysis place lapses this long after the longest its analysis could take
ANALYSIS_LEASE_MARGIN_S = 60.0
#: a socket's lease lasts this long and is extended at a third of it while open, so
#: the sockets of a process that died stop counting by themselves
SOCKET_LEASE_SECONDS = 60.0


@contextlib.asynccontextmanager
async def socket_lease(
    ws: WebSocket, ctx: Ctx, name: str, limit: int, what: str
) -> AsyncIterator[bool]:
    """One of ``limit`` places of ``name`` (held in the database, so every process
    counts it) while the socket is open; False (after closing it with 1008) when all
    are held."""
    slots = ctx.quotas.slots
    try:
        lease = await ctx.run(slots.take, name, limit, SOCKET_LEASE_SECONDS)
    except DATABASE_DOWN:
        # the database is down: the socket itself answers that (database_unavailable)
        # and closes; a cap that cannot be counted does not hide the reason
        yield True
        return
    if lease is None:
        await ws.close(code=1008, reason=f"at most {limit} {what} from one address")
        yield False
        return
    async with kept(ctx, lease, SOCKET_LEASE_SECONDS):
        yield True


@contextlib.asynccontextmanager
async def kept(ctx: Ctx, lease: str, seconds: float) -> AsyncIterator[None]:
    """Hold a slot ``lease`` taken for ``seconds``: renewed every third of them while
    the block runs, given back when it ends (a process that dies lets it lapse)."""
    slots = ctx.quotas.slots

    async def keep() -> None:
        while True:
            await asyncio.sleep(seconds / 3)
            await ctx.run(slots.extend, lease, seconds)

    keeper = asyncio.create_task(keep())
    try:
        yield
    finally:
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await keeper
        with contextlib.suppress(Exception):
            await ctx.run(slots.give_back, lease)


# ---------------------------------------------------------------- games
@router.websocket("/ws/games/{game_id}")
async def ws_game(ws: WebSocket, game_id: str, ctx: Ctx) -> None:
    token, protocol = offered_token(ws)
    await ws.accept(subprotocol=protocol)
    if "token" in ws.query_params:
        await refuse(
            ws, errors.bad_request(M_("send the seat token as a sub-protocol, not in the URL"))
        )
        return
    # an account seat: by the session cookie, only from the site itself
    user = None
    if websocket_origin_ok(ws, ctx.settings.site_origins):
        user = await account_id(ws)
    limit = ctx.settings.spectators_per_game_per_address
    name = f"ws-game:{game_id[:64]}:{address_key(client_address(ws))}"
    async with socket_lease(ws, ctx, name, limit, "sockets on one game") as held:
        if held:
            await game_socket(ws, ctx, game_id, token, user)


async def game_socket(
    ws: WebSocket, ctx: Ctx, game_id: str, token: str | None, user: str | None
) -> None:
    sub = ctx.fanout.subscribe(game_id, None)
    forget = ctx.accounts.bind(ws, user)
    try:
        if not await first_state(ws, ctx, sub, game_id, token, user):
            return
        sender = asyncio.create_task(ws_sender(ws, sub))
        try:
            await GameReader(ws, ctx, sub, game_id, token, user).run()
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
    except WebSocketDisconnect:
        pass
    finally:
        forget()
        ctx.fanout.unsubscribe(sub)


async def first_state(
    ws: WebSocket,
    ctx: Services,
    sub: Subscriber,
    game_id: str,
    token: str | None,
    user: str | None = None,
) -> bool:
    """Send the state on connect (False: the game or token was refused, socket closed)."""
    try:
        view = await ctx.run(ctx.games.view, game_id, token, user)
    except Exception as exc:
        await refuse(ws, exc if isinstance(exc, ApiError) else database_error(exc))
        return False
    sub.color = view.seat
    sub.ready = True
    sub.version = view.loaded.game.version
    sub.send(state_message(view.base_json(), view.seat))
    if sub.missed:  # changed while we read it: send the newer state too
        view = await ctx.run(ctx.games.view, game_id, token, user)
        if view.loaded.game.version > sub.version:
            sub.version = view.loaded.game.version
            sub.send(state_message(view.base_json(), view.seat))
    return True


async def ws_sender(ws: WebSocket, sub: Subscriber) -> None:
    while True:
        message = await sub.queue.get()
        if message is None:
            await ws.close(code=1013)  # too slow to keep up
            return
        await ws.send_text(message)


class GameReader:
    """A game socket's incoming messages: moves and actions of its seat, pings."""

    def __init__(
        self,
        ws: WebSocket,
        ctx: Services,
        sub: Subscriber,
        game_id: str,
        token: str | None,
        user: str | None = None,
    ) -> None:
        self.ws, self.ctx, self.sub = ws, ctx, sub
        self.game_id, self.token, self.user = game_id, token, user

    async def run(self) -> None:
        while True:
            msg = await self.ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            try:
                await self.handle(msg)
            except ApiError as exc:
                self.sub.send(error_message(exc, conn=self.ws))
            except Exception as exc:
                self.sub.send(error_message(database_error(exc), conn=self.ws))

    async def handle(self, msg: MutableMapping[str, Any]) -> None:
        text = msg.get("text")
        if text is not None and len(text) > MAX_BODY:
            raise errors.too_large(MAX_BODY)
        data = parse_ws(text if text is not None else msg.get("bytes"), CLIENT_GAME_MESSAGE)
        if isinstance(data, WsPing):
            self.sub.send('{"type":"pong"}')
            return
        if not self.token and self.sub.color is None:
            raise errors.forbidden(M_("spectators cannot play: connect with a seat token"))
        if self.user is not None and not await self.ctx.accounts.still_signed_in(
            self.ws, self.user
        ):
            # signed out or the password changed since the socket opened (perhaps in
            # another server process): the socket no longer speaks for the account
            self.user = None
            raise errors.unauthorized(M_("your session has ended: sign in again"))
        if isinstance(data, WsMove):
            view, played = await self.ctx.run(
                self.ctx.games.move, self.game_id, self.token, data.move, data.ply, self.user
            )
            if not played:  # an idempotent retry: answer with the current state again
                view = await self.ctx.run(self.ctx.games.view, self.game_id, self.token, self.user)
                self.sub.send(state_message(view.base_json(), self.sub.color))
            return
        address = client_address(self.ws)
        await self.ctx.act(self.game_id, data.type, self.token, self.user, address)


# ---------------------------------------------------------------- analysis
@router.websocket("/ws/analysis")
async def ws_analysis(ws: WebSocket, ctx: Ctx) -> None:
    await ws.accept()
    limit = ctx.settings.analysis_sockets_per_address
    name = f"ws-analysis:{address_key(client_address(ws))}"
    async with socket_lease(ws, ctx, name, limit, "analysis sockets") as held:
        if held:
            await analysis_socket(ws, ctx)


async def analysis_socket(ws: WebSocket, ctx: Ctx) -> None:
    session = AnalysisSession(ws, ctx)
    send_task = asyncio.create_task(session.sender())
    try:
        await session.run()
    except WebSocketDisconnect:
        return
    finally:
        send_task.cancel()
        await session.halt()
        if ws.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await ws.close()


class Outbox:
    """The messages waiting to be sent on one socket.  Progress (``info``) is
    dropped while ``limit`` messages wait (a client that does not read cannot make
    the server buffer without end); ``done`` and ``error`` are always queued.

    >>> box = Outbox(2)
    >>> for m in ("i1", "i2", "i3"):
    ...     box.put_progress(m)
    >>> box.put("done")
    >>> box.queue.qsize()
    3
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.queue: asyncio.Queue[str] = asyncio.Queue()

    def put(self, msg: str) -> None:
        self.queue.put_nowait(msg)

    def put_progress(self, msg: str) -> None:
        if self.queue.qsize() < self.limit:
            self.queue.put_nowait(msg)

    async def get(self) -> str:
        return await self.queue.get()


class AnalysisSession:
    """One analysis socket: one search at a time, each ending in one ``done`` or
    ``error`` that carries the request's ``id``."""

    def __init__(self, ws: WebSocket, ctx: Services) -> None:
        self.ws, self.ctx = ws, ctx
        self.out = Outbox(MAX_PENDING)
        self.key = f"analysis:{id(ws)}"
        self.client = address_key(client_address(ws))
        self.search: asyncio.Task[None] | None = None

    async def sender(self) -> None:
        while True:
            await self.ws.send_text(await self.out.get())

    async def run(self) -> None:
        while True:
            msg = await self.ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            req_id: str | int | None = None
            text = msg.get("text")
            try:
                if text is None or len(text) > MAX_BODY:
                    raise errors.malformed(M_("messages must be JSON text of at most 64 KiB"))
                data = parse_ws(text, CLIENT_ANALYSIS_MESSAGE)
                if isinstance(data, WsAnalyse):
                    req_id = data.id
                    await self.start(data)
                else:
                    await self.halt()
            except ApiError as exc:
                if req_id is None and text is not None and len(text) <= MAX_BODY:
                    req_id = offered_id(text)  # a bad field: still the request's error
                self.out.put(error_message(exc, req_id, self.ws))

    async def start(self, req: WsAnalyse) -> None:
        if not self.ctx.engine_ok:
            raise errors.engine_unavailable()
        rules = parse_rules(req.rules)
        board = analysis_board(req.fen, req.moves, rules)
        if board.is_game_over():
            raise errors.bad_request(M_("the game is over in this position"))
        await self.halt()  # one search per socket: the new one replaces the old
        runner = self.ctx.runner
        # this process's queue first: "busy" costs no database work
        runner.admit_analysis(self.client)
        try:
            lease = await self.take_place()
        except BaseException:
            runner.analysis_done(self.client)
            raise
        seconds = req.time if req.time is not None else 2.0
        self.search = asyncio.create_task(self.analyse(board, seconds, req.id, req.multipv, lease))

    async def take_place(self) -> str | None:
        """One of the client address's analysis places, counted in the database so that
        every server process shares the limit (None: the database is down, and the
        process's own queue bound still holds); ``rate_limited`` when all are held."""
        per_address = self.ctx.settings.analyses_per_address
        # a place outlives its analysis only when the process dies: then it lapses
        seconds = ANALYSIS_LEASE_MARGIN_S + self.ctx.runner.analysis_max_time * (
            1 + self.ctx.runner.analysis_queue
        )
        slots = self.ctx.quotas.slots
        try:
            lease = await self.ctx.run(slots.take, f"analysis:{self.client}", per_address, seconds)
        except DATABASE_DOWN:
            return None
        if lease is None:
            raise errors.rate_limited(
                M_(
                    "at most {per_address} analyses at a time from one address: stop one first",
                    per_address=per_address,
                )
            )
        return lease

    async def analyse(
        self,
        board: Board,
        seconds: float,
        req_id: str | int | None,
        multipv: int,
        lease: str | None,
    ) -> None:
        loop = asyncio.get_running_loop()

        def on_info(info: SearchResult) -> None:
            msg = search_json(info_message("info", board, info, req_id, multipv))
            loop.call_soon_threadsafe(self.out.put_progress, msg)

        try:
            result = await self.ctx.runner.analyse(
                self.key, self.client, board, seconds, on_info, multipv=multipv
            )
            done = info_message("done", board, result, req_id, multipv)
            done.best = board.notation(result.move)
            self.out.put(search_json(done))
        except Exception as exc:
            log.exception("analysis failed")
            self.out.put(error_message(errors.bad_request(str(exc)), req_id))
        finally:
            self.ctx.runner.analysis_done(self.client)
            if lease is not None:
                with contextlib.suppress(Exception):
                    await self.ctx.run(self.ctx.quotas.slots.give_back, lease)

    async def halt(self) -> None:
        """Stop the running search and wait for its end; the stop is repeated, as one
        sent before the search has begun in its worker thread would be lost."""
        task = self.search
        while task is not None and not task.done():
            self.ctx.runner.stop(self.key)
            await asyncio.wait({task}, timeout=0.05)


def offered_id(text: str) -> str | int | None:
    """The ``id`` of an ``analyse`` message that failed validation, when the id itself
    is good (a string or an integer), so that its ``error`` still carries it.

    >>> offered_id('{"type": "analyse", "id": 7, "multipv": 9}'), offered_id('{"id": [6]}')
    (7, None)
    """
    try:
        data = loads(text)
    except ApiError:
        return None
    if not isinstance(data, dict) or data.get("type") != "analyse":
        return None
    req_id = data.get("id")
    if isinstance(req_id, bool) or not isinstance(req_id, str | int):
        return None
    if isinstance(req_id, str) and clean_text(req_id) != req_id:
        return None  # a lone surrogate cannot be sent back as UTF-8
    return req_id


def info_message(
    kind: str, board: Board, info: SearchResult, req_id: str | int | None, multipv: int = 1
) -> AnalysisReport:
    """An engine ``info``/``done`` message: the facade's
    :func:`~poolcheckers.engine.info_fields` (win in N in the winner's moves), and the
    best ``multipv`` lines of the same depth (:func:`analysis_lines`)."""
    fields = info_fields(board, info)
    line = board.variation_notation(board.legal_prefix(info.pv))
    lines = analysis_lines(board, info, multipv)
    return AnalysisReport.model_construct(
        type=kind, id=req_id, line=line, best=None, lines=lines, **fields
    )


def analysis_lines(board: Board, info: SearchResult, multipv: int) -> list[AnalysisLine]:
    """The engine's best lines of one depth (multi-PV), best first, at most ``multipv``:
    its ``lines``, or the search's own line when it gave none (one line asked, a forced
    move, an answer from the endgame tables).  Each starts with a different legal move;
    the score text is the facade's (:func:`~poolcheckers.engine.info_fields`), the move
    text the library's (R4, ``Board.variation_notation``)."""
    found: list[AnalysisLine] = []
    firsts: set[str] = set()
    for one in info.lines or (info,):
        moves = board.legal_prefix(one.pv)
        first = str(moves[0]) if moves else None
        if first is None or first in firsts:
            continue
        firsts.add(first)
        fields = info_fields(board, one)
        found.append(
            AnalysisLine.model_construct(
                move=first,
                score=fields["score"],
                mate_in=fields["mate_in"],
                win_in=fields["win_in"],
                score_text=fields["score_text"],
                pv=fields["pv"],
                line=board.variation_notation(moves),
            )
        )
        if len(found) == multipv:
            break
    return found


def search_json(info: AnalysisReport) -> str:
    """``info`` as JSON, without ``id`` when the request gave none and ``best`` in
    ``info`` messages."""
    skip = {name for name in ("id", "best") if getattr(info, name) is None}
    return info.model_dump_json(exclude=skip)
