"""Direct challenges over HTTP and the lobby socket: sent to a named player, seen
live, accepted (the game starts for both, once, even with two processes racing),
declined with a reason, cancelled, expired; blocking stops them."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from poolcheckers.server.challenges.model import MAX_OPEN
from poolcheckers.server.database.tables import GAMES
from poolcheckers.server.timesource import ManualTime

from ..conftest import AppFactory
from ..helpers import error_code, server_context
from ..tournaments.test_tournament_api import sign_up

BLITZ: dict[str, Any] = {"clock": {"initial": 180, "increment": 2}, "rated": True}


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return make_client(password_parameters=CHEAPEST)


def challenge(client: TestClient, username: str, **body: Any) -> Any:
    r = client.post("/api/challenges", json={"username": username, **BLITZ, **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_challenge_is_seen_live_and_accepted_the_game_starts_for_both(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    with bob.websocket_connect("/ws/lobby") as bob_ws, ann.websocket_connect("/ws/lobby") as ann_ws:
        assert json.loads(bob_ws.receive_text())["type"] == "seeks"
        assert json.loads(ann_ws.receive_text())["type"] == "seeks"
        sent = challenge(ann, "BOB", color="black")
        heard = json.loads(bob_ws.receive_text())
        assert heard["type"] == "challenge" and heard["challenge"]["challenger"] == "ann"
        listed = bob.get("/api/challenges").json()
        assert [c["id"] for c in listed["in"]] == [sent["id"]] and listed["out"] == []
        r = bob.post(f"/api/challenges/{sent['id']}/accept")
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        # the challenge (its author hears it too), its acceptance, then the game
        messages = [json.loads(ann_ws.receive_text()) for _ in range(3)]
        assert {"type": "game", "id": game["id"]} in messages
    state = ann.get(f"/api/games/{game['id']}").json()
    assert state["your_color"] == "black"  # the challenger asked for Black
    assert bob.get(f"/api/games/{game['id']}").json()["your_color"] == "white"
    again = bob.post(f"/api/challenges/{sent['id']}/accept")
    assert error_code(again) == "conflict"  # answered once


def test_a_declined_challenge_tells_its_author_why(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    sent = challenge(ann, "bob")
    r = bob.post(f"/api/challenges/{sent['id']}/decline", json={"reason": "too_fast"})
    assert r.status_code == 200, r.text
    out = ann.get("/api/challenges").json()["out"][0]
    assert out["status"] == "declined" and "too fast" in out["reason"]
    bad = bob.post(f"/api/challenges/{challenge(ann, 'bob')['id']}/decline", json={"reason": "x"})
    assert error_code(bad) == "bad_request" and "too_fast" in bad.json()["error"]["message"]


def test_only_the_challenged_accepts_and_only_the_author_cancels(site: TestClient) -> None:
    ann, bob, cid = sign_up(site, "ann"), sign_up(site, "bob"), sign_up(site, "cid")
    sent = challenge(ann, "bob")
    assert error_code(cid.post(f"/api/challenges/{sent['id']}/accept")) == "forbidden"
    assert error_code(bob.post(f"/api/challenges/{sent['id']}/cancel")) == "forbidden"
    assert ann.post(f"/api/challenges/{sent['id']}/cancel").status_code == 200
    assert error_code(bob.post(f"/api/challenges/{sent['id']}/accept")) == "conflict"


def test_a_challenge_expires(site: TestClient, clock: ManualTime) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    sent = challenge(ann, "bob")
    clock.advance(11 * 60)
    r = bob.post(f"/api/challenges/{sent['id']}/accept")
    assert error_code(r) == "conflict" and "expired" in r.json()["error"]["message"]


def test_blocking_a_player_stops_their_challenges(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    waiting = challenge(ann, "bob")
    assert bob.post("/api/blocks", json={"username": "ann"}).json() == ["ann"]
    r = ann.post("/api/challenges", json={"username": "bob", **BLITZ})
    assert error_code(r) == "forbidden"
    assert error_code(bob.post(f"/api/challenges/{waiting['id']}/accept")) == "conflict"
    assert bob.delete("/api/blocks/ann").json() == []
    challenge(ann, "bob")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"username": "ann"}, "bad_request"),  # oneself
        ({"username": "nobody"}, "not_found"),
        ({"username": "bob", "rated": True, "clock": None}, "bad_request"),
    ],
)
def test_a_bad_challenge_is_refused(site: TestClient, body: dict[str, Any], code: str) -> None:
    ann = sign_up(site, "ann")
    sign_up(site, "bob")
    r = ann.post("/api/challenges", json={**BLITZ, **body})
    assert error_code(r) == code


def test_two_processes_accepting_at_once_start_one_game(make_client: AppFactory) -> None:
    one = make_client(password_parameters=CHEAPEST)
    two = make_client(password_parameters=CHEAPEST)
    ann, bob = sign_up(one, "ann"), sign_up(two, "bob")
    bob_too = TestClient(one.app, cookies=bob.cookies, headers=dict(bob.headers))
    sent = challenge(ann, "bob")
    answers: list[int] = []
    start = threading.Barrier(6)

    def take(client: TestClient) -> None:
        start.wait()
        answers.append(client.post(f"/api/challenges/{sent['id']}/accept").status_code)

    threads = [threading.Thread(target=take, args=(c,)) for c in (bob, bob_too) * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200] + [409] * 5
    with server_context(one).db.connect() as conn:
        assert conn.execute(select(func.count()).select_from(GAMES)).scalar_one() == 1


def test_one_account_sends_at_most_thirty_challenges_an_hour(site: TestClient) -> None:
    ann = sign_up(site, "ann")
    sign_up(site, "bob")
    for _ in range(30):
        sent = challenge(ann, "bob")
        assert ann.post(f"/api/challenges/{sent['id']}/cancel").status_code == 200
    r = ann.post("/api/challenges", json={"username": "bob", **BLITZ})
    assert error_code(r) == "rate_limited" and "30 challenges an hour" in r.text


def sent_at_once(senders: list[tuple[TestClient, str]]) -> list[int]:
    """Each client challenges its named player, all at once (one thread each)."""
    answers: list[int] = []
    start = threading.Barrier(len(senders))

    def send(client: TestClient, name: str) -> None:
        start.wait()
        r = client.post("/api/challenges", json={"username": name, **BLITZ})
        answers.append(r.status_code)

    threads = [threading.Thread(target=send, args=sender) for sender in senders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def race_the_open_cap(one: TestClient, two: TestClient, clock: ManualTime, trials: int) -> None:
    """Ann has nine challenges open; eight more are sent at once, half through each
    server process: one is taken, the others refused, and ten stay open, every trial."""
    ann = sign_up(one, "ann")
    ann_too = TestClient(two.app, cookies=ann.cookies, headers=dict(ann.headers))
    names = [f"rival{i}" for i in range(MAX_OPEN + 7)]
    for name in names:
        sign_up(one, name)
    for _ in range(trials):
        clock.advance(2 * 3600)  # the last trial's challenges lapsed, the hour's rate is new
        for name in names[: MAX_OPEN - 1]:
            challenge(ann, name)
        senders = list(zip((ann, ann_too) * 4, names[MAX_OPEN - 1 :], strict=True))
        answers = sent_at_once(senders)
        assert sorted(answers) == [200] + [409] * 7
        out = ann.get("/api/challenges").json()["out"]
        assert sum(c["status"] == "open" for c in out) == MAX_OPEN


def test_ten_open_challenges_at_most_even_sent_at_once_through_two_processes(
    make_client: AppFactory, clock: ManualTime
) -> None:
    def app() -> TestClient:
        return make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))

    race_the_open_cap(app(), app(), clock, trials=3)


@pytest.mark.postgres
def test_ten_open_challenges_at_most_even_sent_at_once_through_two_processes_on_postgres(
    pg_app: AppFactory,
) -> None:
    clock = ManualTime()

    def app() -> TestClient:
        return pg_app(password_parameters=CHEAPEST, signup_limit=(100, 3600.0), clock=clock)

    with app() as one, app() as two:
        race_the_open_cap(one, two, clock, trials=12)
