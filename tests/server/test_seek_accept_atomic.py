"""Taking a seek removes it and stores its game in one transaction:
a failure between the two leaves the seek open and no game; with two apps (two
processes) over one database, exactly one taker gets the game."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.database.tables import GAMES
from poolcheckers.server.games import creator as creator_module

from .conftest import AppFactory
from .helpers import server_context
from .test_lobby_api import BLITZ, post, signed_in


def game_count(client: TestClient) -> int:
    db = server_context(client).db
    with db.connect() as conn:
        count: int = conn.execute(select(func.count()).select_from(GAMES)).scalar_one()
    return count


def test_failed_game_insert_leaves_the_seek_open(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    failed_insert_leaves_the_seek_open(ann, bob, monkeypatch)


def failed_insert_leaves_the_seek_open(
    ann: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's insert fails after the seek's delete, in the same transaction (on
    PostgreSQL, the same statement): the seek stays open, no game is stored."""
    first = post(ann)
    r = bob.post(f"/api/seeks/{first['id']}/accept")
    assert r.status_code == 200, r.text
    taken_id = r.json()["game"]["id"]
    seek = post(ann)
    # the game's insert fails after the seek's delete, in the same transaction
    monkeypatch.setattr(creator_module, "new_game_id", lambda: taken_id)
    with pytest.raises(IntegrityError):  # the test client re-raises the 500
        bob.post(f"/api/seeks/{seek['id']}/accept")
    assert [s["id"] for s in bob.get("/api/seeks").json()] == [seek["id"]]
    assert game_count(bob) == 1
    monkeypatch.undo()
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    assert bob.get("/api/seeks").json() == [] and game_count(bob) == 2


def account(app: TestClient, name: str) -> TestClient:
    """A new device signed up as ``name`` on the server (process) of ``app``."""
    return signed_in(lambda **_kw: TestClient(app.app), name)


def race_takers(one: TestClient, two: TestClient) -> None:
    """Six players, half on each app, take Ann's seek at once: one game, one winner."""
    ann = account(one, "Ann")
    takers = [account(one if i % 2 else two, f"Taker{i}") for i in range(6)]
    seek = post(ann, BLITZ)
    answers: list[Any] = [None] * len(takers)
    barrier = threading.Barrier(len(takers))

    def take(i: int) -> None:
        barrier.wait()
        answers[i] = takers[i].post(f"/api/seeks/{seek['id']}/accept").status_code

    threads = [threading.Thread(target=take, args=(i,)) for i in range(len(takers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200] + [404] * (len(takers) - 1)
    assert game_count(ann) == 1 and ann.get("/api/seeks").json() == []


def test_one_taker_wins_across_two_apps(make_client: AppFactory) -> None:
    # seven sign-ups from one address: the sign-up limit is one for both servers
    race_takers(
        make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0)),
        make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0)),
    )


@pytest.mark.postgres
def test_one_taker_wins_across_two_apps_on_postgres(pg_app: AppFactory) -> None:
    def app() -> TestClient:
        return pg_app(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))

    with app() as one, app() as two:
        race_takers(one, two)


@pytest.mark.postgres
def test_failed_game_insert_leaves_the_seek_open_on_postgres(
    pg_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pg_app(password_parameters=CHEAPEST) as one, pg_app(password_parameters=CHEAPEST) as two:
        failed_insert_leaves_the_seek_open(account(one, "Ann"), account(two, "Bob"), monkeypatch)
