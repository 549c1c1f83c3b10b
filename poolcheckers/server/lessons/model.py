"""Lessons for beginners (plain code): a short series of positions per lesson, each
with the move (or moves) the learner must play and a word on why, checked by the
rules library.  The words are for children and newcomers: short, no rule ids (those
are in ``rules``, for the tests and the docs).

>>> step = LESSONS[0].steps[0]
>>> check(step, "22-18"), check(step, "22-17")
(True, True)
>>> check(step, "22-26")
Traceback (most recent call last):
...
poolcheckers.server.lessons.model.LessonError: 22-26: ...
"""

from __future__ import annotations

from dataclasses import dataclass

from poolcheckers.board import Board
from poolcheckers.errors import PoolCheckersError
from poolcheckers.server.domain_errors import CommunityError
from poolcheckers.server.i18n import M_, N_


class LessonError(CommunityError):
    field = "lesson"


class LessonGone(LessonError):
    code = "not_found"


@dataclass(frozen=True, slots=True)
class Step:
    #: what to do, in a few words
    task: str
    fen: str
    #: the right moves (R4); any of them is right
    answers: tuple[str, ...]
    #: said after the right move
    why: str


@dataclass(frozen=True, slots=True)
class Lesson:
    id: str
    title: str
    #: the rules it teaches (for the tests and the docs; the page shows none)
    rules: tuple[str, ...]
    steps: tuple[Step, ...]


LESSONS: tuple[Lesson, ...] = (
    Lesson("men", N_("How men move"), ("R6",), (
        Step(N_("Move your man one step forward."), "W:W22:B3", ("22-17", "22-18"),
             N_("Men move one square forward, on the dark squares.")),
        Step(N_("This man is at the edge. Move it forward."), "W:W21:B3", ("21-17",),
             N_("At the edge there is only one way forward.")),
    )),
    Lesson("jumping", N_("Jumping"), ("R7", "R11"), (
        Step(N_("Jump over the black man!"), "W:W22,30:B18,3", ("22x15",),
             N_("You jump over a piece to the empty square behind it, and take it.")),
        Step(N_("Men can jump backward too."), "W:W14,30:B18,1", ("14x23",),
             N_("A man moves forward, but it may jump forward or backward.")),
        Step(N_("If you can jump, you must jump."), "W:W22,31:B18,1", ("22x15",),
             N_("Jumping is not a choice: when a jump is there, you take it.")),
    )),
    Lesson("choice", N_("You choose the jump"), ("R12",), (
        Step(N_("Two jumps are possible. Pick either one."), "W:W15:B9,10,18", ("15x13", "15x22"),
             N_("In pool you may choose any jump, even the one that takes fewer pieces.")),
    )),
    Lesson("multi-jumps", N_("Keep jumping"), ("R13", "R14"), (
        Step(N_("Jump, and keep jumping while you can."), "W:W6:B10,19,27", ("6x31",),
             N_("Once you start jumping, you go on until no jump is left.")),
    )),
    Lesson("crowning", N_("Crowning"), ("R15",), (
        Step(N_("Reach the far row to make a king."), "W:W6:B20", ("6-1", "6-2"),
             N_("A man that ends its move on the far row becomes a king.")),
        Step(N_("Jump through the far row and keep going: take two."), "W:W17:B7,8,14,22",
             ("17x12",),
             N_("A man that can jump on from the far row must go on, and stays a man.")),
    )),
    Lesson("kings", N_("Flying kings"), ("R8", "R9", "R10"), (
        Step(N_("A king flies along a diagonal. Move it as far as it can go."), "W:WK29:B4",
             ("29-8",), N_("Kings move any distance, forward or backward.")),
        Step(N_("A king can jump from far away."), "W:WK29:B15,4", ("29x11", "29x8"),
             N_("A king jumps a piece at any distance and lands on any empty square beyond.")),
    )),
    Lesson("counts", N_("Three kings against one"), ("R19", "R18"), (
        Step(N_("Three kings must catch the lone king within 13 moves. Catch it now!"),
             "W:WK29,K2,K3:BK22", ("29x18", "29x15", "29x11", "29x8", "29x4"),
             N_("Caught in time. After 13 moves without catching it, the game is a draw.")),
    )),
    Lesson("game-end", N_("How a game ends"), ("R16",), (
        Step(N_("Take Black's last piece."), "W:W22,30:B18", ("22x15",),
             N_("A player with no pieces left loses.")),
        Step(N_("Leave Black without a move."), "W:W5,32:B28", ("5-1",),
             N_("A player who cannot move loses, even with pieces on the board.")),
    )),
)  # fmt: skip
BY_ID = {lesson.id: lesson for lesson in LESSONS}


def lesson(lesson_id: str) -> Lesson:
    found = BY_ID.get(lesson_id)
    if found is None:
        raise LessonGone(M_("no lesson {lesson_id}", lesson_id=repr(lesson_id)))
    return found


def check(step: Step, move: object) -> bool:
    """Whether ``move`` is one of the step's answers (any notation of the same move,
    R4); a move that is not legal is refused by the rules library's words."""
    if not isinstance(move, str):
        raise LessonError(M_("move must be text in R4 notation, not {move}", move=repr(move)))
    board = Board(step.fen)
    try:
        played = board.parse_move(move)
    except PoolCheckersError as error:
        raise LessonError(f"{move}: {error}") from error
    return any(board.parse_move(a) == played for a in step.answers)
