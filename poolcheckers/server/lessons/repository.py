"""A learner's lesson progress in the database (``lesson_progress``): the steps done
only grow (``UPDATE ... SET steps_done = max``), whatever the order answers arrive in
from several tabs or processes."""

from __future__ import annotations

from sqlalchemy import Engine, case, insert, select, update
from sqlalchemy.exc import IntegrityError

from poolcheckers.server.database.tables import LESSON_PROGRESS

_L = LESSON_PROGRESS


class DbLessonProgress:
    def __init__(self, db: Engine) -> None:
        self.db = db

    def of(self, user_id: str) -> dict[str, int]:
        query = select(_L.c.lesson_id, _L.c.steps_done).where(_L.c.user_id == user_id)
        with self.db.connect() as conn:
            return {lid: int(n) for lid, n in conn.execute(query)}

    def record(self, user_id: str, lesson_id: str, steps_done: int, total: int, now_ms: int) -> int:
        """Raise the steps done to ``steps_done`` (never lower); the stored count."""
        done_ms = now_ms if steps_done >= total else None
        for _ in range(3):
            with self.db.begin() as conn:
                changed = conn.execute(
                    update(_L)
                    .where(_L.c.user_id == user_id, _L.c.lesson_id == lesson_id)
                    .values(
                        steps_done=case(
                            (_L.c.steps_done < steps_done, steps_done), else_=_L.c.steps_done
                        ),
                        completed_ms=case(
                            (_L.c.completed_ms.is_(None), done_ms), else_=_L.c.completed_ms
                        ),
                        updated_ms=now_ms,
                    )
                ).rowcount
            if changed:
                break
            try:
                with self.db.begin() as conn:
                    conn.execute(
                        insert(_L).values(
                            user_id=user_id, lesson_id=lesson_id, steps_done=steps_done,
                            completed_ms=done_ms, updated_ms=now_ms,
                        )
                    )  # fmt: skip
                break
            except IntegrityError:
                continue  # another request made the row first: raise it instead
        return self.of(user_id).get(lesson_id, 0)
