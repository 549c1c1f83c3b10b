"""The puzzle trainer in a browser, on a phone and a 1366x768 laptop: a signed-in
player solves a puzzle by clicking its moves (the site plays the replies) and sees
their puzzle rating change; a signed-out player plays a wrong move, the attempt ends
and the solution is replayed move by move; a hint marks the piece to move; the
solved puzzle opens on the analysis board with its solution; the puzzle of the day
is on the home page.  The site never sends a solution before the attempt ends: the
test reads it from the puzzle store (the shipped set the server stores), as a player
who knows the answer would play it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from poolcheckers.puzzles import Puzzle, shipped_puzzles

from .conftest import PageFactory, Server
from .helpers import click_path, shot
from .test_community import SIZES, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


def api(page: Page, server: Server, path: str, body: dict[str, Any] | None = None) -> Any:
    url = server.url(path)
    if body is None:
        return page.request.get(url).json()
    r = page.request.post(url, data=body, headers={"Origin": server.base_url})
    assert r.ok, r.text()
    return r.json()


def a_puzzle(page: Page, server: Server, solver_moves: int) -> tuple[dict[str, Any], Puzzle]:
    """A stored puzzle with this many solver moves, as the site serves it (no
    solution) and as the puzzle store holds it (with its solution)."""
    for stored in shipped_puzzles():
        if (len(stored.solution) + 1) // 2 == solver_moves:
            served = api(page, server, f"/api/puzzles/{stored.id}")
            assert served["fen"] == stored.fen and "solution" not in served
            return served, stored
    raise AssertionError(f"no puzzle of {solver_moves} solver moves")


def path_of(page: Page, server: Server, fen: str, moves: list[str], move: str) -> list[int]:
    """The squares to click for ``move`` after ``moves`` (the server's legal moves)."""
    info = api(page, server, "/api/analysis/position", {"fen": fen, "moves": moves})
    found = [m["path"] for m in info["legal_moves"] if m["notation"] == move]
    assert found, f"{move} is not legal after {moves}"
    return list(found[0])


def open_puzzle(page: Page, server: Server, pid: str) -> None:
    page.goto(server.url(f"/puzzles/{pid}"))
    page.wait_for_selector("#puzzle-goal:not(:empty)")
    page.wait_for_selector("svg.board .piece")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_signed_in_player_solves_a_puzzle_and_their_rating_moves(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(**SIZES[size])
    sign_up(page, server, f"Solver_{size}")
    puzzle, stored = a_puzzle(page, server, 2)
    open_puzzle(page, server, puzzle["id"])
    assert page.inner_text("#status").startswith("Your turn")
    assert page.inner_text("#puzzle-goal") == puzzle["goal_text"]
    solution = list(stored.solution)
    for i in range(0, len(solution), 2):
        click_path(page, path_of(page, server, puzzle["fen"], solution[:i], solution[i]))
        if i + 2 < len(solution):
            page.wait_for_function(
                "() => document.querySelector('#puzzle-feedback').textContent.includes('Best')"
            )
            # the site plays the reply, then it is the solver's turn again
            page.wait_for_function(
                "() => document.querySelector('#status').textContent.startsWith('Your turn')"
            )
            page.wait_for_timeout(600)
    page.wait_for_selector("#status:text('Solved!')")
    page.wait_for_selector("#puzzle-rating:text('Your puzzle rating')")
    assert "(+" in page.inner_text("#puzzle-rating")
    shot(page, f"puzzle-solved-{size}")
    me = api(page, server, "/api/puzzles/me")
    assert me["attempts"] == 1 and me["history"][0]["solved"] is True
    # the puzzle on the analysis board, its solution as the line
    page.click("#puzzle-analysis")
    page.wait_for_url(re.compile(r"/analysis\?fen="))
    page.wait_for_selector("svg.board .piece")
    page.wait_for_selector("#move-list li")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_wrong_move_ends_the_attempt_and_the_solution_is_replayed(
    server: Server, new_page: PageFactory, size: str
) -> None:
    page = new_page(**SIZES[size])
    page.goto(server.url("/"))
    puzzle, stored = a_puzzle(page, server, 1)
    open_puzzle(page, server, puzzle["id"])
    # a hint marks the square of the piece to move
    page.click("#puzzle-hint")
    page.wait_for_selector("svg.board .mark.hint")
    first = path_of(page, server, puzzle["fen"], [], stored.solution[0])
    assert f"square {first[0]}" in page.inner_text("#puzzle-feedback")
    info = api(page, server, "/api/analysis/position", {"fen": puzzle["fen"], "moves": []})
    wrong = next(m for m in info["legal_moves"] if m["notation"] != stored.solution[0])
    click_path(page, wrong["path"])
    page.wait_for_selector("#status:text('That is not the move.')")
    page.wait_for_selector("#puzzle-rating:text('Sign in')")
    page.wait_for_selector("#puzzle-replay:not([hidden])")
    page.click("#replay-next")
    page.wait_for_function(
        "() => document.querySelector('.replay-where').textContent.startsWith('1/')"
    )
    shot(page, f"puzzle-failed-{size}")
    page.click("#puzzle-next")
    page.wait_for_url(re.compile(r"/puzzles$"))
    page.wait_for_selector("#puzzle-hint")  # a new puzzle to solve


def test_the_puzzle_of_the_day_is_on_the_home_page(server: Server, new_page: PageFactory) -> None:
    page = new_page(**SIZES["laptop"])
    page.goto(server.url("/"))
    page.wait_for_selector("#daily-puzzle:not([hidden]) svg.board.mini .mini-piece")
    daily = api(page, server, "/api/puzzles/daily")
    assert "solution" not in daily
    page.click("#daily-puzzle a.button")
    page.wait_for_url(re.compile(rf"/puzzles/{daily['id']}$"))
    page.wait_for_selector("#puzzle-goal:not(:empty)")
