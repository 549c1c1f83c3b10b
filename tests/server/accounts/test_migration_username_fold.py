"""Revision 0005 gives every existing account its folded name, oldest first: of two
older accounts whose names read alike, the later keeps NULL and keeps working; new
look-alikes are refused from then on, and the revision goes down again."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import insert, inspect, select

from poolcheckers.server.database.engine import make_engine
from poolcheckers.server.database.tables import USERS

from ..test_migration_community import migrate


def test_upgrade_backfills_folded_names_oldest_first(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    migrate(engine, "0004")
    rows = [("a", "I1l", 1), ("b", "Il1", 2), ("c", "Ann", 3)]
    with engine.begin() as conn:
        for user_id, name, created in rows:
            conn.execute(
                insert(USERS).values(
                    id=user_id, username=name, username_key=name.lower(),
                    password_hash="x", created_ms=created,
                )
            )  # fmt: skip
    migrate(engine, "0005")
    with engine.connect() as conn:
        folds = dict(conn.execute(select(USERS.c.id, USERS.c.username_fold)).all())
    assert folds == {"a": "lll", "b": None, "c": "ann"}
    migrate(engine, "0004", down=True)
    assert "username_fold" not in {c["name"] for c in inspect(engine).get_columns("users")}
