"""PDN export and import of stored games (uses :mod:`poolcheckers.pdn`)."""

from __future__ import annotations

import datetime
import importlib
from typing import Any

from poolcheckers import Board, PdnError

from .service import GameService
from .state import GameRec


def _pdn() -> Any:
    return importlib.import_module("poolcheckers.pdn")


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
            "Black": "Engine" if g.engine_color == "black" else "Black",
            "White": "Engine" if g.engine_color == "white" else "White",
        }
        if g.level is not None:
            key = "Black" if g.engine_color == "black" else "White"
            tags[key] = f"poolcheckers engine level {g.level}"
    tags["Result"] = g.result or "*"
    tags["GameId"] = g.id
    return tags


def export_game(service: GameService, game_id: str) -> str:
    loaded = service.loaded(game_id)
    pdn = _pdn()
    game = pdn.game_from_board(loaded.board, game_tags(loaded.game))
    text: str = pdn.write_game(game)
    return text


def export_all(service: GameService) -> str:
    return "\n".join(export_game(service, game_id) for game_id in service.iter_ids())


def import_text(service: GameService, text: str) -> dict[str, Any]:
    """Store every game of a PDN text; errors are reported per game (1-based)."""
    pdn = _pdn()
    imported: list[str] = []
    errors: list[dict[str, Any]] = []

    def on_error(exc: PdnError) -> None:
        errors.append(
            {"game": exc.game, "line": exc.line, "column": exc.column, "message": str(exc)}
        )

    for game in pdn.iter_games(text, on_error=on_error):
        board = Board(game.board_start_fen, rules=service_rules(game))
        for mv in game.moves:
            board.push(mv)
        tags = {str(k): str(v) for k, v in game.tags.items()}
        imported.append(service.store_imported(board, tags, str(game.result or "*")))
    return {"imported": imported, "errors": errors}


def service_rules(game: Any) -> Any:
    rules = getattr(game, "rules", None)
    if rules is None:
        from poolcheckers import RuleSet

        return RuleSet.apca()
    return rules
