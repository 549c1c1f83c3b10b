"""Player pages and leaderboards (issue 8 point 5): ``GET /api/users/{username}``
and ``GET /api/leaderboard/{category}`` (docs/CONTRACTS.md §3.2).

Answers carry usernames, ratings and games; never an account id, a password hash,
a session or a seat token.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Response
from sqlalchemy import func, select

from poolcheckers.server import errors
from poolcheckers.server.accounts.model import User, username_key
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import (
    HeadToHeadRow,
    LeaderboardRow,
    PerfInfo,
    PlayerGame,
    PlayerPage,
)
from poolcheckers.server.community_store import leaderboard_perfs, player_games_query
from poolcheckers.server.database.engine import GAMES
from poolcheckers.server.domain_errors import UsernameError
from poolcheckers.server.games.model import GameRec
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.players import (
    GameSummary,
    head_to_head,
    leaderboard,
    rating_history,
    rating_history_svg,
)
from poolcheckers.server.wiring import ServerContext, get_ctx, run

router = APIRouter(tags=["players"], route_class=ApiRoute, responses=ERROR_RESPONSES)
Ctx = Annotated[ServerContext, Depends(get_ctx)]
CategoryName = Literal["bullet", "blitz", "rapid", "classical", "correspondence"]
#: a leaderboard counts players who played a rated game within this many days
ACTIVE_DAYS = 365
#: games a head-to-head table is counted over (the most recent)
HEAD_TO_HEAD_GAMES = 2000
#: running games a player page lists at the top
CURRENT_GAMES = 20
GAMES_FINISHED = GAMES.c.status == "finished"
#: rating plots kept, by (account, rating updates so far): one is drawn per new game
_plots: OrderedDict[tuple[str, int], str] = OrderedDict()
_plots_lock = threading.Lock()
PLOTS_KEPT = 256


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
    running = player_games_query(user.id).where(GAMES.c.status == "running")
    counted = select(func.count()).select_from(query.order_by(None).subquery())
    with ctx.db.connect() as conn:
        rows = conn.execute(query.limit(limit).offset(offset)).mappings().all()
        total = int(conn.execute(counted).scalar_one())
        current_rows = conn.execute(running.limit(CURRENT_GAMES)).mappings().all()
    games = [GameRec.from_row(r) for r in rows]
    current = [GameRec.from_row(r) for r in current_rows]
    ids = {i for g in games + current for i in (g.black_user_id, g.white_user_id) if i}
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
        total=total,
        current=[player_game(g, user.id, names) for g in current],
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


def _summary(g: GameRec, names: dict[str, str]) -> GameSummary:
    score = None
    if g.status == "finished" and g.result is not None:
        score = 0.5 if g.winner is None else 1.0 if g.winner == "black" else 0.0
    return GameSummary(
        g.id,
        None if g.category is None else Category(g.category),
        g.rated,
        g.black_user_id,
        g.white_user_id,
        _name(g.black_user_id, names, g.engine_color == "black"),
        _name(g.white_user_id, names, g.engine_color == "white"),
        score,
        g.updated_ms / 1000 if score is not None else None,
    )


def head_to_head_rows(ctx: ServerContext, username: str) -> list[HeadToHeadRow]:
    user = _find(ctx, username)
    query = player_games_query(user.id).where(GAMES_FINISHED).limit(HEAD_TO_HEAD_GAMES)
    with ctx.db.connect() as conn:
        games = [GameRec.from_row(r) for r in conn.execute(query).mappings()]
    ids = {i for g in games for i in (g.black_user_id, g.white_user_id) if i is not None}
    names = ctx.community.users.names(ids)
    return [
        HeadToHeadRow(
            opponent=h.opponent,
            wins=h.record.wins,
            draws=h.record.draws,
            losses=h.record.losses,
        )
        for h in head_to_head([_summary(g, names) for g in games], user.id)
    ]


@router.get(
    "/api/users/{username}/head-to-head",
    response_model=list[HeadToHeadRow],
    summary="A player's results against each opponent",
)
async def get_head_to_head(username: str, ctx: Ctx) -> Response:
    rows = await run(head_to_head_rows, ctx, username)
    return _json(json.dumps([r.model_dump() for r in rows], separators=(",", ":")))


def history_svg(ctx: ServerContext, username: str) -> str:
    user = _find(ctx, username)
    ratings = ctx.community.ratings
    updates = {cat: ratings.history(user.id, cat) for cat in Category}
    key = (user.id, sum(len(u) for u in updates.values()))
    with _plots_lock:
        if key in _plots:
            _plots.move_to_end(key)
            return _plots[key]
    histories = {cat: rating_history(u, user.id, cat) for cat, u in updates.items()}
    plot = rating_history_svg(histories, title=f"Rating history of {user.username}")
    with _plots_lock:
        _plots[key] = plot
        while len(_plots) > PLOTS_KEPT:
            _plots.popitem(last=False)
    return plot


@router.get(
    "/api/users/{username}/rating-history.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="A player's rating history as a plot (SVG), one line per category",
)
async def get_rating_history(username: str, ctx: Ctx) -> Response:
    plot = await run(history_svg, ctx, username)
    return Response(plot, media_type="image/svg+xml", headers={"Cache-Control": "max-age=60"})


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
