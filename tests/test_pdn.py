"""PDN reading and writing (poolcheckers.pdn): games are produced by playing
seeded random legal games, written, read back and compared; every reader
error names the game, line, column, token and reason (with the rule id)."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolcheckers import STARTING_FEN, Board, Color, Move, PdnError, PoolCheckersError, RuleSet
from poolcheckers.errors import PdnInputError
from poolcheckers.pdn import (
    GAME_TYPE,
    RESULTS,
    PdnGame,
    PdnVariation,
    game_from_board,
    iter_games,
    normalize_result,
    read_file,
    read_games,
    read_games_collect,
    write_file,
    write_game,
    write_games,
)

DATA = Path(__file__).parent / "data"

#: A position where R4 asks for full paths: 9x2x11x4 and 9x18x11x4 both go
#: from 9 to 4 and take different pieces; 9x9 comes back to its origin.
FULL_PATH_FEN = "B:W6,7,8,14,15,20:B9,25"
#: White to move, kings on both sides.
WHITE_TO_MOVE_FEN = "W:W18,22,25,K30,31:B3,6,K10,11,14"

WORDS = (
    "good",
    "weak",
    "the",
    "only",
    "move",
    "(sic)",
    "1-0?",
    "$5",
    "x",
    "[a]",
    '"quoted"',
    "R11!",
    "50%",
    ";",
    "\\",
)
MARKS = ("!", "?", "!!", "??", "!?", "?!")


# ----------------------------------------------------------------- helpers


def legal(board: Board) -> list[Move]:
    """The legal moves in a fixed order (not the generator's), so that a seed
    plays the same game whatever order the generator lists moves in."""
    return sorted(board.legal_moves, key=Move.full_notation)


def play_random(rng: random.Random, board: Board, max_plies: int) -> Board:
    """Play random legal moves on ``board`` until the game ends or ``max_plies``."""
    for _ in range(max_plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(legal(board)))
    return board


def random_variation(rng: random.Random, board: Board, replaced: Move, depth: int) -> PdnVariation:
    """An alternative to ``replaced`` (legal in ``board``) with a short continuation."""
    choices = [m for m in legal(board) if m != replaced] or legal(board)
    variation = PdnVariation()
    first = rng.choice(choices)
    board.push(first)
    variation.moves.append(first)
    for _ in range(rng.randint(0, 4)):
        if board.outcome() is not None:
            break
        move = rng.choice(legal(board))
        board.push(move)
        variation.moves.append(move)
    annotate(rng, variation, board, depth + 1)
    for _ in variation.moves:
        board.pop()
    return variation


def annotate(rng: random.Random, line: PdnGame | PdnVariation, board: Board, depth: int) -> None:
    """Add random comments, NAGs, marks and (nested) variations to ``line``;
    ``board`` stands after the line's last move."""
    n = len(line.moves)
    if rng.random() < 0.3:
        line.comments[0] = " ".join(rng.choices(WORDS, k=rng.randint(1, 5)))
    for ply in range(1, n + 1):
        roll = rng.random()
        if roll < 0.15:
            line.comments[ply] = " ".join(rng.choices(WORDS, k=rng.randint(1, 12)))
        elif roll < 0.25:
            line.nags[ply] = rng.sample(range(0, 256), rng.randint(1, 2))
        elif roll < 0.32:
            line.strengths[ply] = rng.choice(MARKS)
    if depth >= 3 or n == 0:
        return
    # variations: rewind to the position before the chosen ply
    for ply in sorted(rng.sample(range(1, n + 1), min(n, rng.randint(0, 3)))):
        popped = [board.pop() for _ in range(n - ply + 1)]
        replaced = popped[-1]
        count = rng.randint(1, 2)
        line.variations[ply] = [random_variation(rng, board, replaced, depth) for _ in range(count)]
        for move in reversed(popped):
            board.push(move)


def random_game(
    seed: int,
    fen: str = STARTING_FEN,
    max_plies: int = 400,
    annotated: bool = True,
    rules: RuleSet | None = None,
) -> PdnGame:
    rng = random.Random(seed)
    board = play_random(rng, Board(fen, rules), max_plies)
    tags = {
        "Event": f"Random game {seed}",
        "Site": "Test bench, NY USA",
        "Date": "2026.11.29",
        "Round": str(seed),
        "Black": f"Random, Player {seed}",
        "White": 'Bot "the mover" v1',
        "Annotator": "tests/test_pdn.py",
    }
    game = game_from_board(board, tags)
    if annotated:
        annotate(rng, game, board, 0)
    return game


def start_games() -> list[PdnGame]:
    return [random_game(seed) for seed in (1, 2, 3, 4, 5, 6)]


def setup_games() -> list[PdnGame]:
    games = [
        random_game(11, FULL_PATH_FEN),
        random_game(12, WHITE_TO_MOVE_FEN),
        random_game(13, "W:WK1,K2,K3:BK32"),  # three kings v one (R19)
        random_game(14, STARTING_FEN, rules=RuleSet(king_only_move_limit=15)),
    ]
    # the full-path game starts with a move that R4 writes with every square
    board = Board(FULL_PATH_FEN)
    board.push(board.parse_move("9x18x11x4"))
    play_random(random.Random(15), board, 60)
    games.append(game_from_board(board, {"Event": "Full path"}))
    return games


def assert_same_game(back: PdnGame, game: PdnGame) -> None:
    """``back`` (read from ``game`` written) has ``game``'s tags, moves,
    annotations and result; the writer may have added roster tags, and its
    ``Result`` tag is the game's result (a tag left unknown, ``""`` or ``?``,
    beside a result in the moves is written as that result)."""
    assert back.tags.items() >= {**game.tags, "Result": game.result}.items()
    assert back.start_fen == game.start_fen and back.rules == game.rules
    assert back.moves == game.moves
    assert back.comments == game.comments and back.nags == game.nags
    assert back.strengths == game.strengths and back.variations == game.variations
    assert back.result == game.result
    assert write_game(back) == write_game(game)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


# ----------------------------------------------------------------- fixtures


@pytest.mark.parametrize(
    ("name", "make"), [("random_games.pdn", start_games), ("setup_games.pdn", setup_games)]
)
def test_fixture_files_are_the_games_played(name: str, make: object) -> None:
    """The files in tests/data are these played games, written; set
    PDN_REGENERATE=1 to write them again after a deliberate change."""
    assert callable(make)
    games: list[PdnGame] = make()
    text = write_games(games)
    path = DATA / name
    if os.environ.get("PDN_REGENERATE"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text
    assert read_file(path) == games


def test_fixtures_hold_kings_full_paths_white_starts_and_variations() -> None:
    games = read_file(DATA / "random_games.pdn") + read_file(DATA / "setup_games.pdn")
    assert len(games) == 11
    assert all(g.number >= 1 for g in games)
    assert any(g.board().kings for g in games)  # kings at the end
    text = (DATA / "setup_games.pdn").read_text()
    assert "9x18x11x4" in text  # R4: the full path where two captures share from and to
    assert "1... " in text  # a FEN start with White to move
    assert any(g.start_board().turn is Color.WHITE for g in games)
    assert any(g.variations for g in games) and any(g.nags for g in games)
    assert any(any(m.is_capture and len(m.path) > 2 for m in g.moves) for g in games)
    assert {g.result for g in games} >= {"2-0", "0-2"}
    rules = [g.rules for g in games if g.rules != RuleSet.apca()]
    assert rules == [RuleSet(king_only_move_limit=15)]


# ----------------------------------------------------------------- round trips


@pytest.mark.parametrize("seed", range(20))
def test_round_trip_of_played_games(seed: int) -> None:
    game = random_game(seed, max_plies=250)
    text = write_game(game)
    [back] = read_games(text)
    assert back == game
    assert back.tags == game.tags
    assert back.moves == game.moves
    assert back.comments == game.comments
    assert back.variations == game.variations
    assert back.result == game.result
    assert write_game(back) == text
    assert back.board() == game.board()


def test_round_trip_of_many_games_in_one_file() -> None:
    games = [random_game(s, max_plies=120) for s in range(30, 45)]
    text = write_games(games)
    back = read_games(text)
    assert back == games
    assert [g.number for g in back] == list(range(1, 16))
    assert text.count("[Event ") == 15


def test_round_trip_from_a_fen_with_white_to_move() -> None:
    game = random_game(7, WHITE_TO_MOVE_FEN, annotated=False)
    text = write_game(game)
    assert f'[FEN "{WHITE_TO_MOVE_FEN}"]' in text
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1... ")
    assert re.match(r"1\.\.\. \S+ 2\. ", movetext)
    [back] = read_games(text)
    assert back == game and back.start_fen == WHITE_TO_MOVE_FEN
    assert back.boards()[0].turn is Color.WHITE


def test_written_lines_fit_in_80_columns() -> None:
    game = random_game(3)
    game.comments[5] = " ".join(["a-rather-long-word"] * 30)
    text = write_game(game)
    assert all(len(line) <= 80 for line in lines_of(text))
    assert read_games(text) == [game]


def test_full_path_written_only_where_r4_asks() -> None:
    board = Board(FULL_PATH_FEN)
    assert {str(m) for m in board.legal_moves} == {"9x2x11x4", "9x18x11x4", "9x9"}
    board.push(board.parse_move("9x2x11x4"))
    game = game_from_board(board)
    assert "1. 9x2x11x4 " in write_game(game)
    plain = game_from_board(play_random(random.Random(1), Board(), 6))
    assert all(len(n.split("x")) <= 2 for n in plain.notations() if "x" in n)


def test_comment_with_a_closing_brace_is_written_as_a_line_comment() -> None:
    game = random_game(1, annotated=False, max_plies=10)
    game.comments[2] = "a } brace"
    game.comments[3] = "then more"
    text = write_game(game)
    assert "; a } brace\n" in text
    assert read_games(text) == [game]


def test_tag_values_with_quotes_and_backslashes() -> None:
    text = '[Event "The \\"Big\\" One \\\\ 2026"]\n[Black "O\'Hara"]\n\n1. 11-15 *\n'
    [game] = read_games(text)
    assert game.tags["Event"] == 'The "Big" One \\ 2026'
    assert game.tags["Black"] == "O'Hara"
    written = write_game(game)
    assert '[Event "The \\"Big\\" One \\\\ 2026"]' in written
    assert read_games(written)[0].tags == {
        "Event": 'The "Big" One \\ 2026',
        "Site": "?",
        "Date": "????.??.??",
        "Round": "?",
        "Black": "O'Hara",
        "White": "?",
        "Result": "*",
        "GameType": GAME_TYPE,
    }


def test_writer_puts_the_roster_first_in_order() -> None:
    game = PdnGame(tags={"Zeta": "z", "White": "W. Hite", "Event": "E"}, result="*")
    header = [line.split(" ")[0][1:] for line in lines_of(write_game(game)) if line[:1] == "["]
    roster = ["Event", "Site", "Date", "Round", "Black", "White", "Result"]
    assert header == [*roster, "GameType", "Zeta"]


# ----------------------------------------------------------------- reading forms


def test_move_numbers_marks_comments_nags_and_escapes() -> None:
    text = """% a PDN escape line: ignored
[Event "Forms"]
[GameType "23"]

{before the first move} 1.11-15! 22-18?
2... ; the line comment is also a comment
{ multi
  line
  comment }
15x22 $1 $14 3. ... 25x18!? 4. 9-13(?) 1...  23-19 *
"""
    [game] = read_games(text)
    assert [str(m) for m in game.moves] == ["11-15", "22-18", "15x22", "25x18", "9-13", "23-19"]
    assert game.comments == {
        0: "before the first move",
        2: "the line comment is also a comment multi line comment",
    }
    assert game.strengths == {1: "!", 2: "?", 4: "!?", 5: "(?)"}
    assert game.nags == {3: [1, 14]}
    assert game.result == "*" and game.tags["GameType"] == "23"


@pytest.mark.parametrize("notation", ["15x22", "15-22", "15X22", "15:22", "015x022"])
def test_capture_notations_accepted(notation: str) -> None:
    [game] = read_games(f"1. 11-15 22-18 2. {notation} *")
    board = Board()
    board.push_notation("11-15")
    board.push_notation("22-18")
    assert game.moves[2] == board.parse_move("15x22")
    assert game.moves[2].captured == frozenset({18})


def test_full_path_and_shorthand_accepted() -> None:
    [game] = read_games(f'[FEN "{FULL_PATH_FEN}"]\n1. 9x18x11x4 *')
    assert game.moves[0].full_notation() == "9x18x11x4"
    [short] = read_games(f'[FEN "{FULL_PATH_FEN}"]\n1. 9x18x4 *')
    assert short.moves == game.moves
    with pytest.raises(PdnError) as info:
        read_games(f'[FEN "{FULL_PATH_FEN}"]\n1. 9x4 *')
    err = info.value
    assert (err.game, err.line, err.column, err.token) == (1, 2, 4, "9x4")
    assert "ambiguous" in err.reason and "R4" in err.reason


@pytest.mark.parametrize(
    ("result", "normal", "winner"),
    [
        ("2-0", "2-0", Color.BLACK),
        ("1-0", "2-0", Color.BLACK),
        ("0-2", "0-2", Color.WHITE),
        ("0-1", "0-2", Color.WHITE),
        ("1-1", "1-1", None),
        ("1/2-1/2", "1-1", None),
        ("0-0", "0-0", None),
        ("*", "*", None),
    ],
)
def test_results_of_every_form(result: str, normal: str, winner: Color | None) -> None:
    [game] = read_games(f'[Result "{result}"]\n1. 11-15 22-18 {result}')
    assert game.result == result
    assert game.normalized_result == normal == normalize_result(result)
    assert game.winner is winner
    assert result in RESULTS
    assert_same_game(read_games(write_game(game))[0], game)
    [tag_only] = read_games(f'[Result "{result}"]\n1. 11-15 22-18')
    assert tag_only.result == result


def test_result_tag_and_marker_may_differ_in_form_only() -> None:
    [game] = read_games('[Result "1-0"]\n1. 11-15 2-0')
    assert game.result == "2-0"
    with pytest.raises(PdnError) as info:
        read_games('[Result "0-1"]\n1. 11-15 2-0')
    assert (info.value.line, info.value.column, info.value.token) == (2, 10, "2-0")
    assert "Result tag" in info.value.reason


def test_games_are_separated_by_results_and_by_tags() -> None:
    text = '1. 11-15 2-0 1. 9-13 *\n[Event "third"]\n1. 10-14\n[Event "fourth"]\n1. 12-16'
    games = read_games(text)
    assert [g.moves[0].origin for g in games] == [11, 9, 10, 12]
    assert [g.result for g in games] == ["2-0", "*", "*", "*"]
    assert [g.line for g in games] == [1, 1, 2, 4]
    assert [g.tags.get("Event") for g in games] == [None, None, "third", "fourth"]


def test_nested_variations_are_validated_where_they_branch() -> None:
    text = (
        "1. 11-15 22-18 (1... 24-20 (1... 23-19 2. 9-14) 2. 15-19 {v} $6) "
        "(1... 21-17) 2. 15x22 25x18 *"
    )
    [game] = read_games(text)
    assert [str(m) for m in game.moves] == ["11-15", "22-18", "15x22", "25x18"]
    [first, second] = game.variations[2]
    assert [str(m) for m in first.moves] == ["24-20", "15-19"]
    assert first.comments == {2: "v"} and first.nags == {2: [6]}
    assert [str(m) for m in first.variations[1][0].moves] == ["23-19", "9-14"]
    assert [str(m) for m in second.moves] == ["21-17"]
    assert_same_game(read_games(write_game(game))[0], game)


def test_a_variation_move_legal_only_after_the_replaced_move_is_an_error() -> None:
    # after 11-15 22-18 Black must take 15x22 (R11); the variation replaces 22-18,
    # so 15x22 is not available there
    with pytest.raises(PdnError) as info:
        read_games("1. 11-15 22-18 (1... 21-17 2. 15x22) 2. 15x22 *")
    err = info.value
    assert (err.line, err.column, err.token) == (1, 31, "15x22")
    assert "black's move 2" in err.reason


def test_board_boards_and_notations() -> None:
    game = random_game(9, annotated=False, max_plies=40)
    boards = game.boards()
    assert len(boards) == len(game.moves) + 1
    assert boards[0].fen() == STARTING_FEN
    assert boards[-1] == game.board()
    assert game.board().move_stack == game.moves
    replay = Board()
    for text in game.notations():
        replay.push_notation(text)
    assert replay == game.board()
    assert game.board_start_fen == game.start_fen == STARTING_FEN


# ----------------------------------------------------------------- errors


def three_games_with_a_bad_move_in_the_second() -> str:
    games = [random_game(s, annotated=False, max_plies=30) for s in (21, 22, 23)]
    text = write_games(games)
    lines = text.split("\n")
    second = next(i for i, line in enumerate(lines) if line.startswith('[Event "Random game 22"]'))
    movetext_line = second + 10  # 9 tag lines (roster, GameType, Annotator) and a blank
    assert lines[movetext_line].startswith("1. ")
    tokens = lines[movetext_line].split(" ")
    # the 3rd ply, Black's second move: 1-5 onto an occupied square (R6)
    tokens[4] = "1-5"
    lines[movetext_line] = " ".join(tokens)
    return "\n".join(lines)


def test_skip_reads_on_past_a_bad_game() -> None:
    text = three_games_with_a_bad_move_in_the_second()
    errors: list[PdnError] = []
    games = read_games(text, errors="skip", on_error=errors.append)
    assert [g.tags["Event"] for g in games] == ["Random game 21", "Random game 23"]
    assert [g.number for g in games] == [1, 3]
    [err] = errors
    lines = text.split("\n")
    assert err.game == 2
    assert lines[err.line - 1][err.column - 1 :].startswith("1-5")
    assert err.token == "1-5"
    assert "cannot play 1-5 as black's move 2" in err.reason
    assert str(err).startswith(f"game 2, line {err.line}, column {err.column}: ")
    assert "R6" in err.reason


def test_collect_and_raise_modes() -> None:
    text = three_games_with_a_bad_move_in_the_second()
    games, errors = read_games_collect(text)
    assert len(games) == 2 and [e.game for e in errors] == [2]
    with pytest.raises(PdnError) as info:
        read_games(text)
    assert info.value.game == 2
    seen: list[int] = []
    with pytest.raises(PdnError):
        for game in iter_games(text):
            seen.append(game.number)
    assert seen == [1]  # lazy: game 1 came out before the error
    with pytest.raises(PdnInputError, match="errors must be"):
        read_games(text, errors="ignore")  # type: ignore[arg-type]  # deliberately no such mode


# each call deliberately passes a wrong type: the library's own checks under test
@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: read_games(b"1. 11-15 *"), "PDN text must be str, not bytes"),  # type: ignore[arg-type]
        (lambda: read_games(None), "PDN text must be str, not NoneType"),  # type: ignore[arg-type]
        (lambda: read_games_collect(5), "PDN text must be str, not int"),  # type: ignore[arg-type]
        (lambda: iter_games(["1. 11-15 *"]), "PDN text must be str, not list"),  # type: ignore[arg-type]
        (lambda: read_games("1. 11-15 *", rules="apca"), "rules must be a RuleSet"),  # type: ignore[arg-type]
        (lambda: read_games("1. 11-15 *", on_error=5), "on_error must be callable"),  # type: ignore[arg-type]
        (lambda: read_file(5), "named by a str or a path, not int"),  # type: ignore[arg-type]
        (lambda: read_file("x.pdn", errors="all"), "errors must be"),  # type: ignore[arg-type]
    ],
)
def test_input_that_is_not_pdn_text_raises_the_librarys_error(
    call: Callable[[], object], words: str
) -> None:
    """Not TypeError, ValueError or AttributeError: a PdnError, raised at once
    (iter_games is lazy for the games, not for its arguments)."""
    with pytest.raises(PdnInputError, match=words) as info:
        call()
    assert isinstance(info.value, PdnError) and isinstance(info.value, PoolCheckersError)
    assert (info.value.game, info.value.line, info.value.column) == (0, 0, 0)
    assert str(info.value) == info.value.reason and words in info.value.reason


def test_errors_name_rule_line_column_and_token() -> None:
    text = '[Event "x"]\r\n\r\n1. 11-15 22-18\r\n2. 9-13 *'
    with pytest.raises(PdnError) as info:
        read_games(text)
    err = info.value
    assert (err.game, err.line, err.column, err.token) == (1, 4, 4, "9-13")
    assert "R11" in err.reason  # the capture 15x22 is compulsory


def test_carriage_returns_end_lines() -> None:
    for end in ("\r\n", "\r"):
        text = f'[Event "x"]{end}{end}1. 11-15 ; a comment{end}22-18 2. 9-13 *'
        with pytest.raises(PdnError) as info:
            read_games(text)
        assert (info.value.line, info.value.column, info.value.token) == (4, 10, "9-13")
        [game] = read_games(text.replace("9-13", "15x22"))
        assert game.comments == {1: "a comment"}


def test_byte_order_mark_keeps_columns() -> None:
    with pytest.raises(PdnError) as info:
        read_games("\ufeff1. 22-18 *")
    assert (info.value.line, info.value.column) == (1, 4)
    assert "white" in info.value.reason  # 22 holds a white man; Black moves first (R3)


@pytest.mark.parametrize(
    ("text", "token", "column", "words"),
    [
        ("1. 11-15 {never closed", "{never closed", 10, "never closed"),
        ('[Event "no end]\n1. 11-15 *', '[Event "no end]', 1, "malformed tag"),
        ("[Event unquoted]\n1. 11-15 *", "[Event unquoted]", 1, "malformed tag"),
        ("1. c3-d4 *", "c3-d4", 4, "alphanumeric"),
        ("1. 11\u201315 *", "11\u201315", 4, "not ASCII"),
        ("1. 11-15 22-18 2. 15\u00d722 *", "15\u00d722", 19, "not ASCII"),
        ("1. 11-15 - *", "-", 10, "unknown move"),
        ("1. 11-15 $256 *", "$256", 10, "NAG"),
        ("1. 11-15 hello *", "hello", 10, "unexpected"),
        ("(1. 11-15) *", "(", 1, "must follow the move"),
        ("1. 11-15 22-18) *", ")", 15, "closes no variation"),
        ("1. 11-15 (1. 9-13 *", "*", 19, "inside a variation"),
        ("1. 11-15 (1. 9-13", "(", 10, "never closed"),
        ("1. 11-15 () *", "(", 10, "empty variation"),
        ("! 1. 11-15 *", "!", 1, "follows no move"),
        ("1. 11-15 22-18 2. 15x22 $1 25x18 11-16 *", "11-16", 34, "black's move 3"),
        ("1. 33-29 *", "33-29", 4, "R2"),
    ],
)
def test_syntax_errors(text: str, token: str, column: int, words: str) -> None:
    with pytest.raises(PdnError) as info:
        read_games(text)
    err = info.value
    assert (err.game, err.line, err.column, err.token) == (1, 1, column, token)
    assert words in err.reason


def test_a_malformed_tag_spoils_only_its_own_game() -> None:
    text = '1. 11-15\n[Event "no end]\n[Site "y"]\n1. 9-13 *\n[Event "z"]\n1. 10-14 *'
    games, errors = read_games_collect(text)
    assert [g.moves[0].origin for g in games] == [11, 10]
    assert [g.number for g in games] == [1, 3]
    [err] = errors
    assert (err.game, err.line, err.column) == (2, 2, 1)
    assert "malformed tag" in err.reason


def test_duplicate_tag_is_an_error() -> None:
    with pytest.raises(PdnError, match="tag Event is given twice") as info:
        read_games('[Event "a"]\n[Event "b"]\n1. 11-15 *')
    assert (info.value.line, info.value.column) == (2, 1)


def test_tag_pairs_after_movetext_start_a_new_game() -> None:
    games, errors = read_games_collect('1. 11-15 [Event "x"] 22-18 *')
    assert [len(g.moves) for g in games] == [1]
    [err] = errors
    assert (err.game, err.token) == (2, "22-18")
    assert "white man" in err.reason


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("20", "international draughts"),
        ("21,B,8,8,N1,0", "English draughts"),
        ("25", "Russian draughts"),
        ("99", "another game"),
        ("23,W,8,8,A0,0", "variant"),
        ("23,B,8,8,N1,1", "variant"),
        ("twenty-three", "malformed"),
    ],
)
def test_other_game_types_are_rejected(value: str, words: str) -> None:
    text = f'[Event "x"]\n[GameType "{value}"]\n1. 11-15 *'
    with pytest.raises(PdnError) as info:
        read_games(text)
    err = info.value
    assert (err.line, err.column) == (2, 1)
    assert "GameType" in err.reason and words in err.reason
    assert GAME_TYPE in err.reason or "malformed" in err.reason


@pytest.mark.parametrize("value", ["23", "23,B,8,8,N1,0", "23,B,8,8,N1", " 23 "])
def test_game_type_23_is_accepted(value: str) -> None:
    [game] = read_games(f'[GameType "{value}"]\n1. 11-15 *')
    assert len(game.moves) == 1


@pytest.mark.parametrize(
    ("fen", "words", "column"),
    [
        ("B:W33:B1", "outside 1-32 (R2)", 10),
        ("X:W21:B1", "side to move", 7),
        ("B:W21,22:B1,21", "both sides", 19),
        ("", "empty FEN", 7),
        ("B:W1:B2", "already have been crowned (R15)", 10),
    ],
)
def test_fen_tag_errors(fen: str, words: str, column: int) -> None:
    with pytest.raises(PdnError) as info:
        read_games(f'[Event "x"]\n[FEN "{fen}"]\n1. 11-15 *')
    err = info.value
    assert err.line == 2 and err.column == column
    assert "FEN tag" in err.reason and words in err.reason
    assert err.token == f'[FEN "{fen}"]'


def test_fen_tag_sets_up_the_start() -> None:
    [game] = read_games('[FEN "W:W21-32:B1-12"]\n1... 22-18 2. 11-15 *')
    assert game.start_fen == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert game.boards()[0].turn is Color.WHITE
    [standard] = read_games('[FEN "B:W21-32:B1-12"]\n1. 11-15 *')
    assert standard.start_fen == STARTING_FEN
    assert '[FEN "B:W21-32:B1-12"]' in write_game(standard)  # the tag as written
    standard.tags["FEN"] = "B:W1-12:B21-32"  # no longer the game's start: rewritten
    assert "[FEN" not in write_game(standard)
    assert "[FEN" not in write_game(game_from_board(Board()))


def test_result_contradicting_the_final_position() -> None:
    # White has no piece left after 30x16... no: Black captures White's last man here
    text = '[FEN "B:W18:B14"]\n1. 14x23 0-2'
    with pytest.raises(PdnError) as info:
        read_games(text)
    err = info.value
    assert (err.line, err.column, err.token) == (2, 10, "0-2")
    assert "R16" in err.reason and "gives 2-0" in err.reason
    assert read_games('[FEN "B:W18:B14"]\n1. 14x23 2-0')[0].winner is Color.BLACK
    with pytest.raises(PdnError, match="contradicts") as tagged:
        read_games('[FEN "B:W18:B14"]\n[Result "1-1"]\n1. 14x23')
    assert tagged.value.line == 2


def test_moves_after_the_end_of_the_game_are_errors() -> None:
    # R18: 50 plies of king moves without a capture end the game in a draw
    board = Board("B:WK29:BK4:H49")
    board.push_notation("4-8")
    assert board.outcome() is not None
    with pytest.raises(PdnError) as info:
        read_games('[FEN "B:WK29:BK4:H49"]\n1. 4-8 29-25 *')
    assert info.value.token == "29-25"
    assert "the game is over" in info.value.reason and "R18" in info.value.reason


def test_unknown_result_tag_is_an_error() -> None:
    with pytest.raises(PdnError, match="not a PDN result"):
        read_games('[Result "win"]\n1. 11-15 *')


def test_rules_tag() -> None:
    game = random_game(5, annotated=False, rules=RuleSet(crown_during_capture="stop"))
    text = write_game(game)
    assert '[Rules "apca+crown_during_capture=stop"]' in text
    [back] = read_games(text)
    assert back.rules == RuleSet(crown_during_capture="stop") and back == game
    [default] = read_games("1. 11-15 *", rules=RuleSet(repetition_draw=True))
    assert default.rules == RuleSet(repetition_draw=True)
    with pytest.raises(PdnError, match="Rules tag") as info:
        read_games('[Rules "apca+king_only_move_limit=lots"]\n1. 11-15 *')
    assert "R18" in info.value.reason
    with pytest.raises(PdnError, match="Rules tag"):
        read_games('[Rules "checkers"]\n1. 11-15 *')
    [plain] = read_games('[Rules "apca"]\n1. 11-15 *')
    assert plain.rules == RuleSet.apca()
    assert '[Rules "apca"]' in write_game(plain)  # kept as written while it agrees


# ----------------------------------------------------------------- writing API


def test_game_from_board() -> None:
    board = play_random(random.Random(4), Board(), 500)
    outcome = board.outcome()
    assert outcome is not None
    game = game_from_board(board, {"Black": "Ann", "GameId": "abc"})
    assert game.result == outcome.result()
    assert list(game.tags)[:8] == [
        "Event",
        "Site",
        "Date",
        "Round",
        "Black",
        "White",
        "Result",
        "GameType",
    ]
    assert game.tags["GameId"] == "abc" and game.tags["Result"] == game.result
    assert read_games(write_game(game)) == [game]
    # the server passes the result as a tag; "*" means "take it from the board"
    assert game_from_board(board, {"Result": "*"}).result == outcome.result()
    unfinished = game_from_board(play_random(random.Random(4), Board(), 10))
    assert unfinished.result == "*"
    assert game_from_board(Board(), result="1-1").result == "1-1"  # agreement (R17)
    wrong = "0-2" if outcome.result() == "2-0" else "2-0"
    with pytest.raises(ValueError, match="contradicts"):
        game_from_board(board, result=wrong)
    with pytest.raises(ValueError, match="not a PDN result"):
        game_from_board(Board(), result="3-0")
    with pytest.raises(ValueError, match="GameType"):
        game_from_board(Board(), {"GameType": "20"})


def test_writer_rejects_what_it_cannot_write() -> None:
    with pytest.raises(ValueError, match="tag name"):
        write_game(PdnGame(tags={"bad name": "x"}))
    with pytest.raises(ValueError, match="not a PDN result"):
        write_game(PdnGame(result="win"))
    with pytest.raises(ValueError, match=r"illegal|not a legal move"):
        write_game(PdnGame(moves=[Move.from_notation("22-18")]))
    with pytest.raises(ValueError, match="NAG"):
        write_game(PdnGame(moves=[Move.from_notation("11-15")], nags={1: [300]}))
    with pytest.raises(ValueError, match="empty variation"):
        write_game(PdnGame(moves=[Move.from_notation("11-15")], variations={1: [PdnVariation()]}))


def test_write_and_read_file(tmp_path: Path) -> None:
    games = [random_game(s, max_plies=60) for s in (1, 2)]
    games[0].tags["Site"] = "Zürich SUI"
    path = tmp_path / "games.pdn"
    write_file(path, games)
    assert read_file(path) == games
    latin = tmp_path / "latin.pdn"
    latin.write_bytes('[Site "Zürich"]\n1. 11-15 *\n'.encode("latin-1"))
    assert read_file(latin)[0].tags["Site"] == "Zürich"
    bom = tmp_path / "bom.pdn"
    bom.write_bytes(b"\xef\xbb\xbf" + write_games(games).encode())
    assert read_file(bom) == games


# ----------------------------------------------------------------- fuzzing

PDN_ALPHABET = st.sampled_from(
    [
        *'0123456789-x:.{}[]()";$!?*/%\\ \n\tKBWab',
        "11-15",
        "22-18",
        "15x22",
        "1.",
        "1...",
        "2-0",
        "1/2-1/2",
        '[Event "x"]',
        '[FEN "W:W21-32:B1-12"]',
        '[GameType "23"]',
        "{c}",
        "(",
        ")",
        "$3",
        "9x18x11x4",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text_raises_only_pdn_errors(text: str) -> None:
    try:
        games = read_games(text)
    except PdnError as exc:
        assert exc.game >= 1 and exc.line >= 1 and exc.column >= 1
        return
    for game in games:
        assert_same_game(read_games(write_game(game))[0], game)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PDN_ALPHABET, max_size=60).map("".join))
def test_fuzz_pdn_like_text(text: str) -> None:
    games, errors = read_games_collect(text)
    for err in errors:
        assert isinstance(err, PdnError)
        assert 1 <= err.line <= text.count("\n") + 1
        assert err.column >= 1
    for game in games:
        assert_same_game(read_games(write_game(game))[0], game)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fuzz_mutated_game_text(data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 40))
    text = write_game(random_game(seed, max_plies=60))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 5)))
        insert = data.draw(st.sampled_from(["", "x", "-", "(", ")", "{", "}", '"', "1.", " ", "7"]))
        text = text[:i] + insert + text[j:]
    try:
        games = read_games(text)
    except PdnError as exc:
        assert exc.reason and exc.game >= 1
        return
    for game in games:
        assert_same_game(read_games(write_game(game))[0], game)


def test_an_unknown_result_tag_is_kept_as_written_and_written_as_the_moves_result() -> None:
    # found by test_fuzz_mutated_game_text: [Result ""] beside moves that end 2-0
    text = write_game(random_game(0, max_plies=60))
    result = re.search(r'\[Result "([^"]*)"\]', text)
    assert result is not None and result.group(1) == "2-0"
    game = read_games(text.replace(result.group(0), '[Result ""]'))[0]
    assert game.tags["Result"] == "" and game.result == "2-0"
    assert '[Result "2-0"]' in write_game(game)
    assert_same_game(read_games(write_game(game))[0], game)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_fuzz_round_trip_of_random_games(seed: int) -> None:
    game = random_game(seed, max_plies=150)
    assert read_games(write_game(game)) == [game]
