"""How many games one client may start: a script cannot create anonymous games by the
hundred, one client's engine games cannot crowd out everyone else's, and an import is
counted by the games it stores.  Every count is the database's, so two server
processes over one database enforce one limit."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from poolcheckers.engine import native_available
from poolcheckers.server.games.admission import ENGINE_GAME_IDLE_S
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code, move

engine_only = pytest.mark.skipif(not native_available(), reason="needs the native core")


def create(client: TestClient, **body: Any) -> Any:
    return client.post("/api/games", json=body or {"mode": "local"})


def engine_game(client: TestClient) -> Any:
    # the player has black and moves first (R3): the engine waits, and costs nothing here
    return create(client, mode="engine", level=1, color="black")


def test_one_address_cannot_create_games_without_end(make_client: AppFactory) -> None:
    client = make_client(games_per_minute=5)
    for _ in range(5):
        assert create(client).status_code == 200
    refused = create(client, mode="online", color="white")
    assert refused.status_code == 429 and error_code(refused) == "rate_limited"
    assert "5 new games a minute" in refused.json()["error"]["message"]
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert len(client.get("/api/games").json()["games"]) == 5  # nothing stored


def test_the_game_limit_lapses_after_a_minute(make_client: AppFactory, clock: ManualTime) -> None:
    client = make_client(games_per_minute=2)
    assert create(client).status_code == 200
    assert create(client).status_code == 200
    assert create(client).status_code == 429
    clock.advance(121)
    assert create(client).status_code == 200


def test_two_server_processes_share_the_game_limit(make_client: AppFactory) -> None:
    # two apps over one database file are two server processes of one site
    first = make_client(games_per_minute=4)
    second = make_client(games_per_minute=4)
    for client in (first, second, first, second):
        assert create(client).status_code == 200
    assert create(first).status_code == 429
    assert create(second).status_code == 429


@engine_only
def test_a_client_has_a_few_engine_games_in_play_not_sixty(make_client: AppFactory) -> None:
    client = make_client(engine_games_at_once=2)
    games = [engine_game(client) for _ in range(2)]
    assert all(r.status_code == 200 for r in games)
    refused = engine_game(client)
    assert refused.status_code == 429 and error_code(refused) == "rate_limited"
    assert "2 engine games in play at once" in refused.json()["error"]["message"]
    # other games are still open to the same client
    assert create(client, mode="online", color="black").status_code == 200
    # resigning one frees its place at once
    first = games[0].json()
    r = client.post(f"/api/games/{first['game']['id']}/resign", json={"token": first["token"]})
    assert r.status_code == 200, r.text
    assert engine_game(client).status_code == 200


@engine_only
def test_an_engine_game_left_alone_stops_counting(
    make_client: AppFactory, clock: ManualTime
) -> None:
    client = make_client(engine_games_at_once=1)
    played = engine_game(client).json()
    assert engine_game(client).status_code == 429
    # a move keeps the game in play for another idle period
    clock.advance(ENGINE_GAME_IDLE_S - 60)
    assert move(client, played["game"]["id"], played["token"], "11-15", 0).status_code == 200
    clock.advance(120)
    assert engine_game(client).status_code == 429
    clock.advance(ENGINE_GAME_IDLE_S)  # nothing since: the tab was closed
    assert engine_game(client).status_code == 200


@engine_only
def test_engine_games_are_limited_per_minute_even_when_resigned(
    make_client: AppFactory, clock: ManualTime
) -> None:
    client = make_client(engine_games_per_minute=3, engine_games_at_once=10)
    for _ in range(3):
        created = engine_game(client).json()
        gid, token = created["game"]["id"], created["token"]
        assert client.post(f"/api/games/{gid}/resign", json={"token": token}).status_code == 200
    refused = engine_game(client)
    assert refused.status_code == 429
    assert "3 engine games a minute" in refused.json()["error"]["message"]
    clock.advance(121)
    assert engine_game(client).status_code == 200


@engine_only
def test_an_engine_rematch_counts_as_a_new_engine_game(make_client: AppFactory) -> None:
    client = make_client(engine_games_at_once=2)
    first = engine_game(client).json()
    assert engine_game(client).status_code == 200
    gid, token = first["game"]["id"], first["token"]
    assert client.post(f"/api/games/{gid}/resign", json={"token": token}).status_code == 200
    r = client.post(f"/api/games/{gid}/rematch", json={"token": token})
    assert r.status_code == 200, r.text  # the resigned game's place went to its rematch
    assert r.json()["rematch_game"]
    # two in play again: a rematch of the other's predecessor is refused, and stored nothing
    again = client.post(f"/api/games/{gid}/rematch", json={"token": token})
    assert again.status_code == 200  # the same rematch, asked twice, is not a new game
    assert engine_game(client).status_code == 429


@engine_only
def test_a_signed_in_player_is_one_client_whatever_the_address(
    make_client: AppFactory,
) -> None:
    client = make_client(engine_games_at_once=1)
    r = client.post(
        "/api/account/signup", json={"username": "Ann", "password": "correct horse battery"}
    )
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    assert engine_game(client).status_code == 200
    assert engine_game(client).status_code == 429
    client.post("/api/account/logout")
    client.headers.pop("X-CSRF-Token")
    # signed out, the address is another client with its own place
    assert engine_game(client).status_code == 200


def pdn_games(count: int, event: str) -> bytes:
    return "".join(
        f'[Event "{event}"]\n[Round "{i}"]\n\n1. 11-15 23-19 *\n\n' for i in range(count)
    ).encode()


def test_imports_are_counted_by_games_so_editing_a_tag_does_not_help(
    make_client: AppFactory, clock: ManualTime
) -> None:
    client = make_client(imported_games_per_hour=10)
    r = client.post("/api/import", content=pdn_games(6, "Club night"))
    assert r.status_code == 200 and len(r.json()["imported"]) == 6
    # the same games with one tag changed are new to the duplicate check, not to the limit
    refused = client.post("/api/import", content=pdn_games(6, "Club night, edited"))
    assert refused.status_code == 429 and error_code(refused) == "rate_limited"
    assert "10 imported games an hour" in refused.json()["error"]["message"]
    assert len(client.get("/api/games").json()["games"]) == 6  # nothing of it stored
    assert client.post("/api/import", content=pdn_games(4, "Small")).status_code == 200
    clock.advance(2 * 3600)
    assert client.post("/api/import", content=pdn_games(6, "Next day")).status_code == 200


def test_an_import_larger_than_the_hourly_limit_is_told_to_split(
    make_client: AppFactory,
) -> None:
    client = make_client(imported_games_per_hour=3, import_max_games=50)
    r = client.post("/api/import", content=pdn_games(4, "Big"))
    assert r.status_code == 413 and error_code(r) == "too_large"
    assert "split the file" in r.json()["error"]["message"]


def test_an_imported_game_with_thousands_of_tags_is_refused_by_itself(
    client: TestClient,
) -> None:
    flood = "".join(f'[Tag{i} "v"]\n' for i in range(2000))
    huge = f'[Event "{"x" * 5000}"]\n'
    text = f'{flood}\n1. 11-15 *\n\n{huge}\n1. 9-13 *\n\n[Event "Fine"]\n\n1. 10-14 *\n'
    r = client.post("/api/import", content=text.encode())
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["imported"]) == 1
    messages = {e["game"]: e["message"] for e in body["errors"]}
    assert "2000 tags; at most 64" in messages[1]
    assert "tag Event has 5000 characters; at most 256" in messages[2]
    (gid,) = body["imported"]
    assert client.get(f"/api/games/{gid}").json()["tags"]["Event"] == "Fine"


@pytest.mark.postgres
@engine_only
def test_two_servers_over_postgres_share_the_creation_limits(pg_app: AppFactory) -> None:
    def app() -> TestClient:
        return pg_app(games_per_minute=5, engine_games_at_once=2)

    with app() as one, app() as two:
        assert engine_game(one).status_code == 200
        assert engine_game(two).status_code == 200
        assert engine_game(one).status_code == 429  # two in play from this address already
        for client in (one, two, one):
            assert create(client).status_code == 200
        assert create(two).status_code == 429  # five games this minute on the two servers
