"""PDN export and import of stored games (uses :mod:`poolcheckers.pdn`)."""

from __future__ import annotations

import datetime
from typing import Any

from poolcheckers import PdnError
from poolcheckers.pdn import game_from_board, iter_games, normalize_result, write_game

from .service import GameService
from .state import GameRec


def game_tags(g: GameRec) -> dict[str, str]:
    """The PDN tags of a stored game (imported games keep their own)."""
    if g.tags:
        tags = dict(g.tags)
    else:
        date = datetime.datetime.fromtimestamp(g.created_ms / 1000, tz=datetime.UTC)
        tags = {
            "Event": f"poolcheckers {g.mode} game",
            "Site": "poolcheckers",
            "Date": date.strftime("%Y.%m.%d"),
            "Black": "Black",
            "White": "White",
        }
        if g.engine_color is not None:
            tags[g.engine_color.capitalize()] = f"poolcheckers engine level {g.level}"
        if g.reason and g.termination in ("agreement", "resignation", "time"):
            tags["Termination"] = g.reason
    tags["Result"] = g.result or "*"
    tags["GameId"] = g.id
    return tags


def export_game(service: GameService, game_id: str) -> str:
    """One stored game as PDN (GameType 23, FEN when not the start, Rules when not APCA)."""
    loaded = service.loaded(game_id)
    tags = game_tags(loaded.game)
    try:
        game = game_from_board(loaded.board, tags, result=tags["Result"])
    except ValueError:  # a stored result the final position contradicts: the board decides
        tags["Result"] = "*"
        game = game_from_board(loaded.board, tags)
    return write_game(game)


def export_all(service: GameService) -> str:
    """Every stored game, oldest first, separated by blank lines."""
    return "\n".join(export_game(service, game_id) for game_id in service.iter_ids())


def import_text(service: GameService, text: str) -> dict[str, Any]:
    """Store every game of a PDN text; a bad game is reported (1-based number, line,
    column, reason) and the others are still imported."""
    imported: list[str] = []
    errors: list[dict[str, Any]] = []

    def on_error(exc: PdnError) -> None:
        errors.append(
            {"game": exc.game, "line": exc.line, "column": exc.column, "message": str(exc)}
        )

    for game in iter_games(text, on_error=on_error):
        try:
            board = game.board()
        except ValueError as exc:  # MoveError is a ValueError
            errors.append(
                {"game": game.number, "line": game.line, "column": 1, "message": str(exc)}
            )
            continue
        tags = {k: v for k, v in game.tags.items() if k != "GameId"}
        result = normalize_result(game.result)
        imported.append(service.store_imported(board, tags, result))
    return {"imported": imported, "errors": errors}
