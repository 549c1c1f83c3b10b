"""Personal API tokens and bot accounts: made on the account page with the
password's session and shown once, stored as a digest, scoped, revocable; the bot
routes take only a token; an account that has played no game becomes a bot for
good and is marked BOT."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, insert, select, update

from poolcheckers.server.database.tables import API_TOKENS, SEEKS, USERS

from ..conftest import AppFactory
from ..helpers import error_code, server_context

PASSWORD = "correct horse battery"
RAPID = {"initial": 600, "increment": 5}


def signed_in(make_client: AppFactory, name: str, same: TestClient | None = None) -> TestClient:
    client = TestClient(same.app) if same is not None else make_client(password_parameters=CHEAPEST)
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_token_is_shown_once_and_stored_only_as_a_digest(
    make_client: AppFactory, db_url: str
) -> None:
    ann = signed_in(make_client, "Ann")
    r = ann.post("/api/account/tokens", json={"label": "my engine", "scopes": ["bot:play"]})
    assert r.status_code == 200, r.text
    made = r.json()
    token = made["token"]
    assert token.startswith("pct_") and made["scopes"] == ["bot:play"]
    listed = ann.get("/api/account/tokens").json()["tokens"]
    assert listed == [{k: v for k, v in made.items() if k != "token"}]
    assert token not in ann.get("/api/account/tokens").text
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(select(API_TOKENS))]
    engine.dispose()
    assert len(rows) == 1 and all(token not in str(v) for v in rows[0])


def test_token_signs_a_program_in_to_the_bot_routes_only(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    token = ann.post(
        "/api/account/tokens", json={"label": "script", "scopes": ["challenge:read"]}
    ).json()["token"]
    program = TestClient(ann.app)  # no cookie: the token alone
    me = program.get("/api/bot/account", headers=bearer(token))
    assert me.status_code == 200, me.text
    assert me.json() == {"username": "Ann", "bot": False, "scopes": ["challenge:read"]}
    # the account's own routes need the password's session: a token makes no tokens
    r = program.post(
        "/api/account/tokens", json={"label": "x", "scopes": ["bot:play"]}, headers=bearer(token)
    )
    assert r.status_code == 401
    # a scope the token lacks
    r = program.post("/api/bot/account/upgrade", headers=bearer(token))
    assert r.status_code == 403 and error_code(r) == "forbidden"
    assert "bot:play" in r.json()["error"]["message"]


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer pct_" + "x" * 43, "Basic dXNlcjpwYXNz", "Bearer pct_short"],
)
def test_without_a_live_token_the_bot_routes_answer_401(
    make_client: AppFactory, header: str | None
) -> None:
    client = make_client()
    r = client.get("/api/bot/account", headers={} if header is None else {"Authorization": header})
    assert r.status_code == 401 and error_code(r) == "unauthorized"


def test_revoked_token_stops_at_once(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    made = ann.post("/api/account/tokens", json={"label": "bot", "scopes": ["bot:play"]}).json()
    program = TestClient(ann.app)
    assert program.get("/api/bot/account", headers=bearer(made["token"])).status_code == 200
    assert ann.delete(f"/api/account/tokens/{made['id']}").status_code == 204
    assert program.get("/api/bot/account", headers=bearer(made["token"])).status_code == 401
    assert ann.delete(f"/api/account/tokens/{made['id']}").status_code == 404


def test_another_account_cannot_revoke_your_token(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    made = ann.post("/api/account/tokens", json={"label": "bot", "scopes": ["bot:play"]}).json()
    assert bob.delete(f"/api/account/tokens/{made['id']}").status_code == 404
    assert len(ann.get("/api/account/tokens").json()["tokens"]) == 1


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"label": "", "scopes": ["bot:play"]}, "give the token a name"),
        ({"label": "x" * 61, "scopes": ["bot:play"]}, "at most 60 characters"),
        ({"label": "x", "scopes": []}, "at least one scope"),
        ({"label": "x", "scopes": ["admin"]}, "unknown scope 'admin'"),
    ],
)
def test_bad_token_requests_say_what_is_wrong(
    make_client: AppFactory, body: dict[str, object], says: str
) -> None:
    ann = signed_in(make_client, "Ann")
    r = ann.post("/api/account/tokens", json=body)
    assert r.status_code == 400 and says in r.json()["error"]["message"]
    assert ann.get("/api/account/tokens").json()["tokens"] == []


def test_new_account_becomes_a_bot_for_good_and_is_marked(make_client: AppFactory) -> None:
    bot = signed_in(make_client, "RoboPool")
    token = bot.post(
        "/api/account/tokens", json={"label": "engine", "scopes": ["bot:play"]}
    ).json()["token"]
    program = TestClient(bot.app)
    r = program.post("/api/bot/account/upgrade", headers=bearer(token))
    assert r.status_code == 200 and r.json() == {"username": "RoboPool", "bot": True}
    assert program.get("/api/bot/account", headers=bearer(token)).json()["bot"] is True
    assert bot.get("/api/account/tokens").json()["bot"] is True
    # again: still a bot (there is no way back)
    assert program.post("/api/bot/account/upgrade", headers=bearer(token)).status_code == 200


def test_account_that_has_played_cannot_become_a_bot(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    seek = ann.post(
        "/api/seeks", json={"clock": {"initial": 180, "increment": 2}, "rated": False}
    ).json()
    assert bob.post(f"/api/seeks/{seek['id']}/accept").status_code == 200
    token = ann.post(
        "/api/account/tokens", json={"label": "engine", "scopes": ["bot:play"]}
    ).json()["token"]
    r = TestClient(ann.app).post("/api/bot/account/upgrade", headers=bearer(token))
    assert r.status_code == 409 and "has played 1 game" in r.json()["error"]["message"]
    assert ann.get("/api/account/tokens").json()["bot"] is False


def test_tokens_survive_in_the_database_not_the_process(
    make_client: AppFactory, tmp_path: Path
) -> None:
    ann = signed_in(make_client, "Ann")
    token = ann.post(
        "/api/account/tokens", json={"label": "engine", "scopes": ["bot:play"]}
    ).json()["token"]
    other_process = make_client()  # another app over the same database
    assert other_process.get("/api/bot/account", headers=bearer(token)).status_code == 200


def _make_bot(make_client: AppFactory, name: str, same: TestClient | None = None) -> TestClient:
    client = signed_in(make_client, name, same)
    token = client.post(
        "/api/account/tokens", json={"label": "engine", "scopes": ["bot:play"]}
    ).json()["token"]
    r = TestClient(client.app).post("/api/bot/account/upgrade", headers=bearer(token))
    assert r.status_code == 200, r.text
    return client


def test_bot_is_marked_on_its_page_and_people_are_not(make_client: AppFactory) -> None:
    bot = _make_bot(make_client, "RoboPool")
    ann = signed_in(make_client, "Ann", same=bot)
    assert ann.get("/api/users/RoboPool").json()["bot"] is True
    assert ann.get("/api/users/Ann").json()["bot"] is False


def test_bot_cannot_use_quick_pairing(make_client: AppFactory) -> None:
    bot = _make_bot(make_client, "RoboPool")
    r = bot.post(
        "/api/seeks/play-now", json={"clock": {"initial": 180, "increment": 2}, "rated": True}
    )
    assert r.status_code == 403 and "quick pairing" in r.json()["error"]["message"]
    assert bot.get("/api/seeks").json() == []


def test_leaderboards_rank_people_only(make_client: AppFactory, db_url: str) -> None:
    from poolcheckers.server.database.tables import RATINGS, USERS
    from poolcheckers.server.games.timecontrol import Category
    from poolcheckers.server.ratings.repository import active_perfs, leaderboard_perfs

    bot = _make_bot(make_client, "RoboPool")
    signed_in(make_client, "Ann", same=bot)
    engine = create_engine(db_url)
    with engine.begin() as conn:
        for (user_id,) in conn.execute(select(USERS.c.id)):
            conn.execute(
                RATINGS.insert().values(
                    user_id=user_id, category="blitz", rating=1600.0, deviation=50.0,
                    volatility=0.06, games=30, last_played_ms=10**13,
                )
            )  # fmt: skip
    ranked = [name for name, _ in leaderboard_perfs(engine, Category.BLITZ, 0)]
    waiting = [name for name, _ in active_perfs(engine, Category.BLITZ, 0)]
    engine.dispose()
    assert ranked == ["Ann"] and waiting == ["Ann"]


def test_challenge_scopes_let_a_program_read_and_send_challenges(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    reader = ann.post(
        "/api/account/tokens", json={"label": "reader", "scopes": ["challenge:read"]}
    ).json()["token"]
    writer = ann.post(
        "/api/account/tokens", json={"label": "writer", "scopes": ["challenge:write"]}
    ).json()["token"]
    program = TestClient(ann.app)  # no cookie: the tokens alone
    body = {"username": "Bob", "clock": {"initial": 300, "increment": 3}}
    refused = program.post("/api/challenges", json=body, headers=bearer(reader))
    assert refused.status_code == 403 and "challenge:write" in refused.json()["error"]["message"]
    sent = program.post("/api/challenges", json=body, headers=bearer(writer))
    assert sent.status_code == 200, sent.text
    assert sent.json()["challenger"] == "Ann" and sent.json()["challenged"] == "Bob"
    listed = program.get("/api/challenges", headers=bearer(reader)).json()
    assert [c["id"] for c in listed["out"]] == [sent.json()["id"]]
    assert program.get("/api/challenges", headers=bearer(writer)).status_code == 403
    assert [c["id"] for c in bob.get("/api/challenges").json()["in"]] == [sent.json()["id"]]
    # blocks stay the session's
    assert program.get("/api/blocks", headers=bearer(writer)).status_code == 401


def _tokens_and_another_device(ann: TestClient) -> tuple[str, TestClient]:
    """A token of Ann's account, and Ann signed in on another device."""
    token = ann.post("/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]})
    other = TestClient(ann.app)
    r = other.post("/api/account/login", json={"username": "Ann", "password": PASSWORD})
    assert r.status_code == 200, r.text
    return token.json()["token"], other


def _everything_else_ended(ann: TestClient, token: str, other: TestClient) -> None:
    program = TestClient(ann.app)
    assert program.get("/api/bot/account", headers=bearer(token)).status_code == 401
    assert other.get("/api/account").status_code == 401
    assert ann.get("/api/account").status_code == 200  # the device that asked stays in
    assert ann.get("/api/account/tokens").json()["tokens"] == []


def test_a_password_change_revokes_every_token_and_signs_out_other_devices(
    make_client: AppFactory,
) -> None:
    ann = signed_in(make_client, "Ann")
    token, other = _tokens_and_another_device(ann)
    r = ann.post("/api/account/password", json={"old": PASSWORD, "new": "a brand new secret"})
    assert r.status_code == 200, r.text
    ann.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    _everything_else_ended(ann, token, other)


def test_a_password_reset_revokes_every_token(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    token, other = _tokens_and_another_device(ann)
    code, _ = server_context(ann).accounts.accounts.issue_reset_code("Ann")
    device = TestClient(ann.app)
    body = {"username": "Ann", "code": code, "password": "a brand new secret"}
    assert device.post("/api/account/reset", json=body).status_code == 200
    assert TestClient(ann.app).get("/api/bot/account", headers=bearer(token)).status_code == 401
    assert other.get("/api/account").status_code == 401
    assert ann.get("/api/account").status_code == 401
    assert device.get("/api/account").status_code == 200


def test_sign_out_everywhere_ends_other_sessions_and_revokes_every_token(
    make_client: AppFactory,
) -> None:
    ann = signed_in(make_client, "Ann")
    token, other = _tokens_and_another_device(ann)
    r = ann.post("/api/account/logout-everywhere")
    assert r.status_code == 200 and r.json()["username"] == "Ann", r.text
    ann.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    _everything_else_ended(ann, token, other)
    # the password still signs in: only sessions and tokens ended
    again = TestClient(ann.app).post(
        "/api/account/login", json={"username": "Ann", "password": PASSWORD}
    )
    assert again.status_code == 200


def test_sign_out_everywhere_needs_a_session(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    token, _other = _tokens_and_another_device(ann)
    program = TestClient(ann.app)
    r = program.post("/api/account/logout-everywhere", headers=bearer(token))
    assert r.status_code == 401
    assert program.get("/api/bot/account", headers=bearer(token)).status_code == 200


def test_a_token_stream_rereads_its_token_without_the_notice(make_client: AppFactory) -> None:
    """The safety net of a lost notice: a token deleted behind the site's back (no
    notice sent) ends its streams at the next reread."""
    with make_client(password_parameters=CHEAPEST) as client:
        r = client.post("/api/account/signup", json={"username": "Ann", "password": PASSWORD})
        client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        client.post("/api/account/tokens", json={"label": "e", "scopes": ["bot:play"]})
        accounts = server_context(client).accounts
        accounts.token_recheck_s = 0.05
        user = accounts.users.by_key("ann")
        assert user is not None
        (stored,) = accounts.tokens.store.of_user(user.id)

        async def lives_for(seconds: float) -> bool:
            try:
                await asyncio.wait_for(accounts.token_revoked(stored), seconds)
            except TimeoutError:
                return True
            return False

        portal = client.portal
        assert portal is not None
        assert portal.call(lives_for, 0.3)
        accounts.tokens.store.revoke_all(user.id)  # no notice
        assert not portal.call(lives_for, 0.5)


def _bot_token(client: TestClient) -> str:
    made = client.post("/api/account/tokens", json={"label": "engine", "scopes": ["bot:play"]})
    token: str = made.json()["token"]
    return token


def _upgrade(client: TestClient, token: str, language: str = "en") -> httpx2.Response:
    headers = {**bearer(token), "Accept-Language": language}
    return TestClient(client.app).post("/api/bot/account/upgrade", headers=headers)


def test_an_account_with_an_open_seek_cannot_become_a_bot(make_client: AppFactory) -> None:
    """The attack: a rated seek posted as a person, then the upgrade, then a person
    takes the seek and plays a rated game against a bot.  The upgrade is refused
    while the seek is open, naming it; cancelled, the upgrade goes through."""
    ann = signed_in(make_client, "Ann")
    seek = ann.post("/api/seeks", json={"clock": {"initial": 180, "increment": 2}, "rated": True})
    token = _bot_token(ann)
    r = _upgrade(ann, token)
    assert r.status_code == 409 and error_code(r) == "conflict", r.text
    assert r.json()["error"]["holds"] == {"events": [], "seeks": 1, "challenges": 0, "games": 0}
    assert "1 open seek(s) in the lobby: cancel them first" in r.json()["error"]["message"]
    assert ann.get("/api/account/tokens").json()["bot"] is False
    assert [s["id"] for s in ann.get("/api/seeks").json()] == [seek.json()["id"]]
    assert ann.delete(f"/api/seeks/{seek.json()['id']}").status_code == 204
    assert _upgrade(ann, token).status_code == 200


def test_an_account_entered_in_an_event_cannot_become_a_bot(make_client: AppFactory) -> None:
    ann = signed_in(make_client, "Ann")
    event = {
        "name": "Club night",
        "system": "swiss",
        "rounds": 3,
        "clock": {"initial": 300, "increment": 3},
    }
    tid = ann.post("/api/tournaments", json=event).json()["id"]
    assert ann.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    token = _bot_token(ann)
    r = _upgrade(ann, token)
    assert r.status_code == 409 and r.json()["error"]["holds"]["events"] == ["Club night"]
    assert "entered in 1 event(s) ('Club night'): withdraw first" in r.text
    assert ann.post(f"/api/tournaments/{tid}/withdraw").status_code in (200, 204)
    assert _upgrade(ann, token).status_code == 200


@pytest.mark.parametrize("sent", [True, False], ids=["sent", "received"])
def test_an_account_with_an_open_challenge_cannot_become_a_bot(
    make_client: AppFactory, sent: bool
) -> None:
    ann = signed_in(make_client, "Ann")
    bob = signed_in(make_client, "Bob", same=ann)
    sender, to = (ann, "Bob") if sent else (bob, "Ann")
    body = {"username": to, "clock": {"initial": 300, "increment": 3}, "rated": True}
    assert sender.post("/api/challenges", json=body).status_code == 200
    r = _upgrade(ann, _bot_token(ann))
    assert r.status_code == 409 and r.json()["error"]["holds"]["challenges"] == 1
    assert "1 open challenge(s), sent or received" in r.text


def test_the_refusal_names_everything_held_in_the_players_language(
    make_client: AppFactory,
) -> None:
    ann = signed_in(make_client, "Ann")
    signed_in(make_client, "Bob", same=ann)
    ann.post("/api/seeks", json={"clock": {"initial": 180, "increment": 2}, "rated": False})
    ann.post("/api/challenges", json={"username": "Bob", "clock": {"initial": 300, "increment": 3}})
    r = _upgrade(ann, _bot_token(ann), "pt-BR")
    assert r.status_code == 409
    holds = r.json()["error"]["holds"]
    assert (holds["seeks"], holds["challenges"]) == (1, 1)
    message = r.json()["error"]["message"]
    assert message.startswith("Ann ainda não pode virar um bot:"), message
    assert "1 desafio(s) aberto(s) no salão" in message, message  # the seek
    assert "1 desafio(s) pendente(s), enviado(s) ou recebido(s)" in message, message


def _in_a_thread(action: Callable[[], httpx2.Response]) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(action()))
    thread.start()
    return thread, answers


@pytest.mark.postgres
@pytest.mark.parametrize("what", ["seek", "event", "challenge"])
def test_a_seek_entry_or_challenge_racing_the_upgrade_in_another_process_is_refused(
    pg_app: AppFactory, pg_url: str, what: str
) -> None:
    """The upgrade has written the account's row and not committed yet (another
    process, between its write and its commit): a seek, an event's entry or a
    challenge of the account made meanwhile waits for the commit and is refused,
    so the new bot keeps nothing a person offered."""
    with pg_app(password_parameters=CHEAPEST) as one, pg_app(password_parameters=CHEAPEST) as two:
        ann, bob = signed_in(pg_app, "Ann", one), signed_in(pg_app, "Bob", two)
        event = {"name": "Club night", "system": "swiss", "rounds": 3, "clock": RAPID}
        tid = bob.post("/api/tournaments", json=event).json()["id"]
        actions: dict[str, Callable[[], httpx2.Response]] = {
            "seek": lambda: ann.post("/api/seeks", json={"clock": RAPID, "rated": True}),
            "event": lambda: ann.post(f"/api/tournaments/{tid}/join", json={}),
            "challenge": lambda: ann.post(
                "/api/challenges", json={"username": "Bob", "clock": RAPID, "rated": True}
            ),
        }
        engine = create_engine(pg_url)
        try:
            with engine.connect() as conn, conn.begin():
                conn.execute(update(USERS).where(USERS.c.username == "Ann").values(bot=True))
                thread, answers = _in_a_thread(actions[what])
                thread.join(1.0)
                assert thread.is_alive(), f"the {what} did not wait: {answers[0].text}"
            thread.join(30)
        finally:
            engine.dispose()
        (r,) = answers
        assert r.status_code in (403, 409), r.text
        assert "bot" in r.json()["error"]["message"]
        assert ann.get("/api/seeks").json() == []
        assert ann.get("/api/challenges").json()["out"] == []
        assert bob.get(f"/api/tournaments/{tid}").json()["players"] == 0


@pytest.mark.postgres
def test_an_upgrade_racing_a_seek_in_another_process_waits_and_counts_it(
    pg_app: AppFactory, pg_url: str
) -> None:
    """The other order: the seek is written, its account read under a lock, and not
    committed yet: the upgrade waits for it, then sees the seek and is refused."""
    from poolcheckers.server.accounts.repository import bots_among

    with pg_app(password_parameters=CHEAPEST) as one:
        ann = signed_in(pg_app, "Ann", one)
        token = _bot_token(ann)
        engine = create_engine(pg_url)
        try:
            with engine.connect() as conn, conn.begin():
                ann_id = conn.execute(select(USERS.c.id).where(USERS.c.username == "Ann")).scalar()
                conn.execute(
                    insert(SEEKS).values(
                        id="racing", author_id=ann_id, author_user_id=ann_id, author_name="Ann",
                        spec={"clock": RAPID, "rated": True}, created_ms=0, seen_ms=0,
                    )
                )  # fmt: skip
                assert bots_among(conn, [str(ann_id)]) == frozenset()
                thread, answers = _in_a_thread(lambda: _upgrade(ann, token))
                thread.join(1.0)
                assert thread.is_alive(), f"the upgrade did not wait: {answers[0].text}"
            thread.join(30)
        finally:
            engine.dispose()
        (r,) = answers
        assert r.status_code == 409 and r.json()["error"]["holds"]["seeks"] == 1, r.text
        assert ann.get("/api/account/tokens").json()["bot"] is False
