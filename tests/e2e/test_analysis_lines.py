"""The engine's best lines on the analysis page in Chromium (multi-PV),
on a phone and at 1366x768: three lines by default, best first, each with its score
text and its moves as the library writes them; every depth's message carries them; a
line's score plays its first move, a later move of a line steps into the line; the
number of lines can be chosen (1 to the server's bound), and a position with fewer
legal moves shows as many lines as moves."""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import TYPE_CHECKING, Any

import pytest

from poolcheckers import Board, Color
from poolcheckers.server.api.schemas import MAX_ANALYSIS_LINES

from .conftest import PageFactory, Server
from .helpers import move_texts, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocket

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}


def wait_fen(page: Page, board: Board) -> None:
    page.wait_for_function("f => document.querySelector('#fen-out')?.value === f", arg=board.fen())


def wait_done(page: Page, count: int) -> list[dict[str, Any]]:
    """Wait for the end of the running analysis with ``count`` lines shown; the rows."""
    page.wait_for_function(
        "n => document.querySelector('#engine-depth')?.textContent.endsWith('done') "
        "&& document.querySelectorAll('#engine-lines li.pv-row').length === n",
        arg=count,
        timeout=30_000,
    )
    rows: list[dict[str, Any]] = page.eval_on_selector_all(
        "#engine-lines li.pv-row",
        """els => els.map(e => ({
            rank: Number(e.dataset.rank),
            move: e.dataset.move,
            score: e.querySelector('.pv-score').textContent,
            text: e.querySelector('.pv').textContent,
            moves: [...e.querySelectorAll('.pv-move')].map(b => b.textContent),
        }))""",
    )
    return rows


def shown_lines(board: Board, asked: int = 3) -> int:
    """Lines the board shows for ``asked``: one a legal move at most (a forced capture: 1)."""
    return min(asked, len(board.legal_moves))


def check_rows(board: Board, rows: list[dict[str, Any]]) -> None:
    """Best first, one distinct legal first move each, the library's move text."""
    legal = {board.notation(m) for m in board.legal_moves}
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    firsts = [r["move"] for r in rows]
    assert len(set(firsts)) == len(rows) and set(firsts) <= legal, firsts
    for r in rows:
        assert r["moves"][0] == r["move"]
        assert r["text"] == board.variation_notation(r["moves"]), r

    # scores name the side ahead with its lead ("Black +0.05", "White +0.12", "Even (0.00)");
    # best first for the side to move, a proven end ("Black wins in 2") above or below
    # every number
    side = "Black" if board.turn is Color.BLACK else "White"

    def key(text: str) -> float:
        won = re.fullmatch(r"(Black|White) wins in (\d+)", text)
        if won:
            n = int(won.group(2))
            return 1e6 - n if won.group(1) == side else -1e6 + n
        if text == "Even (0.00)":
            return 0.0
        ahead, lead = text.split(" +")
        return float(lead) if ahead == side else -float(lead)

    keys = [key(r["score"]) for r in rows]
    assert keys == sorted(keys, reverse=True), rows


def named(score_text: str, board: Board) -> str:
    """The engine's score (the side to move's: "-0.03", "win in 2") as a line shows it: the
    side ahead and its lead ("White +0.03"), "Even (0.00)", "Black wins in 2"."""
    side, other = ("Black", "White") if board.turn is Color.BLACK else ("White", "Black")
    won = re.fullmatch(r"(win|loss) in (\d+)", score_text)
    if won:
        return f"{side if won.group(1) == 'win' else other} wins in {won.group(2)}"
    men = float(score_text)
    if abs(men) < 0.005:
        return "Even (0.00)"
    return f"{side if men > 0 else other} +{abs(men):.2f}"


def received(frames: list[str], kind: str) -> list[dict[str, Any]]:
    out = []
    for f in frames:
        msg = json.loads(f)
        if msg.get("type") == kind:
            out.append(msg)
    return out


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "1366x768"])
def test_three_best_lines_and_playing_them(
    server: Server, new_page: PageFactory, viewport: dict[str, int]
) -> None:
    server.require_engine()
    phone = viewport is PHONE
    page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
    sent: list[str] = []
    got: list[str] = []

    def on_socket(ws: WebSocket) -> None:
        ws.on("framesent", lambda payload: sent.append(str(payload)))
        ws.on("framereceived", lambda payload: got.append(str(payload)))

    page.on("websocket", on_socket)
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    board = Board()
    wait_fen(page, board)

    # 1 to the server's bound, 3 unless chosen otherwise
    options = page.eval_on_selector_all(
        "#engine-lines-count option", "els => els.map(e => Number(e.value))"
    )
    assert options == list(range(1, MAX_ANALYSIS_LINES + 1))
    assert page.input_value("#engine-lines-count") == "3"

    page.fill("#engine-time", "1")
    page.click("#engine-toggle")
    rows = wait_done(page, 3)
    check_rows(board, rows)
    # the engine's score is the best line's, in words: "Black +0.05" is "Black is slightly
    # better (+0.05)"
    best, said = rows[0]["score"], page.inner_text("#engine-score")
    if " +" in best:
        ahead, lead = best.split(" +")
        assert said.startswith(ahead) and f"(+{lead})" in said, (best, said)
    else:
        assert said.startswith(best.split(" (")[0]), (best, said)
    asked = [json.loads(f) for f in sent if '"analyse"' in f]
    assert asked[-1]["multipv"] == 3
    # every depth's message had the three lines, best first
    infos = received(got, "info")
    assert infos and all(len(m["lines"]) == 3 for m in infos)
    done = received(got, "done")[-1]
    assert [line["move"] for line in done["lines"]] == [r["move"] for r in rows]
    said_lines = [named(line["score_text"], board) for line in done["lines"]]
    assert said_lines == [r["score"] for r in rows]

    # every line fits the card (cut at its edge, not wider than the screen)
    page.locator("#engine-lines").scroll_into_view_if_needed()
    for box in page.eval_on_selector_all(
        "#engine-lines li.pv-row", "els => els.map(e => e.getBoundingClientRect().right)"
    ):
        assert box <= viewport["width"] + 0.5
    assert page.locator("#engine-lines li.pv-row .pv-score").nth(2).is_visible()
    shot(page, f"analysis-lines-{viewport['width']}x{viewport['height']}")

    # The second line's score plays its first move; the engine goes on with the new
    # position, three lines again.
    second = rows[1]["move"]
    page.click(f'#engine-lines li.pv-row[data-rank="2"] button.pv-score[data-move="{second}"]')
    board.push_notation(second)
    wait_fen(page, board)
    assert move_texts(page) == [second]
    rows = wait_done(page, shown_lines(board))
    check_rows(board, rows)

    # A later move of the best line steps into the line: its moves up to there played.
    best = rows[0]["moves"]
    depth = min(3, len(best))
    page.locator('#engine-lines li.pv-row[data-rank="1"] button.pv-move').nth(depth - 1).click()
    for m in best[:depth]:
        board.push_notation(m)
    wait_fen(page, board)
    assert move_texts(page) == [second, *best[:depth]]
    check_rows(board, wait_done(page, shown_lines(board)))

    # One line, chosen: the next analysis asks for one and shows one.
    page.select_option("#engine-lines-count", "1")
    check_rows(board, wait_done(page, 1))
    assert json.loads([f for f in sent if '"analyse"' in f][-1])["multipv"] == 1
    page.click("#engine-toggle")
    assert page.get_attribute("#engine-toggle", "aria-pressed") == "false"


@pytest.mark.parametrize(
    ("fen", "count", "note"),
    [("B:W14,32:B9,1", 1, "the only legal move"), ("B:W32:B1", 2, "2 legal moves")],
    ids=["forced", "two-moves"],
)
def test_fewer_legal_moves_than_lines(
    server: Server, new_page: PageFactory, fen: str, count: int, note: str
) -> None:
    # a forced capture (R7) shows one line; two legal moves show two of the three asked
    server.require_engine()
    page = new_page(viewport=LAPTOP)
    page.goto(server.url("/analysis?fen=" + urllib.parse.quote(fen)))
    page.wait_for_selector("svg.board .piece")
    board = Board(fen)
    wait_fen(page, board)
    assert len(board.legal_moves) == count
    page.fill("#engine-time", "0.5")
    page.click("#engine-toggle")
    rows = wait_done(page, count)
    check_rows(board, rows)
    assert note in page.inner_text("#engine-depth")
    page.click("#play-best")
    board.push_notation(rows[0]["move"])
    wait_fen(page, board)
    page.click("#engine-toggle")
