"""Pages of the front end, the health check and the API's own documentation page.

The documentation page is rendered here from ``/openapi.json``: it loads nothing
from another host (no CDN scripts or styles), so it works offline and leaks nothing.
"""

from __future__ import annotations

import html
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse

from poolcheckers.server import errors
from poolcheckers.server.api.deps import Ctx, json_response, request_locale
from poolcheckers.server.api.schemas import ErrorDetail, Health
from poolcheckers.server.i18n import M_
from poolcheckers.server.i18n.shell import CATALOG_PATH, Shells

router = APIRouter()
PAGES = (
    "/",
    "/play/{game_id}",
    "/analysis",
    "/archive",
    "/lobby",
    "/account",
    "/players/{name}",
    "/leaderboard",
    "/tournaments",
    "/tournaments/{tid}",
    "/puzzles",
    "/puzzles/{pid}",
    "/practice",
    "/learn",
    "/editor",
    "/rules",
)


def page_response(shells: Shells, request: Request, status: int = 200) -> Response:
    """The app shell (``index.html``) in the request's language: its router shows the
    page of the URL.  The answer varies with the language's cookie and header."""
    shell = shells.pages.get(request_locale(request))
    if shell is None:
        return PlainTextResponse(
            "The front-end is not installed (poolcheckers/server/static/index.html).",
            status_code=503,
        )
    headers = {"Vary": "Accept-Language, Cookie", "Cache-Control": "no-cache"}
    return HTMLResponse(shell, status_code=status, headers=headers)


async def app_shell(request: Request, ctx: Ctx) -> Response:
    return page_response(ctx.shells, request)


for _path in PAGES:
    router.add_api_route(_path, app_shell, methods=["GET", "HEAD"], include_in_schema=False)


@router.get(
    CATALOG_PATH + "{name}",
    tags=["server"],
    summary="The front end's words in a language (named by its digest, cached for good)",
)
async def catalog(name: str, ctx: Ctx) -> Response:
    text = ctx.shells.catalogs.get(name)
    if text is None:
        raise errors.ApiError(404, "not_found", M_("no catalog {name}", name=repr(name)))
    cache = {"Cache-Control": "public, max-age=31536000, immutable"}
    return Response(text, media_type="application/json", headers=cache)


@router.get("/api/health", response_model=Health, tags=["server"], summary="Health check")
async def health(ctx: Ctx) -> Response:
    """Whether the engine is built and the database answers (503 when it does not, or
    when the process is stopping: a proxy then sends requests to another one)."""
    reachable, problem = True, None
    try:
        await ctx.run(ctx.games.store.ping)
    except Exception as exc:
        reachable, problem = False, errors.database_unavailable(type(exc).__name__)
    else:
        if ctx.stopping:
            problem = errors.stopping()
    if problem is not None:
        body = Health(
            ok=False,
            engine=ctx.engine_ok,
            database=ctx.db.dialect.name,
            database_reachable=reachable,
            error=ErrorDetail(code=problem.code, message=problem.message),
        )
        return json_response(body.model_dump(), 503)
    body = Health(
        ok=True, engine=ctx.engine_ok, database=ctx.db.dialect.name, database_reachable=True
    )
    return json_response(body.model_dump(exclude_none=True))


def _schema_name(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
    if ref:
        return str(ref).rsplit("/", 1)[-1]
    return str(schema.get("type", ""))


def _operation_html(path: str, method: str, op: dict[str, Any]) -> str:
    body = op.get("requestBody", {}).get("content", {})
    request = ", ".join(f"{t}: {_schema_name(c.get('schema'))}" for t, c in body.items())
    answers = []
    for status, resp in op.get("responses", {}).items():
        content = resp.get("content", {})
        first: dict[str, Any] = next(iter(content.values()), {})
        schema = first.get("schema")
        answers.append(f"{status} {_schema_name(schema)}".strip())
    params = ", ".join(p["name"] for p in op.get("parameters", []))
    cells = [method.upper(), path, op.get("summary", ""), params, request, "; ".join(answers)]
    return "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"


def _schema_html(name: str, schema: dict[str, Any]) -> str:
    fields = []
    for field, spec in schema.get("properties", {}).items():
        kind = _schema_name(spec) or " | ".join(_schema_name(s) for s in spec.get("anyOf", []) if s)
        fields.append(f"<li><code>{html.escape(field)}</code>: {html.escape(kind)}</li>")
    return f"<h3 id='{html.escape(name)}'>{html.escape(name)}</h3><ul>{''.join(fields)}</ul>"


def docs_html(spec: dict[str, Any]) -> str:
    """The API description of ``spec`` (OpenAPI) as one self-contained HTML page."""
    rows = [
        _operation_html(path, method, op)
        for path, methods in spec.get("paths", {}).items()
        for method, op in methods.items()
    ]
    schemas = spec.get("components", {}).get("schemas", {})
    sockets = [
        f"<li><code>{html.escape(path)}</code>: the client sends "
        + ", ".join(html.escape(r.rsplit("/", 1)[-1]) for r in messages["client"])
        + "; the server sends "
        + ", ".join(html.escape(r.rsplit("/", 1)[-1]) for r in messages["server"])
        + "</li>"
        for path, messages in spec.get("x-websockets", {}).items()
    ]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(spec['info']['title'])} API</title>",
        "<style>body{font-family:sans-serif;margin:2em}td{border-top:1px solid #ccc;"
        "padding:.3em .6em;vertical-align:top}</style></head><body>",
        f"<h1>{html.escape(spec['info']['title'])} web API</h1>",
        "<p>The machine-readable description: <a href='/openapi.json'>/openapi.json</a>. "
        'Errors: <code>{"error": {"code", "message"}}</code>. WebSockets: '
        "<code>/ws/games/{id}</code>, <code>/ws/analysis</code> (docs/CONTRACTS.md).</p>",
        "<table><tr><th>method</th><th>path</th><th>what</th><th>parameters</th>"
        "<th>body</th><th>answers</th></tr>",
        *rows,
        "</table><h2>WebSockets</h2><ul>",
        *sockets,
        "</ul><h2>Schemas</h2>",
        *(_schema_html(n, s) for n, s in sorted(schemas.items())),
        "</body></html>",
    ]
    return "".join(parts)


@router.get("/api/docs", include_in_schema=False)
async def api_docs(request: Request) -> HTMLResponse:
    return HTMLResponse(docs_html(request.app.openapi()))
