"""No page or API answer carries another player's secret: with
accounts, a lobby game and an invitation game in the database, every answer a
stranger can ask for is searched for session tokens, CSRF tokens, password
hashes, account ids and seat tokens."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.database.tables import SESSIONS, USERS

from .conftest import AppFactory
from .helpers import server_context
from .test_ratings_api import rated_game, wait_for_update


def test_no_answer_carries_a_secret(make_client: AppFactory) -> None:
    ann, bob, lobby_game = rated_game(make_client)
    assert bob.post(f"/api/games/{lobby_game}/resign", json={}).status_code == 200
    wait_for_update(ann, lobby_game)
    invited = ann.post("/api/games", json={"mode": "online", "color": "black"}).json()
    invite = invited["invite"].split("invite=", 1)[1]
    joined = bob.post(f"/api/games/{invited['game']['id']}/join", json={"invite": invite}).json()
    with server_context(ann).accounts.users.db.connect() as conn:
        users = conn.execute(select(USERS)).mappings().all()
        digests = [r[0] for r in conn.execute(select(SESSIONS.c.digest))]
    secrets = [
        ann.cookies[COOKIE_NAME],
        bob.cookies[COOKIE_NAME],
        str(ann.headers["X-CSRF-Token"]),
        str(bob.headers["X-CSRF-Token"]),
        invited["token"],
        joined["token"],
        invite,
        *digests,
        *(u["id"] for u in users),
        *(u["password_hash"] for u in users),
        "argon2",
    ]
    stranger = TestClient(ann.app)
    seek = ann.post("/api/seeks", json={"clock": {"days": 2}}).json()
    answers = [
        stranger.get(f"/api/games/{lobby_game}").text,
        stranger.get(f"/api/games/{invited['game']['id']}").text,
        stranger.get("/api/games").text,
        stranger.get("/api/games?status=finished").text,
        stranger.get(f"/api/games/{lobby_game}/pdn").text,
        stranger.get("/api/export.pdn").text,
        stranger.get("/api/seeks").text,
        stranger.get("/api/users/ann").text,
        stranger.get("/api/users/bob/head-to-head").text,
        stranger.get("/api/leaderboard/blitz").text,
        stranger.get("/openapi.json").text,
        stranger.get("/players/ann", headers={"accept": "text/html"}).text,
    ]
    with stranger.websocket_connect("/ws/lobby") as ws:
        answers.append(ws.receive_text())
    with stranger.websocket_connect(f"/ws/games/{lobby_game}") as ws:
        answers.append(ws.receive_text())
    # a player's own view of a game carries no token either (the seat is the session's)
    answers.append(bob.get(f"/api/games/{invited['game']['id']}").text)
    assert seek["id"] in answers[6]
    for text in answers:
        for secret in secrets:
            if (
                secret in (str(bob.headers["X-CSRF-Token"]), joined["token"])
                and text is answers[-1]
            ):
                continue  # Bob's own
            assert secret not in text, (secret[:12], text[:200])
