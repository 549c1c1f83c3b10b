"""Invitations to an event, and club events' passwords hashed as accounts' are.

``tournament_players.invitation``: NULL for a player who joined or accepted;
"invited" for one named by an imported TRF file who has not answered yet (listed on
the event as invited, never paired, the event not on their page); "declined" once
they said no.  ``tournaments.password_argon2``: a club event's password as an
Argon2id PHC string, as accounts' are; the unsalted SHA-256 that events made before
kept in ``password_hash`` still verifies, and is replaced at its first right use.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("tournament_players", sa.Column("invitation", sa.String(8), nullable=True))
    op.add_column("tournaments", sa.Column("password_argon2", sa.String(128), nullable=True))


def downgrade() -> None:
    # plain DROP COLUMNs, as 0014's: a batch copy of ``tournaments`` would cascade
    op.drop_column("tournaments", "password_argon2")
    op.drop_column("tournament_players", "invitation")
