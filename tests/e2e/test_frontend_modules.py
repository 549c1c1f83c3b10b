"""The front end's own helpers (static/util.js), run in Chromium and checked
against the rules library: FEN reading (R5) on positions of random games,
moves applied to a position, PDN move lists and the light PDN reader."""

from __future__ import annotations

import random
from typing import Any

import pytest

from poolcheckers import Board, RuleSet, movegen

from .conftest import Server
from .helpers import fen_pieces

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def random_positions(count: int, seed: int) -> list[tuple[str, dict[str, Any] | None, str]]:
    """(fen before, move played or None, fen after) along random games."""
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any] | None, str]] = []
    while len(out) < count:
        board = Board()
        for _ in range(rng.randrange(10, 120)):
            moves = board.legal_moves
            if not moves or board.is_game_over():
                break
            move = rng.choice(moves)
            before = board.fen()
            board.push(move)
            out.append(
                (before, {"path": list(move.path), "captured": sorted(move.captured)}, board.fen())
            )
    return out[:count]


@pytest.fixture
def util_page(server: Server, new_page: Any) -> Any:
    page = new_page()
    page.goto(server.url("/archive"))
    page.wait_for_selector("#import-form")
    page.evaluate("async () => { window.util = await import('/static/util.js'); }")
    return page


def test_fen_and_moves_agree_with_the_library(util_page: Any) -> None:
    cases = random_positions(150, seed=23)
    assert any("K" in after for _, _, after in cases)  # kings are covered
    result = util_page.evaluate(
        """cases => cases.map(([before, move, after]) => {
             const toObj = (pos) => Object.fromEntries([...pos.pieces].map(([s, p]) => [s, p]));
             const b = window.util.parseFen(before);
             return {
               before: toObj(b), turn: b.turn,
               applied: toObj(window.util.applyMove(b, move)),
               after: toObj(window.util.parseFen(after)),
             };
           })""",
        [list(c) for c in cases],
    )
    for (before, _, after), got in zip(cases, result, strict=True):
        want_before = {str(k): v for k, v in fen_pieces(before).items()}
        want_after = {str(k): v for k, v in fen_pieces(after).items()}
        assert got["before"] == want_before, before
        assert got["turn"] == ("black" if before.startswith("B") else "white")
        assert got["after"] == want_after, after
        assert got["applied"] == want_after, (before, after)


def test_fen_variants_and_errors(util_page: Any) -> None:
    got = util_page.evaluate(
        """() => {
             const u = window.util;
             const squares = (f) => [...u.parseFen(f).pieces].map(([s, p]) => `${p}${s}`).sort();
             const error = (f) => {
               try { u.parseFen(f); return null; } catch (e) { return e.message; }
             };
             return {
               ranges: squares("W:WK1-3,20:B5-6,K7"),
               counters: squares("B:WK32:BK1,K2,K3:H12:C3"),
               tag: squares('[FEN "B:W21:B1."]'),
               badSide: error("X:W1:B2"),
               badSquare: error("B:W33:B1"),
             };
           }"""
    )
    assert got["ranges"] == sorted(["W1", "W2", "W3", "w20", "b5", "b6", "B7"])
    assert got["counters"] == sorted(["W32", "B1", "B2", "B3"])
    assert got["tag"] == sorted(["w21", "b1"])
    assert got["badSide"] and "side to move" in got["badSide"]
    assert got["badSquare"] and "33" in got["badSquare"]


def test_move_rows_and_pdn_reader(util_page: Any) -> None:
    got = util_page.evaluate(
        """() => {
             const u = window.util;
             const pdn = `[Event "one"]
[Black "A"]
[White "B"]
[FEN "W:W21,22:B1,2"]

1... 22-17 {a comment} 2. 1-5 (2. 2-6 21-18) 17-14! 3. 5-9 14x5 0-2

[Event "two"]
1. 11-15 23-19 2. 8-11 22-17 *`;
             return {
               games: u.parsePdnLight(pdn),
               nested: u.parsePdnLight(
                 "1. 11-15 (1. 9-13 (1. 10-14 {a (b}) 22-18) 23-19 2. 8-11 *"),
               rowsBlack: u.moveRows(["11-15", "23-19", "8-11"], "black"),
               rowsWhite: u.moveRows(["22-17", "1-5"], "white"),
               clock: [u.formatClock(75), u.formatClock(3725), u.formatClock(9.46)],
               score: [u.formatScore(150, null), u.formatScore(-20, null), u.formatScore(0, 3)],
             };
           }"""
    )
    # Nested variations (PDN 3.0) are skipped whole: only the main line is read.
    assert got["nested"][0]["moves"] == ["11-15", "23-19", "8-11"]
    games = got["games"]
    assert len(games) == 2
    assert games[0]["tags"]["FEN"] == "W:W21,22:B1,2"
    assert games[0]["moves"] == ["22-17", "1-5", "17-14", "5-9", "14x5"]
    assert games[0]["result"] == "0-2"
    assert games[1]["moves"] == ["11-15", "23-19", "8-11", "22-17"]
    assert got["rowsBlack"] == [
        {"number": 1, "black": {"ply": 1, "text": "11-15"}, "white": {"ply": 2, "text": "23-19"}},
        {"number": 2, "black": {"ply": 3, "text": "8-11"}, "white": None},
    ]
    assert got["rowsWhite"] == [
        {"number": 1, "black": None, "white": {"ply": 1, "text": "22-17"}},
        {"number": 2, "black": {"ply": 2, "text": "1-5"}, "white": None},
    ]
    assert got["clock"] == ["1:15", "1:02:05", "9.5"]
    assert got["score"] == ["+1.50", "-0.20", "win in 3"]


def capture_positions(count: int, seed: int) -> list[str]:
    """Random positions with a capture to make, kings on both sides often."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        squares = rng.sample(range(1, 33), rng.randrange(5, 13))
        cut = rng.randrange(1, len(squares))
        black = [("K" if rng.random() < 0.4 or s > 28 else "") + str(s) for s in squares[:cut]]
        white = [("K" if rng.random() < 0.4 or s < 5 else "") + str(s) for s in squares[cut:]]
        turn = rng.choice("BW")
        fen = f"{turn}:W{','.join(white)}:B{','.join(black)}"
        board = Board(fen)
        if board.has_capture():
            out.append(fen)
    return out


@pytest.mark.parametrize("crown", ["pass", "stop"])
def test_capture_paths_agree_with_the_library(util_page: Any, crown: str) -> None:
    # Every path (R4: several paths may make one move), for the landing-by-landing choice.
    rules = RuleSet.from_options([f"crown_during_capture={crown}"])
    fens = capture_positions(200, seed=7 if crown == "pass" else 8)
    want = []
    for fen in fens:
        board = Board(fen, rules=rules)
        own, opp = board._own_opp()
        seqs = movegen.capture_sequences(own, opp, board.kings, int(board.turn), rules)
        want.append(sorted("x".join(map(str, path)) for path, _ in seqs))
    got = util_page.evaluate(
        """([fens, crown]) => fens.map((fen) =>
             window.util.capturePaths(window.util.parseFen(fen), crown)
               .map((p) => p.path.join("x")).sort())""",
        [fens, crown],
    )
    for fen, g, w in zip(fens, got, want, strict=True):
        assert sorted(g) == w, fen
    assert sum(len(w) for w in want) > len(fens)
    # withAllPaths keeps the server's moves and adds the other paths under their notation.
    fen = "W:WK8:B15,16,21,25"
    board = Board(fen)
    legal = [
        {"notation": board.notation(m), "path": list(m.path), "captured": sorted(m.captured)}
        for m in board.legal_moves
    ]
    walked = util_page.evaluate(
        "([legal, fen]) => window.util.withAllPaths(legal, window.util.parseFen(fen), null)",
        [legal, fen],
    )
    assert {(m["notation"], tuple(m["path"])) for m in walked} == {
        ("8x29", (8, 18, 29)),
        ("8x29", (8, 22, 29)),
    }
