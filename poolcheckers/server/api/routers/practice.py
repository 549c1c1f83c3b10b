"""Endgame practice (docs/PRACTICE.md): the exercises, a position's value, and a move
judged by the endgame tables with their reply.  The tables work off the event loop
(the first request may build them: seconds)."""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, Response
from pydantic import Field

from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import Request as Body
from poolcheckers.server.api.schemas import Text

router = APIRouter(tags=["practice"], route_class=ApiRoute, responses=ERROR_RESPONSES)


class StartRequest(Body):
    fen: Text = Field(max_length=120, description="a position the tables cover (R5)")


class PracticeMove(Body):
    fen: Text = Field(max_length=120, description="the practice's start position (R5)")
    moves: list[Text] = Field(
        max_length=400, description="the line so far, ending with the player's move to judge"
    )


@router.get("/api/practice", summary="The endgame exercises")
async def exercises(ctx: Ctx, words: Lang) -> Response:
    return json_response(words.localize(ctx.practice.exercises(), frozenset({"title", "about"})))


@router.post("/api/practice/start", summary="A position's value by the tables")
async def start(body: StartRequest, ctx: Ctx) -> Response:
    return json_response(await anyio.to_thread.run_sync(ctx.practice.start, body.fen))


@router.post("/api/practice/move", summary="Judge the player's move; the tables' reply")
async def move(body: PracticeMove, ctx: Ctx) -> Response:
    answer = await anyio.to_thread.run_sync(ctx.practice.move, body.fen, body.moves)
    return json_response(answer)
