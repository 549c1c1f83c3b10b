"""Player pages and leaderboards: ``GET /api/users/{username}``
and ``GET /api/leaderboard/{category}`` (docs/CONTRACTS.md §3.2).

Answers carry usernames, ratings and games; never an account id, a password hash,
a session or a seat token.
"""

from __future__ import annotations

from typing import Annotated, Literal

import anyio.to_thread
from fastapi import APIRouter, Query, Response

from poolcheckers.server import errors
from poolcheckers.server.api.deps import Ctx, Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import (
    HeadToHeadRow,
    LeaderboardRow,
    PlayerPage,
    RatingChange,
    RatingSide,
    WaitingRow,
)
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.i18n import M_
from poolcheckers.server.ratings.model import Perf
from poolcheckers.server.ratings.players import leaderboard, waiting_list

router = APIRouter(tags=["players"], route_class=ApiRoute, responses=ERROR_RESPONSES)
CategoryName = Literal["bullet", "blitz", "rapid", "classical", "correspondence"]
#: a leaderboard counts players who played a rated game within this many days
ACTIVE_DAYS = 365


@router.get("/api/users/{username}", response_model=PlayerPage, summary="A player's page")
async def get_player(
    username: str,
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
    result: Literal["win", "draw", "loss"] | None = None,
    category: CategoryName | None = None,
    rated: bool | None = None,
) -> Response:
    page = await ctx.run(ctx.players.page, username, limit, offset, result, category, rated)
    return json_response(page.model_dump_json())


@router.get(
    "/api/users/{username}/head-to-head",
    response_model=list[HeadToHeadRow],
    summary="A player's results against each opponent",
)
async def get_head_to_head(username: str, ctx: Ctx) -> Response:
    rows = await ctx.run(ctx.players.head_to_head, username)
    return json_response([r.model_dump() for r in rows])


@router.get(
    "/api/users/{username}/rating-history.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="A player's rating history as a plot (SVG), one line per category",
)
async def get_rating_history(
    username: str,
    ctx: Ctx,
    words: Lang,
    span: Annotated[
        Literal["all", "year", "month"],
        Query(alias="range", description="back from the last rated game"),
    ] = "all",
    size: Annotated[Literal["wide", "phone"], Query(description="phone: larger type")] = "wide",
) -> Response:
    user, updates = await ctx.run(ctx.players.rating_updates, username)
    plot = await anyio.to_thread.run_sync(
        ctx.players.history_svg, user, updates, span, size == "phone", words
    )
    return Response(plot, media_type="image/svg+xml", headers={"Cache-Control": "max-age=60"})


@router.get(
    "/api/leaderboard/{category}",
    response_model=list[LeaderboardRow],
    summary="The best ratings of a category (active players, RD at most 75)",
)
async def get_leaderboard(category: CategoryName, ctx: Ctx) -> Response:
    now_ms = ctx.settings.clock.now_ms()
    since = now_ms - ACTIVE_DAYS * 86_400_000
    perfs = await ctx.run(ctx.players.leaderboard_perfs, Category(category), since)
    rows = [
        LeaderboardRow(
            rank=e.rank, username=e.username, rating=e.rating, rd=e.deviation, games=e.games
        ).model_dump()
        for e in leaderboard(perfs, now_ms / 1000)
    ]
    return json_response(rows)


@router.get(
    "/api/leaderboard/{category}/waiting",
    response_model=list[WaitingRow],
    summary="Active players not yet on the leaderboard, and how many games they need",
)
async def get_waiting(category: CategoryName, ctx: Ctx) -> Response:
    now_ms = ctx.settings.clock.now_ms()
    since = now_ms - ACTIVE_DAYS * 86_400_000
    perfs = await ctx.run(ctx.players.active_perfs, Category(category), since)
    rows = await anyio.to_thread.run_sync(lambda: waiting_list(perfs, now_ms / 1000))
    return json_response(
        [
            WaitingRow(
                username=e.username, rating=e.rating, games=e.games, more_games=e.more_games
            ).model_dump()
            for e in rows
        ]
    )


@router.get(
    "/api/games/{game_id}/rating-change",
    response_model=RatingChange,
    summary="What a rated game did to both players' ratings (404 until it is rated)",
)
async def get_rating_change(game_id: str, ctx: Ctx) -> Response:
    update = await ctx.run(ctx.ratings.store.applied, game_id)
    if update is None:
        raise errors.ApiError(
            404, "not_found", M_("game {game_id} has changed no rating", game_id=repr(game_id))
        )

    def side(before: Perf, after: Perf) -> RatingSide:
        old, new = int(before.glicko.rating), int(after.glicko.rating)
        return RatingSide(before=old, after=new, diff=new - old)

    change = RatingChange(
        category=update.category.value,
        black=side(update.black_before, update.black_after),
        white=side(update.white_before, update.white_after),
    )
    return json_response(change.model_dump_json())
