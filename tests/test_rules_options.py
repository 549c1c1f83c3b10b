"""docs/RULES.md §9: every rule option, each with a test of its own."""

from __future__ import annotations

import pytest

from poolcheckers import (
    Board,
    Color,
    Outcome,
    Piece,
    PieceType,
    RuleSet,
    RuleSetError,
    Termination,
    perft,
)

STOP = RuleSet(crown_during_capture="stop")


def moves(fen: str, rules: RuleSet | None = None) -> list[str]:
    return sorted(str(m) for m in Board(fen, rules=rules).legal_moves)


# ----------------------------------------------------------------- the rule set value


def test_apca_is_the_default() -> None:
    rules = RuleSet.apca()
    assert rules == RuleSet()
    assert rules.name == "apca"
    assert rules.to_dict() == {
        "crown_during_capture": "pass",
        "three_kings_limit_result": "draw",
        "king_only_move_limit": 25,
        "repetition_draw": False,
    }
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert Board().rules == rules


def test_options_by_name() -> None:
    rules = RuleSet.from_options(
        [
            "crown_during_capture=stop",
            "three_kings_limit_result=loss",
            "king_only_move_limit=15",
            "repetition_draw=true",
        ]
    )
    assert rules == RuleSet("stop", "loss", 15, True)
    assert rules.name == (
        "apca+crown_during_capture=stop+three_kings_limit_result=loss"
        "+king_only_move_limit=15+repetition_draw=true"
    )
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.king_only_limit_plies == 30


@pytest.mark.parametrize(
    "options",
    [
        ["crown_during_capture=maybe"],
        ["three_kings_limit_result=win"],
        ["king_only_move_limit=0"],
        ["king_only_move_limit=abc"],
        ["repetition_draw=perhaps"],
        ["no_such_option=1"],
        ["crown_during_capture"],
    ],
)
def test_bad_options_are_rejected(options: list[str]) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_options(options)


# ----------------------------------------------------------------- crown_during_capture


def test_crown_during_capture_stop_rule_example() -> None:
    fen = "W:WK3,K10,11,30:BK6,7,K29,K31"
    assert moves(fen) == ["10x1", "11x9"]
    assert moves(fen, STOP) == ["10x1", "11x2"]
    board = Board(fen, rules=STOP)
    board.push_notation("11x2")
    assert board.piece_at(2) == Piece(Color.WHITE, PieceType.KING)
    assert board.turn is Color.BLACK


def test_crown_during_capture_stop_cuts_long_sequences() -> None:
    fen = "W:W11,21,25:B6,K7,K14,15,16,23"
    assert moves(fen) == ["11x18x27", "11x20", "11x2x9x18x11x20", "11x2x9x18x27"]
    # the man stops on 2 whichever way it gets there; 11x2 and 11x18x9x2 share from and to
    assert moves(fen, STOP) == ["11x18x9x2", "11x2", "11x20", "11x27"]


def test_crown_during_capture_stop_same_when_not_passing_the_row() -> None:
    assert moves("B:W18,27,10:B14", STOP) == moves("B:W18,27,10:B14")
    assert perft(Board(rules=STOP), 5) == perft(Board(), 5)


# ----------------------------------------------------------------- three_kings_limit_result


def test_three_kings_limit_result_loss() -> None:
    loss = RuleSet(three_kings_limit_result="loss")
    board = Board("B:WK30:BK20,K21,K8:C12", rules=loss)
    board.push_notation("8-12")
    outcome = board.outcome()
    assert outcome == Outcome(Termination.THREE_KINGS, Color.WHITE)
    assert outcome.result() == "0-2"
    assert "R19" in outcome.reason() and "White wins" in outcome.reason()
    # default: draw
    board = Board("B:WK30:BK20,K21,K8:C12")
    board.push_notation("8-12")
    assert board.outcome() == Outcome(Termination.THREE_KINGS, None)


def test_three_kings_limit_result_loss_for_white_as_strong_side() -> None:
    loss = RuleSet(three_kings_limit_result="loss")
    board = Board("B:WK21,K30,K31:BK4:C13", rules=loss)
    assert board.outcome() == Outcome(Termination.THREE_KINGS, Color.BLACK)


def test_three_kings_loss_still_loses_to_r16_first() -> None:
    loss = RuleSet(three_kings_limit_result="loss")
    board = Board("B:WK29:BK25,K18,K1:C12", rules=loss)
    board.push_notation("18-22")
    assert board.outcome() == Outcome(Termination.NO_MOVES, Color.BLACK)


# ----------------------------------------------------------------- king_only_move_limit


def test_king_only_move_limit_15() -> None:
    fifteen = RuleSet(king_only_move_limit=15)
    board = Board("B:WK29,K30:BK3,K4:H28", rules=fifteen)
    board.push_notation("3-7")
    assert board.halfmove_clock == 29
    assert board.outcome() is None
    board.push_notation("30-26")
    assert board.halfmove_clock == 30
    assert board.outcome() == Outcome(Termination.MOVE_LIMIT, None)
    # the default limit (25 moves) is not reached at 30 plies
    assert Board(board.fen()).outcome() is None


# ----------------------------------------------------------------- repetition_draw

SHUFFLE = ["1-6", "32-27", "6-1", "27-32"]


def test_repetition_draw_true_third_occurrence() -> None:
    rules = RuleSet(repetition_draw=True)
    board = Board("B:WK32:BK1", rules=rules)
    for cycle in range(2):
        for text in SHUFFLE:
            assert not board.has_capture()
            assert board.outcome() is None, (cycle, text)
            board.push_notation(text)
        assert board.repetition_count() == cycle + 2
    outcome = board.outcome()
    assert outcome == Outcome(Termination.REPETITION, None)
    assert outcome.result() == "1-1"
    assert "third" in outcome.reason()


def test_repetition_draw_false_by_default() -> None:
    board = Board("B:WK32:BK1")
    for _ in range(2):
        for text in SHUFFLE:
            board.push_notation(text)
    assert board.repetition_count() == 3
    assert board.outcome() is None


def test_repetition_needs_the_same_side_to_move() -> None:
    rules = RuleSet(repetition_draw=True)
    board = Board("B:WK32:BK1", rules=rules)
    start = board.hash
    # Black goes round a triangle 1-6-10-1 while White goes 32-27-32: the same
    # placement comes back, but with White to move: not a repetition
    for text in ["1-6", "32-27", "6-10", "27-32", "10-1"]:
        board.push_notation(text)
    assert board.fen() == "W:WK32:BK1:H5"
    assert board.hash != start
    assert board.repetition_count() == 1
    board.push_notation("32-27")
    board.push_notation("1-6")
    # K27 v K6 stood on the board after ply 2 too, but with Black to move
    assert board.repetition_count() == 1


def test_repetition_history_is_cut_by_a_man_move() -> None:
    rules = RuleSet(repetition_draw=True)
    board = Board("B:W29,K32:BK1", rules=rules)
    board.push_notation("1-6")
    board.push_notation("29-25")  # a man move: earlier positions cannot come again
    assert board.reversible_history() == []
    board.push_notation("6-1")
    assert len(board.reversible_history()) == 1


@pytest.mark.parametrize(
    "data",
    [
        {"king_only_move_limit": True},
        {"king_only_move_limit": 0},
        {"king_only_move_limit": 1001},
        {"king_only_move_limit": 2.5},
        {"repetition_draw": "maybe"},
        {"repetition_draw": 1.0},
        {"crown_during_capture": None},
        {"three_kings_limit_result": "lose"},
        {"unknown": 1},
    ],
)
def test_bad_option_values_from_json(data: dict[str, object]) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_dict(data)


def test_option_values_from_json() -> None:
    rules = RuleSet.from_dict({"king_only_move_limit": 15, "repetition_draw": True})
    assert rules == RuleSet(king_only_move_limit=15, repetition_draw=True)
    assert RuleSet.from_dict({}) == RuleSet.apca()
    assert RuleSet.from_options(["repetition_draw=false"]) == RuleSet.apca()
