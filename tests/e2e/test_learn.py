"""Lessons in Chromium, on a phone and a 1366x768 laptop: a learner opens a lesson,
plays a wrong move (told to try again), then the right ones to the end; the lesson is
marked done (in the browser when signed out, on the account when signed in); the
high-contrast option changes the board's colours and is kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board
from poolcheckers.server.lessons.model import BY_ID

from .conftest import PageFactory, Server
from .helpers import click_path, shot
from .test_community import SIZES, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def play(page: Page, fen: str, notation: str) -> None:
    board = Board(fen)
    click_path(page, list(board.parse_move(notation).path))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_lesson_is_completed_with_a_wrong_move_on_the_way(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(**SIZES[size])
    page.goto(server.url("/learn"))
    page.click("button.lesson[data-lesson='crowning']")
    lesson = BY_ID["crowning"]
    page.wait_for_selector("#learn-task:text('far row')")
    first = lesson.steps[0]
    play(page, first.fen, first.answers[0])
    page.wait_for_selector("#learn-feedback:text('Right!')")
    page.click("#learn-next")
    second = lesson.steps[1]
    page.wait_for_selector("#learn-steps:text('Step 2 of 2')")
    play(page, second.fen, "17x26")  # legal (free choice) but not the lesson's move
    page.wait_for_selector("#learn-feedback:text('Try again')")
    page.wait_for_function("() => document.querySelector('#learn-feedback').textContent === ''")
    play(page, second.fen, second.answers[0])
    page.wait_for_selector("#learn-feedback:text('Right!')")
    shot(page, f"lesson-done-{size}")
    page.click("#learn-next")
    page.wait_for_selector("button.lesson[data-lesson='crowning'] .lesson-state:text('Done')")
    # kept in this browser: still done after a reload
    page.reload()
    page.wait_for_selector("button.lesson[data-lesson='crowning'] .lesson-state:text('Done')")


def test_a_signed_in_learners_progress_is_kept_on_the_account(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page(**SIZES["laptop"])
    sign_up(page, server, "Learner_1")
    page.goto(server.url("/learn"))
    page.click("button.lesson[data-lesson='jumping']")
    step = BY_ID["jumping"].steps[0]
    play(page, step.fen, step.answers[0])
    page.wait_for_selector("#learn-feedback:text('Right!')")
    lessons = page.request.get(server.url("/api/lessons")).json()
    assert {le["id"]: le["done"] for le in lessons}["jumping"] == 1
    # high contrast: the board's dark squares turn grey, and the choice is kept
    before = page.eval_on_selector("svg.board .sq", "el => getComputedStyle(el).fill")
    page.click("#high-contrast")
    after = page.eval_on_selector("svg.board .sq", "el => getComputedStyle(el).fill")
    assert before != after and after == "rgb(92, 92, 92)"
    page.goto(server.url("/learn"))
    page.wait_for_selector("body.high-contrast")
    page.wait_for_selector("button.lesson[data-lesson='jumping'] .lesson-state:text('1 of 3')")
    shot(page, "lessons-high-contrast-laptop")
