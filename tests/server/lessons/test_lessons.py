"""Lessons: every step's position and answers are checked by the rules library, and
each lesson shows the rule it teaches (R6 … R16); an answer is judged by the server
(any notation of the same move); a signed-in learner's progress is kept and only
grows; a signed-out learner gets the same answers without progress."""

from __future__ import annotations

import pytest
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from poolcheckers import Board
from poolcheckers.server.lessons.model import BY_ID, LESSONS

from ..conftest import AppFactory
from ..tournaments.test_tournament_api import sign_up


def legal(fen: str) -> set[str]:
    board = Board(fen)
    return {board.notation(m) for m in board.legal_moves}


@pytest.mark.parametrize("lesson", LESSONS, ids=[le.id for le in LESSONS])
def test_every_step_is_a_legal_position_with_legal_answers(lesson: object) -> None:
    from poolcheckers.server.lessons.model import Lesson

    assert isinstance(lesson, Lesson)
    for step in lesson.steps:
        board = Board(step.fen)
        assert board.outcome() is None, step.fen
        assert step.answers and set(step.answers) <= legal(step.fen), step.fen
        assert len(step.task) <= 80 and len(step.why) <= 90  # few words, for children
        assert "(R" not in step.task + step.why  # plain words on the page


def test_men_move_one_square_forward_R6() -> None:
    for step in BY_ID["men"].steps:
        board = Board(step.fen)
        for move in board.legal_moves:
            assert not move.captured
            assert move.destination < move.origin  # White's men go up the board
        assert set(step.answers) == legal(step.fen)


def test_a_jump_must_be_made_when_there_is_one_R11() -> None:
    step = BY_ID["jumping"].steps[2]
    assert all(m.captured for m in Board(step.fen).legal_moves)
    backward = BY_ID["jumping"].steps[1]
    move = Board(backward.fen).parse_move(backward.answers[0])
    assert move.destination > move.origin  # a man jumps backward (R7)


def test_free_choice_accepts_the_smaller_jump_R12() -> None:
    step = BY_ID["choice"].steps[0]
    board = Board(step.fen)
    sizes = sorted(len(board.parse_move(a).captured) for a in step.answers)
    assert sizes == [1, 2] and set(step.answers) == legal(step.fen)


def test_a_man_passing_the_king_row_jumps_on_as_a_man_R15() -> None:
    step = BY_ID["crowning"].steps[1]
    board = Board(step.fen)
    move = board.parse_move(step.answers[0])
    assert any(s <= 4 for s in move.path[1:-1]) and move.destination > 4
    board.push(move)
    assert move.destination in board.pieces(board.turn.opponent)  # still a man, not a king
    assert board.fen().count("K") == 0


def test_the_endings_win_by_the_rules_R16_R19() -> None:
    for step in BY_ID["game-end"].steps:
        board = Board(step.fen)
        board.push_notation(step.answers[0])
        outcome = board.outcome()
        assert outcome is not None and outcome.winner == board.turn.opponent
    counts = BY_ID["counts"].steps[0]
    board = Board(counts.fen)
    assert board.three_kings_active
    assert set(counts.answers) == {board.notation(m) for m in board.legal_moves if m.captured}


@pytest.fixture
def site(make_client: AppFactory) -> TestClient:
    return make_client(password_parameters=CHEAPEST, signup_limit=(100, 3600.0))


def test_answers_are_judged_and_a_learners_progress_is_kept(site: TestClient) -> None:
    listed = site.get("/api/lessons").json()
    assert [le["id"] for le in listed] == [le.id for le in LESSONS]
    assert all(le["done"] == 0 for le in listed)
    # signed out: judged, nothing kept
    r = site.post("/api/lessons/jumping/answer", json={"step": 0, "move": "22x15"})
    assert r.json() == {"correct": True, "why": BY_ID["jumping"].steps[0].why, "done": None,
                        "last": False}  # fmt: skip
    ann = sign_up(site, "ann")
    last = ann.post("/api/lessons/jumping/answer", json={"step": 2, "move": "22x15"}).json()
    assert last["correct"] is True and last["done"] == 3 and last["last"] is True
    # an earlier step answered again does not lower it
    again = ann.post("/api/lessons/jumping/answer", json={"step": 0, "move": "22x15"}).json()
    assert again["done"] == 3
    assert {le["id"]: le["done"] for le in ann.get("/api/lessons").json()}["jumping"] == 3
    assert ann.post("/api/lessons/choice/answer", json={"step": 0, "move": "15x22"}).json()[
        "correct"
    ]  # the smaller jump is right too (R12)
    tried = ann.post("/api/lessons/crowning/answer", json={"step": 1, "move": "17x26"}).json()
    assert tried["correct"] is False and tried["done"] is None
    r = ann.post("/api/lessons/men/answer", json={"step": 1, "move": "21-25"})
    assert r.status_code == 400 and "21-25" in r.text and "(R" in r.text
    assert ann.post("/api/lessons/nope/answer", json={"step": 0, "move": "1-5"}).status_code == 404
    assert ann.post("/api/lessons/men/answer", json={"step": 9, "move": "1-5"}).status_code == 400
