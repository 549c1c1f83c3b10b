"""PDN export of stored games, import with per-game errors, and the roundtrip."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from poolcheckers.engine import native_available
from poolcheckers.pdn import read_games

from .helpers import error_code, move, new_game, online_game

TWO_GAMES_AND_A_BAD_ONE = """[Event "Club match"]
[Black "Ann"]
[White "Bob"]
[Result "2-0"]
[GameType "23"]

1. 11-15 22-18 2. 15x22 25x18 3. 12-16 2-0

[Event "Bad one"]
[Result "*"]

1. 11-15 22-18 2. 12-16 *

[Event "From a position"]
[FEN "W:WK30:B19"]
[Result "0-2"]

1... 30x16 0-2
"""


def test_export_one_game_as_pdn(client: TestClient) -> None:
    gid, black, white = online_game(client)
    for ply, (tok, mv) in enumerate([(black, "11-15"), (white, "22-18"), (black, "15x22")]):
        assert move(client, gid, tok, mv, ply).status_code == 200
    client.post(f"/api/games/{gid}/resign", json={"token": white})
    r = client.get(f"/api/games/{gid}/pdn")
    assert r.status_code == 200
    text = r.text
    assert '[Result "2-0"]' in text and '[GameType "23' in text
    assert "1. 11-15 22-18 2. 15x22 2-0" in text
    (game,) = read_games(text)
    assert [str(m) for m in game.moves] == ["11-15", "22-18", "15x22"]
    assert game.tags["GameId"] == gid
    assert client.get("/api/games/nope/pdn").status_code == 404


def test_export_keeps_fen_and_rules(client: TestClient) -> None:
    created = new_game(
        client, mode="local", fen="W:WK30:B19,1", rules={"crown_during_capture": "stop"}
    )
    gid, token = created["game"]["id"], created["token"]
    move(client, gid, token, "30x16", 0)
    text = client.get(f"/api/games/{gid}/pdn").text
    assert '[FEN "W:WK30:B1,19"]' in text
    assert "crown_during_capture=stop" in text
    (game,) = read_games(text)
    assert game.rules.crown_during_capture == "stop"
    assert game.board().fen() == client.get(f"/api/games/{gid}").json()["fen"]
    # imported back, the game keeps its rule options (§9) and set-up (R5)
    (new_id,) = client.post("/api/import", content=text).json()["imported"]
    again = client.get(f"/api/games/{new_id}").json()
    assert again["rules"]["crown_during_capture"] == "stop"
    assert again["start_fen"] == "W:WK30:B1,19" and again["moves"] == ["30x16"]


def test_import_reports_errors_per_game_and_keeps_the_good_ones(client: TestClient) -> None:
    r = client.post(
        "/api/import", content=TWO_GAMES_AND_A_BAD_ONE, headers={"content-type": "text/plain"}
    )
    assert r.status_code == 200, r.text
    result = r.json()
    assert len(result["imported"]) == 2
    (err,) = result["errors"]
    assert err["game"] == 2 and err["line"] == 12
    assert "12-16" in err["message"]
    first = client.get(f"/api/games/{result['imported'][0]}").json()
    assert first["mode"] == "imported" and first["status"] == "finished"
    assert first["moves"] == ["11-15", "22-18", "15x22", "25x18", "12-16"]
    assert first["outcome"]["result"] == "2-0" and first["outcome"]["winner"] == "black"
    assert first["tags"]["Black"] == "Ann"
    second = client.get(f"/api/games/{result['imported'][1]}").json()
    assert second["start_fen"] == "W:WK30:B19"
    assert second["outcome"]["termination"] == "no_moves"  # the board agrees with 0-2
    assert second["outcome"]["reason"] == "Black has no pieces left (R16)"


def test_import_json_body_and_bad_payloads(client: TestClient) -> None:
    r = client.post("/api/import", json={"pdn": "1. 9-13 22-18 *"})
    assert r.status_code == 200 and len(r.json()["imported"]) == 1
    r = client.post("/api/import", json={"text": "x"})
    assert r.status_code == 400 and error_code(r) == "malformed"
    r = client.post("/api/import", content=b"\xff\xfe\xfa", headers={"content-type": "text/plain"})
    assert r.status_code == 400 and error_code(r) == "malformed"
    big = ("1. 11-15 22-18 *\n" * 70000).encode()
    assert len(big) > 1024 * 1024
    r = client.post("/api/import", content=big, headers={"content-type": "text/plain"})
    assert r.status_code == 413 and error_code(r) == "too_large"
    r = client.post("/api/import", content=b"garbage ][ {", headers={"content-type": "text/plain"})
    assert r.status_code == 200
    assert r.json()["imported"] == [] and r.json()["errors"]


def test_export_all_then_import_roundtrip(client: TestClient) -> None:
    client.post("/api/import", content=TWO_GAMES_AND_A_BAD_ONE)
    gid, black, white = online_game(client)
    move(client, gid, black, "9-13", 0)
    move(client, gid, white, "22-18", 1)
    exported = client.get("/api/export.pdn")
    assert exported.status_code == 200
    assert "attachment" in exported.headers["content-disposition"]
    games = read_games(exported.text)
    assert len(games) == 3
    r = client.post("/api/import", content=exported.text)
    assert r.status_code == 200 and r.json()["errors"] == []
    again = [client.get(f"/api/games/{i}").json() for i in r.json()["imported"]]
    # every game comes back with its set-up, moves and result
    assert [(g["start_fen"], g["moves"], g["outcome"]["result"]) for g in again] == [
        (g.start_fen, g.notations(), g.result) for g in games
    ]
    expected = sorted(
        [
            ["11-15", "22-18", "15x22", "25x18", "12-16"],
            ["30x16"],
            ["9-13", "22-18"],
        ]
    )
    assert sorted(g["moves"] for g in again) == expected
    # and exporting the re-imported games gives the same PDN movetext
    for g, original in zip(again, games, strict=True):
        text = client.get(f"/api/games/{g['id']}/pdn").text
        (back,) = read_games(text)
        assert back.moves == original.moves and back.result == original.result


ENGINE_2 = "poolcheckers engine level 2"


@pytest.mark.parametrize(
    ("body", "black", "white"),
    [
        ({"mode": "engine", "level": 2, "color": "black"}, "Anonymous", ENGINE_2),
        ({"mode": "online", "color": "black"}, "Anonymous", "Anonymous"),
        ({"mode": "local"}, "Black", "White"),
    ],
)
def test_a_player_without_an_account_is_anonymous_in_the_pdn(
    client: TestClient, body: dict[str, Any], black: str, white: str
) -> None:
    if body["mode"] == "engine" and not native_available():
        pytest.skip("needs the native core")
    gid = new_game(client, **body)["game"]["id"]
    (game,) = read_games(client.get(f"/api/games/{gid}/pdn").text)
    assert (game.tags["Black"], game.tags["White"]) == (black, white)
