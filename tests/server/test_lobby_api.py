"""The lobby over HTTP and WebSocket: post, list, cancel and take
seeks; the game starts for both; the live list; one winner per seek across
store instances (as with two server processes)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient
from sqlalchemy import update

from poolcheckers import RuleSet
from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import USERS
from poolcheckers.server.games.timecontrol import Clock
from poolcheckers.server.lobby.model import LobbyPlayer, Seek, SeekSpec
from poolcheckers.server.lobby.repository import DbLobbyStore
from poolcheckers.server.timesource import ManualTime

from .conftest import AppFactory
from .helpers import error_code, server_context

PASSWORD = "correct horse battery"
BLITZ = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "black"}


#: a server whose background sweeps (flags, idle games, events) do not run while a
#: test counts the statements of one request: on a loaded machine a sweep's query
#: would fall inside the count
NO_SWEEPS: dict[str, Any] = {
    "sweep_interval": 3600.0,
    "idle_sweep_interval": 3600.0,
    "tournament_sweep_interval": 3600.0,
}


def signed_in(
    make_client: AppFactory, name: str, same: TestClient | None = None, **settings: Any
) -> TestClient:
    """A device signed in as ``name``; with ``same``, on the same server (process) as
    that client: the lobby's live messages stay within one process here; ``settings``
    for a new server."""
    client = (
        TestClient(same.app)
        if same is not None
        else make_client(password_parameters=CHEAPEST, **settings)
    )
    r = client.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def cookie(client: TestClient) -> dict[str, str]:
    return {"cookie": f"{COOKIE_NAME}={client.cookies[COOKIE_NAME]}"}


@pytest.fixture
def ann_bob(make_client: AppFactory) -> tuple[TestClient, TestClient]:
    ann = signed_in(make_client, "Ann")
    return ann, signed_in(make_client, "Bob", same=ann)


@pytest.fixture
def ann_bob_counted(make_client: AppFactory) -> tuple[TestClient, TestClient]:
    """:func:`ann_bob` on a server without background sweeps: a request's statements
    are counted alone."""
    ann = signed_in(make_client, "Ann", **NO_SWEEPS)
    return ann, signed_in(make_client, "Bob", same=ann)


def post(client: TestClient, body: dict[str, Any] = BLITZ) -> dict[str, Any]:
    r = client.post("/api/seeks", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_post_and_list_seeks(ann_bob: tuple[TestClient, TestClient]) -> None:
    ann, bob = ann_bob
    seek = post(ann)
    assert seek["author"] == "Ann" and seek["category"] == "blitz" and seek["rated"]
    assert seek["clock"] == {"initial": 180, "increment": 2}
    assert seek["rating"]["rating"] == 1500 and seek["rating"]["provisional"]
    listed = bob.get("/api/seeks").json()
    assert [s["id"] for s in listed] == [seek["id"]]
    user = server_context(ann).accounts.users.by_key("ann")
    assert user is not None
    user_id = user.id
    assert user_id not in bob.get("/api/seeks").text  # names, never account ids


def test_seeks_need_an_account_and_valid_settings(
    make_client: AppFactory, ann_bob: tuple[TestClient, TestClient]
) -> None:
    visitor = make_client()
    r = visitor.post("/api/seeks", json=BLITZ)
    assert r.status_code == 401 and error_code(r) == "unauthorized"
    ann, _bob = ann_bob
    r = ann.post("/api/seeks", json={**BLITZ, "rules": {"repetition_draw": True}})
    assert r.status_code == 400 and "APCA" in r.json()["error"]["message"]
    r = ann.post("/api/seeks", json={"clock": {"initial": 5, "increment": 0}})
    assert r.status_code == 400 and error_code(r) == "bad_request"
    r = ann.post("/api/seeks", json={"rated": True})  # no clock key at all
    assert r.status_code == 400


def test_accept_starts_the_game_for_both(ann_bob: tuple[TestClient, TestClient]) -> None:
    ann, bob = ann_bob
    seek = post(ann)
    with ann.websocket_connect("/ws/lobby", headers=cookie(ann)) as lobby:
        assert lobby.receive_json()["type"] == "seeks"
        r = bob.post(f"/api/seeks/{seek['id']}/accept")
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        assert game["your_color"] == "white" and game["status"] == "running"
        assert game["clock"] is not None
        messages = [lobby.receive_json(), lobby.receive_json()]
    assert {"type": "seek_removed", "id": seek["id"], "reason": "taken"} in messages
    assert {"type": "game", "id": game["id"]} in messages
    assert ann.get(f"/api/games/{game['id']}").json()["your_color"] == "black"
    r = ann.post(f"/api/games/{game['id']}/move", json={"move": "11-15", "ply": 0})
    assert r.status_code == 200, r.text
    assert bob.get("/api/seeks").json() == []
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 404 and error_code(r) == "not_found"


def test_own_seek_cannot_be_taken_and_only_its_author_cancels(
    make_client: AppFactory, ann_bob: tuple[TestClient, TestClient]
) -> None:
    ann, bob = ann_bob
    seek = post(ann, {"clock": None, "color": "random"})
    r = ann.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 403 and error_code(r) == "forbidden"
    r = bob.delete(f"/api/seeks/{seek['id']}")
    assert r.status_code == 403
    assert ann.delete(f"/api/seeks/{seek['id']}").status_code == 204
    assert ann.get("/api/seeks").json() == []
    r = ann.delete(f"/api/seeks/{seek['id']}")
    assert r.status_code == 404


def test_live_list_and_seeks_go_when_the_author_leaves(
    ann_bob: tuple[TestClient, TestClient],
) -> None:
    ann, bob = ann_bob
    with bob.websocket_connect("/ws/lobby", headers=cookie(bob)) as watcher:
        assert watcher.receive_json() == {"type": "seeks", "seeks": []}
        with ann.websocket_connect("/ws/lobby", headers=cookie(ann)) as author:
            author.receive_json()
            clock_seek = post(ann)
            days_seek = post(ann, {"clock": {"days": 3}, "rated": False})
            added = watcher.receive_json()
            assert added["type"] == "seek_added" and added["seek"]["id"] == clock_seek["id"]
            assert watcher.receive_json()["seek"]["id"] == days_seek["id"]
        gone = watcher.receive_json()
        assert gone == {"type": "seek_removed", "id": clock_seek["id"], "reason": "left"}
    # correspondence seeks stay when their author leaves
    assert [s["id"] for s in bob.get("/api/seeks").json()] == [days_seek["id"]]


def race(n: int, action: Callable[[int], Seek | None]) -> list[Seek | None]:
    """``action(i)`` in ``n`` threads released at once; their results."""
    barrier = threading.Barrier(n)
    results: list[Seek | None] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        results[i] = action(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_take_has_one_winner_across_store_instances(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lobby.sqlite3'}"
    first = make_engine(url)
    run_migrations(first)
    stores = [DbLobbyStore(first), DbLobbyStore(make_engine(url))]
    for n in range(5):
        seek = Seek(f"s{n}", LobbyPlayer("a"), SeekSpec(Clock(180, 2)), float(n))
        stores[0].insert(seek)

        def take(i: int, seek_id: str = seek.id) -> Seek | None:
            return stores[i % 2].take(seek_id)

        won = race(8, take)
        assert sum(w is not None for w in won) == 1
        assert stores[1].get(seek.id) is None


def test_play_now_pairs_with_a_matching_seek_or_posts_one(
    ann_bob: tuple[TestClient, TestClient], make_client: AppFactory
) -> None:
    ann, bob = ann_bob
    quick = {"clock": {"initial": 180, "increment": 2}, "rated": True, "color": "random"}
    first = ann.post("/api/seeks/play-now", json=quick)
    assert first.status_code == 200, first.text
    assert first.json()["game"] is None and first.json()["seek"]["author"] == "Ann"
    # another clock does not match: Bob's becomes a seek too, then he cancels it
    other = bob.post(
        "/api/seeks/play-now", json={**quick, "clock": {"initial": 600, "increment": 0}}
    )
    assert other.json()["game"] is None
    assert bob.delete(f"/api/seeks/{other.json()['seek']['id']}").status_code == 204
    with ann.websocket_connect("/ws/lobby", headers=cookie(ann)) as lobby:
        lobby.receive_json()
        paired = bob.post("/api/seeks/play-now", json={**quick, "color": "white"})
        assert paired.status_code == 200, paired.text
        game = paired.json()["game"]
        assert game["your_color"] == "white" and paired.json()["seek"] is None
        got = [lobby.receive_json(), lobby.receive_json()]
    assert {"type": "game", "id": game["id"]} in got
    assert ann.get(f"/api/games/{game['id']}").json()["your_color"] == "black"
    assert bob.get("/api/seeks").json() == []


def test_clock_seeks_of_authors_no_process_sees_go(
    ann_bob: tuple[TestClient, TestClient], clock: ManualTime
) -> None:
    """A process that died with its lobby sockets cannot say its authors left: the
    sweep of every process removes clock seeks whose author nobody has seen."""
    ann, bob = ann_bob
    c = server_context(ann).lobby
    ann_user = server_context(ann).accounts.users.by_key("ann")
    assert ann_user is not None
    ann_id = ann_user.id
    kept = post(ann)
    days = post(ann, {"clock": {"days": 3}})
    clock.advance(25)
    assert c.sweep([ann_id]) == 0  # Ann has a lobby socket in this process
    clock.advance(25)
    assert c.sweep([]) == 0  # seen 25 s ago: not yet
    assert {s["id"] for s in bob.get("/api/seeks").json()} == {kept["id"], days["id"]}
    clock.advance(10)
    assert c.sweep([]) == 1
    assert [s["id"] for s in bob.get("/api/seeks").json()] == [days["id"]]  # days stay


def test_a_seek_taken_for_a_game_that_fails_to_start_comes_back(
    ann_bob: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = ann_bob
    seek = post(ann)
    creator = server_context(ann).games.creator

    def broken(*_args: object, **_kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(creator, "paired", broken)
    with pytest.raises(OSError):  # the test client re-raises what the server answers 500
        bob.post(f"/api/seeks/{seek['id']}/accept")
    assert [s["id"] for s in bob.get("/api/seeks").json()] == [seek["id"]]
    monkeypatch.undo()
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text


class _Frames:
    """A socket that keeps the text frames sent to it."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    async def send_text(self, text: str) -> None:
        self.frames.append(text)


async def _drain(batch: bool, messages: list[str]) -> list[str]:
    import asyncio
    import contextlib

    from poolcheckers.server.api.routers.lobby import _send_all

    queue: asyncio.Queue[str] = asyncio.Queue()
    for m in messages:
        queue.put_nowait(m)
    ws = _Frames()
    task = asyncio.create_task(_send_all(ws, queue, batch))  # type: ignore[arg-type]
    for _ in range(5):
        await asyncio.sleep(0)
    queue.put_nowait('{"type":"pong"}')  # arrives alone, after the others went
    for _ in range(5):
        await asyncio.sleep(0)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return ws.frames


async def test_batched_lobby_socket_sends_waiting_changes_as_one_array_frame() -> None:
    waiting = ['{"type":"seek_added","n":1}', '{"type":"seek_removed","n":2}', '{"type":"game"}']
    frames = await _drain(True, waiting)
    assert frames == ["[" + ",".join(waiting) + "]", '{"type":"pong"}']
    import json

    assert [m["type"] for m in json.loads(frames[0])] == ["seek_added", "seek_removed", "game"]


async def test_plain_lobby_socket_sends_one_frame_per_message_in_order() -> None:
    waiting = ['{"type":"seek_added"}', '{"type":"game"}']
    assert await _drain(False, waiting) == [*waiting, '{"type":"pong"}']


def test_a_burst_of_lobby_changes_reaches_a_batched_page_in_one_frame(
    ann_bob: tuple[TestClient, TestClient],
) -> None:
    """A hundred accepts at once remove a hundred seeks: every lobby page gets them
    together (they wait ``LOBBY_FLUSH_S``), not a frame each."""
    import json

    ann, _bob = ann_bob
    lobby = ann.app.state.ctx.lobby  # type: ignore[attr-defined]
    changes = [json.dumps({"type": "seek_removed", "id": f"s{i}"}) for i in range(30)]
    with ann.websocket_connect("/ws/lobby?batch=1", headers=cookie(ann)) as page:
        assert page.receive_json() == {"type": "seeks", "seeks": []}
        senders = [threading.Thread(target=lobby.announce, args=(c,)) for c in changes]
        for t in senders:  # as the database threads of many accepts announce them
            t.start()
            t.join()
        frame = page.receive_json()
    assert frame == [json.loads(c) for c in changes]


def test_a_lobby_page_opened_after_a_change_is_not_sent_it_again(
    ann_bob: tuple[TestClient, TestClient],
) -> None:
    """The list a page opens with already holds a seek posted just before: the seek's
    "added", still waiting to go out, is not sent to it as well."""
    ann, bob = ann_bob
    seek = post(ann)
    with bob.websocket_connect("/ws/lobby", headers=cookie(bob)) as page:
        listed = page.receive_json()
        assert [s["id"] for s in listed["seeks"]] == [seek["id"]]
        cancelled = ann.delete(f"/api/seeks/{seek['id']}")
        assert cancelled.status_code == 204
        removed = {"type": "seek_removed", "id": seek["id"], "reason": "cancelled"}
        assert page.receive_json() == removed


def test_lobby_changes_for_other_processes_fit_postgres_notify_payloads() -> None:
    """PostgreSQL refuses a NOTIFY payload of 8000 bytes: a flush of many changes
    goes in several, each message whole and in order."""
    import json

    from poolcheckers.server.lobby.service import LobbyService

    service = LobbyService.__new__(LobbyService)
    service.node = "n1"
    changes = [json.dumps({"type": "seek_added", "pad": "x" * 400, "n": i}) for i in range(60)]
    payloads = service._payloads(changes, None)
    assert len(payloads) > 1
    assert all(len(p.encode()) < 8000 for p in payloads)
    notes = [json.loads(p) for p in payloads]
    assert [m for note in notes for m in note["msgs"]] == changes
    assert all(note["from"] == "n1" and note["to"] is None for note in notes)


def test_a_clock_game_started_on_the_site_withdraws_both_players_other_clock_seeks(
    make_client: AppFactory,
) -> None:
    """The players' other seeks are read with the seek taken (one statement): their
    clock seeks go as the game starts, their correspondence seeks and others' stay."""
    ann = signed_in(make_client, "Ann")
    bob, cy = signed_in(make_client, "Bob", same=ann), signed_in(make_client, "Cy", same=ann)
    taken = post(ann)
    ann_rapid = post(ann, {**BLITZ, "clock": {"initial": 900, "increment": 10}})
    ann_corr = post(ann, {"clock": {"days": 3}, "rated": True})
    bob_own = post(bob, {"clock": {"initial": 60, "increment": 0}})
    cy_seek = post(cy)
    removed: dict[str, str | None] = {}
    lobby = server_context(ann).lobby.lobby
    lobby.subscribe(
        lambda e: removed.update({e.seek.id: e.reason}) if e.kind == "removed" else None
    )
    assert bob.post(f"/api/seeks/{taken['id']}/accept").status_code == 200
    assert {s["id"] for s in bob.get("/api/seeks").json()} == {ann_corr["id"], cy_seek["id"]}
    assert removed == {taken["id"]: "taken", ann_rapid["id"]: "playing", bob_own["id"]: "playing"}


def test_a_seek_author_who_became_a_bot_is_marked_bot_in_the_game(
    ann_bob: tuple[TestClient, TestClient],
) -> None:
    """Whether the players are bots is read as the seek is taken, not when it was
    posted (the upgrade refuses an account with open seeks, but the flag may have
    been set by hand, as here)."""
    ann, bob = ann_bob
    seek = post(ann)
    users = server_context(ann).accounts.users
    user = users.by_key("ann")
    assert user is not None
    with users.db.begin() as conn:
        conn.execute(update(USERS).where(USERS.c.id == user.id).values(bot=True))
    r = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text
    tags = r.json()["game"]["tags"]
    assert tags["Black"] == "Ann" and tags["BlackTitle"] == "BOT" and "WhiteTitle" not in tags


def accept_counted(
    author: TestClient, taker: TestClient, commits: list[str] | None = None
) -> tuple[list[str], int]:
    """The statements and pool checkouts of one accept of a new seek of ``author`` by
    ``taker``, on the taker's server (both players new to it, as in a burst); the
    transactions it commits are added to ``commits``."""
    return accept_counted_of(post(author)["id"], taker, commits)


def accept_counted_of(
    seek_id: str, taker: TestClient, commits: list[str] | None = None
) -> tuple[list[str], int]:
    """:func:`accept_counted` of the seek ``seek_id``."""
    from sqlalchemy import event

    db = server_context(taker).db
    statements: list[str] = []
    checkouts: list[object] = []

    def executed(*args: Any) -> None:
        statements.append(args[2])

    def checkout(*args: Any) -> None:
        checkouts.append(args[0])

    def committed(*_args: Any) -> None:
        if commits is not None:
            commits.append("COMMIT")

    event.listen(db, "before_cursor_execute", executed)
    event.listen(db, "commit", committed)
    event.listen(db.pool, "checkout", checkout)
    try:
        r = taker.post(f"/api/seeks/{seek_id}/accept")
    finally:
        event.remove(db, "before_cursor_execute", executed)
        event.remove(db, "commit", committed)
        event.remove(db.pool, "checkout", checkout)
    assert r.status_code == 200, r.text
    return statements, len(checkouts)


def test_taking_a_seek_costs_four_statements(
    ann_bob_counted: tuple[TestClient, TestClient],
) -> None:
    """Who the taker is (session and account), the seek with what taking it needs
    (the players' other seeks, whether they are bots, their rated games today, their
    ratings), then the seek's delete and the game's insert in one transaction
    (PostgreSQL does the two in one statement: tests/server/test_postgres.py)."""
    ann, bob = ann_bob_counted
    commits: list[str] = []
    statements, checkouts = accept_counted(ann, bob, commits)
    assert len(statements) == 4, statements
    assert statements[-2].startswith("DELETE") and statements[-1].startswith("INSERT")
    assert commits == ["COMMIT"]
    assert checkouts == 2  # the reads (who asks, the seek), the transaction


def test_taking_a_seek_needs_a_live_session(
    make_client: AppFactory, ann_bob: tuple[TestClient, TestClient]
) -> None:
    """Who takes a seek is read in the accept's own work: no cookie, or the cookie
    of a session that ended, is 401 and leaves the seek open."""
    ann, bob = ann_bob
    seek = post(ann)
    visitor = make_client()
    r = visitor.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 401 and error_code(r) == "unauthorized"
    ended = TestClient(bob.app, cookies=dict(bob.cookies), headers=dict(bob.headers))
    assert ended.get("/api/account").status_code == 200  # Bob's session, until:
    assert bob.post("/api/account/logout").status_code == 204
    r = ended.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 401 and error_code(r) == "unauthorized"
    assert [s["id"] for s in ann.get("/api/seeks").json()] == [seek["id"]]


def test_a_seek_stored_with_another_category_pairs_with_the_ratings_of_its_clock(
    ann_bob_counted: tuple[TestClient, TestClient],
) -> None:
    """A seek stored by another version, whose stored category is not what its clock
    makes now: the ratings are read in the clock's category, in a statement apart."""
    from sqlalchemy import update

    from poolcheckers.server.database.tables import SEEKS

    ann, bob = ann_bob_counted
    seek = post(ann)
    ctx = server_context(ann)
    with ctx.db.begin() as conn:
        spec = {**seek, "category": "rapid"}
        stored = {k: spec[k] for k in ("clock", "category", "rated", "color", "rating_range")}
        conn.execute(
            update(SEEKS)
            .where(SEEKS.c.id == seek["id"])
            .values(spec={**stored, "rules": RuleSet.apca().to_dict()})
        )
    statements, _checkouts = accept_counted_of(seek["id"], bob)
    assert len(statements) == 5  # the ratings read apart
    assert any("FROM ratings" in s and "seeks" not in s for s in statements)
