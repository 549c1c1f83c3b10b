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

from poolcheckers.server.challenges.model import MAX_OPEN, MAX_RECEIVED
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


def race_the_received_cap(one: TestClient, two: TestClient, clock: ManualTime, trials: int) -> None:
    """Vic has nine challenges waiting; eight others challenge her at once, half through
    each server process: one more waits, the others are refused, every trial."""
    vic = sign_up(one, "vic")
    senders = [sign_up(one if i % 2 else two, f"fan{i}") for i in range(MAX_RECEIVED + 7)]
    for _ in range(trials):
        clock.advance(2 * 3600)
        for sender in senders[: MAX_RECEIVED - 1]:
            challenge(sender, "vic")
        answers = sent_at_once([(sender, "vic") for sender in senders[MAX_RECEIVED - 1 :]])
        assert sorted(answers) == [200] + [409] * 7
        inbox = vic.get("/api/challenges").json()["in"]
        assert sum(c["status"] == "open" for c in inbox) == MAX_RECEIVED


def test_ten_open_challenges_at_most_even_sent_at_once_through_two_processes(
    make_client: AppFactory, clock: ManualTime
) -> None:
    def app() -> TestClient:
        return make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))

    one, two = app(), app()
    race_the_open_cap(one, two, clock, trials=3)
    race_the_received_cap(one, two, clock, trials=3)


@pytest.mark.postgres
def test_ten_open_challenges_at_most_even_sent_at_once_through_two_processes_on_postgres(
    pg_app: AppFactory,
) -> None:
    clock = ManualTime()

    def app() -> TestClient:
        return pg_app(password_parameters=CHEAPEST, signup_limit=(100, 3600.0), clock=clock)

    with app() as one, app() as two:
        race_the_open_cap(one, two, clock, trials=12)
        race_the_received_cap(one, two, clock, trials=6)


def test_a_player_receives_at_most_ten_open_challenges_from_all_senders(
    make_client: AppFactory,
) -> None:
    """Twelve accounts challenge one player: ten challenges wait, the others are
    refused telling the sender why; an answer makes room again."""
    site = make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))
    victim = sign_up(site, "victim")
    senders = [sign_up(site, f"sender{i}") for i in range(12)]
    answers = [s.post("/api/challenges", json={"username": "victim", **BLITZ}) for s in senders]
    answers += [senders[0].post("/api/challenges", json={"username": "victim", **BLITZ})]
    assert [r.status_code for r in answers] == [200] * 10 + [409] * 3
    refused = answers[-1].json()["error"]["message"]
    assert refused == "victim has 10 challenges waiting for an answer already: try again later"
    waiting = victim.get("/api/challenges").json()["in"]
    assert len(waiting) == 10
    r = victim.post(f"/api/challenges/{waiting[0]['id']}/decline", json={"reason": "later"})
    assert r.status_code == 200, r.text
    challenge(senders[11], "victim")


def test_a_player_may_take_challenges_from_nobody(site: TestClient) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    assert bob.get("/api/challenges/policy").json() == {"accept_from": "everyone"}
    r = bob.post("/api/challenges/policy", json={"accept_from": "nobody"})
    assert r.status_code == 200 and r.json() == {"accept_from": "nobody"}
    assert bob.get("/api/challenges/policy").json() == {"accept_from": "nobody"}
    r = ann.post("/api/challenges", json={"username": "bob", **BLITZ})
    assert error_code(r) == "forbidden"
    assert r.json()["error"]["message"] == "bob does not accept challenges"
    pt = ann.post(
        "/api/challenges", json={"username": "bob", **BLITZ}, headers={"Accept-Language": "pt-BR"}
    )
    assert pt.json()["error"]["message"] == "bob não aceita desafios"
    assert bob.get("/api/challenges").json()["in"] == []
    bob.post("/api/challenges/policy", json={"accept_from": "everyone"})
    challenge(ann, "bob")


def test_a_player_may_take_challenges_only_from_players_they_have_played(
    site: TestClient,
) -> None:
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    ann.post("/api/challenges/policy", json={"accept_from": "played"})
    r = bob.post("/api/challenges", json={"username": "ann", **BLITZ})
    assert error_code(r) == "forbidden"
    assert r.json()["error"]["message"] == (
        "ann accepts challenges only from players they have played"
    )
    sent = challenge(ann, "bob")  # her own challenges go out as before
    assert bob.post(f"/api/challenges/{sent['id']}/accept").status_code == 200
    challenge(bob, "ann")  # they have played now


@pytest.mark.parametrize("body", [{"accept_from": "friends"}, {"accept_from": None}, {}])
def test_an_unknown_challenge_policy_is_refused(site: TestClient, body: dict[str, Any]) -> None:
    ann = sign_up(site, "ann")
    r = ann.post("/api/challenges/policy", json=body)
    assert r.status_code == 400 and "accept_from" in r.text
    assert ann.get("/api/challenges/policy").json() == {"accept_from": "everyone"}
    assert TestClient(site.app).get("/api/challenges/policy").status_code == 401


@pytest.mark.parametrize(
    ("time_control", "lasts"),
    [
        ({"initial": 60, "increment": 0}, 5 * 60),  # bullet
        ({"initial": 180, "increment": 2}, 5 * 60),  # blitz
        ({"initial": 900, "increment": 10}, 10 * 60),  # rapid
        (None, 10 * 60),  # untimed
        ({"days": 1}, 3 * 24 * 3600),  # correspondence
    ],
)
def test_an_open_challenge_expires_soon_by_its_time_control(
    site: TestClient, clock: ManualTime, time_control: dict[str, int] | None, lasts: int
) -> None:
    """A real-time challenge lapses in minutes (its author waits at the screen), a
    correspondence one in days (not a week)."""
    ann, bob = sign_up(site, "ann"), sign_up(site, "bob")
    sent = challenge(ann, "bob", clock=time_control, rated=False)
    assert sent["expires"] - sent["created"] == lasts
    clock.advance(lasts - 1)
    assert bob.get("/api/challenges").json()["in"][0]["status"] == "open"
    clock.advance(1)
    assert bob.get("/api/challenges").json()["in"][0]["status"] == "expired"
    r = bob.post(f"/api/challenges/{sent['id']}/accept")
    assert error_code(r) == "conflict" and "expired" in r.json()["error"]["message"]
