"""The analysis page in Chromium: set-up from PDN, FEN and an archive game,
stepping through the game, live engine lines and the evaluation graph with
mistakes marked."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board

from .conftest import PageFactory, Server
from .helpers import STANDARD_FEN, click_path, fen_pieces, move_texts, pieces, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

# White's 17-14 leaves a man to be taken for nothing (9x18).
BLUNDER_LINE = ["9-13", "21-17", "5-9", "17-14", "9x18"]
# White's 22-17 leaves a man to be taken for nothing (13x22): a clear blunder.
REVIEW_LINE = ["10-15", "23-18", "9-13", "22-17", "13x22"]


def board_after(moves: list[str], fen: str = STANDARD_FEN) -> Board:
    board = Board(fen)
    for m in moves:
        board.push_notation(m)
    return board


def wait_shown(page: Page, fen: str) -> None:
    page.wait_for_function("f => document.querySelector('#fen-out')?.value === f", arg=fen)
    page.wait_for_timeout(350)


def test_analysis_setup_and_navigation(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    assert pieces(page) == fen_pieces(STANDARD_FEN)

    # PDN import into the analysis board.
    pdn = '[Event "blunder"]\n[Black "B"]\n[White "W"]\n\n1. 9-13 21-17 2. 5-9 17-14 3. 9x18 *\n'
    page.fill("#pdn-input", pdn)
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    assert move_texts(page) == BLUNDER_LINE
    final = board_after(BLUNDER_LINE)
    wait_shown(page, final.fen())
    assert pieces(page) == fen_pieces(final.fen())

    # A PDN with an illegal move: the legal part is loaded, the error is shown.
    page.fill("#pdn-input", "1. 11-15 23-19 2. 15-24 *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_selector("#error:not(:empty)")
    assert "15-24" in page.inner_text("#error")
    # read by the server (POST /api/analysis/pdn): the error names game, line and column
    assert "game 1, line 1, column 19" in page.inner_text("#error")
    assert "Only the first 2 plies" in page.inner_text("#error")
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 2")
    assert move_texts(page) == ["11-15", "23-19"]
    page.fill("#pdn-input", pdn)
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    wait_shown(page, final.fen())

    # Step through the game.
    page.click("#nav-first")
    wait_shown(page, STANDARD_FEN)
    assert pieces(page) == fen_pieces(STANDARD_FEN)
    for _ in range(3):  # quick presses add up
        page.click("#nav-next", delay=0, no_wait_after=True)
    wait_shown(page, board_after(BLUNDER_LINE[:3]).fen())
    page.keyboard.press("ArrowLeft")  # the focus is on a button, not the board
    wait_shown(page, board_after(BLUNDER_LINE[:2]).fen())
    page.click('#move-list button.mv[data-ply="4"]')
    wait_shown(page, board_after(BLUNDER_LINE[:4]).fen())
    assert pieces(page) == fen_pieces(board_after(BLUNDER_LINE[:4]).fen())

    # A move on the board starts a new line from the shown position.
    click_path(page, [9, 18])
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    assert move_texts(page) == BLUNDER_LINE
    page.click("#nav-prev")
    wait_shown(page, board_after(BLUNDER_LINE[:4]).fen())
    click_path(page, [13, 17])  # not a capture: refused while 9x18 is compulsory (R11)
    assert move_texts(page) == BLUNDER_LINE

    # Set up from FEN.
    fen = "W:WK4,19:B11,K30"
    page.fill("#fen-input", fen)
    page.click('#fen-form button[type="submit"]')
    wait_shown(page, Board(fen).fen())
    assert pieces(page) == fen_pieces(fen)
    assert move_texts(page) == []
    assert "White to move" in page.inner_text("#status")
    page.fill("#fen-input", "X:W1:B2")
    page.click('#fen-form button[type="submit"]')
    page.wait_for_selector("#error:not(:empty)")
    assert pieces(page) == fen_pieces(fen)

    # Rule options (§9) apply to FEN set-ups: with "stop" the man is crowned on
    # reaching the king row in a capture; with "pass" (R15) it jumps on.
    fen = "B:W26,27:B22"
    page.click("#analysis-rules summary")
    page.select_option("#rule-crown-during-capture", "stop")
    page.fill("#fen-input", fen)
    page.click('#fen-form button[type="submit"]')
    wait_shown(page, Board(fen).fen())
    click_path(page, [22, 31])
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["22x31"]
    page.select_option("#rule-crown-during-capture", "pass")
    page.click('#fen-form button[type="submit"]')
    wait_shown(page, Board(fen).fen())
    click_path(page, [22, 31])  # the only capture goes on from 31 to 24 (R15)
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["22x24"]

    # From an archive game.
    created = server.post_json(
        "/api/games", {"mode": "local", "rules": {}, "fen": None, "color": "black"}
    )
    game_id = created["game"]["id"]
    server.post_json(
        f"/api/games/{game_id}/move", {"move": "11-15", "ply": 0, "token": created["token"]}
    )
    page.goto(server.url(f"/analysis?game={game_id}"))
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["11-15"]
    wait_shown(page, board_after(["11-15"]).fen())
    options = page.eval_on_selector_all("#archive-pick option", "els => els.map(e => e.value)")
    assert game_id in options


def test_analysis_engine_and_evaluation_graph(server: Server, new_page: PageFactory) -> None:
    server.require_engine()
    page = new_page()
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", " ".join(BLUNDER_LINE) + " *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    page.click('#move-list button.mv[data-ply="4"]')
    wait_shown(page, board_after(BLUNDER_LINE[:4]).fen())

    # Live engine lines over /ws/analysis, asked with the start position and the
    # moves (so that the engine knows the R18/R19 counts and the history).
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    page.fill("#engine-time", "2")
    page.click("#engine-toggle")
    # the engine's answers wait on a search thread: on a loaded machine (a CI run
    # beside other jobs) they take longer than the page's usual 15 s
    engine_wait = 60_000
    page.wait_for_selector("#engine-depth", timeout=engine_wait)
    # Black must take (R11): 9x18 or 10x17, both win the man; which one the engine
    # prefers is its evaluation's business, the page shows the one it gives
    first_move = "document.querySelector('#engine-pv .pv-move')?.textContent"
    page.wait_for_function(f"() => ['9x18', '10x17'].includes({first_move})", timeout=engine_wait)
    assert page.inner_text("#engine-score")
    # the evaluation bar (Black wins a man: more than half is Black's) and the best
    # move's arrow on the board (9x18: from 9 over 14 to 18)
    page.wait_for_selector("#eval-bar:not([hidden])", timeout=engine_wait)
    assert float(page.get_attribute("#eval-bar", "data-black") or 0) > 0.5
    # who is better, named: not the side to move's "+1.00 for Black"
    assert page.inner_text("#eval-bar").startswith(("Black +", "Black wins"))
    # The arrow is the line's first move; the engine may change its mind between
    # depths (9x18, then 10x17), so the two are compared at one instant.
    page.wait_for_function(
        f"""() => {{
            const move = {first_move};
            const paths = [...document.querySelectorAll('svg.board polyline.arrow')]
                .map((a) => a.getAttribute('data-path'));
            return !!move && paths.includes(move.replace('x', '-'));
        }}""",
        timeout=engine_wait,
    )
    assert page.get_attribute("#engine-toggle", "aria-pressed") == "true"
    shot(page, "analysis-engine")
    # Moving on restarts the analysis on the new position.
    page.click("#nav-next")
    wait_shown(page, board_after(BLUNDER_LINE).fen())
    page.wait_for_function(  # White to move now: its line starts with no Black capture
        f"() => {first_move} && !['9x18', '10x17'].includes({first_move})",
        timeout=engine_wait,
    )
    page.click("#engine-toggle")
    assert page.get_attribute("#engine-toggle", "aria-pressed") == "false"
    asked = [json.loads(f) for f in sent if '"analyse"' in f]
    assert asked and asked[-1]["fen"] == STANDARD_FEN and asked[-1]["moves"] == BLUNDER_LINE
    # Stopped, then another position: the old line is not shown as this one's.
    page.click("#nav-prev")
    wait_shown(page, board_after(BLUNDER_LINE[:4]).fen())
    assert page.locator("#engine-pv").count() == 0
    assert page.locator("svg.board polyline.arrow").count() == 0  # not this position's
    assert page.is_disabled("#play-best")
    assert "Start the engine" in page.inner_text("#engine-out")

    # The evaluation graph over a game, mistakes marked.  This game's 22-17 gives a
    # man for nothing (13x22): about two men by the engine at any search time from
    # 0.02 s to 0.5 s, a loss of expected score far past the blunder threshold,
    # while no other move of it comes near that threshold (at 0.1 s on a loaded
    # machine the network has called 9-13 a mistake, so blunders are what is marked;
    # the thresholds themselves are tested in test_frontend_modules.py).
    page.fill("#pdn-input", " ".join(REVIEW_LINE) + " *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    wait_shown(page, board_after(REVIEW_LINE).fen())
    page.fill("#review-time", "0.1")
    page.select_option("#mark-from", "blunder")
    page.click("#review")
    page.wait_for_function(
        "() => document.querySelector('#review-status').textContent === 'Review done.'",
        timeout=60_000,
    )
    points = page.get_attribute("#eval-chart polyline", "points")
    assert points is not None and len(points.split()) == len(REVIEW_LINE) + 1
    marked = page.eval_on_selector_all(
        "#move-list button.mv.mistake", "els => els.map(e => e.textContent)"
    )
    assert marked == ["22-17??"], marked
    assert page.locator("#eval-chart circle.mistake").count() == 1
    review = page.inner_text("#mistakes")
    # the blunder says what was better (the engine's best move, another than 22-17)
    assert "22-17" in review and "best was " in review
    best = review.split("best was ", 1)[1].split()[0]
    assert best != "22-17" and best in [str(m) for m in board_after(REVIEW_LINE[:3]).legal_moves]
    # each player's accuracy over the reviewed moves
    accuracy = page.inner_text("#accuracy")
    assert accuracy.startswith("Accuracy: Black ") and " · White " in accuracy
    page.click("#mistakes button")
    wait_shown(page, board_after(REVIEW_LINE[:4]).fen())
    shot(page, "analysis-graph", full_page=True)


def test_bad_links_show_the_error_and_the_start_position(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page()
    for query, words in (("?game=no-such-game", "no-such-game"), ("?fen=B:W33:B1", "33")):
        page.goto(server.url("/analysis" + query))
        page.wait_for_selector("svg.board .piece")
        page.wait_for_selector("#error:not(:empty)")
        assert words in page.inner_text("#error")
        assert pieces(page) == fen_pieces(STANDARD_FEN)
        assert "Black to move" in page.inner_text("#status")
    page.goto(server.url("/play/no-such-game"))
    page.wait_for_selector("h1:text('Game not found')")
    assert page.title().startswith("Game not found")


def test_own_line_sets_the_game_aside_and_back(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", " ".join(BLUNDER_LINE) + " *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    assert page.is_hidden("#branch-banner")
    page.click('#move-list button.mv[data-ply="2"]')
    wait_shown(page, board_after(BLUNDER_LINE[:2]).fen())
    click_path(page, [11, 15])
    wait_shown(page, board_after([*BLUNDER_LINE[:2], "11-15"]).fen())
    assert move_texts(page) == [*BLUNDER_LINE[:2], "11-15"]
    page.wait_for_selector("#branch-banner:not([hidden])")
    assert "3 plies" in page.inner_text("#branch-banner")
    page.click("#back-to-game")
    wait_shown(page, board_after(BLUNDER_LINE[:2]).fen())
    assert move_texts(page) == BLUNDER_LINE
    assert page.is_hidden("#branch-banner")


def test_pdn_rules_tag_sets_the_rule_options(server: Server, new_page: PageFactory) -> None:
    # 22x31 ends on the king row: legal only when the man stops there (§9 "stop").
    pdn = (
        '[Event "stop rule"]\n[FEN "B:W26,27,19:B22"]\n'
        '[Rules "apca+crown_during_capture=stop+king_only_move_limit=15"]\n\n1. 22x31 *\n'
    )
    page = new_page()
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", pdn)
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 1")
    assert move_texts(page) == ["22x31"]
    assert page.inner_text("#error") == ""
    assert page.input_value("#rule-crown-during-capture") == "stop"
    assert page.input_value("#rule-king-only-move-limit") == "15"
    page.wait_for_selector('svg.board .piece.black.king[data-square="31"]')


def test_draw_counts_of_the_shown_position(server: Server, new_page: PageFactory) -> None:
    page = new_page()
    page.goto(server.url("/analysis?fen=B:WK32:BK1,K2,K3"))
    page.wait_for_selector("svg.board .piece")
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('three kings against one')"
    )
    click_path(page, [3, 7])
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('draw count: 1 of 50 plies')"
    )
    # the counts of R18 and R19 in plain words, without the rules' ids
    assert "three kings against one: move 1 of 13" in page.inner_text("#status")
    assert "R18" not in page.inner_text("#status") and "R19" not in page.inner_text("#status")


def test_engine_score_counts_the_winners_moves_and_the_line_has_numbers(
    server: Server, new_page: PageFactory
) -> None:
    # B:WK29:BK1,K2,K3,K4: the engine proves a win in 3 plies, that is 2 of Black's
    # moves (1-15 29x8 3x12): the page says "Black wins in 2", as the command line
    # says "win in 2".
    server.require_engine()
    page = new_page()
    fen = "B:WK29:BK1,K2,K3,K4"
    page.goto(server.url("/analysis?fen=" + fen))
    wait_shown(page, Board(fen).fen())
    page.fill("#engine-time", "1")
    page.click("#engine-toggle")
    page.wait_for_function(
        "() => document.querySelector('#engine-score')?.textContent.includes('Black wins in 2')"
    )
    # The best line as PDN move text from the library (Board.variation_notation).
    page.wait_for_function(
        "() => /^1\\. \\d+-\\d+ \\d+x\\d+ 2\\. /.test("
        "document.querySelector('#engine-pv')?.textContent ?? '')"
    )
    page.click("#engine-toggle")


@pytest.mark.parametrize(
    ("language", "better", "short"),
    [
        (
            "en-US",
            r"^Black (is better \(\+\d+\.\d\d\)|wins in \d+)$",
            r"^Black (\+\d+\.\d\d|wins in \d+)$",
        ),
        (
            "pt-BR",
            r"^As pretas (estão melhor \(\+\d+,\d\d\)|vencem em \d+ lances?)$",
            r"^(Pretas \+\d+,\d\d|As pretas vencem em \d+ lances?)$",
        ),
    ],
    ids=["en", "pt-BR"],
)
def test_the_evaluation_names_the_side_that_is_better(
    server: Server, new_page: PageFactory, language: str, better: str, short: str
) -> None:
    # White to move, two men down: the engine's score is White's (about -2), which the page
    # once showed as "-2.10 for White"; it says Black is better, by a positive lead.
    server.require_engine()
    page = new_page(locale=language)
    fen = "W:W21,22,23,24,25:B1,2,3,4,5,6,7"
    page.goto(server.url("/analysis?fen=" + fen))
    wait_shown(page, Board(fen).fen())
    page.fill("#engine-time", "1")
    page.click("#engine-toggle")
    page.wait_for_selector("#engine-lines .pv-score", timeout=60_000)
    page.wait_for_selector("#eval-bar:not([hidden])", timeout=60_000)
    assert re.match(better, page.inner_text("#engine-score strong")), page.inner_text(
        "#engine-score"
    )
    assert re.match(short, page.inner_text("#eval-bar")), page.inner_text("#eval-bar")
    assert re.match(short, page.inner_text("#engine-lines .pv-score >> nth=0"))
    assert float(page.get_attribute("#eval-bar", "data-black") or 0) > 0.5
    page.click("#engine-toggle")


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 1366, "height": 768}])
def test_a_shown_position_and_line_are_shared_by_the_address(
    server: Server, new_page: PageFactory, size: dict[str, int]
) -> None:
    page = new_page(viewport=size)
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#pdn-input", " ".join(BLUNDER_LINE) + " *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_function("() => document.querySelectorAll('#move-list button.mv').length === 5")
    page.click('#move-list button.mv[data-ply="3"]')
    wait_shown(page, board_after(BLUNDER_LINE[:3]).fen())
    shared = page.url
    assert "moves=9-13+21-17+5-9+17-14+9x18" in shared and "ply=3" in shared
    other = new_page(viewport=size)
    other.goto(shared)
    wait_shown(other, board_after(BLUNDER_LINE[:3]).fen())
    assert move_texts(other) == BLUNDER_LINE
    assert other.is_visible("#copy-link")


def test_an_archive_game_is_titled_by_its_players_and_turned_to_the_viewer(
    server: Server, new_page: PageFactory
) -> None:
    page = new_page()
    created = server.post_json("/api/games", {"mode": "engine", "color": "white", "level": 1})
    game_id, token = created["game"]["id"], created["token"]
    page.goto(server.url("/"))
    page.evaluate(
        "([id, token]) => localStorage.setItem('poolcheckers.token.' + id, token)",
        [game_id, token],
    )
    page.goto(server.url(f"/analysis?game={game_id}"))
    page.wait_for_selector("svg.board .piece")
    page.wait_for_function(
        "() => document.querySelector('#analysis-title')?.textContent !== 'Analysis'"
    )
    assert page.inner_text("#analysis-title") == "Engine (level 1) – You"
    assert f"game={game_id}" in page.url
    # the viewer plays White: White at the bottom (square 32 below square 1)
    one = page.locator('rect.sq[data-square="1"]').bounding_box()
    last = page.locator('rect.sq[data-square="32"]').bounding_box()
    assert one is not None and last is not None and one["y"] < last["y"]
    # a viewer playing Black sees Black at the bottom
    black = server.post_json("/api/games", {"mode": "engine", "color": "black", "level": 1})
    page.evaluate(
        "([id, token]) => localStorage.setItem('poolcheckers.token.' + id, token)",
        [black["game"]["id"], black["token"]],
    )
    page.goto(server.url(f"/analysis?game={black['game']['id']}"))
    page.wait_for_function(
        "() => document.querySelector('#analysis-title')?.textContent === 'You – Engine (level 1)'"
    )
    one = page.locator('rect.sq[data-square="1"]').bounding_box()
    last = page.locator('rect.sq[data-square="32"]').bounding_box()
    assert one is not None and last is not None and one["y"] > last["y"]


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 1366, "height": 768}])
def test_set_up_errors_are_shown_next_to_their_fields(
    server: Server, new_page: PageFactory, size: dict[str, int]
) -> None:
    page = new_page(viewport=size)
    page.goto(server.url("/analysis"))
    page.wait_for_selector("svg.board .piece")
    page.fill("#fen-input", "X:W1:B2")
    page.click('#fen-form button[type="submit"]')
    page.wait_for_selector("#fen-error:not(:empty)")
    assert "FEN" in page.inner_text("#fen-error")
    assert page.get_attribute("#fen-input", "aria-invalid") == "true"
    # the error is in view where the form is, not only at the top of the page
    box = page.locator("#fen-error").bounding_box()
    form = page.locator("#fen-form").bounding_box()
    assert box is not None and form is not None and 0 <= box["y"] - form["y"] < 200
    page.fill("#pdn-input", "1. 11-15 23-19 2. 15-24 *")
    page.click('#pdn-form button[type="submit"]')
    page.wait_for_selector("#pdn-error:not(:empty)")
    assert "15-24" in page.inner_text("#pdn-error")
    page.fill("#fen-input", "")
    page.click('#fen-form button[type="submit"]')
    page.wait_for_function("() => document.querySelector('#fen-error').textContent === ''")
