"""Names that read alike: ``users.username_fold``, unique.

The look-alike form of each name (``accounts.model.fold``: case, separators and
look-alike characters made one).  Existing accounts are given theirs, oldest first;
an account whose form an older one already has keeps NULL (it keeps working, and
no new name may read like either).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from poolcheckers.server.accounts.model import fold

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("users", sa.Column("username_fold", sa.String(20), nullable=True))
    users = sa.table(
        "users",
        sa.column("id", sa.String),
        sa.column("username", sa.String),
        sa.column("created_ms", sa.BigInteger),
        sa.column("username_fold", sa.String),
    )
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(users.c.id, users.c.username).order_by(users.c.created_ms, users.c.id)
    )
    seen: set[str] = set()
    for user_id, username in list(rows):
        folded = fold(username)
        if folded in seen:
            continue
        seen.add(folded)
        conn.execute(sa.update(users).where(users.c.id == user_id).values(username_fold=folded))
    op.create_index("ux_users_username_fold", "users", ["username_fold"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_users_username_fold", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("username_fold")
