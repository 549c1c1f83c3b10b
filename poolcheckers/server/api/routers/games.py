"""Games: create, join, read, move, the game actions, and the list of games."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response

from poolcheckers.server import errors
from poolcheckers.server.api.deps import Ctx, UserId, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute, no_token_in_url, seat_token
from poolcheckers.server.api.schemas import (
    ACTIONS,
    Action,
    CreatedGame,
    CreateGame,
    GameList,
    GameState,
    JoinedGame,
    JoinRequest,
    MoveRequest,
    TokenRequest,
)
from poolcheckers.server.games.model import GameFilter, NewGame
from poolcheckers.server.games.view import View
from poolcheckers.server.i18n import M_
from poolcheckers.server.throttle import address_key, client_address

router = APIRouter(
    prefix="/api/games", tags=["games"], route_class=ApiRoute, responses=ERROR_RESPONSES
)
HeaderToken = Annotated[str | None, Depends(seat_token)]


def one_token(in_body: str | None, in_header: str | None) -> str | None:
    """The seat token of a POST: in the ``X-Seat-Token`` header (or ``Authorization:
    Bearer``) or in the body; both are fine when they agree.  Two different tokens are
    refused rather than one of them chosen: the client is confused about its seat."""
    if in_body and in_header and in_body != in_header:
        raise errors.bad_request(
            M_(
                "two different seat tokens: one in the X-Seat-Token header and one in the body; "
                "send it once"
            )
        )
    return in_body or in_header


#: offsets beyond this are refused (no database counts that far; SQL needs 64 bits)
MAX_OFFSET = 2**31 - 1


@router.post("", response_model=CreatedGame, summary="Create a game")
async def create_game(body: CreateGame, ctx: Ctx, user: UserId, request: Request) -> Response:
    clock = body.clock
    spec = NewGame(
        mode=body.mode,
        rules=body.rules or {},
        fen=body.fen,
        level=body.level,
        color=body.color,
        clock_initial=clock.initial if clock else None,
        clock_increment=clock.increment if clock else 0.0,
    )
    address = client_address(request)
    committed, token, invite = await ctx.run(ctx.games.creator.open, spec, user, address)
    game = committed.loaded.game
    if committed.engine_to_move:
        ctx.runner.schedule(game.id, client=address_key(address))
    view = View(committed.loaded, committed.now, "both" if body.mode == "local" else body.color)
    answer = CreatedGame(
        game=view.state(),
        token=token,
        invite=f"/play/{game.id}?invite={invite}" if invite else None,
    )
    return json_response(answer.model_dump_json())


@router.post("/{game_id}/join", response_model=JoinedGame, summary="Take the invited seat")
async def join_game(game_id: str, body: JoinRequest, ctx: Ctx, user: UserId) -> Response:
    view, token = await ctx.run(ctx.games.join, game_id, body.invite, user)
    return json_response(JoinedGame(game=view.state(), token=token).model_dump_json())


@router.get(
    "/{game_id}",
    response_model=GameState,
    summary="A game (your_color from the X-Seat-Token header)",
    dependencies=[Depends(no_token_in_url)],
)
async def get_game(game_id: str, ctx: Ctx, token: HeaderToken, user: UserId) -> Response:
    view = await ctx.run(ctx.games.view, game_id, token, user)
    return json_response(view.json())


@router.post("/{game_id}/move", response_model=GameState, summary="Play a move (R4 notation)")
async def move(
    game_id: str, body: MoveRequest, ctx: Ctx, user: UserId, header: HeaderToken
) -> Response:
    token = one_token(body.token, header)
    view, _played = await ctx.run(ctx.games.move, game_id, token, body.move, body.ply, user)
    return json_response(view.json())


def _action_route(action: Action) -> None:
    async def game_action(
        game_id: str,
        body: TokenRequest,
        ctx: Ctx,
        user: UserId,
        header: HeaderToken,
        request: Request,
    ) -> Response:
        token = one_token(body.token, header)
        view = await ctx.act(game_id, action, token, user, client_address(request))
        return json_response(view.json())

    game_action.__name__ = "game_" + action.replace("-", "_")
    router.add_api_route(
        f"/{{game_id}}/{action}",
        game_action,
        methods=["POST"],
        response_model=GameState,
        summary=f"Game action: {action}",
    )


for _action in ACTIONS:
    _action_route(_action)


#: a day as the archive's date filters take it
DAY = r"^\d{4}-\d{2}-\d{2}$"
#: the most game ids one "my games" request may name (the seat tokens a browser holds)
MAX_MY_IDS = 500


@router.get("", response_model=GameList, summary="The archive: games, newest played first")
async def list_games(
    request: Request,
    ctx: Ctx,
    status: Literal["running", "finished", "aborted"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    mode: Literal["engine", "local", "online", "imported"] | None = None,
    player: Annotated[str, Query(max_length=64, description="part of a player's name")] = "",
    event: Annotated[str, Query(max_length=64, description="part of the event's name")] = "",
    result: Literal["2-0", "0-2", "1-1", "unfinished"] | None = None,
    date_from: Annotated[str | None, Query(pattern=DAY, description="YYYY-MM-DD")] = None,
    date_to: Annotated[str | None, Query(pattern=DAY, description="YYYY-MM-DD")] = None,
    mine: Annotated[
        bool, Query(description="only the games of the signed-in account and of `ids`")
    ] = False,
    ids: Annotated[
        str, Query(max_length=MAX_MY_IDS * 33, description="comma-separated game ids")
    ] = "",
) -> Response:
    account = await ctx.accounts.user_of(request) if mine else None
    wanted = GameFilter(
        status=status,
        mode=mode,
        player=player,
        event=event,
        result=result,
        date_from=date_from,
        date_to=date_to,
        mine=mine,
        account=account.id if account is not None else None,
        ids=tuple(i for i in ids.split(",") if i)[:MAX_MY_IDS],
    )
    games, total = await ctx.run(ctx.games.search, wanted, limit, offset)
    return json_response(GameList(games=games, total=total).model_dump_json())
