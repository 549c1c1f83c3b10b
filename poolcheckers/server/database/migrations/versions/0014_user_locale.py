"""The account's language: ``users.locale`` (a gettext name of server/i18n, or NULL
for the browser's own).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("users", sa.Column("locale", sa.String(8), nullable=True))


def downgrade() -> None:
    # a plain DROP COLUMN, as 0013's: a batch copy of ``users`` would cascade
    op.drop_column("users", "locale")
