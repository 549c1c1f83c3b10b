"""R16–R21: the end of the game, the R18/R19 counts and their order (R21)."""

from __future__ import annotations

import random

import pytest

from poolcheckers import Board, Color, Move, Outcome, RuleSet, Termination
from poolcheckers.rules import ThreeKingsLimitResult


def quiet_move(board: Board, lookahead: int = 2) -> Move:
    """A legal non-capture after which the side to move has no capture and a quiet reply
    (looking ``lookahead`` plies ahead): lets a test play king moves with nothing taken."""
    for move in sorted(board.legal_moves, key=lambda m: m.path):
        if not move.is_capture and _stays_quiet(board, move, lookahead):
            return move
    raise AssertionError(f"no quiet move in {board.fen()}")


def _stays_quiet(board: Board, move: Move, lookahead: int) -> bool:
    board.push(move)
    try:
        if board.has_capture() or not board.legal_moves:
            return False
        if lookahead <= 1:
            return True
        return any(_stays_quiet(board, reply, lookahead - 1) for reply in board.legal_moves)
    finally:
        board.pop()


# ----------------------------------------------------------------- R16


def test_R16_no_pieces_loses() -> None:
    outcome = Board("W:W:B1").outcome()
    assert outcome == Outcome(Termination.NO_MOVES, Color.BLACK)
    assert outcome.result() == "2-0"
    assert "R16" in outcome.reason() and "White" in outcome.reason()
    outcome = Board("B:W21:B").outcome()
    assert outcome == Outcome(Termination.NO_MOVES, Color.WHITE)
    assert outcome.result() == "0-2"


def test_R16_all_blocked_loses() -> None:
    # the white man on 29 faces 25 with 22 behind it: no move, no capture
    board = Board("W:W29:B25,22")
    assert board.legal_moves == []
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)
    assert board.is_game_over()


def test_R16_blocked_king_in_the_corner() -> None:
    board = Board("W:WK29:BK25,K22")
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_R16_capturing_the_last_piece_wins() -> None:
    board = Board("B:W18:B14")
    board.push_notation("14x23")
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_game_goes_on_while_moves_exist() -> None:
    board = Board()
    assert board.outcome() is None
    assert not board.is_game_over()


# ----------------------------------------------------------------- R17, R20


@pytest.mark.parametrize(
    ("termination", "winner", "result", "words"),
    [
        (Termination.AGREEMENT, None, "1-1", "R17"),
        (Termination.RESIGNATION, Color.WHITE, "0-2", "R20"),
        (Termination.RESIGNATION, Color.BLACK, "2-0", "R20"),
        (Termination.TIME, Color.BLACK, "2-0", "R20"),
        (Termination.TIME, Color.WHITE, "0-2", "R20"),
    ],
)
def test_R17_R20_outcomes_decided_outside_the_board(
    termination: Termination, winner: Color | None, result: str, words: str
) -> None:
    outcome = Outcome(termination, winner)
    assert outcome.result() == result
    assert words in outcome.reason()
    assert termination.rule == words
    if winner is not None:
        assert winner.name.capitalize() in outcome.reason()
        assert winner.opponent.name.capitalize() in outcome.reason()


def test_R20_resignation_reason_names_loser() -> None:
    assert Outcome(Termination.RESIGNATION, Color.WHITE).reason().startswith("Black resigned")


# ----------------------------------------------------------------- R18

KINGS_ONLY = "B:WK29,K30:BK3,K4"


def test_R18_draw_exactly_at_50_plies_not_at_49() -> None:
    board = Board(KINGS_ONLY)
    for ply in range(1, 51):
        board.push(quiet_move(board))
        assert board.halfmove_clock == ply
        if ply < 50:
            assert board.outcome() is None, ply
    outcome = board.outcome()
    assert outcome == Outcome(Termination.MOVE_LIMIT, None)
    assert outcome.result() == "1-1"
    assert "R18" in outcome.reason()


def test_R18_count_from_fen_and_round_trip() -> None:
    board = Board(KINGS_ONLY + ":H48")
    assert board.halfmove_clock == 48
    board.push(quiet_move(board))
    assert board.outcome() is None
    assert board.fen().endswith(":H49")
    again = Board(board.fen())
    assert again.halfmove_clock == 49 and again.fen() == board.fen()
    board.push(quiet_move(board))
    assert board.outcome() == Outcome(Termination.MOVE_LIMIT, None)
    assert Board(board.fen()).outcome() == Outcome(Termination.MOVE_LIMIT, None)


def test_R18_man_move_resets_the_count() -> None:
    board = Board("B:WK32:BK1,9:H30")
    board.push_notation("9-13")
    assert board.halfmove_clock == 0
    assert ":H" not in board.fen()


def test_R18_capture_resets_the_count() -> None:
    board = Board("B:WK32,K18:BK1,K5,14:H40")
    assert board.has_capture()
    board.push(board.legal_moves[0])
    assert board.halfmove_clock == 0


def test_R18_king_moves_count_even_with_men_on_the_board() -> None:
    board = Board("B:W21,K32:BK1,9:H3")
    board.push_notation("1-6")
    assert board.halfmove_clock == 4


def test_R18_pop_restores_the_count() -> None:
    board = Board(KINGS_ONLY + ":H10")
    board.push(quiet_move(board))
    board.pop()
    assert board.halfmove_clock == 10


def test_R21_blocking_move_on_the_50th_ply_wins() -> None:
    """The move on which the R18 count runs out leaves White without a move: Black wins."""
    board = Board("B:WK29:BK25,K18:H49")
    board.push_notation("18-22")
    assert board.halfmove_clock == 50
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_R18_non_blocking_50th_ply_draws_even_if_a_capture_follows() -> None:
    board = Board("B:WK29:BK25,K18:H49")
    board.push_notation("18-14")
    assert board.has_capture()  # White could take 25, but the game is over
    assert board.outcome() == Outcome(Termination.MOVE_LIMIT, None)


# ----------------------------------------------------------------- R19

THREE_V_ONE = "B:WK32:BK1,K2,K3"


def test_R19_draw_after_the_13th_move_not_the_12th() -> None:
    board = Board(THREE_V_ONE)
    assert board.three_kings_active
    assert board.three_kings_count == 0
    for strong_move in range(1, 14):
        board.push(quiet_move(board))  # Black, the three kings
        assert board.three_kings_count == strong_move
        if strong_move < 13:
            assert board.outcome() is None, strong_move
            board.push(quiet_move(board))  # the lone king: not counted
            assert board.three_kings_count == strong_move
            assert board.outcome() is None
    outcome = board.outcome()
    assert outcome == Outcome(Termination.THREE_KINGS, None)
    assert outcome.result() == "1-1"
    assert "R19" in outcome.reason()
    assert board.fen().endswith(":C13")


def test_R19_count_is_readable_and_survives_fen() -> None:
    board = Board(THREE_V_ONE + ":C5")
    assert board.three_kings_count == 5
    board.push(quiet_move(board))
    assert board.three_kings_count == 6
    text = board.fen()
    assert ":C6" in text
    assert Board(text).three_kings_count == 6
    assert Board(text).fen() == text
    board.pop()
    assert board.three_kings_count == 5


def test_R19_count_starts_at_zero_from_a_fen_without_it() -> None:
    """R21: the counts of a set-up position start at zero unless the record carries them."""
    board = Board(THREE_V_ONE)
    assert board.three_kings_count == 0 and board.halfmove_clock == 0
    board.push(quiet_move(board))
    assert board.three_kings_count == 1


def test_R19_capture_creating_the_material_is_not_counted() -> None:
    # Black (4 pieces -> stays 3 kings) captures one of White's two kings: 3 v 1 now
    board = Board("B:WK32,K6:BK1,K3,K12")
    assert not board.three_kings_active
    capture = next(m for m in board.legal_moves if m.captured == frozenset({6}))
    board.push(capture)
    assert board.three_kings_active
    assert board.three_kings_count == 0
    board.push(quiet_move(board))  # the lone king
    assert board.three_kings_count == 0
    board.push(quiet_move(board))  # the strong side's first move in the material
    assert board.three_kings_count == 1


def test_R19_material_created_by_the_lone_kings_capture() -> None:
    # White's king takes one of four black kings: the count starts with Black's next move
    board = Board("W:WK32:BK1,K3,K4,K23")
    assert board.has_capture()
    board.push(next(m for m in board.legal_moves if m.destination == 5))
    assert board.three_kings_active
    assert board.three_kings_count == 0
    board.push(quiet_move(board))
    assert board.three_kings_count == 1


def test_R19_count_applies_to_white_as_the_strong_side() -> None:
    board = Board("W:WK21,K30,K31:BK4:C12")
    board.push(quiet_move(board))
    assert board.outcome() == Outcome(Termination.THREE_KINGS, None)


def test_R19_drawn_even_if_the_14th_move_would_capture() -> None:
    board = Board("B:WK30:BK20,K21,K8:C12")
    assert not board.has_capture()
    board.push_notation("8-12")  # the 13th move
    assert board.three_kings_count == 13
    # every move of the lone king now walks into a capture, but the game is over
    for move in board.legal_moves:
        board.push(move)
        assert board.has_capture()
        board.pop()
    assert board.outcome() == Outcome(Termination.THREE_KINGS, None)


def test_R21_capture_of_the_lone_king_on_the_13th_move_wins() -> None:
    board = Board("B:WK26:BK20,K21,K12:C12")
    assert board.has_capture()
    board.push(board.legal_moves[0])
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_R21_blocking_the_lone_king_on_the_13th_move_wins() -> None:
    board = Board("B:WK29:BK25,K18,K1:C12")
    board.push_notation("18-22")
    assert board.three_kings_count == 13
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)
    # a 13th move that leaves the king a move is the R19 draw
    board = Board("B:WK29:BK25,K18,K1:C12")
    board.push_notation("1-6")
    assert board.outcome() == Outcome(Termination.THREE_KINGS, None)


def test_R19_count_ends_when_the_material_changes() -> None:
    # the lone king takes a king: 2 v 1, the count is gone
    board = Board("W:WK32:BK1,K3,K23:C7")
    assert board.three_kings_count == 7
    board.push(board.legal_moves[0])
    assert board.three_kings_count == 0
    assert not board.three_kings_active


def test_R19_count_ignored_outside_the_material() -> None:
    board = Board("B:WK32,K31:BK1,K2,K3:C9")
    assert board.three_kings_count == 0
    assert board.outcome() is None


def test_R19_men_do_not_make_the_material() -> None:
    board = Board("B:WK32:BK1,K2,6")
    assert not board.three_kings_active


# ----------------------------------------------------------------- R21 order


def test_R21_no_moves_before_r19_and_r18() -> None:
    board = Board("W:WK29:BK25,K22,K1:H60:C13")
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


def test_R21_counters_both_run() -> None:
    board = Board("B:WK32:BK1,K2,K3:H20:C4")
    assert (board.halfmove_clock, board.three_kings_count) == (20, 4)
    assert Board(board.fen()).fen() == "B:WK32:BK1,K2,K3:H20:C4"


def test_outcome_rules_default() -> None:
    assert Board().rules == RuleSet.apca()


# ----------------------------------------------------------------- random play against a model


def _material(board: Board) -> str | None:
    """'b' or 'w' when that side has exactly three kings and no men against one lone king
    without men (R19), else None: worked out from piece_at, square by square."""
    count = {Color.BLACK: [0, 0], Color.WHITE: [0, 0]}  # [men, kings]
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is not None:
            count[piece.color][piece.type.name == "KING"] += 1
    b_men, b_kings = count[Color.BLACK]
    w_men, w_kings = count[Color.WHITE]
    if b_men or w_men:
        return None
    if (b_kings, w_kings) == (3, 1):
        return "b"
    if (b_kings, w_kings) == (1, 3):
        return "w"
    return None


def _mostly_safe(board: Board, rng: random.Random) -> Move:
    """A random move, most often one that leaves the opponent no capture (so that the
    counts get time to run out)."""
    safe = []
    for move in board.legal_moves:
        board.push(move)
        if not board.has_capture():
            safe.append(move)
        board.pop()
    if safe and rng.random() < 0.97:
        return rng.choice(safe)
    return rng.choice(board.legal_moves)


@pytest.mark.parametrize(
    ("limit", "result", "repetition"),
    [(25, "draw", False), (25, "loss", False), (4, "draw", False), (25, "draw", True)],
)
def test_counts_and_outcome_in_random_play(
    limit: int, result: ThreeKingsLimitResult, repetition: bool
) -> None:
    """R16, R18, R19, R21 followed ply by ply in random king endings, against counts kept
    here from the rule text; every kind of ending must occur."""
    rules = RuleSet(
        king_only_move_limit=limit,
        three_kings_limit_result=result,
        repetition_draw=repetition,
    )
    rng = random.Random(limit * 7 + len(result))
    seen: set[Termination] = set()
    for _ in range(150):
        squares = rng.sample(range(1, 33), 6)
        strong, weak = rng.choice([("B", "W"), ("W", "B")])
        n_strong = rng.choice([3, 4])
        fen = f"{rng.choice('BW')}:{strong}K" + ",K".join(map(str, squares[:n_strong]))
        fen += f":{weak}K" + ",K".join(map(str, squares[n_strong:]))
        board = Board(fen, rules=rules)
        halfmove = 0
        three = 0
        positions = [str(board)]  # the diagram names placement and side to move
        while True:
            outcome = board.outcome()
            # the ending as the rule book orders it (R21: R16 first)
            if not board.legal_moves:
                expected = Outcome(Termination.NO_MOVES, board.turn.opponent)
            elif _material(board) is not None and three >= 13:
                side = Color.BLACK if _material(board) == "b" else Color.WHITE
                expected = Outcome(
                    Termination.THREE_KINGS, side.opponent if result == "loss" else None
                )
            elif halfmove >= 2 * limit:
                expected = Outcome(Termination.MOVE_LIMIT, None)
            elif repetition and positions.count(str(board)) >= 3:
                expected = Outcome(Termination.REPETITION, None)
            else:
                expected = None
            assert outcome == expected, board.fen()
            assert board.halfmove_clock == halfmove
            assert board.three_kings_count == three
            if outcome is not None:
                seen.add(outcome.termination)
                break
            before = _material(board)
            mover = "b" if board.turn is Color.BLACK else "w"
            move = _mostly_safe(board, rng)
            board.push(move)
            after = _material(board)
            halfmove = 0 if move.is_capture else halfmove + 1  # kings only: no man moves
            if move.is_capture:
                positions = []  # earlier positions cannot come back
            positions.append(str(board))
            if after is None or before != after:
                three = 0  # the material ends, or a move creates it: not counted
            elif mover == after:
                three += 1  # the strong side's move in the material
    if repetition:
        assert Termination.REPETITION in seen
    elif limit == 25:
        assert seen == {Termination.NO_MOVES, Termination.THREE_KINGS, Termination.MOVE_LIMIT}
    else:  # 8 plies run out before 13 moves of the three kings
        assert seen == {Termination.NO_MOVES, Termination.MOVE_LIMIT}
