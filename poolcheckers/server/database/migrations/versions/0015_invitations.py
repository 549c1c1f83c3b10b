"""Invitations to an event, and club events' passwords hashed as accounts' are.

``tournament_players.invitation``: NULL for a player who joined or accepted;
"invited" for one named by an imported TRF file who has not answered yet (listed on
the event as invited, never paired, the event not on their page); "declined" once
they said no.  ``tournaments.password_hash`` grows to hold an Argon2id PHC string
(the unsalted SHA-256 of events made before still verifies, and is replaced by an
Argon2id hash at its first right use).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("tournament_players", sa.Column("invitation", sa.String(8), nullable=True))
    # SQLite does not enforce a VARCHAR's length, and a batch copy of ``tournaments``
    # would cascade to its players and games: only PostgreSQL's column is widened
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column(
            "tournaments",
            "password_hash",
            type_=sa.String(255),
            existing_type=sa.String(64),
            existing_nullable=True,
        )


def downgrade() -> None:
    # a plain DROP COLUMN, as 0014's: a batch copy would cascade
    op.drop_column("tournament_players", "invitation")
