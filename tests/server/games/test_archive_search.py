"""The archive's search: games found by player (an account's name or an imported game's
tags), event (an imported game's Event tag, a tournament's name), result (unfinished
included), the day played (an imported game's PDN Date, not the day of its import) and
"my games" (the account's seats and the games whose seat tokens the browser holds), a
page at a time with the total; existing games are filled in by the migrations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

from poolcheckers.server.database.engine import make_engine
from poolcheckers.server.database.tables import GAMES

from ..conftest import AppFactory
from ..test_migration_community import migrate
from ..test_ratings_api import rated_game
from ..tournaments.test_tournament_api import RAPID, event, sign_up, wait_for

CLUB = """[Event "Harlem Club Championship"]
[Date "2026.11.14"]
[Black "Ann Smith"]
[White "Bob Jones"]
[Result "2-0"]

1. 11-15 23-19 2. 8-11 2-0

[Event "Kingston Open"]
[Date "1998.??.??"]
[Black "Marcus Garvey"]
[White "Ann Smith"]
[Result "1-1"]

1. 9-13 22-18 1-1

[Event "Kingston Open"]
[Date "2025.03.02"]
[Black "Desmond"]
[White "Marcus Garvey"]
[Result "*"]

1. 10-14 *
"""


def ids(client: TestClient, query: str) -> list[str]:
    answer = client.get(f"/api/games?{query}")
    assert answer.status_code == 200, answer.text
    return [g["id"] for g in answer.json()["games"]]


def test_imported_games_are_found_by_player_event_result_and_date(client: TestClient) -> None:
    smith, kingston, unfinished = client.post("/api/import", content=CLUB).json()["imported"]
    assert ids(client, "player=smith") == [smith, kingston]  # newest played first
    assert ids(client, "player=GARVEY") == [unfinished, kingston]
    assert ids(client, "event=kingston") == [unfinished, kingston]
    assert ids(client, "event=kingston&player=desmond") == [unfinished]
    assert ids(client, "result=2-0") == [smith] and ids(client, "result=1-1") == [kingston]
    assert ids(client, "result=unfinished&mode=imported") == [unfinished]
    assert ids(client, "date_from=2025-01-01&date_to=2025-12-31") == [unfinished]
    assert ids(client, "date_from=1998-01-01&date_to=1998-12-31") == [kingston]  # 1998.??.??
    assert ids(client, "player=100%25") == []  # a wildcard is a character, not a pattern
    listed = {g["id"]: g for g in client.get("/api/games?mode=imported").json()["games"]}
    assert listed[smith]["played_on"] == "2026-11-14"  # the PDN Date, not the import day


def test_a_tournaments_games_and_imported_games_are_found_by_the_event_name(
    make_client: AppFactory,
) -> None:
    site = make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    spec = {"name": "APCA National 2025", "system": "round_robin", "clock": RAPID}
    tid = ann.post("/api/tournaments", json=spec).json()["id"]
    for player in (ann, bob):
        assert player.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    assert ann.post(f"/api/tournaments/{tid}/start").status_code == 200
    played = wait_for(lambda: [p["game"] for p in event(site, tid)["pairings"] if p["game"]])
    pdn = '[Event "APCA National 2025"]\n[Black "Cy"]\n[White "Dee"]\n[Result "*"]\n\n1. 9-13 *\n'
    (imported,) = site.post("/api/import", content=pdn).json()["imported"]
    assert set(ids(site, "event=apca national")) == {*played, imported}
    assert ids(site, "event=NATIONAL 2025&mode=online") == played  # the tournament's game
    assert ids(site, "event=national 2025&mode=imported") == [imported]  # the Event tag
    assert ids(site, "event=national 2024") == []


def test_pages_come_with_the_total(client: TestClient) -> None:
    client.post("/api/import", content=CLUB)
    first = client.get("/api/games?mode=imported&limit=2").json()
    second = client.get("/api/games?mode=imported&limit=2&offset=2").json()
    assert first["total"] == second["total"] == 3
    assert len(first["games"]) == 2 and len(second["games"]) == 1
    assert not {g["id"] for g in first["games"]} & {g["id"] for g in second["games"]}


def test_my_games_are_the_accounts_and_the_browsers(make_client: AppFactory) -> None:
    ann, bob, rated = rated_game(make_client)
    anonymous = TestClient(ann.app)
    local = anonymous.post("/api/games", json={"mode": "local"}).json()["game"]["id"]
    other = anonymous.post("/api/games", json={"mode": "local"}).json()["game"]["id"]
    assert ids(ann, "mine=true") == [rated]  # Ann's seat, not the visitor's games
    assert ids(anonymous, f"mine=true&ids={local}") == [local]
    assert set(ids(anonymous, f"mine=true&ids={local},{other}")) == {local, other}
    assert ids(anonymous, "mine=true") == []  # signed out, no token: nothing is "mine"
    assert ids(bob, "player=ann&mine=true") == [rated]
    assert set(ids(anonymous, "")) >= {rated, local, other}  # everyone's list still has all


def test_bad_filters_are_refused(client: TestClient) -> None:
    for query in ("date_from=14.11.2026", "result=win", "player=" + "x" * 65):
        assert client.get(f"/api/games?{query}").status_code in (400, 422), query


def test_the_migration_fills_in_existing_games(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    migrate(engine, "0011")
    row: dict[str, Any] = {
        "mode": "imported",
        "status": "finished",
        "rules": {},
        "start_fen": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "ply": 0,
        "version": 1,
        "created_ms": 1_764_547_200_000,  # 2025-12-01
        "updated_ms": 1_764_547_200_000,
    }
    with engine.begin() as conn:
        conn.execute(
            insert(GAMES).values(
                id="imp",
                tags={"Black": "Ann", "White": "Bob", "Event": "Club", "Date": "2024.05.06"},
                **row,
            )
        )
        conn.execute(insert(GAMES).values(id="site", tags=None, **{**row, "mode": "local"}))
    migrate(engine, "head")
    with engine.connect() as conn:
        found = {
            r.id: (r.black_name, r.white_name, r.event, r.played_on)
            for r in conn.execute(
                select(
                    GAMES.c.id,
                    GAMES.c.black_name,
                    GAMES.c.white_name,
                    GAMES.c.event,
                    GAMES.c.played_on,
                )
            )
        }
    assert found == {
        "imp": ("Ann", "Bob", "Club", "2024-05-06"),
        "site": (None, None, None, "2025-12-01"),
    }


def test_the_migration_gives_existing_tournament_games_their_event(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    migrate(engine, "0020")
    row: dict[str, Any] = {
        "mode": "online",
        "status": "finished",
        "rules": {},
        "start_fen": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "ply": 0,
        "version": 1,
        "created_ms": 1_764_547_200_000,
        "updated_ms": 1_764_547_200_000,
    }
    tags = {"Event": "Division 1", "Black": "ann", "White": "bob"}
    with engine.begin() as conn:
        conn.execute(insert(GAMES).values(id="event", tags=tags, tournament_id="t1", **row))
        conn.execute(insert(GAMES).values(id="casual", tags=tags, **row))
    migrate(engine, "head")
    with engine.connect() as conn:
        found = {r.id: r.event for r in conn.execute(select(GAMES.c.id, GAMES.c.event))}
    assert found == {"event": "Division 1", "casual": None}  # only a tournament's games
