"""Why an arena withdrew a player: ``tournament_players.withdrawn_why``.

"no_show" for a player the arena's no-show rule paused (they did not make their first
move in time: the game counts for nobody, and they are paired again once they join
again, which clears it); NULL for a player who withdrew themselves, or never did.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("tournament_players", sa.Column("withdrawn_why", sa.String(8), nullable=True))


def downgrade() -> None:
    # a plain DROP COLUMN, as 0017's
    op.drop_column("tournament_players", "withdrawn_why")
