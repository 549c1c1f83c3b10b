"""The endgame tables on the analysis page in Chromium (docs/EGDB.md):
the value of a covered position as a headline, every legal move with the mover's value
and its plies to conversion, best first, each a button that plays it, and a game review
that calls no move that keeps a table win a mistake.

The tests' other server runs without tables (tests/conftest.py sets
POOLCHECKERS_EGDB=off); this module starts its own, with the <= 3-piece tables built
into a temporary directory (seconds) and found through POOLCHECKERS_EGDB_DIR.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from poolcheckers import Board, Color
from poolcheckers.egdb import build

from .conftest import PageFactory, Server, running_server
from .helpers import fen_pieces, move_texts, pieces, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

#: two kings against one, White to move: a table win (R16), conversion in 3 plies
WIN_FEN = "W:WK29,K30:BK4"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
RANK = {"win": 0, "draw": 1, "loss": 2}


@pytest.fixture(scope="module")
def tb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The app with the <= 3-piece tables (its own process, its own database)."""
    tmp = tmp_path_factory.mktemp("e2e-tablebase")
    tables = tmp / "egdb"
    build(3, tables)
    # "off" (tests/conftest.py) for the other tests' server only
    changes = {"POOLCHECKERS_EGDB": None, "POOLCHECKERS_EGDB_DIR": str(tables)}
    with running_server(tmp, changes) as srv:
        yield srv


def open_position(page: Page, server: Server, fen: str) -> None:
    page.goto(server.url("/analysis?fen=" + urllib.parse.quote(fen)))
    page.wait_for_selector("svg.board .piece")
    shown(page, Board(fen).fen())
    assert pieces(page) == fen_pieces(fen)


def shown(page: Page, fen: str) -> None:
    page.wait_for_function("f => document.querySelector('#fen-out')?.value === f", arg=fen)
    page.wait_for_selector("#tablebase:not([hidden]) .tb-move")


def listed(page: Page) -> list[dict[str, Any]]:
    """The move list of the tables' card, in its order."""
    rows: list[dict[str, Any]] = page.eval_on_selector_all(
        "#tablebase-moves button.tb-move",
        "els => els.map(e => ({move: e.dataset.move, value: e.dataset.value, "
        "dtz: e.dataset.dtz === '' ? null : Number(e.dataset.dtz), text: e.textContent}))",
    )
    return rows


def table_view(server: Server, fen: str, moves: list[str]) -> dict[str, Any]:
    info: dict[str, Any] = server.post_json("/api/analysis/position", {"fen": fen, "moves": moves})
    tb: dict[str, Any] = info["tablebase"]
    return tb


def check_card(page: Page, server: Server, fen: str, moves: list[str]) -> list[dict[str, Any]]:
    """The card shows the server's values: the headline, and every legal move once, best
    first (wins by the fewest plies to conversion, then draws, then losses by the most)."""
    board = Board(fen)
    for m in moves:
        board.push_notation(m)
    tb = table_view(server, fen, moves)
    who = "White" if board.turn is Color.WHITE else "Black"
    headline = page.inner_text("#tablebase-value")
    want = {"win": f"{who} wins", "draw": "Draw", "loss": f"{who} loses"}[tb["value"]]
    assert headline.startswith(want), headline
    if tb["value"] != "draw":
        assert f"conversion in {tb['dtz']} pl" in headline, headline
    rows = listed(page)
    assert sorted(r["move"] for r in rows) == sorted(board.notation(m) for m in board.legal_moves)
    by_move = {m["move"]: m for m in tb["moves"]}
    for r in rows:
        assert (r["value"], r["dtz"]) == (by_move[r["move"]]["value"], by_move[r["move"]]["dtz"])
        assert r["value"] in r["text"]
    keys = [(RANK[r["value"]], (r["dtz"] or 0) * (1 if r["value"] == "win" else -1)) for r in rows]
    assert keys == sorted(keys), rows
    return rows


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "1366x768"])
def test_table_values_and_a_review_that_keeps_the_win(
    tb_server: Server, new_page: PageFactory, viewport: dict[str, int]
) -> None:
    phone = viewport is PHONE
    page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
    open_position(page, tb_server, WIN_FEN)
    rows = check_card(page, tb_server, WIN_FEN, [])
    assert rows[0]["value"] == "win"
    assert "White wins" in page.inner_text("#tablebase-value")
    # the tables' line to the end of the game, with the winner's moves along it: every
    # move legal, the last one winning (R16), White's moves counted
    page.wait_for_selector("#tablebase-line:not([hidden])")
    shown_line = page.inner_text("#tablebase-line")
    tb = table_view(tb_server, WIN_FEN, [])
    walk = Board(WIN_FEN)
    for text in tb["line"]:
        walk.push_notation(text)
    outcome = walk.outcome()
    assert outcome is not None and outcome.winner is Color.WHITE
    assert tb["win_in"] == (len(tb["line"]) + 1) // 2  # White moves first here
    assert f"White wins in {tb['win_in']} move" in shown_line
    assert tb["line"][0] in shown_line and "depth" not in shown_line
    # the tables' view as the bar (a win: all White's) and their best move as an arrow
    page.wait_for_selector("#eval-bar:not([hidden])")
    assert page.get_attribute("#eval-bar", "data-black") == "0.000"
    assert "White wins (tables)" in page.inner_text("#eval-bar")
    top = Board(WIN_FEN).parse_move(rows[0]["move"])
    page.wait_for_selector(f'svg.board polyline.arrow[data-path="{"-".join(map(str, top.path))}"]')
    shot(page, f"tablebase-{viewport['width']}x{viewport['height']}", full_page=True)

    # The engine's score of a table win is named, not shown as 199.97 men.
    tb_server.require_engine()
    page.fill("#engine-time", "0.5")
    page.click("#engine-toggle")
    page.wait_for_function(
        "() => document.querySelector('#engine-score')?.textContent.includes('White wins (tables)')"
    )
    page.click("#engine-toggle")
    assert page.get_attribute("#engine-toggle", "aria-pressed") == "false"

    # Play the best move of the card, each side in turn, to the end of the game (R16):
    # the winner keeps the win by the shortest conversion, the loser resists longest.
    line: list[str] = []
    board = Board(WIN_FEN)
    while not board.is_game_over():
        best = rows[0]
        page.click(f'#tablebase-moves button.tb-move[data-move="{best["move"]}"]')
        line.append(best["move"])
        board.push_notation(best["move"])
        page.wait_for_function(
            "n => document.querySelectorAll('#move-list button.mv').length === n",
            arg=len(line),
        )
        page.wait_for_function(
            "f => document.querySelector('#fen-out')?.value === f", arg=board.fen()
        )
        if board.is_game_over():
            break
        shown(page, board.fen())
        rows = check_card(page, tb_server, WIN_FEN, line)
        assert len(line) < 20, line
    assert move_texts(page) == line
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Color.WHITE, outcome
    assert page.is_hidden("#tablebase")  # the game is over: nothing for the tables to say

    # The review takes the tables' values: no move of the line is a mistake.
    page.fill("#review-time", "0.05")
    page.select_option("#mark-from", "inaccuracy")  # every class marked
    page.click("#review")
    page.wait_for_function(
        "() => document.querySelector('#review-status').textContent === 'Review done.'",
        timeout=60_000,
    )
    points = page.get_attribute("#eval-chart polyline", "points")
    assert points is not None and len(points.split()) == len(line) + 1
    assert page.locator("#move-list button.mv.mistake").count() == 0
    assert page.locator("#eval-chart circle.mistake").count() == 0
