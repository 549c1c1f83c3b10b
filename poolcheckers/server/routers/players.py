"""Player pages and leaderboards (issue 8 point 5): ``GET /api/users/{username}``
and ``GET /api/leaderboard/{category}`` (docs/CONTRACTS.md §3.2).

Answers carry usernames, ratings and games; never an account id, a password hash,
a session or a seat token.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Response

from poolcheckers.community.accounts import User, username_key
from poolcheckers.community.errors import UsernameError
from poolcheckers.community.players import leaderboard
from poolcheckers.community.timecontrol import Category

from .. import errors
from ..community_store import leaderboard_perfs, player_games_query
from ..context import ServerContext, get_ctx
from ..game import GameRec
from ..http import ERROR_RESPONSES, ApiRoute
from ..schemas import LeaderboardRow, PerfInfo, PlayerGame, PlayerPage

router = APIRouter(tags=["players"], route_class=ApiRoute, responses=ERROR_RESPONSES)
Ctx = Annotated[ServerContext, Depends(get_ctx)]
CategoryName = Literal["bullet", "blitz", "rapid", "classical", "correspondence"]
#: a leaderboard counts players who played a rated game within this many days
ACTIVE_DAYS = 365


def _json(text: str) -> Response:
    return Response(text, media_type="application/json")


def _name(user_id: str | None, names: dict[str, str], engine: bool) -> str:
    if user_id is not None:
        return names.get(user_id, "Anonymous")
    return "Engine" if engine else "Anonymous"


def player_game(g: GameRec, user_id: str, names: dict[str, str]) -> PlayerGame:
    mine = "black" if g.black_user_id == user_id else "white"
    outcome = None
    if g.status == "finished" and g.result is not None:
        outcome = "draw" if g.winner is None else "win" if g.winner == mine else "loss"
    return PlayerGame(
        id=g.id,
        status=g.status,
        category=g.category,
        rated=g.rated,
        black=_name(g.black_user_id, names, g.engine_color == "black"),
        white=_name(g.white_user_id, names, g.engine_color == "white"),
        result=g.result,
        player_result=outcome,  # type: ignore[arg-type]
        black_rating=g.black_rating,
        white_rating=g.white_rating,
        ply=g.ply,
        created=g.created_ms / 1000,
        updated=g.updated_ms / 1000,
    )


def _find(ctx: ServerContext, username: str) -> User:
    try:
        key = username_key(username)
    except UsernameError:
        key = ""
    user = ctx.community.users.by_key(key) if key else None
    if user is None:
        raise errors.ApiError(404, "not_found", f"no player named {username!r}")
    return user


def player_page(
    ctx: ServerContext,
    username: str,
    limit: int,
    offset: int,
    result: str | None,
    category: str | None,
    rated: bool | None,
) -> PlayerPage:
    user = _find(ctx, username)
    c = ctx.community
    query = player_games_query(user.id, result=result, category=category, rated=rated)
    with ctx.db.connect() as conn:
        rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
    games = [GameRec.from_row(r) for r in rows]
    ids = {i for g in games for i in (g.black_user_id, g.white_user_id) if i is not None}
    names = c.users.names(ids)
    ratings = {
        cat.value: PerfInfo.model_validate(perf.to_dict())
        for cat, perf in c.ratings.perfs(user.id).items()
    }
    return PlayerPage(
        username=user.username,
        created=user.created,
        ratings=ratings,
        games=[player_game(g, user.id, names) for g in games],
    )


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
    page = await ctx.run(player_page, ctx, username, limit, offset, result, category, rated)
    return _json(page.model_dump_json())


@router.get(
    "/api/leaderboard/{category}",
    response_model=list[LeaderboardRow],
    summary="The best ratings of a category (active players, RD at most 75)",
)
async def get_leaderboard(category: CategoryName, ctx: Ctx) -> Response:
    now_ms = ctx.settings.clock.now_ms()
    since = now_ms - ACTIVE_DAYS * 86_400_000
    perfs = await ctx.run(leaderboard_perfs, ctx.db, Category(category), since)
    rows = [
        LeaderboardRow(
            rank=e.rank, username=e.username, rating=e.rating, rd=e.deviation, games=e.games
        ).model_dump()
        for e in leaderboard(perfs, now_ms / 1000)
    ]
    return _json(json.dumps(rows, separators=(",", ":")))
