"""Ratings cannot be farmed: a game ended before both sides moved is aborted, a
result reached in too few plies counts nothing, and two accounts get only so many
rated games against each other a day."""

from __future__ import annotations

import time

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers.server.games.timecontrol import Category

from ..conftest import AppFactory
from ..helpers import play_plies, server_context
from ..test_ratings_api import BLITZ, signed_in


def pair(make_client: AppFactory, **settings: object) -> tuple[TestClient, TestClient]:
    ann = signed_in(make_client(password_parameters=CHEAPEST, **settings), "Ann")
    return ann, signed_in(TestClient(ann.app), "Bob")


def start(ann: TestClient, bob: TestClient) -> dict[str, object]:
    """A game from Ann's rated seek, taken by Bob: its state (Ann is Black)."""
    seek = ann.post("/api/seeks", json=BLITZ).json()
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    game: dict[str, object] = r.json()["game"]
    return game


def rating(client: TestClient, name: str) -> float:
    services = server_context(client)
    user = services.accounts.users.by_key(name.lower())
    assert user is not None
    perf = services.ratings.store.perf(user.id, Category.BLITZ)
    return 1500.0 if perf is None else perf.glicko.rating


def settle(client: TestClient) -> None:
    """Let the rating tasks of finished games run."""
    time.sleep(0.3)
    server_context(client).ratings.sweep()


def test_resigning_at_once_aborts_and_rates_nothing(make_client: AppFactory) -> None:
    ann, bob = pair(make_client, rated_games_per_pair_per_day=100)  # every game rated
    for _ in range(25):  # the farm: 25 rated games lost by resigning at once
        gid = start(ann, bob)["id"]
        r = bob.post(f"/api/games/{gid}/resign", json={})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "aborted"
        assert r.json()["outcome"]["result"] == "*"
    settle(ann)
    assert rating(ann, "Ann") == rating(ann, "Bob") == 1500.0


def test_a_draw_agreed_before_both_moved_is_aborted(make_client: AppFactory) -> None:
    ann, bob = pair(make_client)
    gid = start(ann, bob)["id"]
    assert ann.post(f"/api/games/{gid}/draw-offer", json={}).status_code == 200
    r = bob.post(f"/api/games/{gid}/draw-accept", json={})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "aborted"


def test_a_result_in_fewer_plies_than_the_minimum_is_not_rated(make_client: AppFactory) -> None:
    ann, bob = pair(make_client, min_rated_plies=10)
    gid = str(start(ann, bob)["id"])
    play_plies(ann, bob, gid, 4)
    r = bob.post(f"/api/games/{gid}/resign", json={})
    assert r.json()["status"] == "finished" and r.json()["outcome"]["result"] == "2-0"
    settle(ann)
    assert rating(ann, "Ann") == 1500.0
    assert server_context(ann).ratings.store.applied(gid) is None


def test_a_game_that_lasts_the_minimum_is_rated(make_client: AppFactory) -> None:
    ann, bob = pair(make_client, min_rated_plies=10)
    gid = str(start(ann, bob)["id"])
    play_plies(ann, bob, gid, 10)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    settle(ann)
    assert rating(ann, "Ann") > 1500.0 > rating(ann, "Bob")


def test_rated_games_between_two_players_are_limited_per_day(make_client: AppFactory) -> None:
    limited_per_day(*pair(make_client, rated_games_per_pair_per_day=3))


@pytest.mark.postgres
def test_rated_games_between_two_players_are_limited_per_day_on_postgres(
    pg_app: AppFactory,
) -> None:
    """As on SQLite (the count is read with the seek there, in one statement)."""
    settings = {"rated_games_per_pair_per_day": 3, "password_parameters": CHEAPEST}
    with pg_app(**settings) as app:
        ann = signed_in(TestClient(app.app), "Ann")
        limited_per_day(ann, signed_in(TestClient(app.app), "Bob"))


def limited_per_day(ann: TestClient, bob: TestClient) -> None:
    games = server_context(ann).games

    def rated() -> bool:
        return games.loaded(str(start(ann, bob)["id"])).game.rated

    assert [rated() for _ in range(5)] == [True, True, True, False, False]
    server_context(ann).settings.clock.advance(24 * 3600 + 1)  # type: ignore[attr-defined]
    assert rated()
