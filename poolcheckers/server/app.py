"""The ASGI app factory: assembles the routers, error handlers and static files
(docs/CONTRACTS.md §3).

``create_app(Settings(...))`` builds a FastAPI app over a database URL; the schema is
migrated when the app is created.  The shared objects live in a
:class:`~poolcheckers.server.context.ServerContext` (started and stopped by the app's
lifespan) and reach the routes through ``Depends(get_ctx)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .context import ServerContext
from .http import EXCEPTION_HANDLERS, http_error_handler
from .routers import analysis, archive, games, pages, ws
from .settings import Settings

DESCRIPTION = (
    "American Pool Checkers (APCA rules): games between people or against the engine, "
    "the archive as PDN, and the analysis board. WebSockets: `/ws/games/{id}` and "
    "`/ws/analysis` (docs/CONTRACTS.md §3)."
)


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
        http_error_handler(lambda status: pages.page_response(settings.static_dir, status)),
    )
    for module in (games, archive, analysis, pages, ws):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    return app


__all__ = ["Settings", "create_app"]
