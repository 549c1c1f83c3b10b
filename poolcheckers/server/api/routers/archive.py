"""The archive as PDN: one game, every game, and importing games (limited per
address by the games stored, :mod:`poolcheckers.server.games.admission`)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse

from poolcheckers.server import errors
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, MAX_PDN, ApiRoute, body_limit, is_json
from poolcheckers.server.api.schemas import ImportResult, PdnRequest, validated
from poolcheckers.server.games import pdn as stored_pdn
from poolcheckers.server.i18n import M_
from poolcheckers.server.throttle import client_address

router = APIRouter(tags=["archive"], route_class=ApiRoute, responses=ERROR_RESPONSES)
PDN_TYPE = "application/x-pdn; charset=utf-8"
#: the two ways to send PDN text, for the OpenAPI description
PDN_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/plain": {"schema": {"type": "string"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/PdnRequest"}},
        },
    }
}


def pdn_request(request: Request) -> PdnRequest:
    """The PDN of a request: its text body, or JSON ``{"pdn": str, "rules": {...}}``
    (the body was read, within its limit, by :class:`~poolcheckers.server.api.http.ApiRoute`)."""
    raw: bytes = getattr(request, "_body", b"")
    if is_json(request) and request.headers.get("content-type"):
        return validated(PdnRequest, raw)
    try:
        return PdnRequest(pdn=raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise errors.malformed(M_("the PDN text is not UTF-8: {exc}", exc=exc)) from None


@router.get(
    "/api/games/{game_id}/pdn",
    response_class=PlainTextResponse,
    responses={200: {"content": {"application/x-pdn": {}}}},
    summary="One game as PDN",
)
async def game_pdn(game_id: str, ctx: Ctx) -> Response:
    text = await ctx.run(stored_pdn.export_game, ctx.games, game_id)
    return PlainTextResponse(text, media_type=PDN_TYPE)


@router.get(
    "/api/export.pdn",
    response_class=PlainTextResponse,
    responses={200: {"content": {"application/x-pdn": {}}}},
    summary="Every game as PDN, oldest first",
)
async def export_all(ctx: Ctx) -> Response:
    text = await ctx.run(stored_pdn.export_all, ctx.games)
    return PlainTextResponse(
        text,
        media_type=PDN_TYPE,
        headers={"Content-Disposition": 'attachment; filename="poolcheckers.pdn"'},
    )


@router.post(
    "/api/import",
    response_model=ImportResult,
    openapi_extra=PDN_BODY,
    summary="Store the games of a PDN text",
)
@body_limit(MAX_PDN)
async def import_pdn(request: Request, ctx: Ctx) -> Response:
    text = pdn_request(request).pdn
    limit = ctx.settings.import_max_games
    address = client_address(request)

    def admit(games: int) -> None:
        ctx.creation.admit_import(address, games)

    result = await ctx.run(stored_pdn.import_text, ctx.games, text, limit, admit)
    return json_response(result.model_dump_json())
