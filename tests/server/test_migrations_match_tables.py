"""The migrations build exactly the tables the code declares: a column or table added
to one and not the other fails here, not on a deployed site."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.database.tables import METADATA


def test_migrated_database_has_the_declared_tables_and_columns(db_url: str) -> None:
    engine = make_engine(db_url)
    run_migrations(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), METADATA)
    engine.dispose()
    # only differences of tables and columns count (SQLite reports types loosely)
    structural = [
        d
        for d in diff
        if d[0]
        in {"add_table", "remove_table", "add_column", "remove_column", "add_index", "remove_index"}
    ]
    assert structural == []
