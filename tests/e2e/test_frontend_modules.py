"""The front end's own helpers (static/util.js, static/review.js) run in Chromium,
and a check that no rules code comes back into the JavaScript: the rules library
is the only rules authority (positions, legal moves with their paths, crowning,
FEN and PDN all come from the server)."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poolcheckers import Board, Color
from poolcheckers.engine import Engine, make_limit, open_engine

from .conftest import PageFactory, Server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

STATIC = Path(__file__).resolve().parents[2] / "poolcheckers" / "server" / "static"


@pytest.fixture
def util_page(server: Server, new_page: PageFactory) -> Page:
    page = new_page()
    page.goto(server.url("/archive"))
    page.wait_for_selector("#import-form")
    page.evaluate(
        """async () => {
             window.util = await import('/static/util.js');
             window.review = await import('/static/review.js');
           }"""
    )
    return page


def test_board_text_is_drawn_as_the_library_writes_it(util_page: Page) -> None:
    # R2: the server's Board.squares() is square 1 first; the page only decodes it.
    rng = random.Random(5)
    texts: list[str] = []
    board = Board()
    while len(texts) < 60:
        if not board.legal_moves:
            board = Board()
        board.push(rng.choice(board.legal_moves))
        texts.append(board.squares())
    assert any("B" in t or "W" in t for t in texts)
    got = util_page.evaluate(
        """texts => texts.map((t) => Object.fromEntries(
             [...window.util.boardPosition(t, "black").pieces]))""",
        texts,
    )
    for text, pieces in zip(texts, got, strict=True):
        assert pieces == {str(i + 1): ch for i, ch in enumerate(text) if ch != "."}


def test_move_rows_numbers_and_clock(util_page: Page) -> None:
    got = util_page.evaluate(
        """() => {
             const u = window.util;
             return {
               rowsBlack: u.moveRows(["11-15", "23-19", "8-11"], "black"),
               rowsWhite: u.moveRows(["22-17", "1-5"], "white"),
               numbers: [u.moveNumber(1, "black"), u.moveNumber(2, "black"),
                         u.moveNumber(1, "white"), u.moveNumber(2, "white")],
               clock: [u.formatClock(75), u.formatClock(3725), u.formatClock(9.46)],
             };
           }"""
    )
    assert got["rowsBlack"] == [
        {"number": 1, "black": {"ply": 1, "text": "11-15"}, "white": {"ply": 2, "text": "23-19"}},
        {"number": 2, "black": {"ply": 3, "text": "8-11"}, "white": None},
    ]
    assert got["rowsWhite"] == [
        {"number": 1, "black": None, "white": {"ply": 1, "text": "22-17"}},
        {"number": 2, "black": {"ply": 2, "text": "1-5"}, "white": None},
    ]
    # the same numbers as the library's Board.variation_notation
    assert got["numbers"] == ["1.", "1...", "1...", "2."]
    assert Board("W:W21,22:B1,2").variation_notation(["22-17", "1-5"]) == "1... 22-17 2. 1-5"
    assert got["clock"] == ["1:15", "1:02:05", "9.5"]


# What a second rules implementation looks like; none of it may be in static/*.js.
FORBIDDEN = {
    # the removed rules code, by name
    r"\bparseFen\b": "FEN reading (R5)",
    r"\bfenTurn\b": "FEN reading (R5)",
    r"\bapplyMove\b": "applying a move / crowning (R14, R15)",
    r"\bcapturePaths\b": "capture generation (R7-R15)",
    r"\bwithAllPaths\b": "capture generation (R4)",
    r"\bparsePdnLight\b": "PDN reading",
    r"\brulesFromName\b": "rule-set names (§9)",
    r"\bDIAGONALS\b": "move generation on diagonals (R6-R9)",
    r"\bneighbour\(": "move generation on diagonals (R6-R9)",
    r"[Kk]ing_?[Rr]ow": "crowning (R15)",
    # FEN text taken apart, or written out
    r"split\(\s*[\"']:[\"']\s*\)": "FEN reading (R5)",
    r"1,2,3,4,5,6,7,8,9,10,11,12": "the start position (R3) written in JS",
    # PDN tag or result reading
    r"\\\[\\s\*\(\\w\+\)": "PDN tag reading",
    r"1\\/2-1\\/2": "PDN result reading",
    # rule options and their defaults written in JS (they come from GET /api/rules)
    r"crown_during_capture|three_kings_limit_result|king_only_move_limit|repetition_draw": (
        "§9 option names and defaults"
    ),
}


def test_no_rules_code_in_the_javascript() -> None:
    files = sorted(STATIC.glob("*.js"))
    assert {f.name for f in files} >= {"analysis.js", "board.js", "play.js", "util.js"}
    found = []
    for path in files:
        text = path.read_text()
        for pattern, what in FORBIDDEN.items():
            for m in re.finditer(pattern, text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.name}:{line}: {m.group(0)!r} ({what})")
    assert found == [], "rules code in the browser:\n" + "\n".join(found)


def test_the_scan_finds_what_it_forbids() -> None:
    # The patterns catch the code that was removed (so that the check above can fail).
    samples = [
        'const parts = fen.split(":");',
        "export function parseFen(text) {",
        'if (piece === "b" && row === 7) piece = "B"; // kingRow',
        'const m = tok.match(/^\\[\\s*(\\w+)\\s+"((?:[^"\\\\]|\\\\.)*)"\\s*\\]$/);',
        "/^(2-0|0-2|1-1|1-0|0-1|1\\/2-1\\/2|\\*|0-0)$/",
        'const rules = { crown_during_capture: "pass" };',
    ]
    for sample in samples:
        assert any(re.search(p, sample) for p in FORBIDDEN), sample


def test_review_expected_score_and_classes(util_page: Page) -> None:
    got = util_page.evaluate(
        """() => {
             const r = window.review;
             const S = r.SCALE;
             return {
               scale: S,
               even: r.expectedScore(0),
               up: r.expectedScore(S), down: r.expectedScore(-S),
               won: r.expectedScore(-50, 3), lost: r.expectedScore(400, -2),
               classes: [0.04, 0.05, 0.1, 0.14, 0.15, 0.9].map((x) => r.classify(x)?.name ?? null),
             };
           }"""
    )
    assert got["scale"] == 223  # benchmarks/results/expected_score_scale.json
    assert got["even"] == 0.5
    assert abs(got["up"] - 1 / (1 + 2.718281828459045**-1)) < 1e-9
    assert abs(got["up"] + got["down"] - 1) < 1e-12  # symmetric
    assert (got["won"], got["lost"]) == (1, 0)  # a found win or loss (mate_in)
    assert got["classes"] == [None, "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_review_charges_a_forced_move_to_the_last_real_choice(util_page: Page) -> None:
    got = util_page.evaluate(
        """() => {
             const r = window.review;
             const B = "black", W = "white";
             // Black's expected score after each ply (0 = the start).
             const scores = [0.5, 0.5, 0.5, 0.45, 0.45, 0.2, 0.2, 0.1];
             const plies = [
               { mover: B, forced: false },  // 1: Black's real choice
               { mover: W, forced: false },  // 2
               { mover: B, forced: false },  // 3: Black's last real choice before 5 and 7
               { mover: W, forced: true },   // 4: forced, nothing lost
               { mover: B, forced: true },   // 5: forced: -0.25 for Black, charged to 3
               { mover: W, forced: false },  // 6
               { mover: B, forced: true },   // 7: forced again: -0.10, charged to 3
             ];
             const opening = [{ mover: W, forced: true }, { mover: B, forced: false }];
             return {
               judged: r.judgeMoves(scores, plies),
               // a forced first move has no earlier choice: nobody is charged
               opening: r.judgeMoves([0.5, 0.9, 0.9], opening),
               unknown: r.judgeMoves([0.5, undefined, 0.1], plies.slice(0, 2)),
             };
           }"""
    )
    (judged,) = got["judged"]
    assert judged["ply"] == 3 and judged["mover"] == "black"
    assert judged["forced"] == [5, 7]
    assert abs(judged["loss"] - (0.05 + 0.25 + 0.10)) < 1e-9
    assert judged["cls"]["name"] == "blunder"
    assert got["opening"] == []
    assert got["unknown"] == []


def test_review_accuracy_per_player(util_page: Page) -> None:
    got = util_page.evaluate(
        """() => {
             const r = window.review;
             const B = "black", W = "white";
             const scores = [0.5, 0.5, 0.5, 0.25, 0.25];
             const plies = [
               { mover: B, forced: false },  // nothing lost: 100
               { mover: W, forced: false },  // nothing lost: 100
               { mover: B, forced: false },  // 0.25 lost
               { mover: W, forced: true },   // forced: not counted
             ];
             return {
               acc: r.accuracy(scores, plies),
               none: r.accuracy([0.5, undefined], [{ mover: B, forced: false }]),
               moves: [0, 0.05, 0.11, 0.25, 1].map((x) => r.moveAccuracy(x)),
             };
           }"""
    )
    lost = 103.1668 * math.exp(-0.04354 * 25) - 3.1669  # lichess's, on 25 points of win %
    assert got["moves"][0] == 100 and got["moves"][-1] == 0
    assert [round(x) for x in got["moves"][1:4]] == [80, 61, round(lost)]
    # Black: 100 and `lost`, the latter in the sharper window (the weighted mean leans to
    # it); the harmonic mean is pulled towards the worse move.
    weighted_lo, harmonic = (100 + lost) / 2, 2 / (1 / 100 + 1 / lost)
    assert lost < got["acc"]["black"] < (weighted_lo + 100) / 2
    assert got["acc"]["black"] < (harmonic + 100) / 2
    assert got["acc"]["white"] == 100
    assert got["none"] == {"black": None, "white": None}


def test_an_evaluation_says_which_side_is_better(util_page: Page) -> None:
    # The engine's score is the side to move's; the words name the side ahead, its lead
    # positive, whoever is to move.
    cases = [
        ("-0.07", "black", "White is slightly better (+0.07)", "White +0.07"),
        ("-0.07", "white", "Black is slightly better (+0.07)", "Black +0.07"),
        ("+0.20", "black", "Black is slightly better (+0.20)", "Black +0.20"),
        ("+1.35", "white", "White is better (+1.35)", "White +1.35"),
        ("-2.10", "white", "Black is better (+2.10)", "Black +2.10"),
        ("+0.00", "white", "Even (0.00)", "Even (0.00)"),
        ("win in 3", "white", "White wins in 3", "White wins in 3"),
        ("loss in 1", "white", "Black wins in 1", "Black wins in 1"),
        ("tablebase win", "black", "Black wins (tables)", "Black wins (tables)"),
        ("tablebase loss", "black", "White wins (tables)", "White wins (tables)"),
    ]
    got = util_page.evaluate(
        """cases => cases.map(([text, turn]) => [
             window.review.evaluationWords(text, turn),
             window.review.evaluationWords(text, turn, true),
           ])""",
        [[text, turn] for text, turn, _, _ in cases],
    )
    assert got == [[long, short] for _, _, long, short in cases]


#: the review's cap on an evaluation, a proven end (analysis.js WIN), centi-men
REVIEW_WIN = 1000


def review_position(board: Board, judge: Engine, depth: int) -> dict[str, object]:
    """A position as the review evaluates it (analysis.js evaluate): its side to move, and
    an end by the rules as a proven win or loss, else a short search's score and found end."""
    turn = "black" if board.turn is Color.BLACK else "white"
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return {"turn": turn, "score": 0, "mate": None}
        won = outcome.winner is board.turn
        return {"turn": turn, "score": REVIEW_WIN if won else -REVIEW_WIN, "mate": 1 if won else -1}
    found = judge.search(board, make_limit(depth=depth))
    score = max(-REVIEW_WIN, min(REVIEW_WIN, found.score))
    return {"turn": turn, "score": score, "mate": found.mate_in}


def engine_v_random(seed: int, engine_side: Color) -> dict[str, object]:
    """A game of the engine (depth 4) against a mover that picks uniformly among the
    legal moves (seeded), each position evaluated as the review does (depth 6)."""
    rng = random.Random(seed)
    player, judge = open_engine(hash_mb=4), open_engine(hash_mb=4)
    board = Board()
    positions = [review_position(board, judge, 6)]
    plies: list[dict[str, object]] = []
    while board.outcome() is None and board.ply < 300:
        mover = board.turn
        forced = len(board.legal_moves) == 1
        if mover is engine_side:
            move = player.search(board, make_limit(depth=4)).move
        else:
            move = rng.choice(board.legal_moves)
        board.push(move)
        plies.append({"mover": "black" if mover is Color.BLACK else "white", "forced": forced})
        positions.append(review_position(board, judge, 6))
    engine = "black" if engine_side is Color.BLACK else "white"
    return {"positions": positions, "plies": plies, "engine": engine}


def test_review_accuracy_of_a_random_mover_is_far_below_the_engines(util_page: Page) -> None:
    # A mover that plays any legal move is not "96 % accurate": the moves it makes once the
    # game is lost (nothing left to lose, each 100 on its own) must not hide the ones that
    # gave the game away.
    games = [engine_v_random(seed, (Color.BLACK, Color.WHITE)[seed % 2]) for seed in range(8)]
    got = util_page.evaluate(
        """games => games.map((g) => {
             const r = window.review;
             const black = g.positions.map((p) => {
               const es = r.expectedScore(p.score, p.mate);
               return p.turn === "black" ? es : 1 - es;
             });
             const acc = r.accuracy(black, g.plies);
             const random = g.engine === "black" ? "white" : "black";
             return { engine: acc[g.engine], random: acc[random] };
           })""",
        games,
    )
    engine = [g["engine"] for g in got]
    randoms = [g["random"] for g in got]
    figures = f"engine {[round(x, 1) for x in engine]}, random {[round(x, 1) for x in randoms]}"
    assert min(engine) > 90, figures
    assert max(randoms) < 85, figures
    assert sum(randoms) / len(randoms) < 80, figures
    assert all(e - r > 15 for e, r in zip(engine, randoms, strict=True)), figures


NO_SHOWS = [
    "Black wins by forfeit: White did not make a first move within 1 minute (tournament rule)",
    "White wins by forfeit: Black did not make a first move within 2 hours (tournament rule)",
    "White wins by forfeit: Black did not make a first move within 1 day (tournament rule)",
    "Aborted: White did not make a first move within 3 minutes"
    " (arena rule: no result, White is paused)",
]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "pt-BR",
            [
                "Vitória das pretas por W.O.: as brancas não fizeram o primeiro lance em"
                " 1 minuto (regra do torneio)",
                "Vitória das brancas por W.O.: as pretas não fizeram o primeiro lance em"
                " 2 horas (regra do torneio)",
                "Vitória das brancas por W.O.: as pretas não fizeram o primeiro lance em"
                " 1 dia (regra do torneio)",
                "Anulada: as brancas não fizeram o primeiro lance em 3 minutos"
                " (regra da arena: sem resultado, as brancas ficam em pausa)",
            ],
        ),
        (
            "es",
            [
                "Las negras ganan por ausencia: las blancas no hicieron su primera jugada"
                " en 1 minuto (regla del torneo)",
                "Las blancas ganan por ausencia: las negras no hicieron su primera jugada"
                " en 2 horas (regla del torneo)",
                "Las blancas ganan por ausencia: las negras no hicieron su primera jugada"
                " en 1 día (regla del torneo)",
                "Anulada: las blancas no hicieron su primera jugada en 3 minutos"
                " (regla de la arena: sin resultado, las blancas quedan en pausa)",
            ],
        ),
        ("en", NO_SHOWS),
    ],
)
def test_a_no_show_forfeit_is_said_in_the_pages_language(
    server: Server, new_page: PageFactory, language: str, said: list[str]
) -> None:
    """The server's words for the no-show rule (its time in the largest exact unit,
    singular or plural) are said again in the page's language, time and all."""
    page = new_page(locale=language)
    page.goto(server.url("/archive"))
    page.wait_for_selector("#import-form")
    got = page.evaluate(
        """async (reasons) => {
             const outcome = await import('/static/outcome.js');
             return reasons.map((r) => outcome.endingOfReason(r).text);
           }""",
        NO_SHOWS,
    )
    assert got == said
