"""What every store behind the community models must do, run against each store.

The in-memory stores and the server's database stores
(the repositories of accounts, ratings and the lobby, over a migrated SQLite file) meet the
same guarantees: unique usernames by key, exactly-once rating updates with
compare-and-set, one winner per seek.  The database here does not enforce foreign
keys, so the contracts can use free ids (the server's database does).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine

from poolcheckers.server.accounts.model import MemoryUserStore, User, UserStore
from poolcheckers.server.accounts.repository import DbSessionStore, DbUserStore
from poolcheckers.server.accounts.sessions import MemorySessionStore, Session, SessionStore
from poolcheckers.server.database.engine import run_migrations
from poolcheckers.server.games.timecontrol import Category, Clock
from poolcheckers.server.lobby.model import (
    LobbyPlayer,
    LobbyStore,
    MemoryLobbyStore,
    Seek,
    SeekSpec,
)
from poolcheckers.server.lobby.repository import DbLobbyStore
from poolcheckers.server.ratings.model import (
    LICHESS,
    MemoryRatingStore,
    RatedResult,
    RatingStore,
    compute_update,
)
from poolcheckers.server.ratings.repository import DbRatingStore

_TMP = Path(tempfile.mkdtemp(prefix="poolcheckers-contracts-"))
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)
_count = [0]


def migrated_db() -> Engine:
    """A new SQLite file at the latest schema (threads allowed, foreign keys off)."""
    _count[0] += 1
    url = f"sqlite:///{_TMP / f'db{_count[0]}.sqlite3'}"
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
    run_migrations(engine)
    return engine


RATING_STORES: list[Callable[[], RatingStore]] = [
    MemoryRatingStore,
    lambda: DbRatingStore(migrated_db()),
]
USER_STORES: list[Callable[[], UserStore]] = [MemoryUserStore, lambda: DbUserStore(migrated_db())]
SESSION_STORES: list[Callable[[], SessionStore]] = [
    MemorySessionStore,
    lambda: DbSessionStore(migrated_db()),
]
LOBBY_STORES: list[Callable[[], LobbyStore]] = [
    MemoryLobbyStore,
    lambda: DbLobbyStore(migrated_db()),
]


def race(n: int, action: Callable[[int], object]) -> list[object]:
    """Run ``action(i)`` in ``n`` threads released together; their results."""
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        results[i] = action(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# ------------------------------------------------------------------ ratings


@pytest.fixture(params=RATING_STORES)
def ratings(request: pytest.FixtureRequest) -> RatingStore:
    factory: Callable[[], RatingStore] = request.param
    return factory()


def test_rating_store_new_players_have_the_default(ratings: RatingStore) -> None:
    assert ratings.perf("nobody", Category.BLITZ) == LICHESS.new_perf()
    assert ratings.applied("g0") is None


def test_rating_store_commits_once_per_game(ratings: RatingStore) -> None:
    result = RatedResult("g1", Category.BLITZ, "a", "b", 1.0, 10.0)
    update = compute_update(
        result, ratings.perf("a", Category.BLITZ), ratings.perf("b", Category.BLITZ)
    )
    assert ratings.commit(update)
    assert ratings.applied("g1") == update
    assert ratings.perf("a", Category.BLITZ) == update.black_after
    assert ratings.perf("b", Category.BLITZ) == update.white_after
    again = compute_update(
        result, ratings.perf("a", Category.BLITZ), ratings.perf("b", Category.BLITZ)
    )
    assert not ratings.commit(again)  # the game id is taken
    assert ratings.perf("a", Category.BLITZ) == update.black_after


def test_rating_store_refuses_stale_standings(ratings: RatingStore) -> None:
    fresh = LICHESS.new_perf()
    first = compute_update(RatedResult("g1", Category.RAPID, "a", "b", 1.0, 1.0), fresh, fresh)
    stale = compute_update(RatedResult("g2", Category.RAPID, "b", "c", 1.0, 2.0), fresh, fresh)
    assert ratings.commit(first)
    assert not ratings.commit(stale)  # "b" has played since
    assert ratings.applied("g2") is None
    assert ratings.perf("c", Category.RAPID) == fresh
    assert ratings.perf("b", Category.RAPID) == first.white_after


def test_rating_store_one_commit_wins_a_race(ratings: RatingStore) -> None:
    fresh = LICHESS.new_perf()
    updates = [
        compute_update(RatedResult("g1", Category.BLITZ, "a", "b", s, 1.0), fresh, fresh)
        for s in (0.0, 0.5, 1.0, 1.0, 0.0, 0.5)
    ]
    won = race(len(updates), lambda i: ratings.commit(updates[i]))
    assert won.count(True) == 1
    winner = updates[won.index(True)]
    assert ratings.applied("g1") == winner
    assert ratings.perf("a", Category.BLITZ) == winner.black_after


# -------------------------------------------------------------------- users


@pytest.fixture(params=USER_STORES)
def users(request: pytest.FixtureRequest) -> UserStore:
    factory: Callable[[], UserStore] = request.param
    return factory()


def user(uid: str, name: str) -> User:
    return User(uid, name, name.lower(), f"$argon2id$hash-of-{uid}", 1.0)


def test_user_store_keys_are_unique(users: UserStore) -> None:
    ann = user("u1", "Ann")
    assert users.add(ann)
    assert not users.add(user("u2", "ANN"))
    assert users.by_key("ann") == ann and users.by_id("u1") == ann
    assert users.by_id("u2") is None and users.by_key("bob") is None


def test_user_store_unique_under_a_race(users: UserStore) -> None:
    won = race(6, lambda i: users.add(user(f"u{i}", "Ann" if i % 2 else "aNN")))
    assert won.count(True) == 1


def test_user_store_password_hash_compare_and_set(users: UserStore) -> None:
    ann = user("u1", "Ann")
    users.add(ann)
    assert not users.set_password_hash("u1", "not the current hash", "new")
    assert users.set_password_hash("u1", ann.password_hash, "new")
    got = users.by_key("ann")
    assert got is not None and got.password_hash == "new"
    assert not users.set_password_hash("u9", "x", "y")


# ----------------------------------------------------------------- sessions


@pytest.fixture(params=SESSION_STORES)
def sessions(request: pytest.FixtureRequest) -> SessionStore:
    factory: Callable[[], SessionStore] = request.param
    return factory()


def test_session_store(sessions: SessionStore) -> None:
    a = Session("d1", "u1", 0.0, 0.0)
    b = Session("d2", "u1", 0.0, 0.0)
    c = Session("d3", "u2", 0.0, 0.0)
    for s in (a, b, c):
        sessions.insert(s)
    sessions.touch("d1", 5.0)
    got = sessions.get("d1")
    assert got is not None and got.last_seen == 5.0
    sessions.touch("gone", 5.0)
    assert sessions.delete("d3") and not sessions.delete("d3")
    assert sessions.delete_user("u1") == 2
    assert sessions.get("d1") is None and sessions.get("d2") is None


def test_a_session_is_read_with_its_account() -> None:
    """Who a request is, in one read: the session and its account, as the two reads
    of each would give them (the account gone: the session without it)."""
    db = migrated_db()
    users, sessions = DbUserStore(db), DbSessionStore(db)
    ann = User("u1", "Ann", "ann", "hash", 1.0, bot=True, locale="pt_BR")
    assert users.add(ann)
    assert not users.make_bot("u1", 0).held
    users.set_locale("u1", "pt_BR")
    sessions.insert(Session("d1", "u1", 2.0, 3.0))
    sessions.insert(Session("d2", "u-gone", 2.0, 3.0))
    assert sessions.session_user("d1") == (sessions.get("d1"), users.by_id("u1"))
    assert sessions.session_user("d1") == (Session("d1", "u1", 2.0, 3.0), ann)
    assert sessions.session_user("d2") == (Session("d2", "u-gone", 2.0, 3.0), None)
    assert sessions.session_user("unknown") is None


# -------------------------------------------------------------------- lobby


@pytest.fixture(params=LOBBY_STORES)
def lobby(request: pytest.FixtureRequest) -> LobbyStore:
    factory: Callable[[], LobbyStore] = request.param
    return factory()


def seek(sid: str, author: str, created: float) -> Seek:
    return Seek(sid, LobbyPlayer(author, author.upper()), SeekSpec(Clock(180, 2)), created)


def test_lobby_store_lists_oldest_first_and_by_author(lobby: LobbyStore) -> None:
    seeks = [seek("s1", "a", 1.0), seek("s2", "b", 2.0), seek("s3", "a", 3.0)]
    for s in seeks:
        lobby.insert(s)
    assert lobby.open_seeks() == seeks
    assert lobby.by_author("a") == [seeks[0], seeks[2]]
    assert lobby.get("s2") == seeks[1] and lobby.get("s9") is None


def test_lobby_store_take_has_one_winner(lobby: LobbyStore) -> None:
    lobby.insert(seek("s1", "a", 1.0))
    taken = race(8, lambda i: lobby.take("s1"))
    assert sum(t is not None for t in taken) == 1
    assert lobby.open_seeks() == [] and lobby.take("s1") is None
