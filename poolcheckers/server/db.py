"""Storage: SQLAlchemy 2 Core tables, database URLs and the embedded alembic migrations.

A game is one row of ``games`` plus one row of ``moves`` per ply.  The primary key
``(game_id, ply)`` of ``moves`` and the ``version`` column of ``games`` (updated by
compare-and-set) make sure that two moves racing for the same ply cannot both be
stored, even when they come from different server processes.

>>> normalize_url("postgresql://u:p@localhost/db")
'postgresql+psycopg://u:p@localhost/db'
>>> normalize_url("postgres://localhost/db")
'postgresql+psycopg://localhost/db'
>>> normalize_url("sqlite:///games.sqlite3")
'sqlite:///games.sqlite3'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Engine,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    text,
)
from sqlalchemy.engine import make_url

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
PG_CHANNEL = "poolcheckers_games"


METADATA = MetaData()

#: One game: its set-up, seats, clocks and result (the moves are in ``moves``).  Its
#: in-memory form is :class:`poolcheckers.server.game.GameRec`, field for column.
GAMES = Table(
    "games",
    METADATA,
    Column("id", String(32), primary_key=True),
    Column("mode", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("rules", JSON, nullable=False),
    Column("start_fen", Text, nullable=False),
    Column("level", Integer, nullable=True),
    Column("engine_color", String(8), nullable=True),
    Column("black_token_hash", String(64), nullable=True),
    Column("white_token_hash", String(64), nullable=True),
    Column("invite_hash", String(64), nullable=True),
    Column("clock_initial_ms", BigInteger, nullable=True),
    Column("clock_increment_ms", BigInteger, nullable=True),
    Column("black_ms", BigInteger, nullable=True),
    Column("white_ms", BigInteger, nullable=True),
    Column("clock_running", String(8), nullable=True),
    Column("turn_started_ms", BigInteger, nullable=True),
    Column("deadline_ms", BigInteger, nullable=True),
    Column("ply", Integer, nullable=False),
    Column("draw_offer", String(8), nullable=True),
    Column("termination", String(16), nullable=True),
    Column("winner", String(8), nullable=True),
    Column("result", String(8), nullable=True),
    Column("reason", Text, nullable=True),
    Column("tags", JSON, nullable=True),
    Column("version", Integer, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    # community (migration 0002): account seats, rated games, ratings at the start
    Column("black_user_id", String(16), nullable=True),
    Column("white_user_id", String(16), nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    Column("category", String(16), nullable=True),
    Column("days_per_move", Integer, nullable=True),
    Column("black_rating", Integer, nullable=True),
    Column("white_rating", Integer, nullable=True),
    Column("rematch_of", String(32), nullable=True),
    # game flow (migration 0003): a standing rematch offer, the rematch once started
    Column("rematch_offer", String(8), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Index("ix_games_status_created", "status", "created_ms"),
    Index("ix_games_deadline", "deadline_ms"),
    Index("ix_games_black_user", "black_user_id", "created_ms"),
    Index("ix_games_white_user", "white_user_id", "created_ms"),
)

#: One ply of a game; ``(game_id, ply)`` is unique: one move per ply, ever.
#: In memory: :class:`poolcheckers.server.game.MoveRec`.
MOVES = Table(
    "moves",
    METADATA,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("ply", Integer, primary_key=True),
    Column("notation", String(128), nullable=False),
    Column("path", String(128), nullable=False),
    Column("color", String(8), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("black_ms", BigInteger, nullable=True),
    Column("white_ms", BigInteger, nullable=True),
    Column("draw_offer", String(8), nullable=True),
    Column("version", Integer, nullable=False),
)


#: The counters of the site's rates (:mod:`poolcheckers.server.quotas`): a count per
#: name until it expires, shared by every server process (migration 0004).
RATE_COUNTERS = Table(
    "rate_counters",
    METADATA,
    Column("name", String(255), primary_key=True),
    Column("count", BigInteger, nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_rate_counters_expires", "expires_ms"),
)

#: Slots held at once (an analysis running, say): one lease per slot, lapsing by itself
#: when its process never gives it back (migration 0004).
SLOT_LEASES = Table(
    "slot_leases",
    METADATA,
    Column("lease", String(32), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Index("ix_slot_leases_name", "name", "expires_ms"),
)


#: One SHA-256 per imported game (:func:`poolcheckers.server.pdnio.game_digest`): the
#: same PDN game is imported once (migration 0003).
GAME_DIGESTS = Table(
    "game_digests",
    METADATA,
    Column("digest", String(64), primary_key=True),
    Column(
        "game_id",
        String(32),
        ForeignKey("games.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
)


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
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


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
