"""The ASGI app factory: assembles the routers, error handlers and static files
(docs/CONTRACTS.md §3).

``create_app(Settings(...))`` builds a FastAPI app over a database URL; the schema is
migrated when the app is created.  The shared objects live in a
:class:`~poolcheckers.server.wiring.Services` (started and stopped by the app's
lifespan) and reach the routes through ``Depends(get_ctx)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute

from poolcheckers.server.accounts.guard import SameSiteGuard
from poolcheckers.server.api.errors import on_community_error
from poolcheckers.server.api.http import EXCEPTION_HANDLERS, http_error_handler
from poolcheckers.server.api.routers import (
    account,
    analysis,
    archive,
    bot,
    challenges,
    games,
    language,
    lessons,
    lobby,
    pages,
    players,
    practice,
    puzzles,
    rulebook,
    tokens,
    tournaments,
    ws,
)
from poolcheckers.server.api.schemas import (
    AnalysisReport,
    ErrorMessage,
    StateMessage,
    WsAction,
    WsAnalyse,
    WsMove,
    WsPing,
    WsStop,
)
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.net.headers import guard_headers
from poolcheckers.server.settings import Settings
from poolcheckers.server.wiring import Services

DESCRIPTION = (
    "American Pool Checkers (APCA rules): games between people or against the engine, "
    "the archive as PDN, and the analysis board. WebSockets: `/ws/games/{id}` and "
    "`/ws/analysis` (docs/CONTRACTS.md §3)."
)


#: the WebSocket messages, described in ``/openapi.json`` under ``x-websockets``
#: (OpenAPI has no WebSocket operations): client messages first, then the server's
WEBSOCKETS: dict[str, tuple[list[type[BaseModel]], list[type[BaseModel]]]] = {
    "/ws/games/{game_id}": (
        [WsMove, WsAction, WsPing],
        [StateMessage, ErrorMessage],
    ),
    "/ws/analysis": ([WsAnalyse, WsStop], [AnalysisReport, ErrorMessage]),
}


def openapi_with_websockets(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` that also describes the WebSocket messages (their schemas in
    ``components.schemas``, and per socket the ``client`` and ``server`` messages)."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )  # fmt: skip
            models = {m for client, server in WEBSOCKETS.values() for m in (*client, *server)}
            _, defs = models_json_schema(
                [(m, "validation") for m in sorted(models, key=lambda m: m.__name__)],
                ref_template="#/components/schemas/{model}",
            )
            spec.setdefault("components", {}).setdefault("schemas", {}).update(defs["$defs"])
            spec["x-websockets"] = {
                path: {
                    "client": [f"#/components/schemas/{m.__name__}" for m in client],
                    "server": [f"#/components/schemas/{m.__name__}" for m in server],
                }
                for path, (client, server) in WEBSOCKETS.items()
            }
            app.openapi_schema = spec
        return app.openapi_schema

    return build


def create_app(settings: Settings) -> FastAPI:
    """The poolcheckers web app over ``settings.database_url`` (migrated on creation)."""
    ctx = Services(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await ctx.start()
        try:
            yield
        finally:
            await ctx.stop()

    app = FastAPI(
        title="poolcheckers",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # the self-hosted /api/docs page instead (no CDN)
        redoc_url=None,
        strict_content_type=False,
    )
    app.state.ctx = ctx
    for exc_type, handler in EXCEPTION_HANDLERS.items():
        app.add_exception_handler(exc_type, handler)
    app.add_exception_handler(
        StarletteHTTPException,
        http_error_handler(
            lambda status, request: pages.page_response(ctx.shells, request, status)
        ),
    )
    app.add_exception_handler(CommunityError, on_community_error)
    app.add_middleware(SameSiteGuard, site_origins=settings.site_origins)
    styled = [*ctx.shells.pages.values(), pages.docs_html({"info": {"title": ""}})]
    guard_headers(app, settings.allowed_hosts, styled)
    # A request is matched against each router's routes in turn, so the busiest
    # (moves, then the lobby's seeks) come first: a seek accept was tried against
    # 47 other routes before its own.
    routers = (
        games, lobby, archive, analysis, pages, ws, account, players, tournaments, puzzles,
        practice, lessons, rulebook, tokens, bot, language,
    )  # fmt: skip
    for module in (*routers, challenges):
        app.include_router(module.router)
    app.include_router(account.session_router)
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    app.openapi = openapi_with_websockets(app)  # type: ignore[method-assign]
    # a player named like a page of the site would read as the site: every route's
    # first path segment is reserved, so a new route reserves its name by itself
    ctx.accounts.reserve_paths(route_paths(app.routes))
    return app


def route_paths(routes: Sequence[BaseRoute], prefix: str = "") -> list[str]:
    """Every path of ``routes``, in the routers they include too."""
    paths: list[str] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:  # FastAPI's included router keeps its own routes
            context = getattr(route, "include_context", None)
            inner = prefix + str(getattr(context, "prefix", ""))
            paths += route_paths(included.routes, inner)
        else:
            path = getattr(route, "path", None)
            if isinstance(path, str):
                paths.append(prefix + path)
    return paths


__all__ = ["Settings", "create_app"]
