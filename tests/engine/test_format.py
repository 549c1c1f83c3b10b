"""Scores for people (poolcheckers.engine.format): a win the endgame tables proved
is shown as such, not as a count of men (docs/EGDB.md)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from poolcheckers import Board
from poolcheckers.egdb import Tablebase, build
from poolcheckers.egdb.play import score_of
from poolcheckers.engine import SearchResult
from poolcheckers.engine.format import (
    TABLEBASE_WIN,
    format_score,
    info_fields,
    is_tablebase_score,
)


def test_a_table_win_is_named_not_counted_in_men() -> None:
    # 20000 - 18 plies: the score `analyse` printed as "+199.82" before
    assert format_score(19982, None) == "tablebase win"
    assert format_score(-19982, None) == "tablebase loss"
    assert format_score(TABLEBASE_WIN, None) == "tablebase win"


def test_evaluations_and_mates_keep_their_words() -> None:
    assert format_score(35, None) == "+0.35"
    assert format_score(-1200, None) == "-12.00"
    assert format_score(29997, 3) == "win in 2"
    # a mate found inside a table position stays a mate in moves
    assert format_score(19990, 3) == "win in 2"


@given(st.integers(min_value=-5000, max_value=5000))
def test_no_evaluation_is_taken_for_a_table_result(score: int) -> None:
    assert not is_tablebase_score(score)
    assert format_score(score, None).startswith(("+", "-"))


def test_scores_of_probed_table_results_are_in_the_band(tmp_path: Path) -> None:
    # wins and losses of the <= 3-piece tables, as the engine scores them (R16-R19)
    build(3, tmp_path)
    tb = Tablebase(tmp_path)
    seen = set()
    for fen in ("W:WK29,K30:BK4", "B:WK29,K30:BK4", "W:WK1:BK32", "B:W21:BK1,K5"):
        result = tb.probe(Board(fen))
        assert result is not None, fen
        score = score_of(result)
        text = format_score(score, None)
        seen.add(result.value)
        if result.value == "draw":
            assert text == "+0.00", fen
        else:
            assert text == f"tablebase {result.value}", fen
    assert {"win", "loss"} <= seen


def test_the_web_score_text_says_tablebase() -> None:
    board = Board("W:WK29,K30:BK4")
    move = board.legal_moves[0]
    info = SearchResult(move, 19982, [move], 5, 10, 0.01, None)
    fields = info_fields(board, info)
    assert fields["score_text"] == "tablebase win"
    assert fields["score"] == 19982
