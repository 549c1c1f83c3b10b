"""Ratings of finished games: a rated game's result changes both
Glicko-2 ratings exactly once, under racing finishes, repeated calls and a restart;
casual games are not rated."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select

from poolcheckers import Board
from poolcheckers.server.database.tables import RATING_UPDATES, RATINGS
from poolcheckers.server.games.timecontrol import Category
from poolcheckers.server.ratings.service import MIN_RATED_PLIES

from .conftest import AppFactory
from .helpers import play_plies, server_context

PASSWORD = "correct horse battery"
BLITZ = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "black"}


def signed_in(client: TestClient, name: str) -> TestClient:
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def rated_game(
    make_client: AppFactory, body: dict[str, Any] = BLITZ
) -> tuple[TestClient, TestClient, str]:
    """Ann (black) and Bob (white) in a game from Ann's seek, played long enough for its
    result to be rated: (ann, bob, game id)."""
    ann = signed_in(make_client(password_parameters=CHEAPEST), "Ann")
    bob = signed_in(TestClient(ann.app), "Bob")
    seek = ann.post("/api/seeks", json=body).json()
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    gid: str = r.json()["game"]["id"]
    play_plies(ann, bob, gid, MIN_RATED_PLIES)
    return ann, bob, gid


def user_id(client: TestClient, name: str) -> str:
    user = server_context(client).accounts.users.by_key(name.lower())
    assert user is not None
    return user.id


def wait_for_update(client: TestClient, gid: str) -> None:
    """The rating is applied by a task after the finishing commit: wait for it."""
    for _ in range(200):
        if server_context(client).ratings.store.applied(gid) is not None:
            return
        time.sleep(0.02)
    raise AssertionError(f"game {gid} was never rated")


def count_updates(client: TestClient) -> int:
    with server_context(client).ratings.store.db.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(RATING_UPDATES)).scalar_one())


def test_a_rated_game_changes_both_ratings_once(make_client: AppFactory) -> None:
    ann, bob, gid = rated_game(make_client)
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    ratings = server_context(ann).ratings.store
    a = ratings.perf(user_id(ann, "Ann"), Category.BLITZ)
    b = ratings.perf(user_id(ann, "Bob"), Category.BLITZ)
    assert a.games == b.games == 1
    assert a.glicko.rating > 1500 > b.glicko.rating  # Ann won (R20 resignation)
    update = ratings.applied(gid)
    assert update is not None and update.black_after == a and update.white_after == b
    # applying it again changes nothing
    game = server_context(ann).games.loaded(gid).game
    assert server_context(ann).ratings.rate(game) == update
    assert server_context(ann).ratings.sweep() == 0
    assert ratings.perf(user_id(ann, "Ann"), Category.BLITZ) == a
    assert count_updates(ann) == 1


def test_racing_rating_calls_apply_one_update(make_client: AppFactory) -> None:
    ann, _bob, gid = rated_game(make_client)
    assert ann.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    game = server_context(ann).games.loaded(gid).game
    c = server_context(ann).ratings
    barrier = threading.Barrier(6)
    results: list[Any] = [None] * 6

    def rate(i: int) -> None:
        barrier.wait()
        results[i] = c.rate(game)

    threads = [threading.Thread(target=rate, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_for_update(ann, gid)
    assert all(r == results[0] for r in results) and results[0] is not None
    assert c.store.perf(user_id(ann, "Bob"), Category.BLITZ).games == 1
    assert count_updates(ann) == 1


def test_a_restart_rates_a_game_whose_rating_was_lost(make_client: AppFactory, db_url: str) -> None:
    """A crash between the game's commit and the rating's: the next start rates it."""
    ann, _bob, gid = rated_game(make_client)
    assert ann.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    with server_context(ann).ratings.store.db.begin() as conn:  # as if the rating never happened
        conn.execute(delete(RATING_UPDATES))
        conn.execute(delete(RATINGS))
    restarted = make_client(password_parameters=CHEAPEST)
    wait_for_update(restarted, gid)
    again = make_client(password_parameters=CHEAPEST)  # and once more: nothing new
    assert server_context(again).ratings.sweep() == 0
    assert count_updates(again) == 1
    bob_perf = server_context(again).ratings.store.perf(user_id(again, "Bob"), Category.BLITZ)
    assert bob_perf.games == 1


def test_casual_games_are_not_rated(make_client: AppFactory) -> None:
    ann, _bob, gid = rated_game(make_client, {**BLITZ, "rated": False})
    assert ann.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    game = server_context(ann).games.loaded(gid).game
    assert server_context(ann).ratings.rate(game) is None
    assert count_updates(ann) == 0


def test_names_ratings_and_rating_changes_in_the_pdn_tags(make_client: AppFactory) -> None:
    """``Black``, ``White``, ``BlackElo``, ``WhiteElo``,
    ``TimeControl``, and after the rating ``BlackRatingDiff`` / ``WhiteRatingDiff``."""
    ann, bob, gid = rated_game(make_client)
    tags = ann.get(f"/api/games/{gid}").json()["tags"]
    assert tags == {
        "Black": "Ann",
        "White": "Bob",
        "BlackElo": "1500",
        "WhiteElo": "1500",
        "TimeControl": "180+2",
    }
    assert bob.post(f"/api/games/{gid}/resign", json={}).status_code == 200
    wait_for_update(ann, gid)
    update = server_context(ann).ratings.store.applied(gid)
    assert update is not None
    for _ in range(200):  # written by the rating's own commit, just after it
        tags = ann.get(f"/api/games/{gid}").json()["tags"]
        if "BlackRatingDiff" in tags:
            break
        time.sleep(0.02)
    assert tags["BlackRatingDiff"] == f"{update.black_diff:+d}" and update.black_diff > 0
    assert tags["WhiteRatingDiff"] == f"{update.white_diff:+d}" and update.white_diff < 0
    pdn = ann.get(f"/api/games/{gid}/pdn").text
    for line in (
        '[Black "Ann"]',
        '[White "Bob"]',
        '[BlackElo "1500"]',
        '[TimeControl "180+2"]',
        f'[WhiteRatingDiff "{update.white_diff:+d}"]',
        '[Result "2-0"]',
        "[Event ",
    ):
        assert line in pdn, line  # fmt: skip


def test_racing_finishes_rate_the_game_once(make_client: AppFactory) -> None:
    """Resign v resign v last move, at once: one of them ends the game, and the
    ratings change once, by its result."""
    from poolcheckers.server.errors import ApiError

    ann, _bob, gid = rated_game(make_client)
    board = Board()
    for _ in range(MIN_RATED_PLIES):  # the plies rated_game played
        board.push(board.legal_moves[0])
    last = str(board.legal_moves[0])
    service = server_context(ann).games
    a, b = user_id(ann, "Ann"), user_id(ann, "Bob")
    finishes: list[Callable[[], object]] = [
        lambda: service.act(gid, "resign", None, a),
        lambda: service.act(gid, "resign", None, b),
        lambda: service.move(gid, None, last, MIN_RATED_PLIES, a),
    ]
    barrier = threading.Barrier(len(finishes))

    def run(i: int) -> None:
        barrier.wait()
        with contextlib.suppress(ApiError):  # over already (R20): another finish won
            finishes[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(finishes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = ann.get(f"/api/games/{gid}").json()
    assert state["status"] == "finished"
    wait_for_update(ann, gid)
    assert count_updates(ann) == 1
    update = server_context(ann).ratings.store.applied(gid)
    assert update is not None
    ann_won = state["outcome"]["winner"] == "black"
    assert (update.black_after.glicko.rating > 1500) == ann_won
    for uid in (a, b):
        assert server_context(ann).ratings.store.perf(uid, Category.BLITZ).games == 1
