"""The analysis board's HTTP side: a position with its legal moves, PDN read without
storing, and the rule options (the search itself runs over ``/ws/analysis``)."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Request, Response

from poolcheckers import Board, RuleSet
from poolcheckers.engine import MAX_LEVEL, MIN_LEVEL
from poolcheckers.server import errors
from poolcheckers.server.accounts import model as accounts
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, MAX_PDN, ApiRoute, body_limit
from poolcheckers.server.api.routers.archive import PDN_BODY, pdn_request
from poolcheckers.server.api.schemas import (
    MAX_ANALYSIS_LINES,
    MAX_ANALYSIS_MOVES,
    MAX_CLOCK_S,
    MAX_INCREMENT_S,
    Bounds,
    PdnReadResult,
    PositionInfo,
    PositionRequest,
    RequestLimits,
    RulesInfo,
    TreeExport,
    TreeExportRequest,
)
from poolcheckers.server.games import pdn as stored_pdn
from poolcheckers.server.games import timecontrol
from poolcheckers.server.games.model import parse_board, parse_move, parse_rules
from poolcheckers.server.games.view import position_info
from poolcheckers.server.i18n import M_
from poolcheckers.server.settings import Settings
from poolcheckers.server.throttle import client_address

router = APIRouter(tags=["analysis"], route_class=ApiRoute, responses=ERROR_RESPONSES)

#: the analysis board's PDN body: a few games, read in well under a second (the
#: archive import keeps MAX_PDN; a 1 MiB reading here held a thread for seconds)
MAX_ANALYSIS_PDN = 256 * 1024


def analysis_board(fen: str | None, moves: list[str], rules: RuleSet) -> Board:
    """The board of an analysis request: ``fen`` (R5), ``rules`` (§9), then ``moves``."""
    board = parse_board(fen, rules)
    for i, text in enumerate(moves):
        if board.is_game_over():
            raise errors.bad_request(
                M_("move {value} ({text}): the game is already over", value=i + 1, text=text)
            )
        try:
            board.push(parse_move(board, text))
        except errors.ApiError as exc:
            raise errors.ApiError(
                400, "illegal_move", M_("move {value}: {message}", value=i + 1, message=exc.message)
            ) from None
    return board


@router.post("/api/analysis/position", response_model=PositionInfo, summary="A position")
async def analysis_position(body: PositionRequest) -> Response:
    rules = parse_rules(body.rules)
    # up to 2000 moves to replay: off the event loop
    info = await anyio.to_thread.run_sync(
        lambda: position_info(analysis_board(body.fen, body.moves, rules))
    )
    return json_response(info.model_dump_json())


@router.post(
    "/api/analysis/pdn",
    response_model=PdnReadResult,
    openapi_extra=PDN_BODY,
    summary="Read PDN games without storing them",
)
@body_limit(MAX_ANALYSIS_PDN)
async def analysis_pdn(request: Request, ctx: Ctx) -> Response:
    body = pdn_request(request)
    rules = parse_rules(body.rules)
    result = await ctx.pdn_readings.read(client_address(request), body.pdn, rules)
    return json_response(result.model_dump_json())


@router.post("/api/analysis/export", response_model=TreeExport, summary="Write a move tree as PDN")
async def analysis_export(body: TreeExportRequest) -> Response:
    rules = parse_rules(body.rules)
    fen = parse_board(body.fen, rules).fen()
    pdn = await anyio.to_thread.run_sync(
        stored_pdn.export_tree, fen, rules, dict(body.tags), body.result, body.tree
    )
    return json_response(TreeExport(pdn=pdn).model_dump_json())


def request_limits(settings: Settings) -> RequestLimits:
    """The bounds the server's requests are checked against, from the constants that
    check them (and the analysis time of this server's ``settings``)."""
    return RequestLimits(
        analysis_lines=MAX_ANALYSIS_LINES,
        analysis_moves=MAX_ANALYSIS_MOVES,
        analysis_seconds=settings.analysis_max_time,
        level=Bounds(minimum=MIN_LEVEL, maximum=MAX_LEVEL),
        clock_initial_seconds=MAX_CLOCK_S,
        clock_increment_seconds=MAX_INCREMENT_S,
        seek_initial_seconds=Bounds(
            minimum=timecontrol.MIN_INITIAL, maximum=timecontrol.MAX_INITIAL
        ),
        seek_increment_seconds=Bounds(minimum=0, maximum=timecontrol.MAX_INCREMENT),
        seek_days=Bounds(minimum=timecontrol.MIN_DAYS, maximum=timecontrol.MAX_DAYS),
        username_length=Bounds(minimum=accounts.USERNAME_MIN, maximum=accounts.USERNAME_MAX),
        password_length=Bounds(minimum=accounts.PASSWORD_MIN, maximum=accounts.PASSWORD_MAX),
        pdn_bytes=MAX_PDN,
        min_rated_plies=settings.min_rated_plies,
    )


@router.get(
    "/api/rules",
    response_model=RulesInfo,
    summary="The rule options (docs/RULES.md §9) and the limits of requests",
)
async def rules_options(ctx: Ctx) -> RulesInfo:
    return RulesInfo.model_validate(
        {
            "default": RuleSet.apca().to_dict(),
            "options": [o.to_dict() for o in RuleSet.options()],
            "limits": request_limits(ctx.settings),
        }
    )
