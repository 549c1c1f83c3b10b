"""What a front end shows, from the library (the only rules authority): every path of a
move (R4, R9, R10, R14), the position as 32 characters (R2), a line of moves as PDN
text with move numbers (R3, R4), the end of a game in words with the rule set's
limits (R16, R18, R19, §9), and the §9 options described for a form."""

from __future__ import annotations

import random

import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_movegen_differential import RULES, crowning_positions, positions

from poolcheckers import (
    Board,
    Color,
    IllegalMoveError,
    Move,
    NotYourPieceError,
    Outcome,
    RuleSet,
    Termination,
    pdn,
)

PATH_SETTINGS = settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def _check_paths(placement: dict[int, tuple[str, bool]], color: str, crown: str) -> None:
    board = Board(reference.to_fen(placement, color), rules=RULES[crown])
    expected = reference.legal_moves(placement, color, crown_stop=crown == "stop")
    for move in board.legal_moves:
        paths = board.paths(move)
        assert paths[0] == move.path  # the representative first
        assert len(set(paths)) == len(paths)
        assert set(paths) == expected[(move.origin, move.destination, move.captured)], (
            board.fen(),
            move,
        )


@pytest.mark.parametrize("crown", ["pass", "stop"])
@PATH_SETTINGS
@given(position=positions(king_weight=6))
def test_r4_paths_are_every_way_to_walk_a_move(
    crown: str, position: tuple[dict[int, tuple[str, bool]], str]
) -> None:
    _check_paths(*position, crown)


@pytest.mark.parametrize("crown", ["pass", "stop"])
@PATH_SETTINGS
@given(position=crowning_positions())
def test_r15_paths_through_the_king_row(
    crown: str, position: tuple[dict[int, tuple[str, bool]], str]
) -> None:
    _check_paths(*position, crown)


def test_r10_king_paths_of_one_move() -> None:
    # R9, R10: the flying king on 8 takes 15 and 25, landing on 18 or on 22 between the
    # jumps: two roads to 29 with one captured set are one move (R4).
    board = Board("W:WK8:B15,16,21,25")
    (move,) = board.legal_moves
    assert sorted(board.paths(move)) == [(8, 18, 29), (8, 22, 29)]
    assert board.paths(board.parse_move("8x22x29")) == board.paths(move)


def test_paths_of_a_plain_move_and_of_an_illegal_one() -> None:
    board = Board()
    assert board.paths(board.parse_move("11-15")) == [(11, 15)]
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        board.paths(Move((9, 18)))


def test_r2_squares_text_agrees_with_piece_at() -> None:
    board = Board("B:WK1,20,21:B5,K29,26")
    text = board.squares()
    assert len(text) == 32
    for sq in range(1, 33):
        piece = board.piece_at(sq)
        assert text[sq - 1] == (piece.symbol() if piece else ".")
    board.push_notation("26-30")  # R6, R15: the text follows the board
    assert board.squares()[29] == "B" and board.squares()[25] == "."


def test_r15_squares_show_the_crowned_man() -> None:
    board = Board("B:W:B27")
    board.push_notation("27-31")
    assert board.squares()[30] == "B"


def test_r3_move_numbers_and_variation_text() -> None:
    board = Board()
    assert board.variation_notation([]) == ""
    line = ["11-15", "23-19", "8-11", "22-17"]
    assert board.variation_notation(line) == "1. 11-15 23-19 2. 8-11 22-17"
    for text in line[:3]:
        board.push_notation(text)
    assert board.move_number == 2 and board.start_turn is Color.BLACK
    # a line from White's turn in the middle of the game: "2... "
    assert board.variation_notation(["22-17", "9-13"]) == "2... 22-17 3. 9-13"
    # moves as Move objects: their R4 notation in the position they are played in
    start = Board("W:WK8,30:B15,16,21,25")
    moves = [start.parse_move("8x29")]
    assert start.variation_notation(moves) == "1... 8x29"
    assert start.start_turn is Color.WHITE


def test_r4_variation_refuses_a_bad_move_and_keeps_the_board() -> None:
    board = Board()
    with pytest.raises(NotYourPieceError, match=r"move 2 \(11-15\)"):
        board.variation_notation(["11-15", "11-15"])
    with pytest.raises(IllegalMoveError, match=r"move 1 \(10-19\).*\(R6\)"):
        board.variation_notation(["10-19"])
    assert board.ply == 0 and board == Board()


def test_r16_outcome_words_name_no_pieces_or_blocked() -> None:
    assert Board("W:W:B1").outcome_reason() == "White has no pieces left (R16)"
    assert Board("W:W32:B27,28,23").outcome_reason() == "White has no legal move (R16)"
    assert Board().outcome_reason() is None


def test_r18_outcome_words_give_the_rule_sets_limit() -> None:
    rules = RuleSet(king_only_move_limit=15)
    board = Board("B:WK32:BK1:H30", rules=rules)
    reason = board.outcome_reason()
    assert reason is not None and "15 moves by each side" in reason and "(R18)" in reason
    assert "25 moves" in (Board("B:WK32:BK1:H50").outcome_reason() or "")
    # without a rule set the words name no number (it is the rule set's)
    generic = Outcome(Termination.MOVE_LIMIT, None).reason()
    assert "(R18)" in generic and not any(ch.isdigit() for ch in generic.replace("R18", ""))


def test_r19_outcome_words_draw_or_loss() -> None:
    draw = Outcome(Termination.THREE_KINGS, None).reason(RuleSet.apca())
    assert draw.startswith("Draw") and "13 moves" in draw and "(R19)" in draw
    loss = Outcome(Termination.THREE_KINGS, Color.BLACK).reason(
        RuleSet(three_kings_limit_result="loss")
    )
    assert loss.startswith("Black wins: White's three kings") and "13 moves" in loss
    assert "loss" in loss and "(R19)" in loss


def test_section9_options_describe_the_defaults() -> None:
    options = {o.name: o for o in RuleSet.options()}
    apca = RuleSet.apca().to_dict()
    assert set(options) == set(apca)
    for name, option in options.items():
        assert option.default == apca[name]
        data = option.to_dict()
        assert data["label"] and data["rule"]
        if option.kind == "choice":
            assert option.default in [c["value"] for c in data["choices"]]
            for c in data["choices"]:  # each choice is a valid rule set
                RuleSet.from_dict({name: c["value"]})
    limit = options["king_only_move_limit"]
    assert limit.kind == "number" and limit.minimum == 1 and limit.maximum == 1000
    assert RuleSet.apca().differences() == []
    words = RuleSet(three_kings_limit_result="loss", repetition_draw=True).differences()
    assert len(words) == 2 and "(R19)" in words[0]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(0, 60), white_first=st.booleans())
def test_r4_variation_text_reads_back_as_the_same_game(
    seed: int, length: int, white_first: bool
) -> None:
    # The line the browser shows is PDN move text: the library's PDN reader reads
    # it back as the same moves, from a start with either side to move (R3, R5).
    rng = random.Random(seed)
    start = Board("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12")
    board = start.copy() if white_first else Board()
    played = []
    for _ in range(length):
        if board.outcome() is not None:
            break
        move = rng.choice(board.legal_moves)
        played.append(board.notation(move))
        board.push(move)
    first = Board(board.start_fen)
    text = first.variation_notation(played)
    # a number before each of Black's moves, and "1..." before a line White begins
    numbers = [t for t in text.split() if t.endswith(".")]
    black_moves = len(played[1::2]) if white_first else len(played[0::2])
    assert len(numbers) == black_moves + (1 if white_first and played else 0)
    if white_first and played:
        assert text.startswith("1... ")
    tags = f'[FEN "{board.start_fen}"]\n' if white_first else ""
    (game,) = pdn.read_games(f"{tags}{text} *\n")
    assert game.notations() == played
