"""What the lesson routes call: the lessons, a learner's answer checked by the rules
library, and the progress of a signed-in learner (a signed-out one keeps it in the
browser)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from poolcheckers.server.accounts.model import User
from poolcheckers.server.i18n import M_, N_
from poolcheckers.server.lessons.model import LESSONS, LessonError, check, lesson
from poolcheckers.server.lessons.repository import DbLessonProgress
from poolcheckers.server.timesource import TimeSource


class LessonService:
    def __init__(self, db: Engine, clock: TimeSource) -> None:
        self.progress = DbLessonProgress(db)
        self.clock = clock

    def listed(self, user: User | None) -> list[dict[str, Any]]:
        done = {} if user is None else self.progress.of(user.id)
        return [
            {
                "id": le.id,
                "title": le.title,
                "steps": [{"task": s.task, "fen": s.fen} for s in le.steps],
                "done": done.get(le.id, 0),
            }
            for le in LESSONS
        ]

    def answer(
        self, lesson_id: str, step: object, move: object, user: User | None
    ) -> dict[str, Any]:
        """Check the learner's move at ``step`` (0-based); right: the word on why, and
        the progress kept for an account."""
        found = lesson(lesson_id)
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < len(found.steps):
            raise LessonError(
                M_(
                    "step must be 0 to {value}, not {step}",
                    value=len(found.steps) - 1,
                    step=repr(step),
                )
            )
        s = found.steps[step]
        right = check(s, move)
        done = None
        if right and user is not None:
            done = self.progress.record(
                user.id, found.id, step + 1, len(found.steps), self.clock.now_ms()
            )
        return {
            "correct": right,
            "why": s.why if right else N_("Not this one. Try again!"),
            "done": done,
            "last": step == len(found.steps) - 1,
        }
