"""Endgame practice in Chromium, on a phone and a 1366x768 laptop (docs/PRACTICE.md):
an ending is played to its end against the tables' perfect defence, each move said to
keep the result; a careless move is told what it threw away and which move kept it;
the count of three kings against one runs on the page.

The tests' shared server runs without tables (tests/conftest.py); this module starts
its own with the <= 4-piece tables built into a temporary folder (seconds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board
from poolcheckers.egdb import Tablebase, build
from poolcheckers.engine import tables_move_values

from .conftest import PageFactory, Server, running_server
from .helpers import click_path, shot
from .test_community import SIZES

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("practice-egdb")
    build(4, path)
    return path


@pytest.fixture(scope="module")
def practice_server(tmp_path_factory: pytest.TempPathFactory, tables: Path) -> Iterator[Server]:
    changes = {"POOLCHECKERS_EGDB": None, "POOLCHECKERS_EGDB_DIR": str(tables)}
    with running_server(tmp_path_factory.mktemp("practice-server"), changes) as srv:
        yield srv


def line(page: Page) -> list[str]:
    moves = page.get_attribute("#practice-line", "data-moves") or ""
    return moves.split()


def open_exercise(page: Page, server: Server, title: str) -> None:
    page.goto(server.url("/practice"))
    page.click(f"button.exercise:has-text('{title}')")
    page.wait_for_selector("#status:text('Your turn')")


@pytest.mark.parametrize("size", list(SIZES))
def test_an_ending_is_won_against_perfect_defence(
    practice_server: Server, new_page: PageFactory, tables: Path, size: str
) -> None:
    page = new_page(**SIZES[size])
    open_exercise(page, practice_server, "King and man against king")
    assert page.inner_text("#practice-target") == "Win within the count"
    tb = Tablebase(tables)
    fen = "W:WK3,11:BK29"
    for _ in range(40):
        board = Board(fen)
        for text in line(page):
            board.push_notation(text)
        values = tables_move_values(tb, board) or []
        best = min(((d or 0, m) for m, v, d in values if v == "win"), key=lambda x: x[0])[1]
        done = len(line(page))
        click_path(page, list(best.path))
        page.wait_for_function(
            "n => (document.querySelector('#practice-line').dataset.moves || '')"
            ".split(' ').filter(Boolean).length > n && (document.querySelector('#status')"
            ".textContent.startsWith('Your turn') || document.querySelector('#status')"
            ".textContent.startsWith('Well done'))",
            arg=done,
        )
        assert "keeps the win" in page.inner_text("#practice-verdict") or "best move" in (
            page.inner_text("#practice-verdict")
        )
        if page.inner_text("#status").startswith("Well done"):
            break
    else:
        raise AssertionError("the ending did not end")
    assert "(R" not in page.inner_text("#status")  # plain words on the page
    shot(page, f"practice-won-{size}")


def test_a_careless_move_is_told_what_it_threw_away(
    practice_server: Server, new_page: PageFactory, tables: Path
) -> None:
    page = new_page(**SIZES["laptop"])
    open_exercise(page, practice_server, "Three kings against one")
    board = Board("W:WK12,K16,K26:BK27")
    values = tables_move_values(Tablebase(tables), board) or []
    careless = next(m for m, v, _d in values if v != "win")
    click_path(page, list(careless.path))
    page.wait_for_selector("#practice-verdict:text('turns the win into')")
    assert "was the move" in page.inner_text("#practice-verdict")
    # the count of three kings against one runs (in plain words, not rule ids)
    page.wait_for_selector("#count-three-kings")
    assert "of 13 for the three kings" in page.inner_text("#count-three-kings")
    shot(page, "practice-careless-laptop")
