"""The ASGI app: JSON API, WebSockets and pages (docs/CONTRACTS.md §3).

``create_app(Settings(...))`` builds a FastAPI app over a database URL; the schema is
migrated when the app is created.  Blocking work (database, board replay) runs in
worker threads and engine searches in their own pool, so the event loop only moves
bytes.  A background timer ends games whose flag has fallen (R20); PostgreSQL
LISTEN/NOTIFY carries changes between server processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import math
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import anyio.to_thread
from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from poolcheckers import STARTING_FEN, Board, FenError, MoveError, RuleSet, RuleSetError
from poolcheckers.rules import THREE_KINGS_MOVE_LIMIT

from . import errors, pdnio
from .clock import Clock, SystemClock
from .db import checkpoint, is_postgres, libpq_conninfo, make_engine, run_migrations
from .engine_runner import EngineRunner, engine_available
from .errors import ApiError
from .notify import Hub, PgListener, Subscriber, state_message
from .service import Committed, CreateRequest, GameService
from .state import color_name, dumps, legal_moves_json, outcome_reason, with_viewer

log = logging.getLogger("poolcheckers.server")

P = ParamSpec("P")
R = TypeVar("R")

MAX_BODY = 64 * 1024
MAX_PDN = 1024 * 1024
STATIC_DIR = Path(__file__).resolve().parent / "static"
ACTIONS = ("resign", "draw-offer", "draw-accept", "draw-decline", "takeback")


@dataclass
class Settings:
    """What the server runs on; tests inject a manual clock and short engine times."""

    database_url: str
    clock: Clock = field(default_factory=SystemClock)
    #: seconds per engine move (None: by level, see ``engine_runner.level_time``)
    engine_move_time: float | None = None
    engine_threads: int = 2
    engine_hash_mb: int = 32
    #: database threads with PostgreSQL (SQLite uses one)
    db_threads: int = 8
    #: run the (short) database work on the event loop itself; None: with SQLite
    inline_db: bool | None = None
    #: how often the timer looks for fallen flags (seconds)
    sweep_interval: float = 0.25
    #: how often the SQLite WAL is checkpointed in the background (seconds)
    checkpoint_interval: float = 1.0
    static_dir: Path = STATIC_DIR
    migrate: bool = True
    #: override engine availability (tests); None asks ``poolcheckers.engine``
    engine_enabled: bool | None = None


async def run(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run blocking ``fn`` in a worker thread."""
    return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))


# ---------------------------------------------------------------- request parsing
async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) beyond ``limit`` bytes without reading it all."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            if int(length) > limit:
                raise errors.too_large(limit)
        except ValueError:
            raise errors.bad_request("invalid Content-Length header") from None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise errors.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json_object(raw: bytes | str) -> dict[str, Any]:
    """A JSON object or a ``malformed`` error.

    >>> parse_json_object(b'{"a": 1}')
    {'a': 1}
    >>> parse_json_object(b'[1]')
    Traceback (most recent call last):
    ...
    poolcheckers.server.errors.ApiError: the payload must be a JSON object
    """
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.malformed(f"the payload is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise errors.malformed("the payload must be a JSON object")
    return data


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    return parse_json_object(await read_body(request, limit))


def get_str(data: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise errors.malformed(f"{key!r} is required")
        return None
    if not isinstance(value, str):
        raise errors.malformed(f"{key!r} must be a string")
    return value


def req_str(data: dict[str, Any], key: str) -> str:
    value = get_str(data, key)
    assert value is not None
    return value


def get_int(data: dict[str, Any], key: str, *, required: bool = True) -> int | None:
    value = data.get(key)
    if value is None:
        if required:
            raise errors.malformed(f"{key!r} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.malformed(f"{key!r} must be an integer")
    return value


def get_number(
    data: dict[str, Any], key: str, default: float | None, label: str | None = None
) -> float | None:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise errors.malformed(f"{label or key!r} must be a number")
    return float(value)


def get_rules(data: dict[str, Any]) -> RuleSet:
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise errors.malformed("'rules' must be an object of RULES.md §9 options")
    try:
        return RuleSet.from_dict(rules)
    except (RuleSetError, TypeError, ValueError) as exc:
        raise errors.bad_request(f"invalid rules (RULES.md §9): {exc}") from None


def create_request(data: dict[str, Any]) -> CreateRequest:
    clock = data.get("clock")
    initial: float | None = None
    increment = 0.0
    if clock is not None:
        if not isinstance(clock, dict):
            raise errors.malformed('\'clock\' must be {"initial": s, "increment": s} or null')
        initial = get_number(clock, "initial", None, "clock.initial")
        if initial is None:
            raise errors.malformed("'clock.initial' is required")
        increment = get_number(clock, "increment", 0.0, "clock.increment") or 0.0
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise errors.malformed("'rules' must be an object of RULES.md §9 options")
    return CreateRequest(
        mode=get_str(data, "mode", required=False) or "local",
        rules=rules,
        fen=get_str(data, "fen", required=False),
        level=get_int(data, "level", required=False),
        color=get_str(data, "color", required=False) or "black",
        clock_initial=initial,
        clock_increment=increment,
    )


def error_response(exc: ApiError) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


# ---------------------------------------------------------------- the app
class ServerContext:
    """Everything the routes share: the service, the hub, the engine runner."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.db = make_engine(settings.database_url, background_checkpoints=True)
        if settings.migrate:
            run_migrations(self.db)
        enabled = settings.engine_enabled
        self.engine_ok = engine_available() if enabled is None else enabled
        self.service = GameService(self.db, settings.clock, engine_available=lambda: self.engine_ok)
        self.hub = Hub()
        self.hub.loader = self._load_state
        self.runner = EngineRunner(
            self.service,
            threads=settings.engine_threads,
            move_time=settings.engine_move_time,
            hash_mb=settings.engine_hash_mb,
            run_db=self.run,
        )
        self.listener: PgListener | None = None
        if is_postgres(settings.database_url):
            self.listener = PgListener(libpq_conninfo(settings.database_url), self.hub)
        self.loop: asyncio.AbstractEventLoop | None = None
        # SQLite has one writer at a time: one database thread avoids lock waits
        # (busy-sleeps); PostgreSQL gets a pool (its threads mostly wait on the network).
        sqlite = self.db.dialect.name == "sqlite"
        self.inline_db = sqlite if settings.inline_db is None else settings.inline_db
        self.db_executor = ThreadPoolExecutor(
            max_workers=1 if sqlite else settings.db_threads, thread_name_prefix="db"
        )
        self._tasks: list[asyncio.Task[None]] = []
        self.service.on_change = self._on_change

    async def run(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run blocking database work ``fn`` in the database thread(s), or inline."""
        if self.inline_db:
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_executor, lambda: fn(*args, **kwargs))

    async def _load_state(self, game_id: str) -> tuple[int, dict[str, Any]]:
        state, _ = await self.run(self.service.state, game_id)
        return int(state["version"]), state

    def _on_change(self, c: Committed) -> None:
        """Called in the thread that committed a change."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._changed, c)

    def _changed(self, c: Committed) -> None:
        g = c.loaded.game
        self.hub.publish(g.id, g.version, c.state)
        if c.engine_to_move:
            self.runner.schedule(g.id)
        elif g.mode == "engine":
            self.runner.cancel(g.id)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.hub.loop = self.loop
        if self.listener is not None:
            self.listener.start()
            await asyncio.wait_for(self.listener.ready.wait(), timeout=30)
        self._tasks.append(self.loop.create_task(self._timer()))
        if self.db.dialect.name == "sqlite":
            self._tasks.append(self.loop.create_task(self._checkpointer()))
        # the start-up objects (modules, metadata) live forever: keep them out of the
        # garbage collector's full passes, which otherwise pause the loop under load
        gc.collect()
        gc.freeze()
        if self.engine_ok:
            for game_id in await self.run(self.service.engine_games_to_move):
                self.runner.schedule(game_id)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.listener is not None:
            await self.listener.stop()
        await run(self.runner.close)
        self.db_executor.shutdown(wait=True)
        self.db.dispose()

    async def _timer(self) -> None:
        """End games on a fallen flag (R20) even when nobody sends a request."""
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                await self.run(self.service.sweep_flags)
            except Exception:
                log.exception("clock sweep failed")

    async def _checkpointer(self) -> None:
        """SQLite: move the WAL into the database file in a background thread, so that
        its fsync never holds up a move (the connections do not checkpoint)."""
        while True:
            await asyncio.sleep(self.settings.checkpoint_interval)
            try:
                await run(checkpoint, self.db)
            except Exception:
                log.exception("WAL checkpoint failed")


def create_app(settings: Settings) -> FastAPI:
    """The poolcheckers web app over ``settings.database_url`` (migrated on creation)."""
    ctx = ServerContext(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await ctx.start()
        try:
            yield
        finally:
            await ctx.stop()

    app = FastAPI(title="poolcheckers", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.ctx = ctx
    service = ctx.service

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors():
            loc = ".".join(str(x) for x in e.get("loc", ()))
            parts.append(f"{loc}: {e.get('msg', 'invalid')}")
        return error_response(errors.bad_request("; ".join(parts) or "invalid request"))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        wants_page = "text/html" in request.headers.get("accept", "")
        if exc.status_code == 404 and wants_page and not path.startswith(("/api/", "/ws/")):
            # a person's unknown page: the app shell, whose router says "Page not found"
            shell = page()
            if isinstance(shell, FileResponse):
                return FileResponse(shell.path, status_code=404, media_type="text/html")
            return shell
        code = "not_found" if exc.status_code == 404 else "bad_request"
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code
        )

    # ------------------------------------------------------------ games
    @app.post("/api/games")
    async def create_game(request: Request) -> JSONResponse:
        data = await read_json(request)
        req = create_request(data)
        committed, token, invite = await ctx.run(service.create, req)
        g = committed.loaded.game
        if committed.engine_to_move:
            ctx.runner.schedule(g.id)
        your = "both" if g.mode == "local" else req.color
        return JSONResponse(
            {
                "game": with_viewer(committed.state, your),
                "token": token,
                "invite": f"/play/{g.id}?invite={invite}" if invite else None,
            }
        )

    @app.post("/api/games/{game_id}/join")
    async def join_game(game_id: str, request: Request) -> JSONResponse:
        data = await read_json(request)
        state, token, seat = await ctx.run(service.join, game_id, req_str(data, "invite"))
        return JSONResponse({"game": with_viewer(state, seat), "token": token})

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, token: str | None = None) -> JSONResponse:
        state, seat = await ctx.run(service.state, game_id, token)
        return JSONResponse(with_viewer(state, seat))

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> JSONResponse:
        data = await read_json(request)
        token = req_str(data, "token")
        text = data.get("move")
        if not isinstance(text, str):
            raise errors.malformed("'move' must be move notation such as 11-15 (R4)")
        ply = get_int(data, "ply")
        assert ply is not None
        state = await ctx.run(service.move, game_id, token, text, ply)
        seat = service.seat(game_id, token)
        return JSONResponse(with_viewer(state, seat))

    @app.post("/api/games/{game_id}/{action}")
    async def game_action(game_id: str, action: str, request: Request) -> JSONResponse:
        if action not in ACTIONS:
            raise ApiError(404, "not_found", f"no action {action!r}: one of {', '.join(ACTIONS)}")
        data = await read_json(request)
        token = req_str(data, "token")
        state = await do_action(game_id, action, token)
        seat = service.seat(game_id, token)
        return JSONResponse(with_viewer(state, seat))

    async def do_action(game_id: str, action: str, token: str) -> dict[str, Any]:
        if action == "resign":
            return await ctx.run(service.resign, game_id, token)
        if action == "draw-offer":
            state = await ctx.run(service.draw_offer, game_id, token)
            if state["mode"] == "engine" and state["draw_offer"] is not None:
                state = await engine_answers_draw(game_id, state)
            return state
        if action == "draw-accept":
            return await ctx.run(service.draw_answer, game_id, token, True)
        if action == "draw-decline":
            return await ctx.run(service.draw_answer, game_id, token, False)
        return await ctx.run(service.takeback, game_id, token)

    async def engine_answers_draw(game_id: str, state: dict[str, Any]) -> dict[str, Any]:
        """The engine accepts a draw (R17) when its evaluation says it is not better."""
        loaded = await ctx.run(service.loaded, game_id)
        board = loaded.board
        result = await ctx.runner.evaluate(board, time=0.2)
        engine_color = loaded.game.engine_color
        score = result.score if color_name(board.turn) == engine_color else -result.score
        try:
            return await ctx.run(service.draw_answer, game_id, None, score <= 0)
        except ApiError:
            return state

    @app.get("/api/games")
    async def list_games(
        status: str | None = None, limit: int = 50, offset: int = 0
    ) -> JSONResponse:
        if status not in (None, "running", "finished"):
            raise errors.bad_request("status must be 'running' or 'finished'")
        if not 1 <= limit <= 500 or offset < 0:
            raise errors.bad_request("limit must be 1..500 and offset >= 0")
        games = await run(service.list_games, status, limit, offset)
        return JSONResponse({"games": games})

    @app.get("/api/games/{game_id}/pdn")
    async def game_pdn(game_id: str) -> PlainTextResponse:
        text = await run(pdnio.export_game, service, game_id)
        return PlainTextResponse(text, media_type="application/x-pdn; charset=utf-8")

    @app.get("/api/export.pdn")
    async def export_all() -> PlainTextResponse:
        text = await run(pdnio.export_all, service)
        return PlainTextResponse(
            text,
            media_type="application/x-pdn; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="poolcheckers.pdn"'},
        )

    async def read_pdn(request: Request, *, with_rules: bool = True) -> tuple[str, RuleSet]:
        """The PDN text of a request (text body, or JSON ``{"pdn": str, "rules": {...}}``)
        and the rule set of its games without a Rules tag (APCA for a text body)."""
        raw = await read_body(request, MAX_PDN)
        ctype = request.headers.get("content-type", "")
        if ctype.startswith("application/json"):
            data = parse_json_object(raw)
            return req_str(data, "pdn"), get_rules(data) if with_rules else RuleSet.apca()
        try:
            return raw.decode("utf-8"), RuleSet.apca()
        except UnicodeDecodeError as exc:
            raise errors.malformed(f"the PDN text is not UTF-8: {exc}") from None

    @app.post("/api/import")
    async def import_pdn(request: Request) -> JSONResponse:
        text, _rules = await read_pdn(request, with_rules=False)
        result = await run(pdnio.import_text, service, text)
        return JSONResponse(result)

    # ------------------------------------------------------------ analysis
    @app.post("/api/analysis/position")
    async def analysis_position(request: Request) -> JSONResponse:
        data = await read_json(request)
        # up to 2000 moves to replay: off the event loop
        info = await run(lambda: position_info(analysis_board(data)))
        return JSONResponse(info)

    @app.get("/api/rules")
    async def rules_options() -> JSONResponse:
        """The rule options of RULES.md §9 with their APCA defaults, in words (for forms)."""
        return JSONResponse(
            {
                "default": RuleSet.apca().to_dict(),
                "options": [o.to_dict() for o in RuleSet.options()],
            }
        )

    @app.post("/api/analysis/pdn")
    async def analysis_pdn(request: Request) -> JSONResponse:
        text, rules = await read_pdn(request)
        result = await run(pdnio.read_for_analysis, text, rules)
        return JSONResponse(result)

    @app.get("/api/health")
    async def health() -> JSONResponse:
        return JSONResponse({"ok": True, "engine": ctx.engine_ok, "database": ctx.db.dialect.name})

    # ------------------------------------------------------------ websockets
    @app.websocket("/ws/games/{game_id}")
    async def ws_game(ws: WebSocket, game_id: str, token: str | None = None) -> None:
        await ws.accept()
        sub: Subscriber | None = None
        try:
            sub = ctx.hub.subscribe(game_id, None)
            try:
                state, seat = await ctx.run(service.state, game_id, token)
            except ApiError as exc:
                await ws.send_text(dumps({"type": "error", **exc.body()}))
                await ws.close(code=4000 + exc.status)
                return
            sub.color = seat
            sub.ready = True
            sub.version = state["version"]
            sub.send(state_message(dumps(state), seat))
            if sub.missed:  # changed while we read it: send the newer state too
                state, _ = await ctx.run(service.state, game_id, token)
                if state["version"] > sub.version:
                    sub.version = state["version"]
                    sub.send(state_message(dumps(state), seat))
            sender = asyncio.create_task(ws_sender(ws, sub))
            try:
                await ws_game_reader(ws, sub, game_id, token)
            finally:
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await sender
        except WebSocketDisconnect:
            pass
        finally:
            if sub is not None:
                ctx.hub.unsubscribe(sub)

    async def ws_sender(ws: WebSocket, sub: Subscriber) -> None:
        while True:
            message = await sub.queue.get()
            if message is None:
                await ws.close(code=1013)  # too slow to keep up
                return
            await ws.send_text(message)

    async def ws_game_reader(
        ws: WebSocket, sub: Subscriber, game_id: str, token: str | None
    ) -> None:
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            text = msg.get("text")
            try:
                if text is None:
                    raise errors.malformed("messages must be JSON text")
                if len(text) > MAX_BODY:
                    raise errors.too_large(MAX_BODY)
                data = parse_json_object(text)
                kind = data.get("type")
                if kind == "ping":
                    sub.send('{"type":"pong"}')
                    continue
                if not token:
                    raise errors.forbidden("spectators cannot play: connect with a seat token")
                if kind == "move":
                    mv = data.get("move")
                    if not isinstance(mv, str):
                        raise errors.malformed("'move' must be move notation such as 11-15 (R4)")
                    ply = get_int(data, "ply")
                    assert ply is not None
                    _, played = await ctx.run(service.move_ex, game_id, token, mv, ply)
                    if not played:
                        # an idempotent retry: answer with the current state again
                        state, _ = await ctx.run(service.state, game_id, token)
                        sub.send(state_message(dumps(state), sub.color))
                elif kind in ACTIONS:
                    await do_action(game_id, str(kind), token)
                else:
                    raise errors.malformed(
                        f"unknown message type {kind!r}: expected 'move' "
                        f"(or {', '.join(ACTIONS)}, 'ping')"
                    )
            except ApiError as exc:
                sub.send(dumps({"type": "error", **exc.body()}))

    @app.websocket("/ws/analysis")
    async def ws_analysis(ws: WebSocket) -> None:
        await ws.accept()
        out: asyncio.Queue[str] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        key = f"analysis:{id(ws)}"
        search: asyncio.Task[None] | None = None

        def tagged(msg: dict[str, Any], req_id: str | int | None) -> str:
            """``msg`` with the request's ``id`` (when the client gave one)."""
            if req_id is not None:
                msg["id"] = req_id
            return dumps(msg)

        async def analyse(board: Board, seconds: float, req_id: str | int | None) -> None:
            def on_info(info: Any) -> None:
                msg = tagged(info_message("info", board, info), req_id)
                loop.call_soon_threadsafe(out.put_nowait, msg)

            try:
                result = await loop.run_in_executor(
                    ctx.runner.executor,
                    lambda: ctx.runner.search_blocking(key, board, time=seconds, on_info=on_info),
                )
                done = info_message("done", board, result)
                done["best"] = board.notation(result.move)
                out.put_nowait(tagged(done, req_id))
            except Exception as exc:
                log.exception("analysis failed")
                error = {"code": "bad_request", "message": str(exc)}
                out.put_nowait(tagged({"type": "error", "error": error}, req_id))

        async def halt(task: asyncio.Task[None]) -> None:
            """Stop ``task``'s search and wait for its end; the stop is repeated, as one
            sent before the search has begun in its worker thread would be lost."""
            while not task.done():
                ctx.runner.stop(key)
                await asyncio.wait({task}, timeout=0.05)

        async def sender() -> None:
            while True:
                await ws.send_text(await out.get())

        send_task = asyncio.create_task(sender())
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
                text = msg.get("text")
                req_id: str | int | None = None
                try:
                    if text is None or len(text) > MAX_BODY:
                        raise errors.malformed("messages must be JSON text of at most 64 KiB")
                    data = parse_json_object(text)
                    kind = data.get("type")
                    raw_id = data.get("id")
                    if raw_id is not None:
                        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
                            raise errors.malformed("'id' must be a string or an integer")
                        req_id = raw_id
                    if kind == "stop":
                        if search is not None:
                            await halt(search)
                        continue
                    if kind != "analyse":
                        raise errors.malformed(
                            f"unknown message type {kind!r}: 'analyse' or 'stop'"
                        )
                    if not ctx.engine_ok:
                        raise ApiError(
                            503, "engine_unavailable", "the engine (native core) is not available"
                        )
                    board = analysis_board(data)
                    if board.is_game_over():
                        raise errors.bad_request("the game is over in this position")
                    seconds = get_number(data, "time", 2.0) or 2.0
                    seconds = min(max(seconds, 0.01), 300.0)
                    if search is not None:
                        await halt(search)
                    search = asyncio.create_task(analyse(board, seconds, req_id))
                except ApiError as exc:
                    out.put_nowait(tagged({"type": "error", **exc.body()}, req_id))
        except WebSocketDisconnect:
            return
        finally:
            send_task.cancel()
            if search is not None:
                with contextlib.suppress(Exception):
                    await halt(search)
            if ws.client_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await ws.close()

    # ------------------------------------------------------------ pages
    def page() -> Response:
        index = settings.static_dir / "index.html"
        if not index.is_file():
            return PlainTextResponse(
                "The front-end is not installed (poolcheckers/server/static/index.html).",
                status_code=503,
            )
        return FileResponse(index, media_type="text/html")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def home() -> Response:
        return page()

    @app.api_route("/play/{game_id}", methods=["GET", "HEAD"], include_in_schema=False)
    async def play_page(game_id: str) -> Response:
        return page()

    @app.api_route("/analysis", methods=["GET", "HEAD"], include_in_schema=False)
    async def analysis_page() -> Response:
        return page()

    @app.api_route("/archive", methods=["GET", "HEAD"], include_in_schema=False)
    async def archive_page() -> Response:
        return page()

    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    return app


def analysis_board(data: dict[str, Any]) -> Board:
    """The board of an analysis request: ``fen`` (R5), ``rules`` (§9), then ``moves``."""
    rules = get_rules(data)
    fen = get_str(data, "fen", required=False) or STARTING_FEN
    try:
        board = Board(fen, rules=rules)
    except FenError as exc:
        raise errors.malformed(f"invalid FEN (R5): {exc}") from None
    moves = data.get("moves") or []
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise errors.malformed("'moves' must be a list of move notations")
    if len(moves) > 2000:
        raise errors.bad_request("at most 2000 moves")
    for i, m in enumerate(moves):
        if board.is_game_over():
            raise errors.bad_request(f"move {i + 1} ({m}): the game is already over")
        try:
            board.push(board.parse_move(m))
        except MoveError as exc:
            raise ApiError(400, "illegal_move", f"move {i + 1}: {exc}") from None
    return board


def position_info(board: Board) -> dict[str, Any]:
    """The analysis board's view of a position: legal moves, counters, outcome."""
    outcome = board.outcome()
    replay = Board(board.start_fen, rules=board.rules)
    notations = []
    for m in board.move_stack:
        notations.append(replay.notation(m))
        replay.push(m)
    last = board.move_stack[-1] if board.move_stack else None
    return {
        "fen": board.fen(),
        "board": board.squares(),
        "start_fen": board.start_fen,
        "turn": color_name(board.turn),
        "start_turn": color_name(board.start_turn),
        "ply": board.ply,
        "rules": board.rules.to_dict(),
        "rules_notes": board.rules.differences(),
        "moves": notations,
        "line": Board(board.start_fen, rules=board.rules).variation_notation(board.move_stack),
        "legal_moves": legal_moves_json(board),
        "last_move": (
            {"path": list(last.path), "captured": sorted(last.captured)} if last else None
        ),
        "outcome": (
            {
                "termination": outcome.termination.value,
                "winner": color_name(outcome.winner) if outcome.winner is not None else None,
                "result": outcome.result(),
                "reason": outcome_reason(outcome, board),
            }
            if outcome
            else None
        ),
        "counters": {
            "r18_plies": board.halfmove_clock,
            "r18_limit_plies": board.rules.king_only_limit_plies,
            "r19_moves": board.three_kings_count,
            "r19_active": board.three_kings_active,
            "r19_limit": THREE_KINGS_MOVE_LIMIT,
        },
    }


def info_message(kind: str, board: Board, info: Any) -> dict[str, Any]:
    """An engine ``info``/``done`` message (score in centi-men, side to move's view)."""
    elapsed = float(info.time) or 1e-9
    pv = board.legal_prefix(info.pv)
    return {
        "type": kind,
        "depth": info.depth,
        "score": info.score,
        "mate_in": info.mate_in,
        "pv": [str(m) for m in pv],
        "line": board.variation_notation(pv),
        "nodes": info.nodes,
        "nps": int(info.nodes / elapsed),
        "time": info.time,
    }


__all__ = ["Settings", "create_app"]
