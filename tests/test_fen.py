"""R5 position notation (FEN) and move text (R4) read by the library."""

from __future__ import annotations

import random

import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st

from poolcheckers import (
    STARTING_FEN,
    AmbiguousMoveError,
    Board,
    Color,
    FenError,
    IllegalMoveError,
    InvalidSquareError,
    MalformedMoveError,
    NotYourPieceError,
    Piece,
    PieceType,
)
from poolcheckers import fen as fen_module

# ----------------------------------------------------------------- reading R5


def test_start_position_in_every_spelling() -> None:
    start = Board().fen()
    for text in [
        STARTING_FEN,
        "B:W21-32:B1-12",
        "B:B1-12:W21-32",
        "  B : W21-24 , 25-32 : B 1-4,5-8,9-12  ",
        "b:w21-32:b1-12",
        '"B:W21-32:B1-12."',
        "B:W\t21-32:\nB1-12",
    ]:
        assert Board(text).fen() == start, text


def test_kings_marked_with_k() -> None:
    board = Board("W:WK5,18:B3,K30")
    assert board.piece_at(5) == Piece(Color.WHITE, PieceType.KING)
    assert board.piece_at(30) == Piece(Color.BLACK, PieceType.KING)
    assert board.piece_at(18) == Piece(Color.WHITE, PieceType.MAN)
    assert board.turn is Color.WHITE
    assert Board("W:Wk5,18:B3,k30").fen() == "W:WK5,18:B3,K30"


def test_king_ranges() -> None:
    board = Board("B:WK1-3:B5")
    assert board.pieces(Color.WHITE, PieceType.KING) == [1, 2, 3]
    assert board.fen() == "B:WK1,K2,K3:B5"


def test_both_orders_of_the_side_fields() -> None:
    assert Board("W:B1-3:W9,10").fen() == Board("W:W9,10:B1-3").fen() == "W:W9,10:B1,2,3"


def test_empty_sides() -> None:
    assert Board("B:W:B").fen() == "B:W:B"
    assert Board("B:W:B").legal_moves == []


def test_counters_h_and_c() -> None:
    parsed = fen_module.parse("B:WK32:BK1,K2,K3:H12:C4")
    assert (parsed.halfmove_clock, parsed.three_kings_count) == (12, 4)
    assert fen_module.write(parsed) == "B:WK32:BK1,K2,K3:H12:C4"
    board = Board("B:WK32:BK1,K2,K3:C4:H12")
    assert (board.halfmove_clock, board.three_kings_count) == (12, 4)
    assert board.fen() == "B:WK32:BK1,K2,K3:H12:C4"
    # zero counters are not written: a plain R5 FEN stays plain
    assert Board("B:WK32:BK1,K2,K3:H0:C0").fen() == "B:WK32:BK1,K2,K3"


# ----------------------------------------------------------------- rejected FEN


@pytest.mark.parametrize(
    ("text", "token", "words"),
    [
        ("B:W33:B1", "33", "outside 1-32"),
        ("B:W21:B0", "0", "outside 1-32"),
        ("B:W21,30-33:B1", "30-33", "outside 1-32"),
        ("B:W21,21:B1", "21", "twice"),
        ("B:W21-24,22:B1", "22", "twice"),
        ("B:W21:B21", "21", "both sides"),
        ("B:WK5:BK5", "K5", "both sides"),
        ("B:W21-32,13:B1", "W21-32,13", "at most 12"),
        ("B:W21:B1-13", "B1-13", "at most 12"),
        ("B:W21:B30", "30", "crowned"),
        ("B:W21:B29-32", "29-32", "crowned"),
        ("B:W4:B9", "4", "crowned"),
        ("W:W1,22:B9", "1", "crowned"),
        ("X:W21:B1", "X", "side to move"),
        ("B:W21:B1:Z3", "Z3", "W or B"),
        ("B:W21:B1:B3", "B3", "twice"),
        ("B:W21:B1:", "", "empty"),
        ("B:W2a:B1", "2a", "square"),
        ("B:WK:B1", "K", "square"),
        ("B:W23-21:B1", "23-21", "backwards"),
        ("B:WK32:BK1,K2,K3:C14", "C14", "R19"),
    ],
)
def test_impossible_positions_rejected_naming_the_token(text: str, token: str, words: str) -> None:
    with pytest.raises(FenError) as info:
        Board(text)
    assert info.value.token == token
    assert repr(token) in str(info.value)
    assert words in str(info.value)
    assert text[info.value.position :].lstrip().startswith(token)


@pytest.mark.parametrize("text", ["", "   ", "B", "B:W21", "B:B1", "W21:B1", "B:W21-32"])
def test_missing_fields_rejected(text: str) -> None:
    with pytest.raises(FenError):
        Board(text)


def test_failed_set_fen_changes_nothing() -> None:
    board = Board()
    with pytest.raises(FenError):
        board.set_fen("B:W21:B21")
    assert board.fen() == STARTING_FEN


def test_non_ascii_digit_counter_is_a_fen_error() -> None:
    """'²' passes str.isdigit() but is no number (found broken here; fixed in 4a3ab2d)."""
    with pytest.raises(FenError):
        Board("B:W21:B5:H²")


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("B:W21:B" + "5" * 5000, "5" * 5000),
        ("B:W21:BK" + "9" * 5000, "K" + "9" * 5000),
        ("B:W21-" + "3" * 5000 + ":B1", "21-" + "3" * 5000),
        ("B:W21:B" + "0" * 5000 + "100", "0" * 5000 + "100"),
    ],
)
def test_a_square_of_thousands_of_digits_is_a_fen_error_naming_the_token_r5(
    text: str, token: str
) -> None:
    """R5 squares are 1-32: a number of thousands of digits is refused as a FEN error
    naming its token, not left to int() (which refuses more than 4,300 digits)."""
    with pytest.raises(FenError) as info:
        Board(text)
    assert info.value.token == token
    assert repr(token[:20] + "...") in str(info.value)
    assert "(R5)" in str(info.value) and "outside 1-32" in str(info.value)
    assert len(str(info.value)) < 200


def test_leading_zeros_still_name_a_square_r5() -> None:
    assert Board("B:W0021:B001").fen() == "B:W21:B1"
    assert Board("B:W21:B" + "0" * 5000 + "1").fen() == "B:W21:B1"


@pytest.mark.parametrize("text", ["W:W30:B1 2", "B:W21 22:B1"])
def test_whitespace_inside_a_number_list_is_an_error(text: str) -> None:
    """Found broken here ('B1 2' read as 12); fixed in 69ed266."""
    with pytest.raises(FenError) as info:
        Board(text)
    assert info.value.token in text


# ----------------------------------------------------------------- round trips


@st.composite
def placements(draw: st.DrawFn) -> tuple[dict[int, tuple[str, bool]], str, int, int]:
    squares = draw(st.lists(st.integers(1, 32), max_size=24, unique=True))
    placement: dict[int, tuple[str, bool]] = {}
    count = {"b": 0, "w": 0}
    for s in squares:
        color = draw(st.sampled_from("bw"))
        king = draw(st.booleans())
        if reference.to_rc(s)[0] == reference.KING_ROW[color]:
            king = True  # R15: no man on its own crowning row
        if count[color] < 12:
            count[color] += 1
            placement[s] = (color, king)
    halfmove = draw(st.integers(0, 200))
    three = draw(st.integers(0, 13))
    return placement, draw(st.sampled_from("bw")), halfmove, three


@settings(max_examples=400, deadline=None, derandomize=True)
@given(placements())
def test_fen_round_trip(position: tuple[dict[int, tuple[str, bool]], str, int, int]) -> None:
    placement, color, halfmove, three = position
    text = reference.to_fen(placement, color)
    board = Board(text)
    assert board.fen() == text
    assert fen_module.write(fen_module.parse(text)) == text
    for square in range(1, 33):
        piece = board.piece_at(square)
        if square in placement:
            c, king = placement[square]
            assert piece == Piece(
                Color.BLACK if c == "b" else Color.WHITE,
                PieceType.KING if king else PieceType.MAN,
            )
        else:
            assert piece is None
    # with counters: the R18 count always; the R19 count only in 3 kings v 1 king
    counted = f"{text}:H{halfmove}:C{three}"
    again = Board(counted)
    assert again.halfmove_clock == halfmove
    assert again.three_kings_count == (three if again.three_kings_active else 0)
    assert Board(again.fen()).fen() == again.fen()
    assert fen_module.write(fen_module.parse(again.fen())) == again.fen()
    # the same position spelt with ranges, spaces, and K on each king reads the same
    assert Board(_respell(placement, color, random.Random(halfmove))).fen() == text
    # the reversed field order and the lower-case spelling read the same
    side, white, black = text.split(":")
    assert Board(f"{side}:{black}:{white}").fen() == text
    assert Board(text.lower()).fen() == text


def _respell(placement: dict[int, tuple[str, bool]], color: str, rng: random.Random) -> str:
    """R5 text of a position with runs of men as ranges and random blanks around tokens."""

    def blank() -> str:
        return rng.choice(["", "", " ", "  ", "\t", "\n "])

    fields = [blank() + color.upper() + blank()]
    for side in rng.sample(["w", "b"], 2):
        items: list[str] = []
        run: list[int] = []
        for s in [*sorted(placement), 99]:
            if s != 99 and placement[s] == (side, False) and (not run or run[-1] == s - 1):
                run.append(s)
                continue
            if run:
                items.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
                run = []
            if s != 99 and placement[s] == (side, False):
                run = [s]
            elif s != 99 and placement[s] == (side, True):
                items.append(f"K{s}")
        fields.append(side.upper() + blank() + ",".join(blank() + i + blank() for i in items))
    return ":".join(fields)


# ----------------------------------------------------------------- move text


def test_parse_move_malformed() -> None:
    board = Board()
    for text in ["", "abc", "11", "11-", "-15", "11--15", "11 - 15", "11/15", "x11x15"]:
        with pytest.raises(MalformedMoveError):
            board.parse_move(text)


def test_parse_move_not_text() -> None:
    with pytest.raises(MalformedMoveError):
        Board().parse_move(1115)  # type: ignore[arg-type]  # deliberately not text


def test_parse_move_no_such_square() -> None:
    board = Board()
    for text in ["33-29", "0-5", "11-40", "9x14x99"]:
        with pytest.raises(InvalidSquareError, match="outside 1-32"):
            board.parse_move(text)


def test_parse_move_not_your_piece() -> None:
    board = Board()
    with pytest.raises(NotYourPieceError, match="white man"):
        board.parse_move("22-18")
    with pytest.raises(NotYourPieceError, match="empty"):
        board.parse_move("13-17")


def test_parse_move_illegal_with_rule() -> None:
    with pytest.raises(IllegalMoveError, match="R11"):
        Board("B:W18:B14,1").parse_move("1-5")  # a capture is available
    with pytest.raises(IllegalMoveError, match="R13"):
        Board("B:W18,27:B14").parse_move("14x23")  # incomplete capture
    with pytest.raises(IllegalMoveError, match="R6"):
        Board("B:W28:B14").parse_move("14-10")  # a man backward
    with pytest.raises(IllegalMoveError, match="R6"):
        Board().parse_move("10-19")
    with pytest.raises(IllegalMoveError, match="R16"):
        Board("W:W29:B25,22").parse_move("29-25")


def test_parse_move_error_names_the_token() -> None:
    with pytest.raises(IllegalMoveError) as info:
        Board("B:W18:B14,1").parse_move(" 1-5 ")
    assert info.value.token == "1-5"


def test_parse_move_ambiguous_lists_candidates() -> None:
    board = Board("W:WK13:B2,8,K17,19,27")
    with pytest.raises(AmbiguousMoveError) as info:
        board.parse_move("13x4")
    assert sorted(info.value.candidates) == ["13x22x4", "13x31x24x15x4"]
    assert "13x22x4" in str(info.value)
    assert "13x31x24x15x4" in str(info.value)
    # a landing square in the middle picks one
    assert board.parse_move("13x31x4").full_notation() == "13x31x24x15x4"
    assert board.parse_move("13x22x4").full_notation() == "13x22x4"


def test_parse_move_full_path_always_accepted() -> None:
    rng = random.Random(5)
    for _ in range(300):
        board = Board()
        while board.legal_moves and board.ply < 80:
            move = rng.choice(board.legal_moves)
            assert board.parse_move(move.full_notation()) == move
            board.push(move)


def test_parse_move_alternative_path_same_captured_set() -> None:
    """R4: two paths with the same captured set are one move; either names it."""
    board = Board("W:WK7,K12:BK16,K26,K27,K28")
    move = board.parse_move("12x19x30")
    assert board.parse_move("12x23x30") == move
    assert move.captured == frozenset({16, 26})


def test_parse_move_dash_for_a_capture_and_case() -> None:
    board = Board("B:W18:B14,1")
    assert board.parse_move("14-23") == board.parse_move("14x23") == board.parse_move("14X23")


def test_push_notation_plays_the_move() -> None:
    board = Board()
    move = board.push_notation("11-15")
    assert board.move_stack == [move]
    assert board.turn is Color.WHITE


def test_parse_move_incomplete_capture_on_an_alternative_path_cites_r13() -> None:
    # K29 jumps 25 and may land on 22, 18 or 15 before jumping 11: one move, several paths
    board = Board("B:WK1,K11,K25,K28:BK29")
    assert any(15 in path[1:-1] for path in _all_paths(board, 29))
    with pytest.raises(IllegalMoveError, match="R13"):
        board.parse_move("29x15")


def _all_paths(board: Board, origin: int) -> list[tuple[int, ...]]:
    placement = {}
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is not None:
            placement[square] = (
                "b" if piece.color is Color.BLACK else "w",
                piece.type.name == "KING",
            )
    color = "b" if board.turn is Color.BLACK else "w"
    return [
        path
        for (a, _, _), paths in reference.legal_moves(placement, color).items()
        if a == origin
        for path in paths
    ]


@pytest.mark.parametrize("text", ["B:W21:B5:H2:H3", "W:W21:B5:C1:C2"])
def test_a_counter_given_twice_is_an_error(text: str) -> None:
    with pytest.raises(FenError, match="given twice") as info:
        Board(text)
    assert info.value.token in text
