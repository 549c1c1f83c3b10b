"""Alembic environment: migrations run programmatically on a given connection."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from poolcheckers.server.database.tables import METADATA

connection: Connection | None = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only used programmatically
    raise RuntimeError("poolcheckers migrations run through poolcheckers.server.database.engine")
context.configure(connection=connection, target_metadata=METADATA)
with context.begin_transaction():
    context.run_migrations()
