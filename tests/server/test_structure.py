"""The server's shape: short functions, one record type per table, and
pages that load nothing from another host."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from fastapi.testclient import TestClient

from poolcheckers.server.database.tables import GAMES, MOVES
from poolcheckers.server.games.model import GameRec, MoveRec

SERVER = Path(__file__).resolve().parents[2] / "poolcheckers" / "server"
MAX_FUNCTION_LINES = 80


def test_no_server_function_is_longer_than_80_lines() -> None:
    long = []
    for path in sorted(SERVER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(SERVER)}:{node.lineno} {node.name} ({lines})")
    assert not long, long


def test_one_record_type_per_table() -> None:
    assert [f.name for f in dataclasses.fields(GameRec)] == [c.name for c in GAMES.columns]
    assert [f.name for f in dataclasses.fields(MoveRec)] == [
        c.name for c in MOVES.columns if c.name != "game_id"
    ]


EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.IGNORECASE)


def test_pages_and_api_docs_load_nothing_from_another_host(client: TestClient) -> None:
    pages = ["/", "/play/x", "/analysis", "/archive", "/api/docs"]
    for path in pages:
        r = client.get(path)
        assert r.status_code == 200, path
        assert not EXTERNAL.search(r.text), path
    for name in ("docs", "redoc"):
        assert client.get(f"/{name}").status_code == 404  # no CDN-based default pages
    docs = client.get("/api/docs").text
    assert "/api/games/{game_id}/move" in docs and "GameState" in docs
    assert "/ws/analysis" in docs and "AnalysisReport" in docs
    for static in sorted((SERVER / "static").glob("*.*")):
        text = static.read_text(encoding="utf-8")
        assert not EXTERNAL.search(text), static.name
        assert not re.search(r"""(?:import|fetch)\s*\(?\s*["']https?://""", text), static.name


def test_openapi_describes_every_http_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    expected = {
        "/api/games": {"get", "post"},
        "/api/games/{game_id}": {"get"},
        "/api/games/{game_id}/join": {"post"},
        "/api/games/{game_id}/move": {"post"},
        "/api/games/{game_id}/pdn": {"get"},
        "/api/export.pdn": {"get"},
        "/api/import": {"post"},
        "/api/analysis/position": {"post"},
        "/api/analysis/pdn": {"post"},
        "/api/analysis/export": {"post"},
        "/api/rulebook": {"get"},
        "/api/games/{game_id}/rating-change": {"get"},
        "/api/session": {"get"},
        "/api/account/reset": {"post"},
        "/api/leaderboard/{category}/waiting": {"get"},
        "/api/rules": {"get"},
        "/api/health": {"get"},
        "/api/account": {"get"},
        "/api/account/signup": {"post"},
        "/api/account/login": {"post"},
        "/api/account/logout": {"post"},
        "/api/account/password": {"post"},
        "/api/account/logout-everywhere": {"post"},
        "/api/seeks": {"get", "post"},
        "/api/seeks/{seek_id}": {"delete"},
        "/api/seeks/{seek_id}/accept": {"post"},
        "/api/seeks/play-now": {"post"},
        "/api/users/{username}": {"get"},
        "/api/users/{username}/head-to-head": {"get"},
        "/api/users/{username}/rating-history.svg": {"get"},
        "/api/leaderboard/{category}": {"get"},
        "/api/users/{username}/tournaments": {"get"},
        "/api/tournaments": {"get", "post"},
        "/api/tournaments/{tid}": {"get"},
        "/api/tournaments/import": {"post"},
        "/api/tournaments/invitations": {"get"},
        **{
            f"/api/tournaments/{{tid}}/{action}": {"post"}
            for action in (
                *("join", "accept", "decline", "withdraw", "start", "pause", "remove"),
                *("forfeit", "berserk"),
            )
        },
        **{f"/api/tournaments/{{tid}}/{kind}": {"get"} for kind in ("pdn", "csv", "trf")},
        **{f"/api/puzzles/{k}": {"get"} for k in ("next", "daily", "themes", "me", "{pid}")},
        "/api/puzzles": {"get"},
        "/api/puzzles/propose": {"post"},
        "/api/practice": {"get"},
        "/api/lessons": {"get"},
        "/api/lessons/{lesson_id}/answer": {"post"},
        "/api/practice/start": {"post"},
        "/api/practice/move": {"post"},
        **{f"/api/puzzles/{{pid}}/{a}": {"post"} for a in ("attempts", "vote")},
        **{f"/api/puzzles/attempts/{{rid}}/{a}": {"post"} for a in ("moves", "hint", "give-up")},
        "/api/challenges": {"get", "post"},
        "/api/challenges/policy": {"get", "post"},
        **{f"/api/challenges/{{cid}}/{a}": {"post"} for a in ("accept", "decline", "cancel")},
        "/api/blocks": {"get", "post"},
        "/api/blocks/{username}": {"delete"},
        "/api/language": {"post"},
        "/i18n/{name}": {"get"},
        # API tokens and the bot API (docs/BOTS.md)
        "/api/account/tokens": {"get", "post"},
        "/api/account/tokens/{token_id}": {"delete"},
        "/api/bot/account": {"get"},
        "/api/bot/account/upgrade": {"post"},
        "/api/stream/event": {"get"},
        "/api/bot/game/stream/{game_id}": {"get"},
        "/api/bot/game/{game_id}/move/{move}": {"post"},
        "/api/bot/game/{game_id}/{action}": {"post"},
        "/api/bot/challenge": {"post"},
        "/api/bot/challenge/{cid}/{answer}": {"post"},
    }
    for action in (
        "resign",
        "draw-offer",
        "draw-accept",
        "draw-decline",
        "takeback",
        "abort",
        "rematch",
        "rematch-decline",
    ):
        expected[f"/api/games/{{game_id}}/{action}"] = {"post"}
    assert {p: set(m) for p, m in paths.items()} == expected
    schemas = spec["components"]["schemas"]
    for name in ("GameState", "GameSummary", "ErrorBody", "CreateGame", "MoveRequest"):
        assert name in schemas
    move = paths["/api/games/{game_id}/move"]["post"]
    assert move["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GameState"
    }
    assert move["responses"]["409"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }


def test_openapi_describes_the_websocket_messages(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    sockets = spec["x-websockets"]
    assert set(sockets) == {"/ws/games/{game_id}", "/ws/analysis"}
    schemas = spec["components"]["schemas"]
    for socket in sockets.values():
        for ref in socket["client"] + socket["server"]:
            assert ref.rsplit("/", 1)[-1] in schemas
    assert "move" in str(schemas["WsMove"]["properties"]["type"])
    assert "win_in" in schemas["AnalysisReport"]["properties"]
