"""A tournament game lost by forfeit keeps the forfeit's result: a game the no-show
rule ended in a round robin or a Swiss event (termination ``no_show``, status
``aborted``) gets the side that moved as its ``winner`` and the forfeit score as its
``result`` (``0-2`` when Black never moved, ``2-0`` when White did not), and its
words say who won: "White wins by forfeit: Black did not make a first move ...".
The games are found by the words the rule stored ("Forfeit: ..."; an arena's,
which score for nobody, read "Aborted: ..." and are left as they are).

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | None = None
depends_on: str | None = None

_GAMES = sa.table(
    "games",
    sa.column("termination", sa.String),
    sa.column("winner", sa.String),
    sa.column("result", sa.String),
    sa.column("reason", sa.Text),
    sa.column("ply", sa.Integer),
)
#: "Forfeit: " and "White wins by forfeit: " ("Black ..." is as long)
_OLD_HEAD = len("Forfeit: ")
_NEW_HEAD = len("White wins by forfeit: ")


def upgrade() -> None:
    g = _GAMES.c
    black_absent = g.ply == 0  # Black never moved: White wins
    op.execute(
        _GAMES.update()
        .where(g.termination == "no_show", g.reason.like("Forfeit: % did not make a first move%"))
        .values(
            winner=sa.case((black_absent, "white"), else_="black"),
            result=sa.case((black_absent, "0-2"), else_="2-0"),
            reason=sa.case((black_absent, "White"), else_="Black")
            + " wins by forfeit: "
            + sa.func.substr(g.reason, _OLD_HEAD + 1),
        )
    )


def downgrade() -> None:
    g = _GAMES.c
    op.execute(
        _GAMES.update()
        .where(g.termination == "no_show", g.reason.like("% wins by forfeit: %"))
        .values(
            winner=None, result="*", reason="Forfeit: " + sa.func.substr(g.reason, _NEW_HEAD + 1)
        )
    )
