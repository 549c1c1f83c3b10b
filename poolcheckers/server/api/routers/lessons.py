"""Lessons for beginners (docs/LESSONS.md): the lessons with the learner's progress,
and an answer checked by the rules library (kept for a signed-in learner)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import Field

from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import Request as Body
from poolcheckers.server.api.schemas import Text

router = APIRouter(tags=["lessons"], route_class=ApiRoute, responses=ERROR_RESPONSES)

#: the lessons' words, translated into the request's language
WORDS = frozenset({"title", "task", "why"})


class AnswerRequest(Body):
    step: int = Field(description="the step, from 0")
    move: Text = Field(max_length=64, description="the learner's move (R4)")


@router.get("/api/lessons", summary="The lessons, with your progress when signed in")
async def lessons(request: Request, ctx: Ctx, words: Lang) -> Response:
    user = await ctx.accounts.user_of(request)
    return json_response(words.localize(await ctx.run(ctx.lessons.listed, user), WORDS))


@router.post("/api/lessons/{lesson_id}/answer", summary="Check a learner's move")
async def answer(
    lesson_id: str, body: AnswerRequest, request: Request, ctx: Ctx, words: Lang
) -> Response:
    user = await ctx.accounts.user_of(request)
    answer = await ctx.run(ctx.lessons.answer, lesson_id, body.step, body.move, user)
    return json_response(words.localize(answer, WORDS))
