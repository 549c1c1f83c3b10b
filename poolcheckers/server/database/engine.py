"""Database engines: URLs, SQLite's pragmas and WAL checkpoints, and the embedded
alembic migrations (the tables are in :mod:`poolcheckers.server.database.tables`).

>>> normalize_url("postgresql://u:p@localhost/db")
'postgresql+psycopg://u:p@localhost/db'
>>> normalize_url("postgres://localhost/db")
'postgresql+psycopg://localhost/db'
>>> normalize_url("sqlite:///games.sqlite3")
'sqlite:///games.sqlite3'
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
    create_engine,
    event,
    exc,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.pool import ConnectionPoolEntry

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
PG_CHANNEL = "poolcheckers_games"
#: a pooled PostgreSQL connection idle for longer than this is pinged before use
PING_AFTER_IDLE_S = 1.0
#: psycopg prepares a statement on a connection (PostgreSQL parses it once, and
#: after five runs plans it once) at its run after this many; its default of 5
#: left the statements of a burst of lobby accepts, spread over 20 pooled
#: connections a process, parsed and planned afresh nearly every time (a seek's
#: read: 0.5 ms unprepared, 0.1 ms prepared).  One run first keeps statements run
#: once (start-up, administration) out of its cache of 100 per connection.
PREPARE_THRESHOLD = 1


def default_database_path() -> Path:
    """The default SQLite file: ``$XDG_DATA_HOME/poolcheckers/games.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "poolcheckers" / "games.sqlite3"


def normalize_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_postgres(url: str) -> bool:
    return make_url(normalize_url(url)).get_backend_name() == "postgresql"


#: the host names of this machine, as a PostgreSQL URL may give them
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def is_local(engine: Engine) -> bool:
    """Whether ``engine``'s database is on this machine: SQLite, or PostgreSQL over a
    Unix socket (no host, or a ``host`` query that is a path) or the loopback."""
    url = engine.url
    if url.get_backend_name() == "sqlite":
        return True
    host = url.host or url.query.get("host") or ""
    if isinstance(host, tuple):  # several hosts: local only if every one is
        return all(h.startswith("/") or h in LOCAL_HOSTS for h in host)
    return host == "" or host.startswith("/") or host in LOCAL_HOSTS


def libpq_conninfo(url: str) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL (for LISTEN)."""
    u = make_url(normalize_url(url)).set(drivername="postgresql")
    return u.render_as_string(hide_password=False)


def make_engine(url: str, *, background_checkpoints: bool = False) -> Engine:
    """Create the SQLAlchemy engine; SQLite gets WAL, a busy timeout and foreign keys.

    ``background_checkpoints``: SQLite connections do not checkpoint the WAL when they
    commit (that would fsync the database file in the middle of answering a move);
    the caller runs :func:`checkpoint` from a background thread instead.
    """
    url = normalize_url(url)
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            if background_checkpoints:
                cur.execute("PRAGMA wal_autocheckpoint=0")
            cur.close()

        return engine
    # kept open: each database thread (8 by default) may hold one connection for its
    # work's reads and one for its transaction, and a connection closed on return
    # above the pool's size costs PostgreSQL a new backend when next needed
    engine = create_engine(
        url,
        pool_size=20,
        max_overflow=20,
        connect_args={"prepare_threshold": PREPARE_THRESHOLD},
    )
    ping_when_idle(engine, PING_AFTER_IDLE_S)
    return engine


def single_reads(engine: Engine) -> Engine:
    """The engine for reads of one statement, sharing ``engine``'s pool: with
    PostgreSQL, outside any transaction (autocommit).  In a transaction, psycopg
    sends BEGIN before the statement and SQLAlchemy ROLLBACK after it, two round
    trips more than the read itself; under READ COMMITTED (the default) a statement
    sees the same data either way.  SQLite's driver begins no transaction for a
    read: the engine itself."""
    if engine.dialect.name != "postgresql":
        return engine
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def ping_when_idle(engine: Engine, idle_s: float) -> None:
    """Check a pooled connection before lending it only when it has been idle for
    ``idle_s``: a connection used a moment ago is alive (a database restart while
    the site was quiet is what the check is for), and checking every time cost a
    round trip per checkout, a third of a lobby accept's.  HikariCP skips its
    check the same way within half a second of a connection's last use.  A
    connection that fails the check is discarded and another one lent
    (SQLAlchemy's pessimistic disconnect handling: ``DisconnectionError``)."""

    def _used(_dbapi_conn: Any, record: ConnectionPoolEntry) -> None:
        record.info["used"] = time.monotonic()

    event.listen(engine.pool, "connect", _used)  # a new connection is alive too
    event.listen(engine.pool, "checkin", _used)

    @event.listens_for(engine.pool, "checkout")
    def _check(dbapi_conn: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        used = record.info.get("used")
        if used is not None and time.monotonic() - used < idle_s:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_conn)
        except Exception as e:
            raise exc.DisconnectionError(f"pooled connection is dead: {e}") from e
        if not alive:
            raise exc.DisconnectionError("pooled connection is dead")


def checkpoint(engine: Engine) -> tuple[int, int, int] | None:
    """Copy the SQLite WAL into the database file without blocking writers
    (``PRAGMA wal_checkpoint(PASSIVE)``): (busy, WAL frames, frames copied).
    None for other databases."""
    if engine.dialect.name != "sqlite":
        return None
    with engine.connect() as conn:
        row = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
        return int(row[0]), int(row[1]), int(row[2])


def run_migrations(engine: Engine) -> None:
    """Bring the database schema to the latest alembic revision (run at start-up).

    On PostgreSQL an advisory lock serialises concurrent start-ups of several servers.
    """
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(7226201)"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def make_url_safe(url: str) -> str:
    """The URL with its password hidden (for printing).

    >>> make_url_safe("postgresql://u:secret@h/db")
    'postgresql://u:***@h/db'
    """
    return make_url(url).render_as_string(hide_password=True)
