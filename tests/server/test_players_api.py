"""Player pages and leaderboards: ratings per category and the
player's games, filtered and paginated; no secret and no account id in them."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from poolcheckers.engine import native_available
from poolcheckers.server.database.tables import RATINGS
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import error_code, play_plies, server_context
from .test_ratings_api import BLITZ, rated_game, user_id, wait_for_update


def test_player_page_has_ratings_and_games(make_client: AppFactory) -> None:
    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    visitor = TestClient(ann.app)
    r = visitor.get("/api/users/ANN")  # any spelling of the name
    assert r.status_code == 200, r.text
    page = r.json()
    assert page["username"] == "Ann"
    blitz = page["ratings"]["blitz"]
    assert blitz["games"] == 1 and blitz["rating"] > 1500 and blitz["provisional"]
    [game] = page["games"]
    assert game["id"] == gid and game["black"] == "Ann" and game["white"] == "Bob"
    assert game["result"] == "2-0" and game["player_result"] == "win" and game["rated"]
    assert game["black_rating"] == game["white_rating"] == 1500
    bob_page = visitor.get("/api/users/bob").json()
    assert bob_page["games"][0]["player_result"] == "loss"
    text = r.text + visitor.get("/api/users/bob").text
    for secret in (user_id(ann, "Ann"), user_id(ann, "Bob"), "argon2", "token"):
        assert secret not in text


def test_player_games_filter_and_paginate(make_client: AppFactory, clock: ManualTime) -> None:
    ann, bob, first = rated_game(make_client)
    assert bob.post(f"/api/games/{first}/resign", json={}).status_code == 200
    clock.advance(60)
    seek = bob.post("/api/seeks", json={"clock": None, "color": "white"}).json()
    second = ann.post(f"/api/seeks/{seek['id']}/accept").json()["game"]["id"]
    play_plies(ann, bob, second, 2)  # a game resigned before both sides moved is aborted
    assert ann.post(f"/api/games/{second}/resign", json={}).status_code == 200

    def ids(query: str) -> list[str]:
        r = ann.get(f"/api/users/Ann{query}")
        assert r.status_code == 200, r.text
        return [g["id"] for g in r.json()["games"]]

    assert ids("") == [second, first]  # newest first
    assert ids("?result=win") == [first] and ids("?result=loss") == [second]
    assert ids("?result=draw") == []
    assert ids("?category=blitz") == [first] and ids("?rated=false") == [second]
    assert ids("?limit=1") == [second] and ids("?limit=1&offset=1") == [first]
    # the total counts every game the filters match, not only the page
    assert ann.get("/api/users/Ann?limit=1").json()["total"] == 2
    assert ann.get("/api/users/Ann?limit=1&offset=1&category=blitz").json()["total"] == 1
    assert ann.get("/api/users/Ann?result=draw").json()["total"] == 0
    r = ann.get("/api/users/Ann?result=maybe")
    assert r.status_code == 400


def test_unknown_player_is_404(client: TestClient) -> None:
    for name in ("nobody", "<script>", "a" * 300):
        r = client.get(f"/api/users/{name}")
        assert r.status_code == 404 and error_code(r) == "not_found"


def test_leaderboard_ranks_settled_ratings(make_client: AppFactory) -> None:
    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    assert ann.get("/api/leaderboard/blitz").json() == []  # one game: RD far above 75
    # who is on the way, and about how many more rated games settle each rating
    waiting = ann.get("/api/leaderboard/blitz/waiting").json()
    assert {w["username"] for w in waiting} == {"Ann", "Bob"}
    assert all(w["games"] == 1 and 5 < w["more_games"] < 40 for w in waiting)
    assert ann.get("/api/leaderboard/rapid/waiting").json() == []
    # Ann as a long-standing player: many games would have settled her RD
    with server_context(ann).ratings.store.db.begin() as conn:
        conn.execute(
            update(RATINGS)
            .where(RATINGS.c.user_id == user_id(ann, "Ann"))
            .values(rating=1712.4, deviation=60.0, games=2)
        )
    board = ann.get("/api/leaderboard/blitz").json()
    assert board == [{"rank": 1, "username": "Ann", "rating": 1712, "rd": 60, "games": 2}]
    assert [w["username"] for w in ann.get("/api/leaderboard/blitz/waiting").json()] == ["Bob"]
    r = ann.get("/api/leaderboard/hyperbullet")
    assert r.status_code == 400


def test_head_to_head_and_rating_history_plot(make_client: AppFactory, clock: ManualTime) -> None:
    ann, bob, first = rated_game(make_client)
    assert bob.post(f"/api/games/{first}/resign", json={}).status_code == 200
    clock.advance(60)
    seek = bob.post("/api/seeks", json={"clock": None, "color": "white"}).json()
    second = ann.post(f"/api/seeks/{seek['id']}/accept").json()["game"]["id"]
    play_plies(ann, bob, second, 2)  # a game resigned before both sides moved is aborted
    assert ann.post(f"/api/games/{second}/resign", json={}).status_code == 200
    wait_for_update(ann, first)
    r = ann.get("/api/users/bob/head-to-head")
    assert r.status_code == 200, r.text
    assert r.json() == [{"opponent": "Ann", "wins": 1, "draws": 0, "losses": 1}]
    plot = ann.get("/api/users/Ann/rating-history.svg")
    assert plot.status_code == 200 and plot.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in plot.text and "blitz" in plot.text and "Ann" in plot.text
    assert ann.get("/api/users/Ann/rating-history.svg").text == plot.text  # one drawing
    empty = ann.get("/api/users/nobody/rating-history.svg")
    assert empty.status_code == 404 and error_code(empty) == "not_found"


def test_player_page_lists_current_games(make_client: AppFactory, clock: ManualTime) -> None:
    ann, bob, first = rated_game(make_client)
    clock.advance(60)
    seek = bob.post("/api/seeks", json={"clock": None, "color": "white"}).json()
    second = ann.post(f"/api/seeks/{seek['id']}/accept").json()["game"]["id"]
    play_plies(ann, bob, second, 2)  # a game resigned before both sides moved is aborted
    assert ann.post(f"/api/games/{second}/resign", json={}).status_code == 200
    page = TestClient(ann.app).get("/api/users/Ann?result=loss").json()
    # running games come whatever the filters of the games list
    [running] = page["current"]
    assert running["id"] == first and running["status"] == "running"
    assert running["black"] == "Ann" and running["white"] == "Bob"
    assert running["player_result"] is None
    assert [g["id"] for g in page["games"]] == [second] and page["total"] == 1
    assert bob.post(f"/api/games/{first}/resign", json={}).status_code == 200
    assert TestClient(ann.app).get("/api/users/Ann").json()["current"] == []


def test_a_rated_games_page_says_its_kind_and_the_rating_change(make_client: AppFactory) -> None:
    ann, bob, gid = rated_game(make_client)
    state = ann.get(f"/api/games/{gid}").json()
    assert state["rated"] is True and state["category"] == "blitz"
    assert ann.get(f"/api/games/{gid}/rating-change").status_code == 404  # not over yet
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    change = ann.get(f"/api/games/{gid}/rating-change").json()
    assert change["category"] == "blitz"
    assert change["black"]["before"] == change["white"]["before"] == 1500
    assert change["black"]["diff"] == change["black"]["after"] - 1500 > 0
    assert change["white"]["diff"] == change["white"]["after"] - 1500 < 0
    local = ann.post("/api/games", json={"mode": "local"}).json()["game"]
    assert local["rated"] is False and local["category"] is None
    assert ann.get(f"/api/games/{local['id']}/rating-change").status_code == 404


def test_player_page_statistics_per_category_and_chart_ranges(make_client: AppFactory) -> None:
    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    stats = ann.get("/api/users/Ann").json()["stats"]
    best = ann.get("/api/users/Ann").json()["ratings"]["blitz"]["rating"]
    assert stats == {"blitz": {"games": 1, "wins": 1, "draws": 0, "losses": 0, "best": best}}
    bob_page = ann.get("/api/users/Bob").json()
    bob_stats = bob_page["stats"]["blitz"]
    now = bob_page["ratings"]["blitz"]["rating"]
    assert (bob_stats["games"], bob_stats["losses"], bob_stats["best"]) == (1, 1, now)
    # the chart over a time range, and drawn for a phone
    for query in ("range=month", "range=year&size=phone", "range=all&size=wide"):
        plot = ann.get(f"/api/users/Ann/rating-history.svg?{query}")
        assert plot.status_code == 200 and "<svg" in plot.text, query
    wide = ann.get("/api/users/Ann/rating-history.svg").text
    phone = ann.get("/api/users/Ann/rating-history.svg?size=phone").text
    assert 'width="576pt"' in wide and 'width="302.4pt"' in phone  # 8 in and 4.2 in
    assert ann.get("/api/users/Ann/rating-history.svg?range=week").status_code in (400, 422)
    # the time axis fits the data: one game today spans hours, not the default years
    assert re.search(r"<!-- \d\d \d\d:\d\d -->", wide), "hour ticks"


def test_a_players_record_counts_the_games_of_the_rating_and_no_other(
    make_client: AppFactory,
) -> None:
    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    # a rated game Ann resigns after two plies: too short to be rated, so not a loss
    # of her rating's either
    seek = ann.post("/api/seeks", json=BLITZ).json()
    short = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]["id"]
    play_plies(ann, bob, short, 2)
    assert ann.post(f"/api/games/{short}/resign", json={}).status_code == 200
    state = ann.get(f"/api/games/{short}").json()
    assert state["rated"] is True and state["outcome"]["winner"] == "white"
    server_context(ann).ratings.sweep()  # whatever a sweep would rate is rated now
    page = ann.get("/api/users/Ann").json()
    record = page["stats"]["blitz"]
    assert page["ratings"]["blitz"]["games"] == record["games"] == 1
    assert (record["wins"], record["draws"], record["losses"]) == (1, 0, 0)
    assert page["total"] == 2  # both games are still in her list of games


def test_a_game_against_the_engine_names_it_with_its_level_on_the_player_page(
    make_client: AppFactory,
) -> None:
    if not native_available():
        pytest.skip("needs the native core")
    ann, _, between = rated_game(make_client)
    body = {"mode": "engine", "level": 6, "color": "black"}
    gid = ann.post("/api/games", json=body).json()["game"]["id"]
    current = {g["id"]: g for g in TestClient(ann.app).get("/api/users/Ann").json()["current"]}
    engine = current[gid]
    assert (engine["black"], engine["white"]) == ("Ann", "Engine")
    assert engine["level"] == 6  # shown "Engine (level 6)", in the reader's language
    assert current[between]["level"] is None  # a game between two players has none
