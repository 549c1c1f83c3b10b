"""The community tables on PostgreSQL: migration 0002 keeps every
game, one winner per seek and one rating update per game between two engines (as
two server processes have), and a rated game between two apps on one database."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select

from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.repository import DbUserStore
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import MOVES, RATING_UPDATES
from poolcheckers.server.games.model import NewGame
from poolcheckers.server.games.service import GameService
from poolcheckers.server.games.timecontrol import Category, Clock
from poolcheckers.server.lobby.model import LobbyPlayer, Seek, SeekSpec
from poolcheckers.server.lobby.repository import DbLobbyStore
from poolcheckers.server.ratings.model import LICHESS, RatedResult, compute_update
from poolcheckers.server.ratings.repository import DbRatingStore
from poolcheckers.server.ratings.service import MIN_RATED_PLIES
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import play_plies, server_context, state_of
from .test_migration_community import GAMES_0001, copy_0001_rows, make_games, migrate

pytestmark = pytest.mark.postgres
T = TypeVar("T")
PASSWORD = "correct horse battery"


def race(n: int, action: Callable[[int], T]) -> list[T | None]:
    barrier = threading.Barrier(n)
    results: list[T | None] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        results[i] = action(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_upgrade_from_0001_keeps_every_game_on_postgres(pg_url: str, tmp_path: Path) -> None:
    clock = ManualTime()
    made = make_engine(f"sqlite:///{tmp_path / 'made.sqlite3'}")
    run_migrations(made)
    source = GameService(made, clock, engine_available=lambda: True)
    tokens = make_games(source, clock)
    ids = [v if isinstance(v, str) else v[0] for v in tokens.values()]
    before = {gid: state_of(source, gid) for gid in ids}
    old = make_engine(pg_url)
    migrate(old, "0001")
    assert {c["name"] for c in inspect(old).get_columns("games")} == GAMES_0001
    copy_0001_rows(made, old)
    with old.connect() as conn:
        n_moves = len(conn.execute(select(MOVES.c.ply)).all())
    run_migrations(old)
    assert "rating_updates" in inspect(old).get_table_names()
    upgraded = GameService(old, clock, engine_available=lambda: True)
    assert {gid: state_of(upgraded, gid) for gid in ids} == before
    gid, t = tokens["local"]
    assert upgraded.move(gid, t, "8-11", 2)[0].state().ply == 3
    with old.connect() as conn:
        assert len(conn.execute(select(MOVES.c.ply)).all()) == n_moves + 1


def test_one_winner_per_seek_and_per_rating_between_engines(pg_url: str) -> None:
    engines = [make_engine(pg_url), make_engine(pg_url)]
    run_migrations(engines[0])
    users = DbUserStore(engines[0])
    for uid in ("a", "b"):
        assert users.add(User(uid, uid.upper(), uid, "$argon2id$x", 1.0))
    lobbies = [DbLobbyStore(e) for e in engines]
    lobbies[0].insert(Seek("s1", LobbyPlayer("a", "A"), SeekSpec(Clock(180, 2)), 1.0))
    taken = race(8, lambda i: lobbies[i % 2].take("s1"))
    assert sum(t is not None for t in taken) == 1

    service = GameService(engines[0], ManualTime())
    created, _, _ = service.creator.open(NewGame(mode="local"))
    gid = created.loaded.game.id
    ratings = [DbRatingStore(e) for e in engines]
    fresh = LICHESS.new_perf()
    updates = [
        compute_update(RatedResult(gid, Category.BLITZ, "a", "b", s, 10.0), fresh, fresh)
        for s in (1.0, 0.0, 0.5, 1.0, 0.0, 0.5)
    ]
    won = race(6, lambda i: ratings[i % 2].commit(updates[i]))
    assert won.count(True) == 1
    assert ratings[1].applied(gid) == updates[won.index(True)]
    assert ratings[0].perf("a", Category.BLITZ).games == 1


def test_rated_game_between_two_apps_is_rated_once(pg_app: AppFactory) -> None:
    clock = ManualTime()

    def app() -> TestClient:
        return pg_app(clock=clock, sweep_interval=0.05, password_parameters=CHEAPEST)

    with app() as one, app() as two:
        for client, name in ((one, "Ann"), (two, "Bob")):
            r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
            assert r.status_code == 200, r.text
            client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        body = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "black"}
        seek = one.post("/api/seeks", json=body).json()
        assert [s["id"] for s in two.get("/api/seeks").json()] == [seek["id"]]
        game = two.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
        assert one.get(f"/api/games/{game['id']}").json()["your_color"] == "black"
        play_plies(one, two, game["id"], MIN_RATED_PLIES)  # long enough to be rated
        assert two.post(f"/api/games/{game['id']}/resign", json={}).status_code == 200
        # both apps' sweeps run too (start-up): still one update
        for c in (one, two):
            server_context(c).ratings.sweep()
        db = server_context(one).db
        for _ in range(200):
            with db.connect() as conn:
                n = conn.execute(select(func.count()).select_from(RATING_UPDATES)).scalar_one()
            if n:
                break
            time.sleep(0.02)
        assert n == 1
        page = one.get("/api/users/bob").json()
        assert page["ratings"]["blitz"]["games"] == 1


def test_lobby_changes_and_game_starts_cross_processes(pg_app: AppFactory) -> None:
    """Ann watches the lobby on one server; Bob posts and takes seeks on another."""
    clock = ManualTime()

    def app() -> TestClient:
        return pg_app(clock=clock, sweep_interval=0.05, password_parameters=CHEAPEST)

    with app() as one, app() as two:
        for client, name in ((one, "Ann"), (two, "Bob")):
            r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
            client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        cookie = {"cookie": f"pc_session={one.cookies['pc_session']}"}
        with one.websocket_connect("/ws/lobby", headers=cookie) as ann_lobby:
            assert ann_lobby.receive_json() == {"type": "seeks", "seeks": []}
            bobs = two.post("/api/seeks", json={"clock": {"days": 2}}).json()
            added = ann_lobby.receive_json()
            assert added["type"] == "seek_added" and added["seek"]["id"] == bobs["id"]
            assert two.delete(f"/api/seeks/{bobs['id']}").status_code == 204
            gone = ann_lobby.receive_json()
            assert gone == {"type": "seek_removed", "id": bobs["id"], "reason": "cancelled"}
            anns = one.post("/api/seeks", json={"clock": {"initial": 300, "increment": 3}})
            assert ann_lobby.receive_json()["type"] == "seek_added"
            game = two.post(f"/api/seeks/{anns.json()['id']}/accept").json()["game"]
            got = [ann_lobby.receive_json(), ann_lobby.receive_json()]
            assert {"type": "game", "id": game["id"]} in got
            assert {"type": "seek_removed", "id": anns.json()["id"], "reason": "taken"} in got
