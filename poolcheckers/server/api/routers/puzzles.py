"""Puzzles (docs/PUZZLES.md): the next one for the player, one by id, the puzzle of the
day, attempts played move by move (rated at the end of a signed-in player's first
attempt), votes, the player's puzzle rating and history, and the stored set page by
page.  No answer serves a puzzle's solution: the server keeps it, judges each move
and shows the line only in the answer that ends an attempt."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Query, Request, Response
from pydantic import Field

from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import Request as Body
from poolcheckers.server.api.schemas import Text
from poolcheckers.server.i18n import Translator
from poolcheckers.server.puzzles.model import GOAL_TEXT
from poolcheckers.server.puzzles.repository import StoredPuzzle
from poolcheckers.server.throttle import client_address

router = APIRouter(tags=["puzzles"], route_class=ApiRoute, responses=ERROR_RESPONSES)


class PuzzleMoveRequest(Body):
    """``POST /api/puzzles/attempts/{attempt}/moves``: one solver move."""

    ply: int = Field(ge=0, le=200, description="the plies of the line played before this move")
    move: Text = Field(max_length=80, description="the solver's move (R4)")


class ProposeRequest(Body):
    fen: Text = Field(max_length=120, description="a position set up in the board editor (R5)")


class VoteRequest(Body):
    vote: int = Field(description="1 (a good puzzle), -1 (a bad one) or 0 (no vote)")


def puzzle_json(p: StoredPuzzle, words: Translator) -> dict[str, Any]:
    """A puzzle as every route serves it: its position and goal, not its solution."""
    q = p.puzzle
    return {
        "id": q.id,
        "fen": q.fen,
        "goal": q.goal,
        "goal_text": words.gettext(GOAL_TEXT[q.goal]),
        "rating": int(p.glicko.rating),
        "themes": list(q.themes),
        "source": None if q.source is None else dict(q.source),
        "plays": p.plays,
        "solved": p.solved,
        "votes": {"up": p.votes_up, "down": p.votes_down},
    }


@router.get("/api/puzzles/next", summary="The next puzzle for the player (by rating, theme)")
async def next_puzzle(
    request: Request,
    ctx: Ctx,
    words: Lang,
    theme: str | None = Query(None, max_length=24),
    rating: int | None = Query(None, ge=400, le=3000, description="signed out: near this"),
) -> Response:
    user = await ctx.accounts.user_of(request)
    found = await ctx.run(ctx.puzzles.next_for, user, theme, rating)
    return json_response(puzzle_json(found, words))


@router.get("/api/puzzles/daily", summary="The puzzle of the day")
async def daily(ctx: Ctx, words: Lang) -> Response:
    return json_response(puzzle_json(await ctx.run(ctx.puzzles.daily), words))


@router.get("/api/puzzles/themes", summary="Each theme, its words and how many puzzles have it")
async def themes(ctx: Ctx, words: Lang) -> Response:
    return json_response(words.localize(await ctx.run(ctx.puzzles.themes), frozenset({"name"})))


@router.get("/api/puzzles/me", summary="Your puzzle rating and your last attempts")
async def mine(request: Request, ctx: Ctx, limit: int = Query(30, ge=1, le=200)) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    standing = await ctx.run(ctx.puzzles.standing, user.id)
    history = await ctx.run(ctx.puzzles.history, user.id, limit)
    return json_response({**standing, "history": history})


@router.get("/api/puzzles", summary="The stored puzzles, page by page (without solutions)")
async def listed(
    ctx: Ctx,
    words: Lang,
    offset: int = Query(0, ge=0, le=10_000_000),
    limit: int = Query(100, ge=1, le=500),
) -> Response:
    found = await ctx.run(ctx.puzzles.listed, offset, limit)
    return json_response([puzzle_json(p, words) for p in found])


@router.post("/api/puzzles/propose", summary="Make a puzzle of a position (an account)")
async def propose(body: ProposeRequest, request: Request, ctx: Ctx, words: Lang) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    # searches for a second or two: in a worker thread of its own, not the database's
    made = await anyio.to_thread.run_sync(ctx.puzzles.propose, body.fen, user)
    return json_response(puzzle_json(made, words))


@router.get("/api/puzzles/{pid}", summary="One puzzle")
async def one(pid: str, ctx: Ctx, words: Lang) -> Response:
    return json_response(puzzle_json(await ctx.run(ctx.puzzles.get, pid), words))


@router.post("/api/puzzles/{pid}/attempts", summary="Start an attempt at a puzzle")
async def start(pid: str, request: Request, ctx: Ctx) -> Response:
    user = await ctx.accounts.user_of(request)
    address = client_address(request)
    return json_response(await ctx.run(ctx.puzzles.start, pid, user, address))


@router.post(
    "/api/puzzles/attempts/{rid}/moves",
    summary="Play the solver's move: right (and the reply) or wrong (the attempt ends)",
)
async def play(rid: str, body: PuzzleMoveRequest, request: Request, ctx: Ctx) -> Response:
    user = await ctx.accounts.user_of(request)
    return json_response(await ctx.run(ctx.puzzles.play, rid, user, body.ply, body.move))


@router.post("/api/puzzles/attempts/{rid}/hint", summary="The square of the piece to move")
async def hint(rid: str, request: Request, ctx: Ctx) -> Response:
    user = await ctx.accounts.user_of(request)
    return json_response(await ctx.run(ctx.puzzles.hint, rid, user))


@router.post(
    "/api/puzzles/attempts/{rid}/give-up", summary="End the attempt as a miss: the solution"
)
async def give_up(rid: str, request: Request, ctx: Ctx) -> Response:
    user = await ctx.accounts.user_of(request)
    return json_response(await ctx.run(ctx.puzzles.give_up, rid, user))


@router.post("/api/puzzles/{pid}/vote", summary="Vote for or against a puzzle (an account)")
async def vote(pid: str, body: VoteRequest, request: Request, ctx: Ctx) -> Response:
    user, _token = await ctx.accounts.require_user(request)
    return json_response(await ctx.run(ctx.puzzles.vote, pid, user, body.vote))
